//! Liveness and readiness probes for process supervisors and load balancers.

use crate::engine::Core;
use crate::http::api::ApiError;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;

/// The answer of `GET /healthz`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always `ok`.
    pub status: &'static str,
}

/// The answer of `GET /readyz`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Readiness {
    /// Always `ready` (not ready is a 503).
    pub status: &'static str,
    /// This replica's name (`MESHWATCH_REPLICA`).
    pub replica: String,
    /// This replica evaluates (holds the evaluator lease).
    pub evaluator: bool,
}

#[utoipa::path(get, path = "/healthz", tag = "operations", security(()),
    responses((status = 200, description = "The process is up", body = Health)))]
/// `GET /healthz`: the process is up and serving.
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// `GET /readyz`: the database answers, so this replica can serve; it
/// also says which replica it is and whether it evaluates.
#[utoipa::path(get, path = "/readyz", tag = "operations", security(()),
    responses(
        (status = 200, description = "The database answers", body = Readiness),
        (status = 503, description = "The database does not answer (`database_unavailable`)", body = crate::http::api::ErrorBody),
    ))]
pub async fn readyz(State(core): State<Core>) -> Result<Json<Readiness>, ApiError> {
    match core.store.ping().await {
        Ok(()) => Ok(Json(Readiness {
            status: "ready",
            replica: core.replica.as_str().to_owned(),
            evaluator: core.evaluator.evaluating(),
        })),
        Err(err) => {
            tracing::warn!(error = %err, "not ready: database unreachable");
            Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "database_unavailable",
                "the database does not answer",
            ))
        }
    }
}
