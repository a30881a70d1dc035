//! `/api/v1/maintenance` (docs/API.md § Operator features): plan, list and
//! cancel maintenance windows.

use super::{ApiError, ApiJson, ErrorBody};
use crate::commands::maintenance::{self, Refusal};
use crate::engine::Core;
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get};
use axum::Router;
use chrono::{DateTime, Utc};
use meshwatch::maintenance::{MaintenanceId, MaintenancePlan, MaintenanceWindow, Occurrence};
use serde::Serialize;

/// The operations of this module, for docs/openapi.json.
#[derive(utoipa::OpenApi)]
#[openapi(paths(list, create, cancel))]
pub struct Operations;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/maintenance", get(list).post(create))
        .route("/maintenance/{id}", delete(cancel))
}

/// A window as the API shows it: what was planned, and where it stands.
#[derive(Serialize, utoipa::ToSchema)]
pub struct WindowView {
    #[serde(flatten)]
    pub window: MaintenanceWindow,
    /// It holds now.
    pub active: bool,
    /// The occurrence holding now or the next one; `null` once a one-off
    /// window has ended.
    pub next: Option<Occurrence>,
}

impl WindowView {
    pub fn new(window: MaintenanceWindow, now: DateTime<Utc>) -> Self {
        let next = window.occurrence(now);
        Self {
            active: next.is_some_and(|o| o.start <= now),
            next,
            window,
        }
    }
}

#[utoipa::path(get, path = "/api/v1/maintenance", tag = "maintenance",
    responses((status = 200, description = "Every window, and where it stands", body = Vec<WindowView>)))]
async fn list(State(core): State<Core>) -> ApiJson<Vec<WindowView>> {
    let now = core.clock.now();
    let windows = core.read_model.mesh().windows().to_vec();
    ApiJson(
        windows
            .into_iter()
            .map(|w| WindowView::new(w, now))
            .collect(),
    )
}

#[utoipa::path(post, path = "/api/v1/maintenance", tag = "maintenance",
    request_body = MaintenancePlan,
    responses(
        (status = 201, description = "Planned", body = WindowView),
        (status = 409, description = "The window would take too many servers of a route at once", body = ErrorBody),
    ))]
async fn create(
    State(core): State<Core>,
    ApiJson(plan): ApiJson<MaintenancePlan>,
) -> Result<(StatusCode, ApiJson<WindowView>), ApiError> {
    let now = core.clock.now();
    let planned =
        maintenance::plan(&core.store, &core.evaluator, &core.read_model, plan, now).await?;
    match planned {
        Ok(window) => {
            tracing::info!(window = %window.id, "maintenance window planned through the API");
            Ok((StatusCode::CREATED, ApiJson(WindowView::new(window, now))))
        }
        Err(refusal) => Err(refused(refusal)),
    }
}

fn refused(refusal: Refusal) -> ApiError {
    let status = match refusal {
        Refusal::Full => StatusCode::CONFLICT,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    ApiError::new(status, refusal.code(), refusal.to_string())
}

#[utoipa::path(delete, path = "/api/v1/maintenance/{id}", tag = "maintenance",
    params(("id" = i64, Path, description = "The window's number")),
    responses(
        (status = 204, description = "Cancelled"),
        (status = 404, description = "No such window", body = ErrorBody),
    ))]
async fn cancel(State(core): State<Core>, Path(id): Path<String>) -> Result<StatusCode, ApiError> {
    let missing = || ApiError::not_found(format!("no maintenance window {id:?}"));
    let number: i64 = id.parse().map_err(|_| missing())?;
    if !maintenance::cancel(&core.store, &core.evaluator, MaintenanceId(number)).await? {
        return Err(missing());
    }
    tracing::info!(
        window = number,
        "maintenance window cancelled through the API"
    );
    Ok(StatusCode::NO_CONTENT)
}
