//! What logs may show of a request. A subscription's path carries its
//! token, which is a user's credentials: it is never logged, whatever the
//! log level (secrets are never logged).

/// The path as logs show it: `/sub/<token>` becomes `/sub/…`.
pub fn loggable_path(path: &str) -> &str {
    if path.starts_with("/sub/") {
        "/sub/…"
    } else {
        path
    }
}

/// The span of one request for tower-http's trace layer: its method and
/// loggable path (no query string, no headers).
pub fn request_span<B>(request: &axum::http::Request<B>) -> tracing::Span {
    tracing::debug_span!(
        "request",
        method = %request.method(),
        path = %loggable_path(request.uri().path()),
        version = ?request.version(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines a subscriber writes, kept for the test to read.
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("log").extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_subscription_token_never_reaches_a_log() {
        let token = "0123456789abcdef0123456789abcdef";
        assert_eq!(loggable_path(&format!("/sub/{token}")), "/sub/…");
        assert_eq!(loggable_path("/api/v1/servers"), "/api/v1/servers");
        let log = Captured::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let request = axum::http::Request::get(format!("/sub/{token}?format=clash"))
                .body(())
                .expect("request");
            let _in_request = request_span(&request).entered();
            tracing::warn!("an event inside the request");
        });
        let text = String::from_utf8(log.0.lock().expect("log").clone()).expect("UTF-8");
        assert!(text.contains("/sub/…"), "{text}");
        assert!(!text.contains(token), "{text}");
    }
}
