//! `GET /metrics`: the Prometheus text of [`crate::ops::telemetry`]'s
//! registry, behind `MESHWATCH_METRICS_TOKEN` when one is set.

use crate::engine::Core;
use crate::http::api::ApiError;
use crate::http::Surfaces;
use axum::extract::State;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meshwatch_views::views::DeliveryState;
use sha2::{Digest, Sha256};

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
pub async fn serve(
    State(core): State<Core>,
    State(surfaces): State<Surfaces>,
    headers: HeaderMap,
) -> Response {
    if let Some(token) = &surfaces.metrics_token {
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
    match core.store.outbox_counts().await {
        Ok(counts) => {
            for delivery in DeliveryState::ALL {
                let n = counts.get(&delivery).copied().unwrap_or(0);
                core.metrics.set_outbox(delivery, n);
            }
        }
        Err(err) => tracing::warn!(error = %err, "cannot count the outbox for /metrics"),
    }
    match core.metrics.text() {
        Ok((body, content_type)) => ([(CONTENT_TYPE, content_type)], body).into_response(),
        Err(err) => {
            tracing::error!(error = %err, "cannot encode metrics");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
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
