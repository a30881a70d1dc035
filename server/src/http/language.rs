//! `POST /lang`: the language switcher's form. Remembers the choice in a
//! cookie for a year and goes back to the page it came from, so it works
//! without JavaScript and the next render is already in that language.
//!
//! A signed-in operator's choice is also the notifications' language: the
//! cookie lives in one browser, the notifications are written by the
//! panel, so the choice is kept panel-wide in the settings too.

use crate::auth::login::{see_other, with_cookie};
use crate::crypto::secrets::TokenHash;
use crate::http::state::AppState;
use app::auth::PanelSite;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;
use meshwatch_views::i18n::{Lang, LANG_COOKIE};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Choice {
    lang: String,
}

pub async fn choose(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(choice): Form<Choice>,
) -> Response {
    if state.access.site.is_cross_site(&headers) {
        return (
            StatusCode::FORBIDDEN,
            "This request came from another site and was refused.",
        )
            .into_response();
    }
    let Some(lang) = Lang::from_code(&choice.lang) else {
        return (
            StatusCode::BAD_REQUEST,
            format!("Unknown language {:?}.", choice.lang),
        )
            .into_response();
    };
    remember_for_notifications(&state, &headers, lang).await;
    let secure = if state.access.site.secure_cookies(&headers) {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!(
        "{LANG_COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax{secure}",
        lang.code()
    );
    with_cookie(see_other(&back_to(&headers, &state.access.site)), cookie)
}

/// Keeps a signed-in operator's choice as the notifications' language. A
/// visitor without a session (the sign-in page has the switcher too) only
/// gets the cookie. Failing to keep it costs the notifications their
/// language, not the operator their page: it is logged, not answered.
async fn remember_for_notifications(state: &AppState, headers: &HeaderMap, lang: Lang) {
    let Some(token) = state.access.site.session_token(headers) else {
        return;
    };
    let signed_in = match state
        .access
        .sessions
        .operator(&state.core.store, &TokenHash::of(token))
        .await
    {
        Ok(operator) => operator.is_some(),
        Err(err) => {
            tracing::error!(error = %err, "cannot check a session");
            false
        }
    };
    if signed_in {
        if let Err(err) = state.core.store.set_notify_lang(lang).await {
            tracing::error!(error = %err, "cannot keep the notifications' language");
        }
    }
}

/// The path of the referring page when it is one of ours, else `/`.
fn back_to(headers: &HeaderMap, site: &PanelSite) -> String {
    headers
        .get(header::REFERER)
        .and_then(|v| v.to_str().ok())
        .and_then(|referer| site.own_path(referer, headers))
        .map_or_else(|| "/".to_owned(), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    header::HeaderName::from_static(k),
                    header::HeaderValue::from_static(v),
                )
            })
            .collect()
    }

    #[test]
    fn it_goes_back_only_to_our_own_pages() {
        let site = PanelSite::default();
        let h = headers(&[
            ("host", "panel:3000"),
            ("referer", "http://panel:3000/users/alice?x=1"),
        ]);
        assert_eq!(back_to(&h, &site), "/users/alice?x=1");
        let h = headers(&[("host", "panel:3000"), ("referer", "https://evil.example/")]);
        assert_eq!(back_to(&h, &site), "/");
        let h = headers(&[
            ("host", "panel:3000"),
            ("referer", "http://panel:3000//evil.example"),
        ]);
        assert_eq!(back_to(&h, &site), "/");
        assert_eq!(back_to(&headers(&[]), &site), "/");
    }

    #[test]
    fn behind_a_proxy_that_rewrites_host_it_goes_back_by_the_public_url() {
        let public = app::auth::PublicOrigin::parse("https://panel.example").expect("url");
        let site = PanelSite::new(Some(public));
        let h = headers(&[
            ("host", "127.0.0.1:3000"),
            ("referer", "https://panel.example/mesh"),
        ]);
        assert_eq!(back_to(&h, &site), "/mesh");
    }
}
