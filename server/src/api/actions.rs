//! `/api/v1/actions` (API.md § Operator features): configure actions, see
//! their runs, and switch them all off or on.

use super::{ApiError, ApiJson};
use crate::state::AppState;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{delete, get};
use axum::Router;
use meshwatch::actions::{ActionId, ActionRun, ActionSpec, ActionView};
use meshwatch::ServerId;
use serde::{Deserialize, Serialize};

/// Runs listed at most by one request.
pub const MAX_RUNS_LISTED: i64 = 200;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/actions", get(list).post(create))
        .route("/actions/runs", get(runs))
        .route("/actions/enabled", get(enabled).put(switch))
        .route("/actions/{id}", delete(remove))
}

async fn list(State(state): State<AppState>) -> Result<ApiJson<Vec<ActionView>>, ApiError> {
    let actions = state.store.actions().await?;
    Ok(ApiJson(actions.iter().map(|a| a.view()).collect()))
}

async fn create(
    State(state): State<AppState>,
    ApiJson(spec): ApiJson<ActionSpec>,
) -> Result<(StatusCode, ApiJson<ActionView>), ApiError> {
    let (name, on, after_minutes, kind) = spec
        .validate()
        .map_err(|e| ApiError::unprocessable(e.code(), e.to_string()))?;
    let action = state
        .store
        .create_action(&name, on, after_minutes, &kind, state.clock.now())
        .await?;
    tracing::info!(action = %action.name, on = on.as_str(), "action created through the API");
    Ok((StatusCode::CREATED, ApiJson(action.view())))
}

async fn remove(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let missing = || ApiError::not_found(format!("no action {id:?}"));
    let number: i64 = id.parse().map_err(|_| missing())?;
    if !state.store.delete_action(ActionId(number)).await? {
        return Err(missing());
    }
    tracing::info!(action = number, "action deleted through the API");
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
struct RunsQuery {
    server_id: Option<String>,
}

async fn runs(
    State(state): State<AppState>,
    Query(query): Query<RunsQuery>,
) -> Result<ApiJson<Vec<ActionRun>>, ApiError> {
    let server = query
        .server_id
        .map(|id| {
            ServerId::parse(&id).map_err(|_| {
                ApiError::unprocessable("invalid_server_id", format!("{id:?} is not a server id"))
            })
        })
        .transpose()?;
    Ok(ApiJson(
        state
            .store
            .action_runs(server.as_ref(), MAX_RUNS_LISTED)
            .await?,
    ))
}

/// The global switch.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Switch {
    enabled: bool,
}

async fn enabled(State(state): State<AppState>) -> Result<ApiJson<Switch>, ApiError> {
    Ok(ApiJson(Switch {
        enabled: state.store.actions_enabled().await?,
    }))
}

async fn switch(
    State(state): State<AppState>,
    ApiJson(switch): ApiJson<Switch>,
) -> Result<ApiJson<Switch>, ApiError> {
    state.store.set_actions_enabled(switch.enabled).await?;
    tracing::warn!(enabled = switch.enabled, "actions switched through the API");
    Ok(ApiJson(switch))
}
