//! Marzban 0.8.x as its published source describes it
//! (github.com/Gozargah/Marzban at v0.8.4):
//! - `app/routers/admin.py` `admin_token`: `POST /api/admin/token` with the
//!   OAuth2 password form → `{"access_token", "token_type": "bearer"}`;
//! - `app/routers/system.py`: `GET /api/hosts` → inbound tag → `[ProxyHost]`
//!   (`app/models/proxy.py`; no ids); `PUT /api/hosts` with tag → the whole
//!   list replaces only the named tags' lists and answers the whole
//!   document (`app/db/crud.py` `update_hosts`), 400 `{"detail": "Inbound
//!   X doesn't exist"}` for an unknown tag; `GET /api/inbounds` → protocol
//!   → `[{"tag", "protocol", "network", "tls", "port"}]`;
//! - `app/routers/node.py` `get_nodes`: `GET /api/nodes` → `[NodeResponse]`
//!   (`app/models/node.py`).
//!
//! A `PUT` that would change anything of a host but `is_disabled` (an
//! operator's edit overwritten) is a violation.

use super::{undocumented, FakePanel, Log, Request, NODE_ADDRESS, NODE_NAME};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

pub const USERNAME: &str = "meshwatch";
pub const PASSWORD: &str = "marzban: secret";
pub const TAG: &str = "VLESS TCP REALITY";

pub struct Panel {
    pub document: Map<String, Value>,
    pub access: Option<String>,
    pub sign_ins: u32,
    /// An operator's edit, made right after the next `GET /api/hosts` is
    /// answered: the remark of host `.0` (index in [`TAG`]'s list) becomes
    /// `.1`.
    pub edit_after_next_read: Option<(usize, String)>,
}

pub type FakeMarzban = FakePanel<Panel>;

pub async fn start(hosts: Vec<Value>) -> FakeMarzban {
    let mut document = Map::new();
    document.insert(TAG.into(), Value::Array(hosts));
    // A second inbound meshwatch has nothing to do with.
    document.insert(
        "TROJAN WS".into(),
        json!([host("trojan", "cdn.example", Some(8443), false)]),
    );
    let panel = Panel {
        document,
        access: None,
        sign_ins: 0,
        edit_after_next_read: None,
    };
    FakePanel::start(panel, answer).await
}

/// A host as `ProxyHost` gives it.
pub fn host(remark: &str, address: &str, port: Option<u16>, disabled: bool) -> Value {
    json!({
        "remark": remark,
        "address": address,
        "port": port,
        "sni": "www.example.com",
        "host": null,
        "path": null,
        "security": "inbound_default",
        "alpn": "",
        "fingerprint": "chrome",
        "allowinsecure": null,
        "is_disabled": disabled,
        "mux_enable": false,
        "fragment_setting": null,
        "noise_setting": null,
        "random_user_agent": false,
        "use_sni_as_host": false
    })
}

fn detail(status: StatusCode, detail: &str) -> Response {
    (status, axum::Json(json!({ "detail": detail }))).into_response()
}

/// A list with every `is_disabled` set aside.
fn without_state(list: &Value) -> Value {
    let mut list = list.clone();
    for host in list.as_array_mut().into_iter().flatten() {
        if let Some(o) = host.as_object_mut() {
            o.remove("is_disabled");
        }
    }
    list
}

fn answer(log: &mut Log, panel: &mut Panel, request: &Request) -> Response {
    let (method, path) = (request.method.as_str(), request.path.as_str());
    if (method, path) == ("POST", "/api/admin/token") {
        let form = &request.form;
        if form.get("username").map(String::as_str) != Some(USERNAME)
            || form.get("password").map(String::as_str) != Some(PASSWORD)
        {
            return detail(StatusCode::UNAUTHORIZED, "Incorrect username or password");
        }
        panel.sign_ins += 1;
        let token = format!("mb-access-{}", panel.sign_ins);
        panel.access = Some(token.clone());
        return axum::Json(json!({"access_token": token, "token_type": "bearer"})).into_response();
    }
    let Some(bearer) = request.bearer() else {
        log.violations
            .push(format!("{method} {path} without a token"));
        return detail(StatusCode::UNAUTHORIZED, "Not authenticated");
    };
    if Some(bearer) != panel.access.as_deref() {
        return detail(StatusCode::UNAUTHORIZED, "Could not validate credentials");
    }
    match (method, path) {
        ("GET", "/api/hosts") => {
            let answered = axum::Json(Value::Object(panel.document.clone())).into_response();
            if let Some((index, remark)) = panel.edit_after_next_read.take() {
                panel.document[TAG][index]["remark"] = json!(remark);
            }
            answered
        }
        ("GET", "/api/inbounds") => axum::Json(json!({"vless": [
            {"tag": TAG, "protocol": "vless", "network": "tcp", "tls": "reality", "port": 443}
        ], "trojan": [
            {"tag": "TROJAN WS", "protocol": "trojan", "network": "ws", "tls": "tls", "port": 8443}
        ]}))
        .into_response(),
        ("GET", "/api/nodes") => axum::Json(json!([{
            "id": 1, "name": NODE_NAME, "address": NODE_ADDRESS, "port": 62050,
            "api_port": 62051, "usage_coefficient": 1.0, "xray_version": "1.8.24",
            "status": "connected", "message": null
        }]))
        .into_response(),
        ("PUT", "/api/hosts") => {
            let Some(body) = request.json.as_object() else {
                return undocumented(log, request);
            };
            for (tag, list) in body {
                let Some(stored) = panel.document.get(tag) else {
                    return detail(
                        StatusCode::BAD_REQUEST,
                        &format!("Inbound {tag} doesn't exist"),
                    );
                };
                if without_state(stored) != without_state(list) {
                    log.violations.push(format!(
                        "PUT /api/hosts overwrites {tag}: sent {list}, stored {stored}"
                    ));
                }
            }
            for (tag, list) in body {
                panel.document.insert(tag.clone(), list.clone());
            }
            axum::Json(Value::Object(panel.document.clone())).into_response()
        }
        _ => undocumented(log, request),
    }
}
