//! The card pages' data, loaded for the request before its page renders.
//! The cards are the panel's most viewed pages: loading them ahead lets the
//! page render in one synchronous pass, without a resource, a suspense
//! boundary and the async rendering they need. The page guard calls
//! [`load`] once the session is checked; the page takes what it left in
//! the request with [`take`].

use crate::error::AppError;

/// A card page's data for the request being rendered, or why there is none.
pub type Loaded<T> = Result<T, AppError>;

/// Loads the data of the card page `path` names (`/servers/{id}`,
/// `/users/{id}`, whose subscription link starts with `site`'s address)
/// into the request's `extensions`; other paths load nothing.
/// Only for a request the page guard has signed in.
#[cfg(feature = "ssr")]
pub async fn load(
    backend: &crate::backend::Backend,
    site: &crate::auth::PanelSite,
    path: &str,
    headers: &http::HeaderMap,
    extensions: &mut http::Extensions,
) {
    if let Some(id) = card_id(path, "/servers/") {
        let card = crate::api::server_card_of(backend, id).await;
        extensions.insert(slot::Slot::new(card));
    } else if let Some(id) = card_id(path, "/users/") {
        let url = site.url(headers);
        let card = crate::api::user_card_of(backend, id, &url).await;
        extensions.insert(slot::Slot::new(card));
    }
}

/// The id in `{prefix}{id}`, a card page's path (not a file under it).
#[cfg(feature = "ssr")]
fn card_id<'a>(path: &'a str, prefix: &str) -> Option<&'a str> {
    path.strip_prefix(prefix)
        .filter(|id| !id.is_empty() && !id.contains('/'))
}

/// The data [`load`] left for the page being rendered, taken (a page
/// renders once per request). Pages render on the server only.
pub fn take<T: Send + Sync + 'static>() -> Loaded<T> {
    #[cfg(feature = "ssr")]
    {
        let loaded = leptos::prelude::use_context::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<slot::Slot<T>>()?.take());
        let loaded = loaded.unwrap_or_else(|| {
            tracing::error!("a card page rendered without its data loaded");
            Err(AppError::Internal)
        });
        // The page's answer carries the error's status (404 for an
        // unknown id), as a server function's would.
        loaded.map_err(crate::backend::fail)
    }
    #[cfg(not(feature = "ssr"))]
    {
        Err(AppError::Internal)
    }
}

#[cfg(feature = "ssr")]
mod slot {
    use super::Loaded;
    use std::sync::{Arc, Mutex, PoisonError};

    /// Request extensions are cloned with the request's parts; the data
    /// is not: every clone shares this one slot.
    pub struct Slot<T>(Arc<Mutex<Option<Loaded<T>>>>);

    impl<T> Clone for Slot<T> {
        fn clone(&self) -> Self {
            Slot(self.0.clone())
        }
    }

    impl<T> Slot<T> {
        pub fn new(loaded: Loaded<T>) -> Self {
            Slot(Arc::new(Mutex::new(Some(loaded))))
        }

        pub fn take(&self) -> Option<Loaded<T>> {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
        }
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::card_id;

    #[test]
    fn only_a_card_page_path_names_a_card() {
        assert_eq!(card_id("/servers/s1", "/servers/"), Some("s1"));
        assert_eq!(card_id("/servers/", "/servers/"), None);
        assert_eq!(card_id("/users/u1/qr.svg", "/users/"), None);
        assert_eq!(card_id("/users", "/users/"), None);
    }
}
