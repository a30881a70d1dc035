//! Operator sign-in and sign-out (plain form posts, so they work without
//! JavaScript), and the guard that sends signed-out browsers to the login
//! page. The limits on guessing are in [`crate::auth::login_limit`] and
//! [`crate::auth::password_check`].

use crate::auth::login_limit::Refusal;
use crate::auth::password_check::BUSY_RETRY_AFTER;
use crate::auth::Access;
use crate::crypto::secrets::{self, TokenHash};
use crate::engine::Core;
use app::auth;
use axum::extract::rejection::FormRejection;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{CONTENT_TYPE, LOCATION, RETRY_AFTER, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Form;
use serde::Deserialize;
use std::net::SocketAddr;
use std::time::Duration;

pub use crate::auth::login_limit::SignInLimits;

/// The sign-in limits could not be checked (their database failed): no
/// password is tried unchecked.
fn limits_unavailable(err: crate::store::StoreError) -> Response {
    tracing::error!(error = %err, "cannot check the sign-in limits");
    StatusCode::SERVICE_UNAVAILABLE.into_response()
}

/// How much of an over-long username the log shows.
const LOGGED_USERNAME_PREFIX: usize = 16;

/// The start of a username that is too long to log whole.
fn logged_prefix(username: &str) -> &str {
    username
        .char_indices()
        .nth(LOGGED_USERNAME_PREFIX)
        .map_or(username, |(end, _)| &username[..end])
}

#[derive(Deserialize)]
pub struct LoginForm {
    username: String,
    password: String,
}

pub(crate) fn see_other(location: &str) -> Response {
    (StatusCode::SEE_OTHER, [(LOCATION, location.to_owned())]).into_response()
}

/// A refused sign-in: a locked address goes back to the form with the
/// lock's message; a slowed-down username gets 429 like a busy panel.
fn refused(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Locked { .. } => see_other("/login?error=locked"),
        Refusal::SlowDown { retry_after } => busy(retry_after),
    }
}

/// 429 with `Retry-After` for scripts; a browser is sent straight back to
/// the form, which says to wait a moment.
fn busy(retry_after: Duration) -> Response {
    let seconds = retry_after.as_secs_f64().ceil().max(1.0);
    (
        StatusCode::TOO_MANY_REQUESTS,
        [
            (RETRY_AFTER, format!("{seconds:.0}")),
            (CONTENT_TYPE, "text/html; charset=utf-8".to_owned()),
        ],
        "<!doctype html><meta http-equiv=\"refresh\" content=\"0;url=/login?error=busy\"><a href=\"/login?error=busy\">Try again</a>",
    )
        .into_response()
}

pub(crate) fn with_cookie(mut response: Response, cookie: String) -> Response {
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(SET_COOKIE, value);
    }
    response
}

