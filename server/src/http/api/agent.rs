//! The agent API (`/api/agent/v1`, one bearer token per server).

use super::{ApiError, ApiJson, ErrorBody};
use crate::auth::Access;
use crate::crypto::secrets::TokenHash;
use crate::engine::Core;
use crate::http::api::automation::bearer_token;
use crate::http::state::AppState;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use meshwatch::agent_api::{AgentConfig, AgentReport, ReportAck};
use tower_http::decompression::RequestDecompressionLayer;

/// The server an agent request speaks for.
#[derive(Clone)]
struct Witness(meshwatch::ServerId);

/// The operations of this module, for docs/openapi.json.
#[derive(utoipa::OpenApi)]
#[openapi(paths(config, report))]
pub struct Operations;

pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/config", get(config))
        .route(
            "/report",
            // Inside the token check: the limit is per agent, and it is
            // taken before the body is read.
            post(report).route_layer(axum::middleware::from_fn_with_state(
                state.clone(),
                limit_reports,
            )),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state,
            require_agent_token,
        ))
        // A big fleet's reports compress well. The 1 MiB limit is applied
        // by the body extractor to what it reads — the decompressed bytes —
        // so a decompression bomb is cut there and answered 413.
        .layer(RequestDecompressionLayer::new())
        .layer(axum::middleware::from_fn(only_gzip))
}

/// `Content-Encoding` other than gzip (or identity): 415 with the docs/API.md
/// error body, before the decompression layer answers in its own words.
async fn only_gzip(request: Request, next: Next) -> Result<Response, ApiError> {
    let encoding = request
        .headers()
        .get(axum::http::header::CONTENT_ENCODING)
        .map(|v| v.to_str().unwrap_or("").trim().to_ascii_lowercase());
    match encoding.as_deref() {
        None | Some("gzip") | Some("identity") => Ok(next.run(request).await),
        Some(other) => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_encoding",
            format!("Content-Encoding {other:?} is not accepted: send the body plain or gzip"),
        )),
    }
}

/// Too many reports from one agent: 429 with `Retry-After` (whole seconds,
/// rounded up), which the agent honours.
async fn limit_reports(
    State(access): State<Access>,
    State(core): State<Core>,
    Extension(Witness(server)): Extension<Witness>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let interval =
        std::time::Duration::from_secs(u64::from(core.read_model.settings().report_interval_s));
    if let Err(wait) = access
        .report_limiter
        .take(&server, interval, std::time::Instant::now())
    {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        let mut response = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "at most {} reports per report interval ({} s) from one agent, {} at once; retry in {seconds} s",
                crate::auth::report_limit::REPORTS_PER_INTERVAL,
                interval.as_secs(),
                crate::auth::report_limit::REPORT_BURST,
            ),
        )
        .into_response();
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from(seconds.max(1)),
        );
        return Ok(response);
    }
    Ok(next.run(request).await)
}

async fn require_agent_token(
    State(core): State<Core>,
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
    let server = core
        .store
        .server_for_agent_token(&TokenHash::of(token))
        .await?
        .ok_or_else(unauthorized)?;
    request.extensions_mut().insert(Witness(server));
    Ok(next.run(request).await)
}

#[utoipa::path(get, path = "/api/agent/v1/config", tag = "agent",
    security(("agent_token" = [])),
    params(("If-None-Match" = Option<String>, Header, description = "The ETag of the config the agent holds")),
    responses(
        (status = 200, description = "What to probe, and how often", body = AgentConfig,
            headers(("ETag" = String, description = "The fleet version"))),
        (status = 304, description = "Unchanged since the ETag given"),
    ))]
/// The agent's configuration. Its `ETag` is the version of what this
/// agent probes (the fleet version, moved by its own targets beyond the
/// witness set threshold), so an agent may ask every probe round
/// (`If-None-Match`) and get a bodiless 304 until it changes.
async fn config(
    State(core): State<Core>,
    Extension(Witness(server)): Extension<Witness>,
    headers: axum::http::HeaderMap,
) -> Result<Response, ApiError> {
    let version = core.read_model.config_version(&server);
    let tag = format!("\"{version}\"");
    let unchanged = headers
        .get(axum::http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|t| t.trim() == tag));
    if unchanged {
        return Ok((StatusCode::NOT_MODIFIED, [etag(version)]).into_response());
    }
    let settings = core.read_model.settings();
    // Read together with its version: a change between the two moves the
    // version the agent holds, and its next round fetches again.
    let peers = core.read_model.agent_peers(&server).await?;
    Ok((
        [etag(peers.version)],
        ApiJson(AgentConfig {
            fleet_version: peers.version,
            report_interval_s: settings.report_interval_s,
            probe_interval_s: settings.probe_interval_s,
            probe_timeout_s: settings.probe_timeout_s,
            peers: peers.peers,
            verifier: core.store.verifier_checks(&server).await?,
        }),
    )
        .into_response())
}

/// The `ETag` header of config `version`.
fn etag(version: u64) -> (axum::http::HeaderName, axum::http::HeaderValue) {
    let value = axum::http::HeaderValue::from_str(&format!("\"{version}\""))
        .unwrap_or(axum::http::HeaderValue::from_static("\"0\""));
    (axum::http::header::ETAG, value)
}

#[utoipa::path(post, path = "/api/agent/v1/report", tag = "agent",
    security(("agent_token" = [])),
    request_body = AgentReport,
    responses(
        (status = 202, description = "Stored (or a retry of one stored before)", body = ReportAck),
        (status = 429, description = "Too many reports from this token", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ))]
async fn report(
    State(core): State<Core>,
    Extension(Witness(server)): Extension<Witness>,
    ApiJson(mut report): ApiJson<AgentReport>,
) -> Result<Response, ApiError> {
    let received_ms = core.clock.now_ms();
    // Compared in canonical form: an agent may write it in upper case.
    report.report_id = uuid::Uuid::parse_str(&report.report_id)
        .map_err(|_| ApiError::unprocessable("invalid_report_id", "report_id must be a UUID"))?
        .hyphenated()
        .to_string();
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
        .position(|p| p.latency_ms.is_some_and(|ms| !ms.is_finite() || ms < 0.0))
    {
        return Err(ApiError::unprocessable(
            "invalid_field",
            format!("probes[{i}].latency_ms must be a number of at least 0"),
        ));
    }
    let settings = core.read_model.settings();
    let bound = meshwatch::intake::max_probes_per_report(
        core.read_model.mesh().entry_point_count(),
        settings.report_interval_s,
        settings.probe_interval_s,
    );
    if report.probes.len() > bound {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_many_probes",
            format!(
                "a report carries at most {bound} probe results in this fleet ({} sent): split the evidence into several reports",
                report.probes.len()
            ),
        ));
    }
    let ack = core.evaluator.ingest(&server, report, received_ms).await?;
    Ok((StatusCode::ACCEPTED, ApiJson(ack)).into_response())
}
