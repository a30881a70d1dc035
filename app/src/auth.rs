//! Session cookie and cross-site checks shared by server functions and the
//! server's login handlers, so both read a request the same way: against
//! the panel's public URL when one is configured, else its `Host`.

mod public_origin;

pub use public_origin::PublicOrigin;

use http::header::{COOKIE, HOST, ORIGIN};
use http::HeaderMap;

/// The operator the page guard found for this request's session. The
/// guard puts it in the request's extensions (which a client cannot set),
/// so the server functions a page renders do not look the session up again.
#[derive(Debug, Clone)]
pub struct SignedIn(pub meshwatch_views::views::OperatorView);

/// Name of the operator session cookie.
pub const SESSION_COOKIE: &str = "meshwatch_session";

/// Its name when the public URL is https. Browsers keep a `__Host-` cookie
/// only if it is `Secure`, for `Path=/` and without `Domain`, so neither a
/// neighbouring host of the same domain nor a plain-http answer can plant
/// a session of its choosing in an operator's browser.
pub const HOST_SESSION_COOKIE: &str = "__Host-meshwatch_session";

/// How long a session lasts after sign-in.
pub const SESSION_MAX_AGE_S: i64 = 7 * 24 * 3600;

/// Where browsers reach the panel: its public origin when
/// `MESHWATCH_PUBLIC_URL` is set, else whatever each request's `Host` (and
/// `X-Forwarded-Proto`) says. It decides what counts as cross-site, the
/// base of absolute links, and the session cookie's name and flags. The
/// server keeps one in its state and puts it in every request's Leptos
/// context ([`PanelSite::from_context`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PanelSite {
    public: Option<PublicOrigin>,
}

impl PanelSite {
    pub fn new(public: Option<PublicOrigin>) -> Self {
        Self { public }
    }

    /// The one the server put in the Leptos context of this request.
    pub fn from_context() -> Option<Self> {
        leptos::prelude::use_context::<Self>()
    }

    /// The session cookie's name: `__Host-` prefixed for an https public URL.
    pub fn session_cookie_name(&self) -> &'static str {
        if self.public.as_ref().is_some_and(PublicOrigin::is_https) {
            HOST_SESSION_COOKIE
        } else {
            SESSION_COOKIE
        }
    }

    /// The session token carried by the request's cookie, if any. Only the
    /// name in use counts: with an https public URL an unprefixed cookie
    /// may have been planted (see [`HOST_SESSION_COOKIE`]).
    pub fn session_token<'h>(&self, headers: &'h HeaderMap) -> Option<&'h str> {
        cookie(headers, self.session_cookie_name())
    }

    /// Whether cookies get `Secure`: the public URL is https or, without
    /// one, the request came over https (directly or via a TLS proxy that
    /// says so in `X-Forwarded-Proto`).
    pub fn secure_cookies(&self, headers: &HeaderMap) -> bool {
        match &self.public {
            Some(public) => public.is_https(),
            None => forwarded_https(headers),
        }
    }

    /// The `Set-Cookie` value that starts a session.
    pub fn session_cookie(&self, token: &str, headers: &HeaderMap) -> String {
        self.cookie_with(token, SESSION_MAX_AGE_S, headers)
    }

    /// The `Set-Cookie` value that ends a session.
    pub fn cleared_session_cookie(&self, headers: &HeaderMap) -> String {
        self.cookie_with("", 0, headers)
    }

    fn cookie_with(&self, value: &str, max_age_s: i64, headers: &HeaderMap) -> String {
        let name = self.session_cookie_name();
        let secure = if self.secure_cookies(headers) {
            "; Secure"
        } else {
            ""
        };
        // `Path=/` and no `Domain`: what a `__Host-` cookie must have.
        format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_s}{secure}")
    }

    /// `scheme://host[:port]` of the panel for absolute links (subscription
    /// links, QR codes): the public URL, else as this request reached it.
    pub fn url(&self, headers: &HeaderMap) -> String {
        match &self.public {
            Some(public) => public.to_string(),
            None => {
                let scheme = if forwarded_https(headers) {
                    "https"
                } else {
                    "http"
                };
                format!("{scheme}://{}", host(headers).unwrap_or("localhost"))
            }
        }
    }

    /// Whether a state-changing request was sent by a page of another site.
    /// Browsers send `Origin` on every cross-origin request and on POSTs,
    /// and `Sec-Fetch-Site` on all requests, so a request with neither
    /// header comes from a script, not a browser tricked into sending our
    /// cookie. With a public URL `Origin` must name it exactly (scheme,
    /// host and port), so nothing depends on the proxy passing `Host` on;
    /// without one, its host must be the request's `Host`.
    pub fn is_cross_site(&self, headers: &HeaderMap) -> bool {
        if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
            if !matches!(site, "same-origin" | "none") {
                return true;
            }
        }
        match headers.get(ORIGIN).map(|v| v.to_str()) {
            None => false,
            Some(Err(_)) => true,
            Some(Ok(origin)) => match &self.public {
                Some(public) => !public.is(origin),
                None => {
                    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
                    origin_host.is_none()
                        || origin_host != headers.get(HOST).and_then(|v| v.to_str().ok())
                }
            },
        }
    }

    /// The path (and query) of `url` when it is an address on this panel,
    /// e.g. a `Referer` to go back to.
    pub fn own_path<'u>(&self, url: &'u str, headers: &HeaderMap) -> Option<&'u str> {
        let path = match &self.public {
            Some(public) => url.strip_prefix(public.to_string().as_str())?,
            // Either scheme: a TLS proxy may not say it is one.
            None => {
                let ours = host(headers)?;
                ["http://", "https://"]
                    .iter()
                    .find_map(|scheme| url.strip_prefix(scheme)?.strip_prefix(ours))?
            }
        };
        (path.starts_with('/') && !path.starts_with("//")).then_some(path)
    }
}