/// `POST /login`: check the password (argon2id, off the async threads),
/// open a session, set the cookie and go to the panel.
pub async fn login(
    State(access): State<Access>,
    State(core): State<Core>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    form: Result<Form<LoginForm>, FormRejection>,
) -> Response {
    if access.site.is_cross_site(&headers) {
        return see_other("/login?error=cross_site");
    }
    let Ok(Form(LoginForm { username, password })) = form else {
        return see_other("/login?error=missing");
    };
    let username = username.trim();
    if username.is_empty() || password.is_empty() {
        return see_other("/login?error=missing");
    }
    let address = access.trusted_proxies.client_address(peer.ip(), &headers);
    if !meshwatch::account::username_fits(username) {
        // No operator can have this name: answered as a wrong password,
        // without a lookup, an argon2 run or the name kept anywhere.
        tracing::warn!(
            username_prefix = ?logged_prefix(username),
            username_bytes = username.len(),
            %address,
            "failed sign-in: username over the length limit"
        );
        return match access.limiter.reserve_address_only(address).await {
            Ok(Ok(())) => see_other("/login?error=invalid"),
            Ok(Err(refusal)) => refused(refusal),
            Err(err) => limits_unavailable(err),
        };
    }
    let username = username.to_owned();
    let attempt = match access.limiter.reserve(&username, address).await {
        Ok(Ok(attempt)) => attempt,
        Ok(Err(refusal)) => {
            tracing::warn!(%username, %address, ?refusal, "sign-in refused: too many failures");
            return refused(refusal);
        }
        Err(err) => return limits_unavailable(err),
    };

    let credentials = match core.store.operator_credentials(&username).await {
        Ok(c) => c,
        Err(err) => {
            tracing::error!(error = %err, "cannot read operator credentials");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let (operator_id, stored_hash) = match credentials {
        Some(c) => (Some(c.id), c.password_hash),
        None => (None, secrets::decoy_hash().to_owned()),
    };
    let Ok(matches) = access
        .password_checks
        .run(move || secrets::verify_password(&password, &stored_hash))
        .await
    else {
        // Not checked, so not a failure: the reserved attempt is given back.
        if let Err(err) = access.limiter.not_checked(attempt).await {
            tracing::warn!(error = %err, "cannot give back an unchecked sign-in attempt");
        }
        tracing::warn!(%username, %address, "sign-in refused: every password check is busy");
        return busy(BUSY_RETRY_AFTER);
    };
    let Some(operator_id) = operator_id.filter(|_| matches) else {
        tracing::warn!(%username, %address, "failed sign-in");
        return see_other("/login?error=invalid");
    };
    if let Err(err) = access.limiter.succeeded(attempt).await {
        // Signed in all the same: the attempt stays counted as a failure.
        tracing::warn!(error = %err, "cannot forgive a right sign-in attempt");
    }

    let token = secrets::new_token();
    let expires = core.clock.now() + chrono::Duration::seconds(auth::SESSION_MAX_AGE_S);
    if let Err(err) = core
        .store
        .create_session(operator_id, &TokenHash::of(&token), expires)
        .await
    {
        tracing::error!(error = %err, "cannot open a session");
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    tracing::info!(%username, "operator signed in");
    with_cookie(see_other("/"), access.site.session_cookie(&token, &headers))
}

/// `POST /logout`: end the session and clear the cookie.
pub async fn logout(
    State(access): State<Access>,
    State(core): State<Core>,
    headers: HeaderMap,
) -> Response {
    if access.site.is_cross_site(&headers) {
        return see_other("/");
    }
    if let Some(token) = access.site.session_token(&headers) {
        let token = TokenHash::of(token);
        if let Err(err) = core.store.delete_session(&token).await {
            tracing::error!(error = %err, "cannot delete a session");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
        access.sessions.forget(&token);
    }
    with_cookie(
        see_other("/login"),
        access.site.cleared_session_cookie(&headers),
    )
}

/// Paths that answer without a session: sign-in, machine APIs (they carry
/// their own bearer tokens), server functions (they check the session
/// themselves and answer 401), static files and probes.
fn is_public(path: &str) -> bool {
    const PREFIXES: [&str; 3] = ["/api/", "/rpc/", "/sub/"];
    const EXACT: [&str; 6] = [
        "/login",
        "/healthz",
        "/readyz",
        "/metrics",
        "/status",
        "/status.json",
    ];
    PREFIXES.iter().any(|p| path.starts_with(p))
        || EXACT.contains(&path)
        || crate::http::site::is_front_end_file(path)
}

/// Whether a request asks to see a page (the guard lets every other
/// method through to handlers that check the session themselves).
pub fn is_page_view(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD)
}

/// Every page but the login page needs a session: signed-out browsers are
/// sent to `/login`, signed-in ones skip it.
pub async fn guard_pages(
    State(access): State<Access>,
    State(core): State<Core>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    if !is_page_view(request.method()) || (is_public(path) && path != "/login") {
        return next.run(request).await;
    }
    let operator = match access.site.session_token(request.headers()) {
        Some(token) => match access
            .sessions
            .operator(&core.store, &TokenHash::of(token))
            .await
        {
            Ok(operator) => operator,
            Err(err) => {
                tracing::error!(error = %err, "cannot check a session");
                return StatusCode::SERVICE_UNAVAILABLE.into_response();
            }
        },
        None => None,
    };
    match (request.uri().path() == "/login", operator) {
        (true, Some(_)) => see_other("/"),
        (false, None) => see_other("/login"),
        (_, Some(operator)) => {
            request.extensions_mut().insert(auth::SignedIn(operator));
            next.run(request).await
        }
        (true, None) => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_short_prefix_of_a_long_username_is_logged() {
        assert_eq!(logged_prefix("ops"), "ops");
        let long = "ä".repeat(1 << 16);
        assert_eq!(logged_prefix(&long).chars().count(), LOGGED_USERNAME_PREFIX);
    }

    #[test]
    fn pages_need_a_session_but_apis_and_assets_do_not() {
        for public in [
            "/login",
            "/api/v1/fleet",
            "/rpc/servers",
            "/pkg/meshwatch.wasm",
            "/pkg/meshwatch.0123456789ab.wasm",
            "/favicon.svg",
            "/healthz",
            "/readyz",
        ] {
            assert!(is_public(public), "{public}");
        }
        for page in ["/", "/users", "/servers/de-1", "/nowhere"] {
            assert!(!is_public(page), "{page}");
        }
    }
}
