//! `GET /metrics`: Prometheus metrics, kept with the `prometheus` crate,
//! behind an optional bearer token (`MESHWATCH_METRICS_TOKEN`).

use crate::api::ApiError;
use crate::state::AppState;
use axum::extract::State;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meshwatch::status::ServerStatus;
use meshwatch::verdict::Verdict;
use meshwatch::views::DeliveryState;
use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntGaugeVec, Opts, Registry, TextEncoder,
};
use sha2::{Digest, Sha256};

pub struct Metrics {
    registry: Registry,
    servers: IntGaugeVec,
    pub reports_ingested: IntCounter,
    pub probe_results_applied: IntCounter,
    pub probe_results_skipped: IntCounter,
    pub evaluation_seconds: Histogram,
    /// Passwords verified (sign-in and the password form), so an attack
    /// on the limits shows.
    pub password_checks: IntCounter,
    outbox: IntGaugeVec,
    /// 1 for the replica that evaluates, 0 for the others (by replica name).
    pub evaluator: IntGaugeVec,
    /// Rounds the actions runner finished: it is alive, and a test can
    /// wait for a round that saw a change instead of sleeping.
    pub action_rounds: IntCounter,
}

impl Metrics {
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new_custom(Some("meshwatch".into()), None)?;
        let servers = IntGaugeVec::new(Opts::new("servers", "Servers by status"), &["status"])?;
        let reports_ingested =
            IntCounter::new("reports_ingested_total", "Agent reports stored and applied")?;
        let probe_results_applied = IntCounter::new(
            "probe_results_applied_total",
            "Probe results applied to a pair (older or repeated ones are not)",
        )?;
        let probe_results_skipped = IntCounter::new(
            "probe_results_skipped_total",
            "Probe results naming unknown entry points",
        )?;
        let evaluation_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "evaluation_duration_seconds",
                "Full evaluations of the mesh",
            )
            .buckets(vec![
                0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0,
            ]),
        )?;
        let password_checks = IntCounter::new(
            "password_checks_total",
            "Passwords verified with argon2 (sign-ins and password changes)",
        )?;
        let outbox = IntGaugeVec::new(
            Opts::new("notifications", "Notification outbox by state"),
            &["state"],
        )?;
        let evaluator = IntGaugeVec::new(
            Opts::new(
                "evaluator",
                "1 when this replica evaluates (holds the evaluator's lock), else 0",
            ),
            &["replica"],
        )?;
        let action_rounds = IntCounter::new(
            "action_rounds_total",
            "Rounds of the actions runner (due runs claimed and decided)",
        )?;
        registry.register(Box::new(action_rounds.clone()))?;
        registry.register(Box::new(evaluator.clone()))?;
        registry.register(Box::new(servers.clone()))?;
        registry.register(Box::new(reports_ingested.clone()))?;
        registry.register(Box::new(probe_results_applied.clone()))?;
        registry.register(Box::new(probe_results_skipped.clone()))?;
        registry.register(Box::new(evaluation_seconds.clone()))?;
        registry.register(Box::new(outbox.clone()))?;
        registry.register(Box::new(password_checks.clone()))?;
        Ok(Self {
            registry,
            servers,
            reports_ingested,
            probe_results_applied,
            probe_results_skipped,
            evaluation_seconds,
            password_checks,
            outbox,
            evaluator,
            action_rounds,
        })
    }

    /// Sets the servers-by-status gauges from the current verdicts.
    pub fn observe_verdicts(&self, verdicts: &[Verdict]) {
        for status in ServerStatus::ALL {
            let count = verdicts.iter().filter(|v| v.status == status).count();
            self.servers
                .with_label_values(&[status.as_str()])
                .set(i64::try_from(count).unwrap_or(i64::MAX));
        }
    }
}

/// The token scrapers must present, kept only as its SHA-256.
#[derive(Clone)]
pub struct ScrapeToken([u8; 32]);

impl ScrapeToken {
    pub fn new(token: &str) -> Self {
        Self(Sha256::digest(token.as_bytes()).into())
    }

    /// Whether the request carries `Authorization: Bearer <token>`.
    fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(presented) = headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
        else {
            return false;
        };
        let presented: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        // Digests have one length whatever was sent, and every byte is
        // compared (no early exit), so timing tells a guesser nothing.
        presented
            .iter()
            .zip(self.0.iter())
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
    }
}

impl std::fmt::Debug for ScrapeToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScrapeToken(…)")
    }
}

#[utoipa::path(get, path = "/metrics", tag = "operations",
    security((), ("operator_token" = [])),
    responses((status = 200, description = "Prometheus text: servers by status, reports ingested, evaluation time, the notification outbox", content_type = "text/plain")))]
/// `GET /metrics` in the Prometheus text format; 401 without the token
/// when one is configured.
pub async fn serve(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = &state.metrics_token {
        if !token.admits(&headers) {
            let mut refused = ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "the metrics token is required (Authorization: Bearer <MESHWATCH_METRICS_TOKEN>)",
            )
            .into_response();
            refused
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return refused;
        }
    }
    match state.store.outbox_counts().await {
        Ok(counts) => {
            for delivery in DeliveryState::ALL {
                let n = counts.get(&delivery).copied().unwrap_or(0);
                state
                    .metrics
                    .outbox
                    .with_label_values(&[delivery.as_str()])
                    .set(n);
            }
        }
        Err(err) => tracing::warn!(error = %err, "cannot count the outbox for /metrics"),
    }
    let encoder = TextEncoder::new();
    let mut body = Vec::new();
    if let Err(err) = encoder.encode(&state.metrics.registry.gather(), &mut body) {
        tracing::error!(error = %err, "cannot encode metrics");
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    ([(CONTENT_TYPE, encoder.format_type().to_owned())], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_authorization(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let token = ScrapeToken::new("scrape-secret");
        assert!(token.admits(&with_authorization("Bearer scrape-secret")));
        for wrong in [
            "Bearer scrape-secreT",
            "Bearer scrape-secret-and-more",
            "Bearer ",
            "Basic scrape-secret",
            "scrape-secret",
        ] {
            assert!(!token.admits(&with_authorization(wrong)), "{wrong}");
        }
        assert!(!token.admits(&HeaderMap::new()));
    }
}
