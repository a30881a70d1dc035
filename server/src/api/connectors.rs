//! `/api/v1/connectors` (API.md "Connected panels"; `admin` scope): add,
//! change, list and delete the panels meshwatch applies its rotation in.

use super::{ApiError, ApiJson};
use crate::state::AppState;
use crate::store::StoredConnector;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use meshwatch::connectors::{ConnectorSpec, ConnectorView};
use meshwatch::ConnectorId;
use std::time::Duration;

/// How long `DELETE` waits for the hosts to be turned back on before it
/// answers 202 with the connector still `removing`.
pub const REMOVE_WAIT: Duration = Duration::from_secs(10);

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/connectors", get(list))
        .route("/connectors/{id}", get(one).put(put).delete(remove))
}

/// A connector as the API shows it: never its token.
pub fn view(c: StoredConnector) -> ConnectorView {
    ConnectorView {
        id: c.id,
        kind: c.kind,
        url: c.url,
        tag: c.tag,
        mode: c.mode,
        token: "(hidden)".to_owned(),
        state: c.state,
        last_sync_at: c.last_sync_at,
        last_error: c.last_error,
        hosts: c.hosts,
        pending: c.pending,
        turned_off: c
            .turned_off
            .into_iter()
            .filter(|r| r.confirmed)
            .map(|r| r.host)
            .collect(),
    }
}

fn connector_id(raw: &str) -> Result<ConnectorId, ApiError> {
    ConnectorId::parse(raw)
        .map_err(|e| ApiError::unprocessable("invalid_id", format!("connector id: {e}")))
}

async fn list(State(state): State<AppState>) -> Result<ApiJson<Vec<ConnectorView>>, ApiError> {
    let connectors = state.store.connectors().await?;
    Ok(ApiJson(connectors.into_iter().map(view).collect()))
}

async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<ApiJson<ConnectorView>, ApiError> {
    let id = connector_id(&id)?;
    let connector = state
        .store
        .connector(&id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no connector {id}")))?;
    Ok(ApiJson(view(connector)))
}

async fn put(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(spec): ApiJson<ConnectorSpec>,
) -> Result<ApiJson<ConnectorView>, ApiError> {
    let id = connector_id(&id)?;
    let checked = spec
        .check()
        .map_err(|e| ApiError::unprocessable(e.code, e.message))?;
    let created = state
        .store
        .put_connector(&id, &checked, state.clock.now())
        .await?;
    tracing::info!(connector = %id, kind = checked.kind.as_str(), mode = checked.mode.as_str(), created, "connector saved through the API");
    state.connector_nudge.notify_one();
    let connector = state
        .store
        .connector(&id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no connector {id}")))?;
    Ok(ApiJson(view(connector)))
}

/// Marks the connector for removal and waits (up to [`REMOVE_WAIT`]) for
/// the evaluating panel to turn its hosts back on: 204 once it is gone,
/// 202 with the connector `removing` while its panel cannot be reached.
async fn remove(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = connector_id(&id)?;
    if !state.store.remove_connector(&id).await? {
        return Err(ApiError::not_found(format!("no connector {id}")));
    }
    tracing::info!(connector = %id, "connector removed through the API");
    state.connector_nudge.notify_one();
    let deadline = tokio::time::Instant::now() + REMOVE_WAIT;
    loop {
        let Some(connector) = state.store.connector(&id).await? else {
            return Ok(StatusCode::NO_CONTENT.into_response());
        };
        if tokio::time::Instant::now() >= deadline {
            return Ok((StatusCode::ACCEPTED, ApiJson(view(connector))).into_response());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
