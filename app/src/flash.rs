//! A form's outcome, shown once. The panel's forms are plain posts to
//! server functions (pages carry no WASM), so after a post the browser is
//! sent back to the form's page; what the post did travels with that
//! redirect in a short-lived cookie, sealed for the operator's session
//! (it may hold a new API token), and the page rendered next shows it (the
//! server then clears the cookie). Any replica of the panel can render
//! that page: nothing waits in one process's memory. A script calling the
//! same server function gets the result in the answer instead.

use crate::error::AppError;
use meshwatch_views::views::NewApiToken;
use serde::{Deserialize, Serialize};

/// The panel's forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Form {
    Parameters,
    Password,
    CreateToken,
    RevokeToken,
    TestNotification,
    Verifier,
    Maintenance,
    Action,
    Connector,
    Import,
    AgentToken,
}

/// What a post of a form did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    Done,
    /// The only time a token's secret is shown.
    TokenCreated(NewApiToken),
    /// A test message went to this many targets.
    Queued(usize),
    /// The password changed; these API tokens, which the operator's
    /// sessions had created, were revoked.
    PasswordChanged(Vec<String>),
    /// An import added this many servers; the first of them (at most
    /// [`SHOWN_AFTER_IMPORT`], so the outcome fits its cookie), by id.
    Imported {
        count: usize,
        first: Vec<meshwatch::ServerId>,
    },
    /// The only time a new agent token is shown.
    AgentToken(String),
    Failed(AppError),
}

/// The servers an import's outcome names (the rest are counted): a
/// cookie holds about 4 KB.
pub const SHOWN_AFTER_IMPORT: usize = 30;

/// A form's outcome waiting for its page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flash {
    pub form: Form,
    pub outcome: Outcome,
}

/// The outcome of `form`'s last post, when the waiting flash is that form's.
pub fn outcome_of(flash: &Option<Flash>, form: Form) -> Option<Outcome> {
    flash
        .as_ref()
        .filter(|f| f.form == form)
        .map(|f| f.outcome.clone())
}

/// The outcome the page being rendered was sent with (it shows once: the
/// server clears the cookie with this page). A live refresh's background
/// fetch of the page leaves it for the page itself. Pages render on the
/// server only: no request of its own.
pub fn take_for_page() -> Option<Flash> {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::{use_context, with_context};
        // Read before: `with_context` holds the context's lock meanwhile.
        let flashes = use_context::<Flashes>()?;
        let site = crate::auth::PanelSite::from_context()?;
        with_context::<http::request::Parts, _>(|parts| {
            if parts.headers.contains_key(crate::live::REFRESH_HEADER) {
                return None;
            }
            let session = site.session_token(&parts.headers)?;
            flashes.from_request(session, &parts.headers)
        })
        .flatten()
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
    }
}

/// The cookie that carries a form's outcome to its page.
pub const FLASH_COOKIE: &str = "meshwatch_flash";

#[cfg(feature = "ssr")]
pub use sealed::{FlashSeal, Flashes};

#[cfg(feature = "ssr")]
mod sealed {
    use super::{Flash, FLASH_COOKIE};
    use http::HeaderMap;
    use serde::{Deserialize, Serialize};
    use std::sync::Arc;

    /// Long enough for any redirect, short enough that an outcome never
    /// greets the operator much later.
    const KEPT_S: i64 = 300;

    /// Seals bytes so that only the same session opens them (the server
    /// provides it: the panel's secret key does the sealing).
    pub trait FlashSeal: Send + Sync {
        fn seal(&self, session: &str, clear: &[u8]) -> Option<String>;
        fn open(&self, session: &str, sealed: &str) -> Option<Vec<u8>>;
    }

    /// What the cookie holds, sealed.
    #[derive(Serialize, Deserialize)]
    struct Carried {
        /// When the form was posted (Unix seconds).
        at: i64,
        flash: Flash,
    }

    /// Form outcomes on their way to their page.
    #[derive(Clone)]
    pub struct Flashes(Arc<dyn FlashSeal>);

    impl Flashes {
        pub fn new(seal: Arc<dyn FlashSeal>) -> Self {
            Self(seal)
        }

        /// The `Set-Cookie` value that carries `flash` to the next page
        /// of `session` (`None` if it cannot be sealed).
        pub fn cookie(&self, session: &str, flash: Flash, secure: bool) -> Option<String> {
            let carried = Carried {
                at: chrono::Utc::now().timestamp(),
                flash,
            };
            let json = serde_json::to_vec(&carried).ok()?;
            let sealed = self.0.seal(session, &json)?;
            let secure = if secure { "; Secure" } else { "" };
            Some(format!(
                "{FLASH_COOKIE}={sealed}; Path=/; HttpOnly; SameSite=Lax; Max-Age={KEPT_S}{secure}"
            ))
        }

        /// The outcome the request's cookie carries for `session`, if one
        /// does, opens for it and is recent.
        pub fn from_request(&self, session: &str, headers: &HeaderMap) -> Option<Flash> {
            let sealed = crate::auth::cookie(headers, FLASH_COOKIE)?;
            let clear = self.0.open(session, sealed)?;
            let carried: Carried = serde_json::from_slice(&clear).ok()?;
            let age = chrono::Utc::now().timestamp() - carried.at;
            (0..=KEPT_S).contains(&age).then_some(carried.flash)
        }
    }

    /// The `Set-Cookie` value that drops the carried outcome.
    pub fn cleared_cookie(secure: bool) -> String {
        let secure = if secure { "; Secure" } else { "" };
        format!("{FLASH_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}")
    }

    #[cfg(test)]
    mod tests {
        use super::super::{Form, Outcome};
        use super::*;

        /// Seals by prefixing the session (the server's real seal is
        /// tested with the key).
        struct Plain;

        impl FlashSeal for Plain {
            fn seal(&self, session: &str, clear: &[u8]) -> Option<String> {
                Some(format!("{session}.{}", hex_of(clear)))
            }
            fn open(&self, session: &str, sealed: &str) -> Option<Vec<u8>> {
                let (owner, hex) = sealed.split_once('.')?;
                (owner == session).then(|| {
                    (0..hex.len())
                        .step_by(2)
                        .filter_map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
                        .collect()
                })
            }
        }

        fn hex_of(bytes: &[u8]) -> String {
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        }

        fn request_with(set_cookie: &str) -> HeaderMap {
            let pair = set_cookie.split(';').next().expect("name=value");
            let mut headers = HeaderMap::new();
            headers.insert(http::header::COOKIE, pair.parse().expect("a header"));
            headers
        }

        #[test]
        fn an_outcome_opens_only_for_its_session() {
            let flashes = Flashes::new(Arc::new(Plain));
            let done = Flash {
                form: Form::Password,
                outcome: Outcome::Done,
            };
            let cookie = flashes.cookie("a", done.clone(), true).expect("sealed");
            assert!(cookie.contains("HttpOnly") && cookie.ends_with("; Secure"));
            let request = request_with(&cookie);
            assert_eq!(flashes.from_request("b", &request), None);
            assert_eq!(flashes.from_request("a", &request), Some(done));
        }

        #[test]
        fn a_cleared_cookie_carries_nothing() {
            let cleared = cleared_cookie(false);
            assert!(cleared.contains("Max-Age=0") && !cleared.contains("Secure"));
            let flashes = Flashes::new(Arc::new(Plain));
            assert_eq!(flashes.from_request("a", &request_with(&cleared)), None);
        }
    }
}

#[cfg(feature = "ssr")]
pub use sealed::cleared_cookie;
