//! Marzneshin as its published source describes it
//! (github.com/marzneshin/marzneshin at d3b25e23):
//! - `app/routes/admin.py` `admin_token`: `POST /api/admins/token` with
//!   the OAuth2 password form → `{"access_token", "is_sudo", "token_type"}`;
//! - `app/dependencies.py`: `Authorization: Bearer`, else 401 `{"detail":
//!   "Not authenticated"}` or `"Could not validate credentials"`;
//! - `app/routes/inbounds.py`: `GET /api/inbounds/hosts?page=&size=`
//!   (size 1–100) → `{"items", "total", "page", "size", "pages", "links"}`;
//!   `GET|PUT /api/inbounds/hosts/{id}` (404 `{"detail": "Host not
//!   found"}`); `GET /api/inbounds?page=&size=`, each inbound's `config` a
//!   JSON string, and its `protocol` and `node`; `app/routes/node.py`:
//!   `GET /api/nodes?page=&size=` (the same pages) of `NodeResponse`;
//! - `app/db/crud.py` `update_host`: a PUT replaces every field of the host
//!   (what is left out is reset): here a PUT that does not send back every
//!   field as stored, `is_disabled` aside, is a violation.

use super::{undocumented, FakePanel, Log, Request, NODE_ADDRESS, NODE_NAME};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub const USERNAME: &str = "meshwatch";
pub const PASSWORD: &str = "marzneshin: secret";

pub struct Panel {
    pub hosts: Vec<Value>,
    pub inbounds: Vec<Value>,
    pub access: Option<String>,
    pub sign_ins: u32,
}

pub type FakeMarzneshin = FakePanel<Panel>;

pub async fn start(hosts: Vec<Value>, inbounds: Vec<Value>) -> FakeMarzneshin {
    let panel = Panel {
        hosts,
        inbounds,
        access: None,
        sign_ins: 0,
    };
    FakePanel::start(panel, answer).await
}

/// A host as `InboundHostResponse` gives it.
pub fn host(id: i64, address: &str, port: Option<u16>, disabled: bool) -> Value {
    json!({
        "id": id,
        "remark": format!("host {id}"),
        "address": address,
        "uuid": null,
        "password": null,
        "protocol": "vless",
        "network": "tcp",
        "port": port,
        "sni": "www.example.com",
        "host": null,
        "path": null,
        "security": "inbound_default",
        "alpn": "none",
        "fingerprint": "",
        "allowinsecure": null,
        "is_disabled": disabled,
        "fragment": null,
        "noise": null,
        "http_headers": {},
        "mtu": null,
        "dns_servers": null,
        "allowed_ips": null,
        "header_type": null,
        "reality_public_key": null,
        "reality_short_ids": null,
        "flow": "xtls-rprx-vision",
        "shadowtls_version": null,
        "shadowsocks_method": null,
        "splithttp_settings": null,
        "early_data": null,
        "mux_settings": null,
        "universal": false,
        "service_ids": [1, 2],
        "weight": 1,
        "inbound_id": 7,
        "chain_ids": []
    })
}

/// An inbound as `Inbound` gives it, listening on `port`.
pub fn inbound(id: i64, port: u16) -> Value {
    json!({
        "id": id,
        "tag": format!("inbound-{id}"),
        "protocol": "vless",
        "config": json!({"tag": format!("inbound-{id}"), "protocol": "vless", "port": port,
                         "network": "tcp", "tls": "reality"}).to_string(),
        "node": {"id": 1, "name": "node-1", "address": "203.0.113.1", "port": 53042,
                 "connection_backend": "grpclib", "usage_coefficient": 1.0},
        "service_ids": [1]
    })
}

pub fn disabled(fake: &FakeMarzneshin, id: i64) -> bool {
    fake.with(|p| {
        p.hosts
            .iter()
            .find(|h| h["id"] == id)
            .expect("a host of the fake")["is_disabled"]
            == true
    })
}

fn detail(status: StatusCode, detail: &str) -> Response {
    (status, axum::Json(json!({ "detail": detail }))).into_response()
}

