//! `/api/v1/actions` (docs/API.md § Operator features): configure actions, see
//! their runs, and switch them all off or on.

use super::{ApiError, ApiJson, ErrorBody};
use crate::state::AppState;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::Router;
use meshwatch::actions::{ActionBudget, ActionId, ActionRun, ActionSpec, ActionView, OffReason};
use meshwatch::ServerId;
use serde::{Deserialize, Serialize};

/// Runs listed at most by one request.
pub const MAX_RUNS_LISTED: i64 = 200;

/// The operations of this module, for docs/openapi.json.
#[derive(utoipa::OpenApi)]
#[openapi(paths(list, create, remove, runs, enabled, switch, budget, set_budget, rerun))]
pub struct Operations;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/actions", get(list).post(create))
        .route("/actions/runs", get(runs))
        .route("/actions/enabled", get(enabled).put(switch))
        .route("/actions/budget", get(budget).put(set_budget))
        .route("/actions/runs/{id}/rerun", post(rerun))
        .route("/actions/{id}", delete(remove))
}

#[utoipa::path(get, path = "/api/v1/actions", tag = "actions",
    responses((status = 200, description = "Every action", body = Vec<ActionView>)))]
async fn list(State(state): State<AppState>) -> Result<ApiJson<Vec<ActionView>>, ApiError> {
    let actions = state.store.actions().await?;
    Ok(ApiJson(
        actions
            .iter()
            .map(|a| a.view(&state.action_policy))
            .collect(),
    ))
}

#[utoipa::path(post, path = "/api/v1/actions", tag = "actions",
    request_body = ActionSpec,
    responses(
        (status = 201, description = "The action, created", body = ActionView),
        (status = 409, description = "The name is taken (`name_taken`), or the most actions are kept (`too_many_actions`)", body = ErrorBody),
    ))]
async fn create(
    State(state): State<AppState>,
    ApiJson(spec): ApiJson<ActionSpec>,
) -> Result<(StatusCode, ApiJson<ActionView>), ApiError> {
    let action =
        crate::actions::create(&state.store, &state.action_policy, spec, state.clock.now())
            .await
            .map_err(|e| match e {
                crate::actions::CreateError::Refused(e) => {
                    ApiError::unprocessable(e.code(), e.to_string())
                }
                crate::actions::CreateError::Store(e) => e.into(),
            })?;
    tracing::info!(action = %action.name, on = action.on.as_str(), "action created through the API");
    Ok((
        StatusCode::CREATED,
        ApiJson(action.view(&state.action_policy)),
    ))
}

#[utoipa::path(delete, path = "/api/v1/actions/{id}", tag = "actions",
    params(("id" = i64, Path, description = "The action's number")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such action", body = ErrorBody),
    ))]
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

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct RunsQuery {
    /// Only this server's runs.
    server_id: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/actions/runs", tag = "actions",
    params(RunsQuery),
    responses(
        (status = 200, description = "The latest runs, newest first (at most 200)", body = Vec<ActionRun>),
        (status = 422, description = "`server_id` is not a server id", body = ErrorBody),
    ))]
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
#[derive(Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct Switch {
    enabled: bool,
}

/// Where the switch stands, and why actions switched themselves off.
#[derive(Serialize, utoipa::ToSchema)]
struct SwitchView {
    enabled: bool,
    off_reason: Option<OffReason>,
}

#[utoipa::path(get, path = "/api/v1/actions/enabled", tag = "actions",
    responses((status = 200, description = "Where the switch stands", body = SwitchView)))]
async fn enabled(State(state): State<AppState>) -> Result<ApiJson<SwitchView>, ApiError> {
    Ok(ApiJson(SwitchView {
        enabled: state.store.actions_enabled().await?,
        off_reason: state.store.actions_off_reason().await?,
    }))
}

#[utoipa::path(put, path = "/api/v1/actions/enabled", tag = "actions",
    request_body = Switch,
    responses((status = 200, description = "Where the switch stands now", body = SwitchView)))]
async fn switch(
    State(state): State<AppState>,
    ApiJson(switch): ApiJson<Switch>,
) -> Result<ApiJson<SwitchView>, ApiError> {
    state.store.set_actions_enabled(switch.enabled).await?;
    tracing::warn!(enabled = switch.enabled, "actions switched through the API");
    Ok(ApiJson(SwitchView {
        enabled: switch.enabled,
        off_reason: None,
    }))
}

#[utoipa::path(get, path = "/api/v1/actions/budget", tag = "actions",
    responses((status = 200, description = "The budget", body = ActionBudget)))]
/// `GET /api/v1/actions/budget`: `{"runs_per_hour", "cooldown_s"}`.
async fn budget(State(state): State<AppState>) -> Result<ApiJson<ActionBudget>, ApiError> {
    Ok(ApiJson(state.store.action_budget().await?))
}

#[utoipa::path(put, path = "/api/v1/actions/budget", tag = "actions",
    request_body = ActionBudget,
    responses((status = 200, description = "The budget now", body = ActionBudget)))]
/// `PUT /api/v1/actions/budget` with both bounds; 422 `invalid_budget`
/// outside their ranges, and nothing changes.
async fn set_budget(
    State(state): State<AppState>,
    ApiJson(budget): ApiJson<ActionBudget>,
) -> Result<ApiJson<ActionBudget>, ApiError> {
    budget
        .validate()
        .map_err(|why| ApiError::unprocessable("invalid_budget", why))?;
    state.store.set_action_budget(&budget).await?;
    tracing::warn!(
        runs_per_hour = budget.runs_per_hour,
        cooldown_s = budget.cooldown_s,
        "action budget changed through the API"
    );
    Ok(ApiJson(budget))
}

#[utoipa::path(post, path = "/api/v1/actions/runs/{id}/rerun", tag = "actions",
    params(("id" = i64, Path, description = "The run's number")),
    responses(
        (status = 202, description = "Due now; it runs if its incident still stands"),
        (status = 404, description = "No interrupted run with this number", body = ErrorBody),
    ))]
/// `POST /api/v1/actions/runs/{id}/rerun`: an interrupted run, due now
/// (it still runs only if its incident stands); 404 for any other.
async fn rerun(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let missing = || ApiError::not_found(format!("no interrupted run {id:?}"));
    let number: i64 = id.parse().map_err(|_| missing())?;
    if !state.store.rerun(number, state.clock.now()).await? {
        return Err(missing());
    }
    tracing::warn!(
        run = number,
        "interrupted action run started again through the API"
    );
    Ok(StatusCode::ACCEPTED)
}
