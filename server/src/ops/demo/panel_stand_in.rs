//! The demo's connected panel (§7): a small stand-in for a Remnawave
//! backend on 127.0.10.250:3010, holding one host per demo server's VLESS
//! entry point. The demo connects it in apply mode, so `make run` shows
//! meshwatch turning a host off (a server out of rotation) and back on.
//!
//! It answers Remnawave's published contract (github.com/remnawave/backend:
//! `libs/contract/commands/hosts/get-all.command.ts` and the bulk
//! `disable-many-hosts` / `enable-many-hosts` commands) and nothing else,
//! and only with its token: it is a demo of the connector, not a panel.

use super::{address_of, DEMO_PORT, SERVERS};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// Where the stand-in listens (the demo owns 127.0.10.x).
pub const ADDRESS: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 10, 250)), 3010);
/// Its API token: a loopback demo holding nothing of value (the demo
/// refuses a non-loopback address), so the README and the browser tests
/// can name it.
pub const TOKEN: &str = "demo-remnawave-token";
/// The demo's connector.
pub const CONNECTOR: &str = "demo-remnawave";

type Hosts = Arc<Mutex<Vec<Value>>>;

/// The demo servers' hosts, every one on.
fn hosts() -> Vec<Value> {
    SERVERS
        .iter()
        .enumerate()
        .map(|(i, (id, name, ..))| {
            json!({
                "uuid": format!("00000000-0000-4000-8000-{:012}", i + 1),
                "remark": format!("{name} ({id})"),
                "address": address_of(i).to_string(),
                "port": DEMO_PORT,
                "isDisabled": false,
                "tags": [],
                "inbound": {"configProfileUuid": null, "configProfileInboundUuid": null}
            })
        })
        .collect()
}

/// Starts the stand-in; an error when its address is taken (another demo).
pub async fn start() -> anyhow::Result<JoinHandle<()>> {
    let state: Hosts = Arc::new(Mutex::new(hosts()));
    let app = Router::new()
        .route("/api/hosts", get(list))
        .route("/api/hosts/bulk/disable", post(disable))
        .route("/api/hosts/bulk/enable", post(enable))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind(ADDRESS).await.map_err(|e| {
        anyhow::anyhow!("demo panel: cannot listen on {ADDRESS} ({e}); is another demo running?")
    })?;
    Ok(tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!("demo panel stopped: {e}");
        }
    }))
}

fn authorized(headers: &HeaderMap) -> bool {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {TOKEN}"))
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        Json(json!({"message": "Unauthorized", "statusCode": 401})),
    )
        .into_response()
}

async fn list(State(hosts): State<Hosts>, headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return unauthorized();
    }
    let hosts = hosts.lock().map(|h| h.clone()).unwrap_or_default();
    Json(json!({ "response": hosts })).into_response()
}

async fn disable(state: State<Hosts>, headers: HeaderMap, body: Json<Value>) -> Response {
    set(state, headers, body, true)
}

async fn enable(state: State<Hosts>, headers: HeaderMap, body: Json<Value>) -> Response {
    set(state, headers, body, false)
}

fn set(
    State(hosts): State<Hosts>,
    headers: HeaderMap,
    Json(body): Json<Value>,
    disabled: bool,
) -> Response {
    if !authorized(&headers) {
        return unauthorized();
    }
    let Some(uuids) = body["uuids"].as_array() else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    if let Ok(mut hosts) = hosts.lock() {
        for host in hosts.iter_mut().filter(|h| uuids.contains(&h["uuid"])) {
            host["isDisabled"] = json!(disabled);
        }
    }
    StatusCode::NO_CONTENT.into_response()
}