/// One page of `items`, as fastapi-pagination's links `Page` gives it.
fn page(log: &mut Log, request: &Request, items: &[Value]) -> Response {
    let number = |key: &str, default: usize| {
        request
            .query
            .get(key)
            .map_or(Some(default), |v| v.parse::<usize>().ok())
    };
    let (Some(page), Some(size)) = (number("page", 1), number("size", 50)) else {
        return undocumented(log, request);
    };
    if page == 0 || size == 0 || size > 100 {
        log.violations
            .push(format!("{} page {page} of size {size}", request.path));
        return detail(StatusCode::UNPROCESSABLE_ENTITY, "invalid page");
    }
    let pages = items.len().div_ceil(size).max(1);
    let slice: Vec<&Value> = items.iter().skip((page - 1) * size).take(size).collect();
    axum::Json(json!({
        "items": slice, "total": items.len(), "page": page, "size": size, "pages": pages,
        "links": {"first": "", "last": "", "self": "", "next": null, "prev": null}
    }))
    .into_response()
}

fn answer(log: &mut Log, panel: &mut Panel, request: &Request) -> Response {
    let (method, path) = (request.method.as_str(), request.path.as_str());
    if (method, path) == ("POST", "/api/admins/token") {
        let form = &request.form;
        if form.get("username").map(String::as_str) != Some(USERNAME)
            || form.get("password").map(String::as_str) != Some(PASSWORD)
        {
            return detail(StatusCode::UNAUTHORIZED, "Incorrect username or password");
        }
        panel.sign_ins += 1;
        let token = format!("mz-access-{}", panel.sign_ins);
        panel.access = Some(token.clone());
        return axum::Json(json!({"access_token": token, "is_sudo": true, "token_type": "bearer"}))
            .into_response();
    }
    let Some(bearer) = request.bearer() else {
        log.violations
            .push(format!("{method} {path} without a token"));
        return detail(StatusCode::UNAUTHORIZED, "Not authenticated");
    };
    if Some(bearer) != panel.access.as_deref() {
        return detail(StatusCode::UNAUTHORIZED, "Could not validate credentials");
    }
    if let Some(id) = path.strip_prefix("/api/inbounds/hosts/") {
        let Ok(id) = id.parse::<i64>() else {
            return undocumented(log, request);
        };
        let Some(stored) = panel.hosts.iter_mut().find(|h| h["id"] == id) else {
            return detail(StatusCode::NOT_FOUND, "Host not found");
        };
        return match method {
            "GET" => axum::Json(stored.clone()).into_response(),
            "PUT" => {
                let body = &request.json;
                if body["remark"].as_str().is_none() || body["address"].as_str().is_none() {
                    return undocumented(log, request);
                }
                let without = |v: &Value| {
                    let mut v = v.clone();
                    if let Some(o) = v.as_object_mut() {
                        o.remove("id");
                        o.remove("is_disabled");
                    }
                    v
                };
                if without(body) != without(stored) {
                    log.violations.push(format!(
                        "PUT {path} would reset fields: sent {body}, stored {stored}"
                    ));
                }
                if !body["is_disabled"].is_boolean() {
                    log.violations
                        .push(format!("PUT {path} without a boolean is_disabled"));
                }
                stored["is_disabled"] = body["is_disabled"].clone();
                axum::Json(stored.clone()).into_response()
            }
            _ => undocumented(log, request),
        };
    }
    match (method, path) {
        ("GET", "/api/inbounds/hosts") => page(log, request, &panel.hosts.clone()),
        ("GET", "/api/inbounds") => page(log, request, &panel.inbounds.clone()),
        ("GET", "/api/nodes") => {
            let node = json!({
                "id": 1, "name": NODE_NAME, "address": NODE_ADDRESS, "port": 53042,
                "connection_backend": "grpclib", "usage_coefficient": 1.0,
                "xray_version": "26.1.0", "status": "healthy", "message": null,
                "inbound_ids": [7], "backends": []
            });
            page(log, request, &[node])
        }
        _ => undocumented(log, request),
    }
}
