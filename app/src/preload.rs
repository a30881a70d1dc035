//! Pages' data, loaded for the request before its page renders. Loading
//! ahead lets a page render in one synchronous pass, without a resource, a
//! suspense boundary and the async rendering they need. The server's
//! handler of each such route (`server/src/http/preloaded_page.rs`) calls
//! [`load`] once the page guard has checked the session, then renders the
//! page in that one pass; the page takes what [`load`] left in the
//! request with [`take`].

use crate::error::AppError;

/// A page's data for the request being rendered, or why there is none.
pub type Loaded<T> = Result<T, AppError>;

pub use crate::app::PageRoute;

impl PageRoute {
    /// The page the router's match `matched` serves, if its data is
    /// loaded ahead. The server's router writes a parameter `{id}` where
    /// the app's `<Route>` writes `:id`.
    pub fn of_route(matched: &str) -> Option<PageRoute> {
        Self::ALL
            .iter()
            .copied()
            .find(|route| same_route(matched, route.leptos_path()))
    }
}

/// Whether an axum route (`/servers/{id}`) and a Leptos one
/// (`/servers/:id`) are the same path.
fn same_route(axum: &str, leptos: &str) -> bool {
    let (mut a, mut l) = (axum.split('/'), leptos.split('/'));
    loop {
        match (a.next(), l.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let same = match (
                    x.strip_prefix('{').and_then(|p| p.strip_suffix('}')),
                    y.strip_prefix(':'),
                ) {
                    (Some(p), Some(q)) => p == q,
                    (None, None) => x == y,
                    _ => false,
                };
                if !same {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// What a request to a page asked for beyond its route.
#[cfg(feature = "ssr")]
pub struct PageRequest<'a> {
    /// The `{id}` of a card's route.
    pub id: Option<&'a str>,
    /// The query string's parameters, as the router reads them.
    pub query: leptos_router::params::ParamsMap,
    pub headers: &'a http::HeaderMap,
}

#[cfg(feature = "ssr")]
impl PageRequest<'_> {
    fn text(&self, name: &str) -> String {
        self.query.get(name).unwrap_or_default()
    }

    /// `?page=`, 1 when absent or not a number.
    fn page(&self) -> u32 {
        self.query
            .get("page")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or(1)
    }
}

/// The query string `query` (without `?`) as the router reads it: its
/// pairs, form-decoded (the router parses the whole address to get them).
#[cfg(feature = "ssr")]
pub fn query_params(query: &str) -> leptos_router::params::ParamsMap {
    form_urlencoded::parse(query.as_bytes())
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

/// Loads the data of the page `route` serves into the request's
/// `extensions` (a user card's subscription link starts with `site`'s
/// address). Only for a request the page guard has signed in.
#[cfg(feature = "ssr")]
pub async fn load(
    backend: &crate::backend::Backend,
    site: &crate::auth::PanelSite,
    route: PageRoute,
    request: PageRequest<'_>,
    extensions: &mut http::Extensions,
) {
    use crate::api;
    let id = request.id.unwrap_or_default();
    match route {
        PageRoute::Servers => {
            let filter = meshwatch_views::views::ServerFilter {
                text: request.text("q"),
                status: request.text("status"),
                country: request.text("country"),
                route: request.text("route"),
            };
            put(
                extensions,
                api::servers_page_of(backend, &filter, request.page()).await,
            );
        }
        PageRoute::ServerCard => put(extensions, api::server_card_of(backend, id).await),
        PageRoute::Users => {
            let search = request.text("q");
            put(
                extensions,
                api::users_page_of(backend, &search, request.page()).await,
            );
        }
        PageRoute::UserCard => {
            let url = site.url(request.headers);
            put(extensions, api::user_card_of(backend, id, &url).await);
        }
        PageRoute::Overview => put(extensions, api::overview_of(backend).await),
        PageRoute::Routes => put(extensions, api::routes_of(backend).await),
        PageRoute::Notifications => put(extensions, api::outbox_of(backend).await),
        PageRoute::Mesh => {
            use crate::ui::pages::mesh::{MeshData, MeshView};
            let view = api::mesh_of(backend, &request.text("q"))
                .await
                .map(|found| match found {
                    Ok(sets) => MeshData::Sets(sets),
                    Err(matrix) => {
                        MeshData::Matrix(MeshView::of(matrix, |name| request.query.get(name)))
                    }
                });
            put(extensions, view);
        }
    }
}

/// Leaves `loaded` in a request's `extensions` for its page to [`take`]:
/// what [`load`] does with each page's data.
#[cfg(feature = "ssr")]
pub fn put<T: Send + Sync + 'static>(extensions: &mut http::Extensions, loaded: Loaded<T>) {
    extensions.insert(slot::Slot::new(loaded));
}

/// The data [`load`] left for the page being rendered, taken (a page
/// renders once per request). Pages render on the server only.
pub fn take<T: Send + Sync + 'static>() -> Loaded<T> {
    #[cfg(feature = "ssr")]
    {
        let loaded = leptos::prelude::with_context::<http::request::Parts, _>(|parts| {
            parts.extensions.get::<slot::Slot<T>>()?.take()
        })
        .flatten();
        let loaded = loaded.unwrap_or_else(|| {
            tracing::error!("a page rendered without its data loaded");
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
    use super::{query_params, PageRoute};

    #[test]
    fn each_route_names_one_page() {
        for &route in PageRoute::ALL {
            let axum = route.leptos_path().replace(":id", "{id}");
            assert_eq!(PageRoute::of_route(&axum), Some(route));
        }
        assert_eq!(
            PageRoute::of_route("/servers/{id}"),
            Some(PageRoute::ServerCard)
        );
        assert_eq!(PageRoute::of_route("/settings"), None);
        assert_eq!(PageRoute::of_route("/users/{id}/qr.svg"), None);
        assert_eq!(PageRoute::of_route("/users/{name}"), None);
    }

    #[test]
    fn the_query_is_read_as_the_router_reads_it() {
        let query = query_params("q=de%201&page=2&status=");
        assert_eq!(query.get("q").as_deref(), Some("de 1"));
        assert_eq!(query.get("page").as_deref(), Some("2"));
        assert_eq!(query_params("").get("q"), None);
        for query in [
            "q=de%201&page=2&status=",
            "q=a+b&q=c&country=%D0%A0%D0%A4&route=x%26y&page=",
            "q=%zz&=v&k&&q2=%E2%82%AC",
        ] {
            let router = leptos_router::location::RequestUrl::new(&format!("/?{query}"))
                .parse()
                .expect("an address");
            let ours: Vec<_> = query_params(query).into_iter().collect();
            let theirs: Vec<_> = router.search_params().clone().into_iter().collect();
            assert_eq!(ours, theirs, "{query}");
        }
    }
}
