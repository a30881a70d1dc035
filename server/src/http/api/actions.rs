//! `/api/v1/actions` (docs/API.md § Operator features): configure actions, see
//! their runs, and switch them all off or on.

use super::{ApiError, ApiJson, ErrorBody};
use crate::commands::actions as commands;
use crate::engine::Core;
use crate::http::state::AppState;
use crate::outbound::Outbound;
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
async fn list(
    State(core): State<Core>,
    State(outbound): State<Outbound>,
) -> Result<ApiJson<Vec<ActionView>>, ApiError> {
    let actions = core.store.actions().await?;
    Ok(ApiJson(
        actions
            .iter()
            .map(|a| a.view(&outbound.action_policy))
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
    State(core): State<Core>,
    State(outbound): State<Outbound>,
    ApiJson(spec): ApiJson<ActionSpec>,
) -> Result<(StatusCode, ApiJson<ActionView>), ApiError> {
    let action = commands::create(&core.store, &outbound.action_policy, spec, core.clock.now())
        .await
        .map_err(|e| match e {
            commands::CreateError::Refused(e) => ApiError::unprocessable(e.code(), e.to_string()),
            commands::CreateError::Store(e) => e.into(),
        })?;
    Ok((
        StatusCode::CREATED,
        ApiJson(action.view(&outbound.action_policy)),
    ))
}

#[utoipa::path(delete, path = "/api/v1/actions/{id}", tag = "actions",
    params(("id" = i64, Path, description = "The action's number")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such action", body = ErrorBody),
    ))]
async fn remove(State(core): State<Core>, Path(id): Path<String>) -> Result<StatusCode, ApiError> {
    let missing = || ApiError::not_found(format!("no action {id:?}"));
    let number: i64 = id.parse().map_err(|_| missing())?;
    if !commands::delete(&core.store, ActionId(number)).await? {
        return Err(missing());
    }
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
    State(core): State<Core>,
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
        core.store
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
async fn enabled(State(core): State<Core>) -> Result<ApiJson<SwitchView>, ApiError> {
    let (enabled, off_reason) = core.store.actions_switch().await?;
    Ok(ApiJson(SwitchView {
        enabled,
        off_reason,
    }))
}

#[utoipa::path(put, path = "/api/v1/actions/enabled", tag = "actions",
    request_body = Switch,
    responses((status = 200, description = "Where the switch stands now", body = SwitchView)))]
async fn switch(
    State(core): State<Core>,
    ApiJson(switch): ApiJson<Switch>,
) -> Result<ApiJson<SwitchView>, ApiError> {
    commands::set_enabled(&core.store, switch.enabled).await?;
    Ok(ApiJson(SwitchView {
        enabled: switch.enabled,
        off_reason: None,
    }))
}

#[utoipa::path(get, path = "/api/v1/actions/budget", tag = "actions",
    responses((status = 200, description = "The budget", body = ActionBudget)))]
/// `GET /api/v1/actions/budget`: `{"runs_per_hour", "cooldown_s"}`.
async fn budget(State(core): State<Core>) -> Result<ApiJson<ActionBudget>, ApiError> {
    Ok(ApiJson(core.store.action_budget().await?))
}

#[utoipa::path(put, path = "/api/v1/actions/budget", tag = "actions",
    request_body = ActionBudget,
    responses((status = 200, description = "The budget now", body = ActionBudget)))]
/// `PUT /api/v1/actions/budget` with both bounds; 422 `invalid_budget`
/// outside their ranges, and nothing changes.
async fn set_budget(
    State(core): State<Core>,
    ApiJson(budget): ApiJson<ActionBudget>,
) -> Result<ApiJson<ActionBudget>, ApiError> {
    commands::set_budget(&core.store, &budget)
        .await
        .map_err(|e| match e {
            commands::BudgetError::Invalid(why) => ApiError::unprocessable("invalid_budget", why),
            commands::BudgetError::Store(e) => e.into(),
        })?;
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
async fn rerun(State(core): State<Core>, Path(id): Path<String>) -> Result<StatusCode, ApiError> {
    let missing = || ApiError::not_found(format!("no interrupted run {id:?}"));
    let number: i64 = id.parse().map_err(|_| missing())?;
    if !commands::rerun(&core.store, number, core.clock.now()).await? {
        return Err(missing());
    }
    Ok(StatusCode::ACCEPTED)
}
