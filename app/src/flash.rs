//! A form's outcome, shown once. The panel's forms are plain posts to
//! server functions (pages carry no WASM), so after a post the browser is
//! sent back to the form's page; what the post did waits here, keyed by the
//! operator's session, until that page is rendered next. A script calling
//! the same server function gets the result in the answer instead.

use crate::error::AppError;
use meshwatch::views::NewApiToken;
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
}

/// What a post of a form did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    Done,
    /// The only time a token's secret is shown.
    TokenCreated(NewApiToken),
    /// A test message went to this many targets.
    Queued(usize),
    Failed(AppError),
}

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

/// The outcome waiting for the page being rendered, taken (it shows once).
/// A live refresh's background fetch of the page leaves it for the page
/// itself. Pages render on the server only: no request of its own.
pub fn take_for_page() -> Option<Flash> {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::use_context;
        let parts = use_context::<http::request::Parts>()?;
        if parts.headers.contains_key(crate::live::REFRESH_HEADER) {
            return None;
        }
        let session = crate::auth::session_in_context(&parts.headers)?;
        use_context::<Flashes>()?.take(session)
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
    }
}

#[cfg(feature = "ssr")]
pub use store::Flashes;

#[cfg(feature = "ssr")]
mod store {
    use super::Flash;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, PoisonError};
    use std::time::{Duration, Instant};

    /// Long enough for any redirect, short enough that an outcome never
    /// greets the operator much later.
    const KEPT: Duration = Duration::from_secs(300);

    /// Outcomes waiting for their page, one per session (a newer post
    /// replaces an older outcome).
    #[derive(Clone, Default)]
    pub struct Flashes(Arc<Mutex<HashMap<String, (Instant, Flash)>>>);

    impl Flashes {
        pub fn put(&self, session: &str, flash: Flash) {
            let mut waiting = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            waiting.retain(|_, (at, _)| at.elapsed() < KEPT);
            waiting.insert(session.to_owned(), (Instant::now(), flash));
        }

        pub fn take(&self, session: &str) -> Option<Flash> {
            let mut waiting = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            waiting
                .remove(session)
                .filter(|(at, _)| at.elapsed() < KEPT)
                .map(|(_, flash)| flash)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::{Form, Outcome};
        use super::*;

        #[test]
        fn an_outcome_is_taken_once_and_only_by_its_session() {
            let flashes = Flashes::default();
            let done = Flash {
                form: Form::Password,
                outcome: Outcome::Done,
            };
            flashes.put("a", done.clone());
            assert_eq!(flashes.take("b"), None);
            assert_eq!(flashes.take("a"), Some(done));
            assert_eq!(flashes.take("a"), None);
        }

        #[test]
        fn a_newer_post_replaces_the_waiting_outcome() {
            let flashes = Flashes::default();
            for n in [1, 2] {
                flashes.put(
                    "a",
                    Flash {
                        form: Form::TestNotification,
                        outcome: Outcome::Queued(n),
                    },
                );
            }
            assert_eq!(
                flashes.take("a").map(|f| f.outcome),
                Some(Outcome::Queued(2))
            );
        }
    }
}
