//! Operator sign-in and sign-out (plain form posts, so they work without
//! JavaScript), the failed-login rate limit (which also paces the password
//! form's checks of the current password), and the guard that sends
//! signed-out browsers to the login page.

use crate::secrets::{self, TokenHash};
use crate::state::AppState;
use app::auth;
use axum::extract::rejection::FormRejection;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{LOCATION, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Form;
use chrono::Utc;
use serde::Deserialize;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed sign-ins allowed per username, and per client address, in a window.
const MAX_FAILURES_PER_USER: usize = 5;
const MAX_FAILURES_PER_ADDRESS: usize = 20;
const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Wrong current passwords allowed per operator on the password form in a
/// window: it checks a password too, so whoever holds a session could
/// otherwise guess at it without limit.
const MAX_PASSWORD_CHANGE_FAILURES: usize = MAX_FAILURES_PER_USER;

/// How much of an over-long username the log shows.
const LOGGED_USERNAME_PREFIX: usize = 16;

/// Counts recent failed sign-ins; a key with too many is locked until its
/// oldest failure leaves the window.
#[derive(Default)]
pub struct LoginLimiter {
    failures: Mutex<HashMap<String, Vec<Instant>>>,
}

impl LoginLimiter {
    fn keys(username: &str, address: &str) -> [(String, usize); 2] {
        [
            (format!("user:{username}"), MAX_FAILURES_PER_USER),
            (format!("addr:{address}"), MAX_FAILURES_PER_ADDRESS),
        ]
    }

    pub fn is_locked(&self, username: &str, address: &str, now: Instant) -> bool {
        let Ok(mut failures) = self.failures.lock() else {
            return true;
        };
        Self::keys(username, address).iter().any(|(key, max)| {
            failures.get_mut(key).is_some_and(|times| {
                times.retain(|t| now.duration_since(*t) < FAILURE_WINDOW);
                times.len() >= *max
            })
        })
    }

    pub fn record_failure(&self, username: &str, address: &str, now: Instant) {
        if let Ok(mut failures) = self.failures.lock() {
            for (key, _) in Self::keys(username, address) {
                failures.entry(key).or_default().push(now);
            }
        }
    }

    /// A successful sign-in forgives that username's failures.
    pub fn record_success(&self, username: &str) {
        if let Ok(mut failures) = self.failures.lock() {
            failures.remove(&format!("user:{username}"));
        }
    }

    /// A failure that names no username worth keeping (an over-long one)
    /// still counts against its address.
    pub fn record_address_failure(&self, address: &str, now: Instant) {
        if let Ok(mut failures) = self.failures.lock() {
            failures
                .entry(format!("addr:{address}"))
                .or_default()
                .push(now);
        }
    }

    fn operator_key(operator_id: i64) -> String {
        format!("operator:{operator_id}")
    }

    /// Takes one password-change attempt for the operator, or says how long
    /// until one is free. Counted before the password is checked, in one
    /// step, so parallel attempts cannot all pass the check before any of
    /// them is counted; a correct password forgives them
    /// ([`Self::password_change_succeeded`]).
    pub fn try_password_change(&self, operator_id: i64, now: Instant) -> Result<(), Duration> {
        let Ok(mut failures) = self.failures.lock() else {
            return Err(FAILURE_WINDOW);
        };
        let times = failures.entry(Self::operator_key(operator_id)).or_default();
        times.retain(|t| now.duration_since(*t) < FAILURE_WINDOW);
        if times.len() >= MAX_PASSWORD_CHANGE_FAILURES {
            let oldest = times.first().copied().unwrap_or(now);
            return Err(FAILURE_WINDOW.saturating_sub(now.duration_since(oldest)));
        }
        times.push(now);
        Ok(())
    }

    /// The current password checked out: the operator's attempts are forgiven.
    pub fn password_change_succeeded(&self, operator_id: i64) {
        if let Ok(mut failures) = self.failures.lock() {
            failures.remove(&Self::operator_key(operator_id));
        }
    }
}

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

pub(crate) fn with_cookie(mut response: Response, cookie: String) -> Response {
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(SET_COOKIE, value);
    }
    response
}

