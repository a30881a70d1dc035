//! Remnawave's backend as its published contract describes it
//! (github.com/remnawave/backend at 3.3.2):
//! - `libs/contract/commands/hosts/get-all.command.ts`: `GET /api/hosts` →
//!   `{"response": [Host]}`, hosts as `libs/contract/models/hosts.schema.ts`;
//! - `libs/contract/commands/hosts/bulk/disable-many-hosts.command.ts` and
//!   `enable-many-hosts.command.ts`: `POST /api/hosts/bulk/disable|enable`
//!   `{"uuids": [uuid]}` → 204 (3.x); unknown uuids are ignored;
//! - `libs/contract/commands/nodes/get-nodes.command.ts`: `GET /api/nodes`
//!   → `{"response": [Node]}`, nodes as `libs/contract/models/nodes.schema.ts`
//!   with `configProfile.activeInbounds` as
//!   `config-profile-inbounds.schema.ts`;
//! - `src/modules/auth/strategies/jwt.strategy.ts`: `Authorization: Bearer`;
//! - `src/common/middlewares/proxy-check.middleware.ts`: a request without
//!   `X-Forwarded-For` and `X-Forwarded-Proto: https` is dropped (here:
//!   recorded as a violation).

use super::{undocumented, FakePanel, Log, Request, NODE_ADDRESS, NODE_NAME};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub const TOKEN: &str = "remnawave-api-token-for-meshwatch";
/// The config profile and its one inbound every host uses.
const PROFILE: &str = "5c000000-0000-4000-8000-000000000001";
const INBOUND: &str = "5c000000-0000-4000-8000-000000000002";

/// The panel's hosts.
pub struct Hosts(pub Vec<Value>);

pub type FakeRemnawave = FakePanel<Hosts>;

pub async fn start(hosts: Vec<Value>) -> FakeRemnawave {
    FakePanel::start(Hosts(hosts), answer).await
}

/// A host as `hosts.schema.ts` gives it (the fields meshwatch reads, and
/// some it does not, as the real panel sends them).
pub fn host(uuid: &str, address: &str, port: u16, disabled: bool, tags: &[&str]) -> Value {
    json!({
        "uuid": uuid,
        "viewPosition": 1,
        "remark": format!("host {uuid}"),
        "address": address,
        "port": port,
        "path": null,
        "sni": null,
        "host": null,
        "alpn": null,
        "fingerprint": null,
        "isDisabled": disabled,
        "securityLayer": "DEFAULT",
        "xHttpExtraParams": null,
        "muxParams": null,
        "sockoptParams": null,
        "inbound": {"configProfileUuid": PROFILE, "configProfileInboundUuid": INBOUND},
        "serverDescription": null,
        "tags": tags,
        "isHidden": false,
        "overrideSniFromAddress": false,
        "vlessRouteId": null,
        "allowInsecure": false,
        "shuffleHost": false,
        "mihomoX25519": false,
        "nodes": [],
        "xrayJsonTemplateUuid": null,
        "excludedInternalSquads": []
    })
}

/// The node, as `nodes.schema.ts` gives it.
fn node() -> Value {
    json!({
        "uuid": "4e000000-0000-4000-8000-000000000001", "id": 1, "name": NODE_NAME,
        "address": NODE_ADDRESS, "port": 2222, "countryCode": "PL", "tags": [], "note": null,
        "isDisabled": false, "isConnected": true, "isConnecting": false,
        "lastStatusChange": null, "lastStatusMessage": null, "xrayUptime": 0,
        "usersOnline": 0, "versions": null, "system": null,
        "isTrafficTrackingActive": false, "trafficResetDay": null, "trafficLimitBytes": null,
        "trafficUsedBytes": null, "notifyPercent": null, "consumptionMultiplier": 1,
        "nodeConsumptionMultiplier": 1, "viewPosition": 1, "proxyUrl": null,
        "configProfile": {"activeConfigProfileUuid": PROFILE, "activeInbounds": [{
            "uuid": INBOUND, "profileUuid": PROFILE, "tag": "VLESS_REALITY", "type": "vless",
            "network": "tcp", "security": "reality", "port": 443, "rawInbound": {}
        }]},
        "createdAt": "2026-12-01T10:00:00.000Z", "updatedAt": "2026-12-01T10:00:00.000Z"
    })
}

/// Whether host `uuid` is disabled now.
pub fn disabled(fake: &FakeRemnawave, uuid: &str) -> bool {
    fake.with(|hosts| {
        hosts
            .0
            .iter()
            .find(|h| h["uuid"] == uuid)
            .expect("a host of the fake")["isDisabled"]
            == true
    })
}

fn answer(log: &mut Log, hosts: &mut Hosts, request: &Request) -> Response {
    let (method, path) = (request.method.as_str(), request.path.as_str());
    if request.header("x-forwarded-for").is_none_or(str::is_empty)
        || request.header("x-forwarded-proto") != Some("https")
    {
        log.violations
            .push(format!("{method} {path} without the proxy's headers"));
        return StatusCode::BAD_GATEWAY.into_response();
    }
    if request.bearer() != Some(TOKEN) {
        log.violations
            .push(format!("{method} {path} without the token"));
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"message": "Unauthorized", "statusCode": 401})),
        )
            .into_response();
    }
    match (method, path) {
        ("GET", "/api/hosts") => axum::Json(json!({"response": hosts.0})).into_response(),
        ("GET", "/api/nodes") => axum::Json(json!({"response": [node()]})).into_response(),
        ("POST", "/api/hosts/bulk/disable" | "/api/hosts/bulk/enable") => {
            let Some(uuids) = request.json["uuids"].as_array() else {
                return undocumented(log, request);
            };
            let disable = path.ends_with("disable");
            for uuid in uuids {
                if let Some(host) = hosts.0.iter_mut().find(|h| &h["uuid"] == uuid) {
                    host["isDisabled"] = json!(disable);
                }
            }
            StatusCode::NO_CONTENT.into_response()
        }
        _ => undocumented(log, request),
    }
}
