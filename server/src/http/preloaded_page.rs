//! The pages whose data is loaded before they render (`app::preload`):
//! the servers list and card, the users list and card, the overview, the
//! routes, the notifications and the mesh — the pages an operator keeps
//! open. Their data is loaded first, then the page is rendered in one
//! synchronous pass. Such a page waits for nothing, so leptos_axum's
//! asynchronous pipeline (an in-order stream of boxed futures, collected
//! back into one string) is pure overhead on the panel's busiest pages:
//! about a third of a user card's cost. The bytes, the status and the
//! headers are the same as that pipeline gives (a test holds them equal),
//! from the same contexts: the request's parts, its URL for the router,
//! the response options, the meta tags, and the panel's own.
//!
//! So these pages must stay free of resources and suspense: rendered in
//! one pass, a `<Suspense>` writes its fallback where leptos_axum would
//! have waited for it. A page that needs one loads its own data, like the
//! settings page, and is left to leptos_axum.

use crate::auth::login::see_other;
use crate::http::state::AppState;
use app::preload::{PageRequest, PageRoute};
use axum::body::Body;
use axum::extract::{FromRequestParts, RawPathParams, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::http::HeaderValue;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use futures_util::StreamExt;
use hydration_context::{SharedContext, SsrSharedContext};
use leptos::prelude::{provide_context, IntoView, LeptosOptions, Owner, RenderHtml};
use leptos::tachys::view::Position;
use leptos_axum::ResponseOptions;
use leptos_meta::ServerMetaContext;
use leptos_router::location::RequestUrl;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError};

/// What every page render finds in its context beyond the request's own
/// (the panel's backend, flashes, site and CSP nonce).
pub type PageContext = Arc<dyn Fn() + Send + Sync>;

/// What serving a preloaded page needs.
#[derive(Clone)]
pub struct PreloadedPages {
    pub backend: app::backend::Backend,
    /// A user card's subscription link starts with the site's address.
    pub site: app::auth::PanelSite,
    pub options: LeptosOptions,
    pub context: PageContext,
}

/// Whether leptos_axum's router should leave `path` (axum's syntax) to
/// [`routes`].
pub fn is_preloaded(path: &str) -> bool {
    PageRoute::of_route(path).is_some()
}

/// One route: the page it serves, and the size its page had last (its
/// next page is written into a buffer that size, not one grown by
/// doubling, each step a copy of what is written so far).
struct Served {
    pages: PreloadedPages,
    route: PageRoute,
    size: AtomicUsize,
}

/// Adds every preloaded page's route to `router`.
pub fn routes(router: Router<AppState>, pages: PreloadedPages) -> Router<AppState> {
    // Injecting the meta tags yields through Leptos's executor, which
    // leptos_axum sets up only where it registers routes of its own.
    let _ = any_spawner::Executor::init_tokio();
    PageRoute::ALL.iter().fold(router, |router, &route| {
        // Shared: a request's state is a clone.
        let served = Arc::new(Served {
            pages: pages.clone(),
            route,
            size: AtomicUsize::new(0),
        });
        router.route(
            &route.leptos_path().replace(":id", "{id}"),
            get(serve).with_state(served),
        )
    })
}

/// Loads the page's data, then renders it. The page guard has signed the
/// request in (and sends signed-out browsers to `/login` before this).
async fn serve(State(served): State<Arc<Served>>, request: Request) -> Response {
    let pages = &served.pages;
    let (mut parts, _) = request.into_parts();
    if parts.extensions.get::<app::auth::SignedIn>().is_none() {
        return see_other("/login");
    }
    let params = RawPathParams::from_request_parts(&mut parts, &())
        .await
        .ok();
    let id = params
        .as_ref()
        .and_then(|p| p.iter().find(|(name, _)| *name == "id").map(|(_, v)| v));
    let page = PageRequest {
        id,
        query: app::preload::query_params(parts.uri.query().unwrap_or_default()),
        headers: &parts.headers,
    };
    let mut extensions = std::mem::take(&mut parts.extensions);
    app::preload::load(
        &pages.backend,
        &pages.site,
        served.route,
        page,
        &mut extensions,
    )
    .await;
    parts.extensions = extensions;
    let (response, written) = render(
        &pages.options,
        &pages.context,
        app::shell,
        parts,
        served.size.load(Ordering::Relaxed),
    )
    .await;
    served.size.store(written, Ordering::Relaxed);
    response
}

