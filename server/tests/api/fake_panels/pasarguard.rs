//! PasarGuard as its published source describes it
//! (github.com/PasarGuard/panel at v5.2.1):
//! - `app/routers/admin.py` `admin_token`: `POST /api/admin/token` with the
//!   OAuth2 password form → `{"access_token", "token_type": "bearer"}`;
//!   401 `{"detail": "Incorrect username or password"}`;
//! - `app/routers/authentication.py`: `Authorization: Bearer`; a missing,
//!   expired or unknown token is 401 `{"detail": "Could not validate
//!   credentials"}`;
//! - `app/routers/host.py`: `GET /api/hosts?offset=&limit=` → a bare array
//!   of `BaseHost` (`app/models/host.py`); `POST /api/hosts/bulk/disable|enable`
//!   `{"ids": [int]}` → `{"hosts": [changed ids as strings], "count"}`, 422
//!   for an empty list, 404 `{"detail": "Host not found"}` for an unknown
//!   id (nothing changes then);
//! - `app/routers/core.py`: `GET /api/cores` → `{"count", "cores"}`;
//! - `app/routers/node.py` `get_nodes`: `GET /api/nodes?offset=&limit=` →
//!   `{"nodes": [NodeResponse], "total"}` (`app/models/node.py`).

use super::{undocumented, FakePanel, Log, Request, NODE_ADDRESS, NODE_NAME};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub const USERNAME: &str = "meshwatch";
pub const PASSWORD: &str = "pasarguard: secret";

pub struct Panel {
    pub hosts: Vec<Value>,
    pub cores: Value,
    /// The access token the panel accepts now (`None`: none, say expired).
    pub access: Option<String>,
    pub sign_ins: u32,
}

pub type FakePasarGuard = FakePanel<Panel>;

pub async fn start(hosts: Vec<Value>, cores: Value) -> FakePasarGuard {
    let panel = Panel {
        hosts,
        cores,
        access: None,
        sign_ins: 0,
    };
    FakePanel::start(panel, answer).await
}

/// A host as `BaseHost` gives it.
pub fn host(id: i64, address: &str, port: Option<u16>, disabled: bool) -> Value {
    json!({
        "id": id,
        "remark": format!("host {id}"),
        "address": [address],
        "inbound_tag": "VLESS TCP REALITY",
        "port": port,
        "sni": null,
        "host": null,
        "path": null,
        "security": "inbound_default",
        "alpn": null,
        "fingerprint": "none",
        "allowinsecure": null,
        "is_disabled": disabled,
        "http_headers": null,
        "transport_settings": null,
        "mux_settings": null,
        "fragment_settings": null,
        "noise_settings": null,
        "random_user_agent": false,
        "use_sni_as_host": false,
        "vless_route": null,
        "priority": id,
        "status": [],
        "ech_config_list": null
    })
}

pub fn disabled(fake: &FakePasarGuard, id: i64) -> bool {
    fake.with(|p| {
        p.hosts
            .iter()
            .find(|h| h["id"] == id)
            .expect("a host of the fake")["is_disabled"]
            == true
    })
}

fn detail(status: StatusCode, detail: Value) -> Response {
    (status, axum::Json(json!({ "detail": detail }))).into_response()
}

fn answer(log: &mut Log, panel: &mut Panel, request: &Request) -> Response {
    let (method, path) = (request.method.as_str(), request.path.as_str());
    if (method, path) == ("POST", "/api/admin/token") {
        let form = &request.form;
        if form.get("grant_type").is_some_and(|g| g != "password") {
            return undocumented(log, request);
        }
        if form.get("username").map(String::as_str) != Some(USERNAME)
            || form.get("password").map(String::as_str) != Some(PASSWORD)
        {
            return detail(
                StatusCode::UNAUTHORIZED,
                json!("Incorrect username or password"),
            );
        }
        panel.sign_ins += 1;
        let token = format!("pg-access-{}", panel.sign_ins);
        panel.access = Some(token.clone());
        return axum::Json(json!({"access_token": token, "token_type": "bearer"})).into_response();
    }
    if request.bearer().is_none() {
        log.violations
            .push(format!("{method} {path} without a token"));
    }
    if request.bearer().is_none() || request.bearer() != panel.access.as_deref() {
        return detail(
            StatusCode::UNAUTHORIZED,
            json!("Could not validate credentials"),
        );
    }
    match (method, path) {
        ("GET", "/api/hosts") => {
            if request.query.get("limit").map(String::as_str) != Some("0") {
                return undocumented(log, request);
            }
            axum::Json(json!(panel.hosts)).into_response()
        }
        ("GET", "/api/cores") => axum::Json(panel.cores.clone()).into_response(),
        ("GET", "/api/nodes") => {
            let number = |key: &str| request.query.get(key).and_then(|v| v.parse::<usize>().ok());
            let (Some(offset), Some(limit)) = (number("offset"), number("limit")) else {
                return undocumented(log, request);
            };
            let nodes = [json!({
                "id": 1, "name": NODE_NAME, "address": NODE_ADDRESS, "port": 62050,
                "usage_coefficient": 1.0, "connection_type": "grpc", "status": "connected",
                "message": null, "xray_version": "26.1.0", "node_version": "0.9.0",
                "core_config_id": 1, "uplink": 0, "downlink": 0
            })];
            let page: Vec<&Value> = nodes.iter().skip(offset).take(limit).collect();
            axum::Json(json!({"nodes": page, "total": nodes.len()})).into_response()
        }
        ("POST", "/api/hosts/bulk/disable" | "/api/hosts/bulk/enable") => {
            let Some(ids) = request.json["ids"].as_array() else {
                return undocumented(log, request);
            };
            if ids.is_empty() {
                log.violations.push(format!("{method} {path} with no ids"));
                return detail(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    json!({"ids": "Value error, you must select at least one host"}),
                );
            }
            if ids
                .iter()
                .any(|id| !panel.hosts.iter().any(|h| &h["id"] == id))
            {
                return detail(StatusCode::NOT_FOUND, json!("Host not found"));
            }
            let disable = path.ends_with("disable");
            let mut changed = Vec::new();
            for host in panel.hosts.iter_mut().filter(|h| ids.contains(&h["id"])) {
                if host["is_disabled"] != json!(disable) {
                    host["is_disabled"] = json!(disable);
                    changed.push(host["id"].to_string());
                }
            }
            axum::Json(json!({"count": changed.len(), "hosts": changed})).into_response()
        }
        _ => undocumented(log, request),
    }
}
