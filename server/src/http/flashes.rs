//! Form outcomes on their way to their page (see `app::flash`): sealed
//! with the panel's secret key for the operator's session, so that any
//! replica renders the page that shows one, and cleared once it has.

use crate::crypto::sealing::SealingKey;
use crate::crypto::secrets::TokenHash;
use app::auth::PanelSite;
use app::flash::{cleared_cookie, FlashSeal, Flashes, FLASH_COOKIE};
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_TYPE, SET_COOKIE};
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;

/// Seals outcomes with the key that seals subscription tokens: every
/// replica of a database has it.
struct SessionSeal(SealingKey);

/// What an outcome is bound to: its session, never written in clear.
fn bound_to(session: &str) -> Vec<u8> {
    format!("meshwatch flash {}", TokenHash::of(session).as_str()).into_bytes()
}

impl FlashSeal for SessionSeal {
    fn seal(&self, session: &str, clear: &[u8]) -> Option<String> {
        self.0.seal_bound(&bound_to(session), clear).ok()
    }

    fn open(&self, session: &str, sealed: &str) -> Option<Vec<u8>> {
        self.0.open_bound(&bound_to(session), sealed).ok()
    }
}

pub fn sealed_with(key: SealingKey) -> Flashes {
    Flashes::new(Arc::new(SessionSeal(key)))
}

/// A page rendered for a request that carried an outcome has shown it:
/// the cookie goes with that page (not with a live refresh's fetch, nor
/// with anything but a page).
pub async fn clear_shown(State(site): State<PanelSite>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let carries = request.method() == Method::GET
        && app::auth::cookie(headers, FLASH_COOKIE).is_some()
        && !headers.contains_key(app::live::REFRESH_HEADER);
    let secure = site.secure_cookies(headers);
    let mut response = next.run(request).await;
    let is_page = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if carries && is_page {
        if let Ok(cleared) = HeaderValue::from_str(&cleared_cookie(secure)) {
            response.headers_mut().append(SET_COOKIE, cleared);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::flash::{Flash, Form, Outcome};
    use axum::http::HeaderMap;

    #[test]
    fn a_sealed_outcome_opens_for_its_session_only_and_hides_the_token() {
        let flashes = sealed_with(SealingKey::random());
        let created = Flash {
            form: Form::CreateToken,
            outcome: Outcome::TokenCreated(meshwatch_views::views::NewApiToken {
                name: "ci".to_owned(),
                scope: meshwatch::account::TokenScope::Fleet,
                token: "secret-token-value-0001".to_owned(),
            }),
        };
        let cookie = flashes
            .cookie("session-a", created.clone(), false)
            .expect("sealed");
        assert!(!cookie.contains("secret-token-value-0001"), "{cookie}");
        let mut request = HeaderMap::new();
        let pair = cookie.split(';').next().expect("name=value");
        request.insert(axum::http::header::COOKIE, pair.parse().expect("header"));
        assert_eq!(flashes.from_request("session-b", &request), None);
        assert_eq!(flashes.from_request("session-a", &request), Some(created));
        let other_key = sealed_with(SealingKey::random());
        assert_eq!(other_key.from_request("session-a", &request), None);
    }
}
