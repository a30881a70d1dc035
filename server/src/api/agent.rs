//! The agent API (`/api/agent/v1`, one bearer token per server).

use super::{ApiError, ApiJson};
use crate::api::automation::bearer_token;
use crate::secrets::TokenHash;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use meshwatch::agent_api::{AgentConfig, AgentReport};

/// The server an agent request speaks for.
#[derive(Clone)]
struct Witness(String);

pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/config", get(config))
        .route("/report", post(report))
        .route_layer(axum::middleware::from_fn_with_state(
            state,
            require_agent_token,
        ))
}

async fn require_agent_token(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let unauthorized = || {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid agent token is required (Authorization: Bearer <agent token>)",
        )
    };
    let token = bearer_token(&request).ok_or_else(unauthorized)?;
    let server = state
        .store
        .server_for_agent_token(&TokenHash::of(token))
        .await?
        .ok_or_else(unauthorized)?;
    request.extensions_mut().insert(Witness(server));
    Ok(next.run(request).await)
}

async fn config(
    State(state): State<AppState>,
    Extension(Witness(server)): Extension<Witness>,
) -> Result<ApiJson<AgentConfig>, ApiError> {
    let settings = state.engine.settings();
    Ok(ApiJson(AgentConfig {
        report_interval_s: settings.report_interval_s,
        probe_interval_s: settings.probe_interval_s,
        probe_timeout_s: settings.probe_timeout_s,
        peers: state.store.peers_of(&server).await?,
    }))
}

async fn report(
    State(state): State<AppState>,
    Extension(Witness(server)): Extension<Witness>,
    ApiJson(report): ApiJson<AgentReport>,
) -> Result<Response, ApiError> {
    if uuid::Uuid::parse_str(&report.report_id).is_err() {
        return Err(ApiError::unprocessable(
            "invalid_report_id",
            "report_id must be a UUID",
        ));
    }
    if report.agent_version.is_empty() || report.agent_version.len() > 64 {
        return Err(ApiError::unprocessable(
            "invalid_field",
            "agent_version must be 1 to 64 characters",
        ));
    }
    if let Some(field) = report.metrics.invalid_field() {
        return Err(ApiError::unprocessable(
            "invalid_field",
            format!("{field} is out of range"),
        ));
    }
    if let Some(i) = report
        .probes
        .iter()
        .position(|p| !p.ok && p.error.is_none())
    {
        return Err(ApiError::unprocessable(
            "invalid_field",
            format!("probes[{i}].error is required when ok is false"),
        ));
    }
    let ack = state.engine.ingest(&state.store, &server, &report).await?;
    Ok((StatusCode::ACCEPTED, ApiJson(ack)).into_response())
}
