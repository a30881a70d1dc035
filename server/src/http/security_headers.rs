//! Security headers on every answer: a Content-Security-Policy with a
//! script nonce fresh for each request (handed to Leptos, which writes it
//! on the inline scripts it emits), `nosniff`, `Referrer-Policy`,
//! `X-Frame-Options`, and `Cache-Control: no-store` wherever a secret may
//! show.

use app::auth::PanelSite;
use axum::extract::{Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use base64::Engine as _;
use leptos::prelude::{provide_context, with_context};
use rand::RngCore;
use std::sync::Arc;
use tower_http::set_header::SetResponseHeaderLayer;

/// The CSP nonce of one request, kept in its extensions for the renderer.
#[derive(Debug, Clone)]
pub struct CspNonce(Arc<str>);

impl CspNonce {
    /// 128 random bits in base64, the form CSP reads.
    pub(crate) fn fresh() -> Self {
        let mut bytes = [0u8; 16];
        rand::thread_rng().fill_bytes(&mut bytes);
        Self(
            base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .into(),
        )
    }
}

/// The policy of an answer whose inline scripts carry `nonce`. Scripts:
/// our own files (the hydration script imports `/pkg/meshwatch.<version>.js`),
/// inline scripts with this answer's nonce (that bootstrap and the data
/// Leptos serializes for islands), and `'wasm-unsafe-eval'` to compile the
/// WASM — no `'unsafe-inline'`, no `'unsafe-eval'`. Everything else comes
/// from `'self'`: the stylesheet, images (QR codes), `/events`, the live
/// refresh's fetches and server functions. Styles need no `'unsafe-inline'`:
/// the app writes no `style` attribute or `<style>` (its SVG charts use
/// presentation attributes, which CSP does not govern).
pub fn policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// Wraps every route of `router` in the security headers. `site` names
/// the session cookie, whose presence means "signed-in: do not store".
pub fn around<S>(router: Router<S>, site: PanelSite) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    router
        .layer(axum::middleware::from_fn_with_state(
            site,
            nonce_and_caching,
        ))
        .layer(fixed(X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(fixed(REFERRER_POLICY, "same-origin"))
        // For browsers without CSP's `frame-ancestors`.
        .layer(fixed(X_FRAME_OPTIONS, "DENY"))
}

/// A header with the same value on every answer (a handler's own is replaced).
fn fixed(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
}

/// Gives the request a fresh nonce, then writes the policy with it (and
/// `no-store` where due) on the answer.
async fn nonce_and_caching(
    State(site): State<PanelSite>,
    mut request: Request,
    next: Next,
) -> Response {
    let nonce = CspNonce::fresh();
    let no_store = must_not_be_stored(
        request.uri().path(),
        site.session_token(request.headers()).is_some(),
    );
    request.extensions_mut().insert(nonce.clone());
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(&policy(&nonce.0)) {
        headers.insert(CONTENT_SECURITY_POLICY, policy);
    }
    if no_store {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// Whether no cache may keep the answer: anything for a browser carrying
/// the session cookie (pages, a server function's new API token, QR codes
/// of subscription links, `/events`), the sign-in page, subscriptions
/// (`/sub/{token}`: a user's credentials) and the APIs (their answers
/// carry tokens). Presence of the cookie, not a checked session: a stale
/// cookie gets only a redirect to store, and server functions, which the
/// page guard leaves to check sessions themselves, are covered too.
/// The front end's files keep the caching `crate::http::site` gives them, for
/// everyone.
fn must_not_be_stored(path: &str, carries_session: bool) -> bool {
    let is_static = crate::http::site::is_front_end_file(path);
    let secret = path == "/login" || path.starts_with("/sub/") || path.starts_with("/api/");
    !is_static && (carries_session || secret)
}

/// Hands this request's nonce to Leptos, which writes it on every inline
/// script it emits. Leptos provides a random nonce of its own just before
/// (`leptos_axum` turns its `nonce` feature on); this one replaces it, so
/// the page and its policy header agree. For the Leptos context closures;
/// does nothing outside a request (static files).
pub fn provide_nonce() {
    let nonce = with_context::<axum::http::request::Parts, _>(|parts| {
        parts.extensions.get::<CspNonce>().cloned()
    })
    .flatten();
    if let Some(CspNonce(nonce)) = nonce {
        provide_context(leptos::nonce::Nonce::from_value(nonce));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_nonce_is_fresh_and_fits_the_policy_grammar() {
        let (a, b) = (CspNonce::fresh(), CspNonce::fresh());
        assert_ne!(a.0, b.0);
        assert_eq!(a.0.len(), 24, "16 bytes in padded base64");
        assert!(a
            .0
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')));
    }

    #[test]
    fn the_policy_allows_only_nonced_inline_scripts_and_wasm() {
        let policy = policy("abc");
        for directive in [
            "default-src 'self'",
            "script-src 'self' 'nonce-abc' 'wasm-unsafe-eval'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(
                policy.split("; ").any(|d| d == directive),
                "{directive} in {policy}"
            );
        }
        assert!(!policy.contains("unsafe-inline") && !policy.contains("'unsafe-eval'"));
    }

    #[test]
    fn secrets_and_signed_in_answers_are_not_stored_but_static_files_are() {
        for path in [
            "/login",
            "/sub/0123abcd",
            "/api/v1/fleet",
            "/api/agent/v1/config",
        ] {
            assert!(must_not_be_stored(path, false), "{path}");
        }
        for path in [
            "/",
            "/settings",
            "/users/alice",
            "/users/alice/qr.svg",
            "/rpc/create_api_token",
            "/events",
        ] {
            assert!(must_not_be_stored(path, true), "{path}");
            assert!(
                !must_not_be_stored(path, false),
                "{path} signed out is a redirect"
            );
        }
        for path in [
            "/pkg/meshwatch.wasm",
            "/pkg/meshwatch.css",
            "/pkg/meshwatch.0123456789ab.wasm",
            "/favicon.svg",
        ] {
            assert!(!must_not_be_stored(path, true), "{path}");
        }
    }
}