/// Renders `shell` for the request `parts` in one pass, then puts the
/// page's meta tags into its head and the hydration data after it, as
/// leptos_axum does; `size` is the room to write it in. Also says how
/// long the page was.
pub async fn render<IV, F>(
    options: &LeptosOptions,
    context: &PageContext,
    shell: F,
    parts: Parts,
    size: usize,
) -> (Response, usize)
where
    IV: IntoView + 'static,
    F: FnOnce(LeptosOptions) -> IV,
{
    let path = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path(), |p| p.as_str());
    // The router reads only the path and query of this URL.
    let url = format!("http://leptos.dev{path}");
    let response_options = ResponseOptions::default();
    let (meta, meta_output) = ServerMetaContext::new();
    let shared: Arc<dyn SharedContext + Send + Sync> = Arc::new(SsrSharedContext::new());
    let owner = Owner::new_root(Some(shared.clone()));
    let (mut html, nonce) = owner.with(|| {
        provide_context(RequestUrl::new(&url));
        provide_context(meta);
        provide_context(parts);
        provide_context(response_options.clone());
        leptos_router::components::provide_server_redirect(leptos_axum::redirect);
        context();
        let nonce = leptos::nonce::use_nonce()
            .map(|nonce| format!(" nonce=\"{nonce}\""))
            .unwrap_or_default();
        let mut html = String::with_capacity(size);
        shell(options.clone()).into_view().to_html_with_buf(
            &mut html,
            &mut Position::FirstChild,
            true,
            false,
            vec![],
        );
        (html, nonce)
    });
    // The meta tags go into the head, and the `<html>` and `<body>` tags
    // take their attributes: only that much is handed to the injection,
    // which copies what it is given. The page is written in place.
    let head = head_end(&html);
    let injected = meta_output
        .inject_meta_context(futures_util::stream::iter([html[..head].to_owned()]))
        .await;
    let mut injected = std::pin::pin!(injected);
    if let Some(with_meta) = injected.next().await {
        html.replace_range(..head, &with_meta);
    }
    if let Some(mut data) = shared.pending_data() {
        while let Some(chunk) = data.next().await {
            for part in ["<script", &nonce, ">", &chunk, "</script>"] {
                html.push_str(part);
            }
        }
    }
    owner.unset_with_forced_cleanup();
    let written = html.len();
    let mut response = Response::new(Body::from(html));
    {
        let mut chosen = response_options
            .0
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(status) = chosen.status {
            *response.status_mut() = status;
        }
        response
            .headers_mut()
            .extend(std::mem::take(&mut chosen.headers));
    }
    response
        .headers_mut()
        .entry(CONTENT_TYPE)
        .or_insert(HeaderValue::from_static("text/html; charset=utf-8"));
    (response, written)
}

