//! Liveness and readiness probes for process supervisors and load balancers.

use crate::api::ApiError;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

/// `GET /healthz`: the process is up and serving.
pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// `GET /readyz`: the database answers, so this replica can serve; it
/// also says which replica it is and whether it evaluates.
pub async fn readyz(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    match state.store.ping().await {
        Ok(()) => Ok(Json(json!({
            "status": "ready",
            "replica": state.replica.as_str(),
            "evaluator": state.evaluator.evaluating(),
        }))),
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
