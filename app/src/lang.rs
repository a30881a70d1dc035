//! Which language the panel speaks: the `meshwatch_lang` cookie, else the
//! browser's `Accept-Language`, decided on the server for the first render
//! (no flash) and read back from `<html lang>` by the hydrated app, so both
//! render the same words.

use leptos::prelude::*;
use meshwatch_views::i18n::Lang;

/// The language of this request (server) or page (browser).
pub fn detect() -> Lang {
    #[cfg(feature = "ssr")]
    {
        with_context::<http::request::Parts, _>(|parts| from_headers(&parts.headers))
            .unwrap_or_default()
    }
    #[cfg(not(feature = "ssr"))]
    {
        document()
            .document_element()
            .and_then(|html| html.get_attribute("lang"))
            .and_then(|code| Lang::from_code(&code))
            .unwrap_or_default()
    }
}

/// The cookie's choice, else `Accept-Language`.
#[cfg(feature = "ssr")]
pub fn from_headers(headers: &http::HeaderMap) -> Lang {
    let cookie = headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == meshwatch_views::i18n::LANG_COOKIE)
        .and_then(|(_, code)| Lang::from_code(code));
    cookie.unwrap_or_else(|| {
        headers
            .get(http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .map(Lang::negotiate)
            .unwrap_or_default()
    })
}

/// The language the page is rendered in (provided by the app root).
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_default()
}