/// The session token of the request being handled, with the cookie name
/// of the [`PanelSite`] in the Leptos context (none without one).
pub fn session_in_context(headers: &HeaderMap) -> Option<&str> {
    PanelSite::from_context()?.session_token(headers)
}

/// The value of cookie `name`, if the request carries a non-empty one.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value)
        .filter(|v| !v.is_empty())
}

/// The request's `Host`, when it is printable.
fn host(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_graphic()))
}

/// Whether a TLS proxy says the request came over https.
fn forwarded_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"))
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

    fn behind(url: &str) -> PanelSite {
        PanelSite::new(Some(PublicOrigin::parse(url).expect("a public URL")))
    }

    #[test]
    fn the_session_token_is_read_among_other_cookies() {
        let site = PanelSite::default();
        let h = headers(&[("cookie", "a=1; meshwatch_session=abc; b=2")]);
        assert_eq!(site.session_token(&h), Some("abc"));
        assert_eq!(site.session_token(&headers(&[("cookie", "a=1")])), None);
        assert_eq!(
            site.session_token(&headers(&[("cookie", "meshwatch_session=")])),
            None
        );
    }

    #[test]
    fn behind_an_https_public_url_only_the_host_prefixed_cookie_is_a_session() {
        let site = behind("https://panel.example");
        assert_eq!(site.session_cookie_name(), "__Host-meshwatch_session");
        let planted = headers(&[("cookie", "meshwatch_session=planted")]);
        assert_eq!(site.session_token(&planted), None);
        let ours = headers(&[(
            "cookie",
            "meshwatch_session=planted; __Host-meshwatch_session=abc",
        )]);
        assert_eq!(site.session_token(&ours), Some("abc"));
        assert_eq!(
            behind("http://panel.example").session_cookie_name(),
            SESSION_COOKIE
        );
    }

    #[test]
    fn without_a_public_url_cross_site_is_judged_against_the_host() {
        let site = PanelSite::default();
        let same = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "http://127.0.0.1:3000"),
        ]);
        assert!(!site.is_cross_site(&same));
        let other = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "https://evil.example"),
        ]);
        assert!(site.is_cross_site(&other));
        let fetch = headers(&[("host", "p"), ("sec-fetch-site", "cross-site")]);
        assert!(site.is_cross_site(&fetch));
        let null = headers(&[("host", "p"), ("origin", "null")]);
        assert!(site.is_cross_site(&null));
        assert!(!site.is_cross_site(&headers(&[("host", "p")])));
    }

    #[test]
    fn with_a_public_url_the_origin_must_be_it_whatever_the_host_says() {
        let site = behind("https://panel.example");
        let proxied =
            |origin: &'static str| headers(&[("host", "127.0.0.1:3000"), ("origin", origin)]);
        assert!(!site.is_cross_site(&proxied("https://panel.example")));
        assert!(!site.is_cross_site(&proxied("https://panel.example:443")));
        for origin in [
            "http://127.0.0.1:3000",
            "http://panel.example",
            "https://panel.example:8443",
            "https://evil.example",
            "null",
        ] {
            assert!(site.is_cross_site(&proxied(origin)), "{origin}");
        }
        let fetch = headers(&[
            ("origin", "https://panel.example"),
            ("sec-fetch-site", "same-site"),
        ]);
        assert!(site.is_cross_site(&fetch));
        assert!(!site.is_cross_site(&headers(&[("host", "127.0.0.1:3000")])));
    }

    #[test]
    fn links_use_the_public_url_when_there_is_one() {
        let proxied = headers(&[("host", "127.0.0.1:3000"), ("x-forwarded-proto", "https")]);
        assert_eq!(PanelSite::default().url(&proxied), "https://127.0.0.1:3000");
        assert_eq!(
            behind("https://panel.example:8443/").url(&proxied),
            "https://panel.example:8443"
        );
        assert_eq!(PanelSite::default().url(&headers(&[])), "http://localhost");
    }

    #[test]
    fn only_our_own_addresses_give_a_path_back() {
        let h = headers(&[("host", "panel:3000")]);
        let site = PanelSite::default();
        assert_eq!(
            site.own_path("http://panel:3000/users/a?x=1", &h),
            Some("/users/a?x=1")
        );
        assert_eq!(site.own_path("https://panel:3000/", &h), Some("/"));
        assert_eq!(site.own_path("https://evil.example/", &h), None);
        assert_eq!(site.own_path("http://panel:3000//evil.example", &h), None);
        assert_eq!(site.own_path("http://panel:30000/", &h), None);
        let public = behind("https://panel.example");
        assert_eq!(
            public.own_path("https://panel.example/mesh", &h),
            Some("/mesh")
        );
        assert_eq!(public.own_path("http://panel:3000/mesh", &h), None);
        assert_eq!(
            public.own_path("https://panel.example.evil.example/", &h),
            None
        );
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
        let plain = headers(&[]);
        let c = PanelSite::default().session_cookie("t", &plain);
        assert!(c.starts_with("meshwatch_session=t; Path=/; HttpOnly; SameSite=Lax"));
        assert!(!c.contains("Secure"));
        let proxied = headers(&[("x-forwarded-proto", "https")]);
        assert!(PanelSite::default()
            .session_cookie("t", &proxied)
            .ends_with("; Secure"));
        let host = behind("https://panel.example").session_cookie("t", &plain);
        assert!(
            host.starts_with("__Host-meshwatch_session=t; Path=/;"),
            "{host}"
        );
        assert!(
            host.ends_with("; Secure") && !host.contains("Domain"),
            "{host}"
        );
        let cleared = behind("https://panel.example").cleared_session_cookie(&plain);
        assert!(cleared.starts_with("__Host-meshwatch_session=;") && cleared.contains("Max-Age=0"));
        // An http public URL is what browsers use, whatever a proxy says.
        assert!(!behind("http://panel.example").secure_cookies(&proxied));
    }
}