/// `POST /login`: check the password (argon2id, off the async threads),
/// open a session, set the cookie and go to the panel.
pub async fn login(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    form: Result<Form<LoginForm>, FormRejection>,
) -> Response {
    if state.site.is_cross_site(&headers) {
        return see_other("/login?error=cross_site");
    }
    let Ok(Form(LoginForm { username, password })) = form else {
        return see_other("/login?error=missing");
    };
    let username = username.trim();
    if username.is_empty() || password.is_empty() {
        return see_other("/login?error=missing");
    }
    let address = peer.ip().to_string();
    if !meshwatch::account::username_fits(username) {
        // No operator can have this name: answered as a wrong password,
        // without a lookup, an argon2 run or the name kept anywhere.
        state
            .limiter
            .record_address_failure(&address, Instant::now());
        tracing::warn!(
            username_prefix = ?logged_prefix(username),
            username_bytes = username.len(),
            %address,
            "failed sign-in: username over the length limit"
        );
        return see_other("/login?error=invalid");
    }
    let username = username.to_owned();
    if state.limiter.is_locked(&username, &address, Instant::now()) {
        tracing::warn!(%username, %address, "sign-in refused: too many failures");
        return see_other("/login?error=locked");
    }

    let credentials = match state.store.operator_credentials(&username).await {
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
    let matches =
        tokio::task::spawn_blocking(move || secrets::verify_password(&password, &stored_hash))
            .await
            .unwrap_or(false);
    let Some(operator_id) = operator_id.filter(|_| matches) else {
        state
            .limiter
            .record_failure(&username, &address, Instant::now());
        tracing::warn!(%username, %address, "failed sign-in");
        return see_other("/login?error=invalid");
    };
    state.limiter.record_success(&username);

    let token = secrets::new_token();
    let expires = Utc::now() + chrono::Duration::seconds(auth::SESSION_MAX_AGE_S);
    if let Err(err) = state
        .store
        .create_session(operator_id, &TokenHash::of(&token), expires)
        .await
    {
        tracing::error!(error = %err, "cannot open a session");
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    tracing::info!(%username, "operator signed in");
    with_cookie(see_other("/"), state.site.session_cookie(&token, &headers))
}

/// `POST /logout`: end the session and clear the cookie.
pub async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if state.site.is_cross_site(&headers) {
        return see_other("/");
    }
    if let Some(token) = state.site.session_token(&headers) {
        let token = TokenHash::of(token);
        if let Err(err) = state.store.delete_session(&token).await {
            tracing::error!(error = %err, "cannot delete a session");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
        state.sessions.forget(&token);
    }
    with_cookie(
        see_other("/login"),
        state.site.cleared_session_cookie(&headers),
    )
}

/// Paths that answer without a session: sign-in, machine APIs (they carry
/// their own bearer tokens), server functions (they check the session
/// themselves and answer 401), static files and probes.
fn is_public(path: &str) -> bool {
    const PREFIXES: [&str; 4] = ["/api/", "/rpc/", "/pkg/", "/sub/"];
    const EXACT: [&str; 5] = ["/login", "/healthz", "/readyz", "/metrics", "/favicon.svg"];
    PREFIXES.iter().any(|p| path.starts_with(p)) || EXACT.contains(&path)
}

/// Whether a request asks to see a page (the guard lets every other
/// method through to handlers that check the session themselves).
pub fn is_page_view(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD)
}

/// Every page but the login page needs a session: signed-out browsers are
/// sent to `/login`, signed-in ones skip it.
pub async fn guard_pages(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    if !is_page_view(request.method()) || (is_public(path) && path != "/login") {
        return next.run(request).await;
    }
    let operator = match state.site.session_token(request.headers()) {
        Some(token) => match state
            .sessions
            .operator(&state.store, &TokenHash::of(token))
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
    fn five_failures_lock_a_username_for_the_window() {
        let limiter = LoginLimiter::default();
        let start = Instant::now();
        for _ in 0..MAX_FAILURES_PER_USER {
            assert!(!limiter.is_locked("ops", "10.0.0.1", start));
            limiter.record_failure("ops", "10.0.0.1", start);
        }
        assert!(limiter.is_locked("ops", "10.0.0.2", start));
        assert!(!limiter.is_locked("other", "10.0.0.2", start));
        assert!(!limiter.is_locked("ops", "10.0.0.1", start + FAILURE_WINDOW));
    }

    #[test]
    fn one_address_cannot_try_many_usernames() {
        let limiter = LoginLimiter::default();
        let now = Instant::now();
        for i in 0..MAX_FAILURES_PER_ADDRESS {
            limiter.record_failure(&format!("user{i}"), "10.0.0.9", now);
        }
        assert!(limiter.is_locked("fresh", "10.0.0.9", now));
    }

    #[test]
    fn five_wrong_current_passwords_pause_that_operators_password_changes() {
        let limiter = LoginLimiter::default();
        let start = Instant::now();
        for _ in 0..MAX_PASSWORD_CHANGE_FAILURES {
            assert_eq!(limiter.try_password_change(1, start), Ok(()));
        }
        let later = start + Duration::from_secs(60);
        assert_eq!(
            limiter.try_password_change(1, later),
            Err(FAILURE_WINDOW - Duration::from_secs(60))
        );
        assert_eq!(
            limiter.try_password_change(2, later),
            Ok(()),
            "per operator"
        );
        assert!(
            !limiter.is_locked("ops", "10.0.0.1", later),
            "not a sign-in lock"
        );
        assert_eq!(
            limiter.try_password_change(1, start + FAILURE_WINDOW),
            Ok(())
        );
        limiter.password_change_succeeded(1);
        for _ in 0..MAX_PASSWORD_CHANGE_FAILURES {
            assert_eq!(limiter.try_password_change(1, later), Ok(()));
        }
    }

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
