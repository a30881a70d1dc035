//! 3x-ui as its published source describes it (github.com/MHSanaei/3x-ui
//! at main 02002dc1; managed hosts as groups since v3.5.0):
//! - `internal/web/controller/api.go` `checkAPIAuth`: `Authorization:
//!   Bearer <API token>`; anything else on `/panel/api` is a bare 404;
//! - `internal/web/controller/host.go`: `GET /panel/api/hosts/list` →
//!   `HostGroup`s (`internal/web/entity/entity.go`), `POST
//!   /panel/api/hosts/bulk/setEnable` `{"ids": [groupId], "enable"}`;
//!   answers wrapped as `{"success", "msg", "obj"}`;
//! - `internal/web/controller/inbound.go`: `GET /panel/api/inbounds/list`;
//! - `internal/web/controller/node.go`: `GET /panel/api/nodes/list` →
//!   `NodeView`s (`internal/web/service/node_contract.go`);
//! - `internal/web/controller/server.go`: `GET /panel/api/server/status`
//!   (`obj.panelVersion`).
//!
//! `old` stands for a 3x-ui before v3.4.0: no hosts routes (Gin's bare
//! 404), the rest as above.

use super::{undocumented, FakePanel, Log, Request, NODE_ADDRESS, NODE_NAME};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub const TOKEN: &str = "3x-ui-api-token-for-meshwatch";

pub struct Panel {
    pub groups: Vec<Value>,
    /// A version without managed hosts (before v3.4.0).
    pub old: bool,
}

pub type FakeThreeXUi = FakePanel<Panel>;

pub async fn start(groups: Vec<Value>, old: bool) -> FakeThreeXUi {
    FakePanel::start(Panel { groups, old }, answer).await
}

/// A host group as `HostGroup` gives it: `hosts` entries are "addr" or
/// "addr:port"; `port` 0 takes the inbound's.
pub fn group(id: &str, hosts: &[&str], port: u16, disabled: bool) -> Value {
    json!({
        "groupId": id,
        "inboundIds": [3],
        "hosts": hosts,
        "sortOrder": 0,
        "remark": format!("group {id}"),
        "serverDescription": "",
        "isDisabled": disabled,
        "isHidden": false,
        "tags": ["MESHWATCH"],
        "port": port,
        "security": "same",
        "sni": "",
        "hostHeader": "",
        "path": "",
        "alpn": [],
        "fingerprint": "",
        "overrideSniFromAddress": false,
        "keepSniBlank": false,
        "allowInsecure": false,
        "nodeGuids": []
    })
}

fn ok(obj: Value) -> Response {
    axum::Json(json!({"success": true, "msg": "", "obj": obj})).into_response()
}

fn answer(log: &mut Log, panel: &mut Panel, request: &Request) -> Response {
    let (method, path) = (request.method.as_str(), request.path.as_str());
    if request.bearer() != Some(TOKEN) {
        log.violations
            .push(format!("{method} {path} without the token"));
        return StatusCode::NOT_FOUND.into_response();
    }
    match (method, path) {
        ("GET", "/panel/api/server/status") => {
            let version = if panel.old { "3.3.1" } else { "3.6.0" };
            ok(json!({"panelVersion": version, "xray": {"state": "running", "version": "26.1.0"}}))
        }
        ("GET", "/panel/api/inbounds/list") => ok(json!([{
            "id": 3, "up": 0, "down": 0, "total": 0, "remark": "vless", "enable": true,
            "expiryTime": 0, "listen": "", "port": 443, "protocol": "vless",
            "settings": "{}", "streamSettings": "{}", "tag": "inbound-443", "sniffing": "{}"
        }])),
        ("GET", "/panel/api/hosts/list") if !panel.old => ok(json!(panel.groups)),
        ("GET", "/panel/api/nodes/list") => ok(json!([{
            "id": 1, "name": NODE_NAME, "remark": "", "scheme": "https", "address": NODE_ADDRESS,
            "port": 2053, "basePath": "/", "hasApiToken": true, "enable": true,
            "guid": "0b6f3c1e-0000-4000-8000-000000000001", "status": "online",
            "inboundCount": 1, "clientCount": 0, "parentGuid": "", "transitive": false
        }])),
        ("POST", "/panel/api/hosts/bulk/setEnable") if !panel.old => {
            let (Some(ids), Some(enable)) = (
                request.json["ids"].as_array(),
                request.json["enable"].as_bool(),
            ) else {
                return undocumented(log, request);
            };
            for group in panel
                .groups
                .iter_mut()
                .filter(|g| ids.contains(&g["groupId"]))
            {
                group["isDisabled"] = json!(!enable);
            }
            ok(Value::Null)
        }
        ("GET", "/panel/api/hosts/list") => StatusCode::NOT_FOUND.into_response(),
        _ => undocumented(log, request),
    }
}
