//! Every request has [`REQUEST_TIMEOUT`] to be answered; only the live
//! event stream, which stays open by design, is exempt. A request past it
//! is answered 503 `timeout` (the work it started is dropped with it: an
//! open transaction rolls back), so a stalled database or panel shows as
//! a clear error instead of a connection that hangs until the client
//! gives up.

use crate::http::api::ApiError;
use crate::http::log_safe::loggable_path;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::time::Duration;

/// The longest a request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Paths answered by streams that stay open.
const STREAMS: [&str; 1] = ["/events"];

pub async fn deadline(request: Request, next: Next) -> Response {
    if STREAMS.contains(&request.uri().path()) {
        return next.run(request).await;
    }
    let method = request.method().clone();
    let path = loggable_path(request.uri().path()).to_owned();
    match tokio::time::timeout(REQUEST_TIMEOUT, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(%method, %path, "a request took longer than {REQUEST_TIMEOUT:?}; answered 503");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "timeout",
                format!(
                    "the request took longer than {} s and was stopped; try it again",
                    REQUEST_TIMEOUT.as_secs()
                ),
            )
            .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    fn router() -> Router {
        let slow = || async {
            tokio::time::sleep(REQUEST_TIMEOUT * 2).await;
            "late"
        };
        Router::new()
            .route("/slow", get(slow))
            .route("/events", get(slow))
            .layer(axum::middleware::from_fn(deadline))
    }

    async fn status_of(path: &str) -> (StatusCode, String) {
        let response = router()
            .oneshot(Request::get(path).body(Body::empty()).expect("request"))
            .await
            .expect("answered");
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .expect("body");
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_past_the_deadline_is_answered_503_timeout() {
        let (status, body) = status_of("/slow").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(body.contains("\"timeout\""), "{body}");
    }

    #[tokio::test(start_paused = true)]
    async fn the_live_stream_has_no_deadline() {
        let (status, body) = status_of("/events").await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "late"));
    }
}