/// Where a page's head ends for the meta tags' injection: after the
/// `<body …>` tag, which takes attributes too; the whole page when it has
/// no such tags.
fn head_end(html: &str) -> usize {
    let body_tag = html
        .find("</head>")
        .and_then(|head| Some(head + html[head..].find("<body")?))
        .and_then(|body| Some(body + html[body..].find('>')? + 1));
    body_tag.unwrap_or(html.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::security_headers::{provide_nonce, CspNonce};
    use axum::http::StatusCode;
    use meshwatch::ServerId;
    use meshwatch_views::views::{DeliveryState, NotificationKind, OperatorView, OutboxItem};

    #[test]
    fn the_head_ends_after_the_body_tag_and_a_page_without_one_is_all_head() {
        let page = "<html><head><!--HEAD--></head><body class=\"x\"><p>></p></body></html>";
        assert_eq!(
            &page[..head_end(page)],
            "<html><head><!--HEAD--></head><body class=\"x\">"
        );
        for whole in ["<p>no head</p>", "<head></head>no body", ""] {
            assert_eq!(head_end(whole), whole.len(), "{whole}");
        }
    }

    /// A request as the page guard and the security layer leave it.
    fn request(path: &str, signed_in: bool) -> Parts {
        let mut request = Request::builder()
            .uri(path)
            .header("accept-language", "sv-SE,sv;q=0.9")
            .body(Body::empty())
            .expect("request");
        request.extensions_mut().insert(CspNonce::fresh());
        if signed_in {
            request
                .extensions_mut()
                .insert(app::auth::SignedIn(OperatorView {
                    username: "ops".into(),
                }));
        }
        request.into_parts().0
    }

    /// `parts` with a notifications page's data loaded (each render takes
    /// its own).
    fn loaded(mut parts: Parts) -> Parts {
        let sent = |id, kind, state, error: Option<&str>| OutboxItem {
            id,
            kind,
            server: ServerId::parse("de-1").ok(),
            to: "ops@example.org".into(),
            subject: "de-1 <blocked> & \"more\"".into(),
            state,
            attempts: 2,
            last_error: error.map(str::to_owned),
            created_at: "2026-12-06T10:00:00Z".parse().expect("a time"),
        };
        let outbox = vec![
            sent(
                1,
                NotificationKind::Blocked,
                DeliveryState::Failed,
                Some("550 no"),
            ),
            sent(2, NotificationKind::Cleared, DeliveryState::Sent, None),
        ];
        app::preload::put(&mut parts.extensions, Ok(outbox));
        parts
    }

    async fn text(response: Response) -> (StatusCode, axum::http::HeaderMap, String) {
        let status = response.status();
        let headers = response.headers().clone();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("body");
        (
            status,
            headers,
            String::from_utf8(body.to_vec()).expect("UTF-8"),
        )
    }

    /// The one-pass render answers what leptos_axum's pipeline answers for
    /// the same request: a page with its data, pages whose data did not
    /// load (their status chosen by the page), the not-found page, and a
    /// page of the other kind — bytes, status and every header, with the
    /// title, meta tags, nonce and hydration data.
    #[tokio::test]
    async fn one_pass_gives_leptos_axums_bytes_status_and_headers() {
        let _ = any_spawner::Executor::init_tokio();
        let options = LeptosOptions::builder().output_name("meshwatch").build();
        let context: PageContext = Arc::new(provide_nonce);
        let shell = {
            let options = options.clone();
            move || app::shell(options.clone())
        };
        let leptos_axums = leptos_axum::render_app_async_with_context(provide_nonce, shell);
        for (path, signed_in, status) in [
            ("/notifications", true, StatusCode::OK),
            // A preloaded page whose data did not load: the page says so,
            // with the status it chose.
            ("/users/u1", true, StatusCode::INTERNAL_SERVER_ERROR),
            ("/servers/s1?q=x", true, StatusCode::INTERNAL_SERVER_ERROR),
            ("/no/such/page", true, StatusCode::NOT_FOUND),
            ("/login", false, StatusCode::OK),
        ] {
            let parts = request(path, signed_in);
            let theirs = Request::from_parts(loaded(parts.clone()), Body::empty());
            let expected = text(leptos_axums(theirs).await).await;
            let (got, written) = render(&options, &context, app::shell, loaded(parts), 0).await;
            let got = text(got).await;
            assert_eq!(written, got.2.len(), "{path}");
            assert_eq!(got.0, status, "{path}");
            assert_eq!(got, expected, "{path}");
            assert!(got.2.contains("<title>"), "{path}: {}", got.2);
            assert!(got.2.contains("__RESOLVED_RESOURCES"), "{path}");
            assert_eq!(
                got.1.get(CONTENT_TYPE).map(HeaderValue::as_bytes),
                Some(&b"text/html; charset=utf-8"[..]),
                "{path}"
            );
        }
        let (notifications, _) = render(
            &options,
            &context,
            app::shell,
            loaded(request("/notifications", true)),
            0,
        )
        .await;
        let html = text(notifications).await.2;
        for shown in [
            "de-1 &lt;blocked&gt; &amp;",
            "550 no",
            "<strong class=\"font-medium text-slate-900\">ops</strong>",
        ] {
            assert!(html.contains(shown), "{shown} in {html}");
        }
    }
}
