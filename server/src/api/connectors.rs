//! `/api/v1/connectors` (docs/API.md "Connected panels"; `admin` scope): add,
//! change, list and delete the panels meshwatch applies its rotation in.

use super::{ApiError, ApiJson};
use crate::connectors::commands::{self, Removal, SaveError};
use crate::connectors::import::{self as fleet_import, ImportError};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use meshwatch::connectors::{ConnectorSpec, ConnectorView};
use meshwatch::fleet::FleetDocument;
use meshwatch::ConnectorId;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/connectors", get(list))
        .route("/connectors/{id}", get(one).put(put).delete(remove))
        .route("/connectors/{id}/import", post(import))
}

fn connector_id(raw: &str) -> Result<ConnectorId, ApiError> {
    ConnectorId::parse(raw)
        .map_err(|e| ApiError::unprocessable("invalid_id", format!("connector id: {e}")))
}

async fn list(State(state): State<AppState>) -> Result<ApiJson<Vec<ConnectorView>>, ApiError> {
    let connectors = state.store.connectors().await?;
    Ok(ApiJson(
        connectors.into_iter().map(commands::view).collect(),
    ))
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
    Ok(ApiJson(commands::view(connector)))
}

async fn put(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(spec): ApiJson<ConnectorSpec>,
) -> Result<ApiJson<ConnectorView>, ApiError> {
    let id = connector_id(&id)?;
    let now = state.clock.now();
    match commands::save(&state.store, &state.connector_nudge, &id, &spec, now).await {
        Ok(view) => Ok(ApiJson(view)),
        Err(SaveError::Invalid(e)) => Err(ApiError::unprocessable(e.code, e.message)),
        Err(SaveError::Store(e)) => Err(e.into()),
    }
}

/// 204 once its hosts are back on and it is gone; 202 with the connector
/// `removing` while its panel cannot be reached.
async fn remove(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = connector_id(&id)?;
    match commands::remove(&state.store, &state.connector_nudge, &id).await? {
        Removal::Gone => Ok(StatusCode::NO_CONTENT.into_response()),
        Removal::Removing(view) => Ok((StatusCode::ACCEPTED, ApiJson(*view)).into_response()),
        Removal::NotFound => Err(ApiError::not_found(format!("no connector {id}"))),
    }
}

/// `200` a fleet document proposed from the panel's nodes and hosts (docs/API.md
/// "Connected panels"), for the operator to review and `PUT`; `502` when
/// the panel cannot be read. Changes nothing.
async fn import(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<ApiJson<FleetDocument>, ApiError> {
    let id = connector_id(&id)?;
    match fleet_import::proposal(&state.store, &state.read_model, &id).await {
        Ok(proposal) => Ok(ApiJson(proposal.document)),
        Err(ImportError::NotFound(id)) => Err(ApiError::not_found(format!("no connector {id}"))),
        Err(ImportError::Panel(e)) => Err(ApiError::new(
            StatusCode::BAD_GATEWAY,
            "panel_error",
            format!("the connected panel could not be read: {e}"),
        )),
        Err(ImportError::Store(e)) => Err(e.into()),
    }
}
