//! Session cookie and cross-site checks shared by server functions and the
//! server's login handlers, so both read a request the same way.

use http::header::{COOKIE, HOST, ORIGIN};
use http::HeaderMap;

/// The operator the page guard found for this request's session. The
/// guard puts it in the request's extensions (which a client cannot set),
/// so the server functions a page renders do not look the session up again.
#[derive(Debug, Clone)]
pub struct SignedIn(pub meshwatch::views::OperatorView);

/// Name of the operator session cookie.
pub const SESSION_COOKIE: &str = "meshwatch_session";

/// How long a session lasts after sign-in.
pub const SESSION_MAX_AGE_S: i64 = 7 * 24 * 3600;

/// The session token carried by the request's cookie, if any.
pub fn session_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value)
        .filter(|v| !v.is_empty())
}

/// `scheme://host` of the panel as the browser reached it (behind a TLS
/// proxy, `X-Forwarded-Proto` says https), for absolute links.
pub fn panel_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_graphic()))
        .unwrap_or("localhost");
    let scheme = if is_https(headers, false) {
        "https"
    } else {
        "http"
    };
    format!("{scheme}://{host}")
}

/// Whether a state-changing request was sent by a page of another site.
/// Browsers send `Origin` on every cross-origin request and on POSTs, and
/// `Sec-Fetch-Site` on all requests, so a request with neither header comes
/// from a script, not a browser tricked into sending our cookie.
pub fn is_cross_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        if !matches!(site, "same-origin" | "none") {
            return true;
        }
    }
    match headers.get(ORIGIN).map(|v| v.to_str()) {
        None => false,
        Some(Err(_)) => true,
        Some(Ok(origin)) => {
            let origin_host = origin.split_once("://").map(|(_, rest)| rest);
            let host = headers.get(HOST).and_then(|v| v.to_str().ok());
            origin_host.is_none() || origin_host != host
        }
    }
}

/// Whether a request only asks to see something (`GET`, `HEAD`). Opening a
/// panel link from webmail or a chat is a cross-site `GET`, and a view
/// changes nothing, so the cross-site check is for every other method.
/// Server functions cannot be reached this way: they are posts, and Leptos
/// finds one by path *and* method.
pub fn is_read_only(method: &http::Method) -> bool {
    matches!(*method, http::Method::GET | http::Method::HEAD)
}

/// Whether a request is a browser's plain form post (it accepts HTML),
/// not a script's call, which wants the answer itself.
pub fn is_form_post(headers: &HeaderMap) -> bool {
    headers
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
}

/// The `Set-Cookie` value that starts a session. `Secure` is added when the
/// panel is served over https (directly or behind a TLS-terminating proxy).
pub fn session_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={SESSION_MAX_AGE_S}{secure}")
}

/// The `Set-Cookie` value that ends a session.
pub fn cleared_session_cookie(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}")
}

/// Whether the request reached us over https, directly or via a proxy that
/// says so.
pub fn is_https(headers: &HeaderMap, uri_scheme_https: bool) -> bool {
    uri_scheme_https
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|p| p.eq_ignore_ascii_case("https"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn the_session_token_is_read_among_other_cookies() {
        let h = headers(&[("cookie", "a=1; meshwatch_session=abc; b=2")]);
        assert_eq!(session_token(&h), Some("abc"));
        assert_eq!(session_token(&headers(&[("cookie", "a=1")])), None);
        assert_eq!(
            session_token(&headers(&[("cookie", "meshwatch_session=")])),
            None
        );
    }

    #[test]
    fn cross_site_requests_are_recognised() {
        let same = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "http://127.0.0.1:3000"),
        ]);
        assert!(!is_cross_site(&same));
        let other = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "https://evil.example"),
        ]);
        assert!(is_cross_site(&other));
        let fetch = headers(&[("host", "p"), ("sec-fetch-site", "cross-site")]);
        assert!(is_cross_site(&fetch));
        let null = headers(&[("host", "p"), ("origin", "null")]);
        assert!(is_cross_site(&null));
        assert!(!is_cross_site(&headers(&[("host", "p")])));
    }

    #[test]
    fn only_gets_and_heads_are_read_only() {
        assert!(is_read_only(&http::Method::GET) && is_read_only(&http::Method::HEAD));
        for method in [http::Method::POST, http::Method::PUT, http::Method::DELETE] {
            assert!(!is_read_only(&method), "{method}");
        }
    }

    #[test]
    fn cookies_are_http_only_and_lax_and_secure_over_https() {
        let c = session_cookie("t", false);
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax") && !c.contains("Secure"));
        assert!(session_cookie("t", true).ends_with("; Secure"));
        assert!(is_https(&headers(&[("x-forwarded-proto", "https")]), false));
        assert!(!is_https(&headers(&[]), false));
    }
}
