//! `/api/v1/connectors` (docs/API.md "Connected panels"; `admin` scope): add,
//! change, list and delete the panels meshwatch applies its rotation in.

use super::{ApiError, ApiJson, ErrorBody};
use crate::commands::connectors::{self as commands, Removal, SaveError};
use crate::engine::Core;
use crate::http::state::AppState;
use crate::outbound::connectors::import::{self as fleet_import, ImportError};
use crate::outbound::Outbound;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use meshwatch::connectors::{ConnectorSpec, ConnectorView};
use meshwatch::fleet::FleetDocument;
use meshwatch::ConnectorId;

/// The operations of this module, for docs/openapi.json.
#[derive(utoipa::OpenApi)]
#[openapi(paths(list, one, put, remove, import))]
pub struct Operations;

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

#[utoipa::path(get, path = "/api/v1/connectors", tag = "connectors",
    responses((status = 200, description = "Every connected panel (never its secrets)", body = Vec<ConnectorView>)))]
async fn list(State(core): State<Core>) -> Result<ApiJson<Vec<ConnectorView>>, ApiError> {
    let connectors = core.store.connectors().await?;
    Ok(ApiJson(
        connectors.into_iter().map(commands::view).collect(),
    ))
}

#[utoipa::path(get, path = "/api/v1/connectors/{id}", tag = "connectors",
    params(("id" = String, Path, description = "The connector's id")),
    responses(
        (status = 200, description = "The connected panel (never its secrets)", body = ConnectorView),
        (status = 404, description = "No such connector", body = ErrorBody),
    ))]
async fn one(
    State(core): State<Core>,
    Path(id): Path<String>,
) -> Result<ApiJson<ConnectorView>, ApiError> {
    let id = connector_id(&id)?;
    let connector = core
        .store
        .connector(&id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no connector {id}")))?;
    Ok(ApiJson(commands::view(connector)))
}

#[utoipa::path(put, path = "/api/v1/connectors/{id}", tag = "connectors",
    params(("id" = String, Path, description = "The connector's id")),
    request_body = ConnectorSpec,
    responses(
        (status = 200, description = "Saved; a sync follows", body = ConnectorView),
        (status = 409, description = "Being removed (`connector_removing`), its panel is connected already (`connector_in_use`), or the most connectors are kept (`too_many_connectors`)", body = ErrorBody),
    ))]
async fn put(
    State(core): State<Core>,
    State(outbound): State<Outbound>,
    Path(id): Path<String>,
    ApiJson(spec): ApiJson<ConnectorSpec>,
) -> Result<ApiJson<ConnectorView>, ApiError> {
    let id = connector_id(&id)?;
    let now = core.clock.now();
    match commands::save(&core.store, &outbound.connector_nudge, &id, &spec, now).await {
        Ok(view) => Ok(ApiJson(view)),
        Err(SaveError::Invalid(e)) => Err(ApiError::unprocessable(e.code, e.message)),
        Err(SaveError::Store(e)) => Err(e.into()),
    }
}

#[utoipa::path(delete, path = "/api/v1/connectors/{id}", tag = "connectors",
    params(("id" = String, Path, description = "The connector's id")),
    responses(
        (status = 204, description = "Its hosts are back on and it is gone"),
        (status = 202, description = "Its panel cannot be reached: `removing` until it can", body = ConnectorView),
        (status = 404, description = "No such connector", body = ErrorBody),
    ))]
/// 204 once its hosts are back on and it is gone; 202 with the connector
/// `removing` while its panel cannot be reached.
async fn remove(
    State(core): State<Core>,
    State(outbound): State<Outbound>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = connector_id(&id)?;
    match commands::remove(&core.store, &outbound.connector_nudge, &id).await? {
        Removal::Gone => Ok(StatusCode::NO_CONTENT.into_response()),
        Removal::Removing(view) => Ok((StatusCode::ACCEPTED, ApiJson(*view)).into_response()),
        Removal::NotFound => Err(ApiError::not_found(format!("no connector {id}"))),
    }
}

#[utoipa::path(post, path = "/api/v1/connectors/{id}/import", tag = "connectors",
    params(("id" = String, Path, description = "The connector's id")),
    responses(
        (status = 200, description = "A fleet document proposed from the panel's nodes and hosts", body = FleetDocument),
        (status = 404, description = "No such connector", body = ErrorBody),
        (status = 502, description = "The panel cannot be read", body = ErrorBody),
    ))]
/// `200` a fleet document proposed from the panel's nodes and hosts (docs/API.md
/// "Connected panels"), for the operator to review and `PUT`; `502` when
/// the panel cannot be read. Changes nothing.
async fn import(
    State(core): State<Core>,
    Path(id): Path<String>,
) -> Result<ApiJson<FleetDocument>, ApiError> {
    let id = connector_id(&id)?;
    match fleet_import::proposal(&core.store, &core.read_model, &id).await {
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
