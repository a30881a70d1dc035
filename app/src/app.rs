//! The HTML shell and the router: which page answers which path. The page
//! routes are listed once, in [`page_routes!`]: the router's `<Route>`s and
//! the pages whose data [`crate::preload`] loads ahead are both made from
//! that list, so they cannot disagree.

use crate::ui::pages::{
    LoginPage, MeshPage, NotFoundPage, NotificationsPage, OverviewPage, RoutesPage, ServerCardPage,
    ServersPage, SettingsPage, UserCardPage, UsersPage,
};
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

/// The document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let lang = crate::lang::detect();
    // Named like the script and WASM `HydrationScripts` loads: the server
    // puts the front end's version in `output_name` (`meshwatch.<version>`).
    let stylesheet = format!("/{}/{}.css", options.site_pkg_dir, options.output_name);
    view! {
        <!DOCTYPE html>
        <html lang=lang.code()>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" type="image/svg+xml" href="/favicon.svg"/>
                <link rel="stylesheet" id="leptos" href=stylesheet/>
                <HydrationScripts options islands=true/>
                <MetaTags/>
            </head>
            <body class="bg-slate-50 text-slate-900 antialiased">
                <App/>
            </body>
        </html>
    }
}

/// The one list of the panel's pages: `preloaded` pages have their data
/// loaded before they render ([`crate::preload::PageRoute`], one variant
/// each, named first); `plain` ones load their own. Makes `PageRoute` and
/// [`page_routes`], the router's routes.
macro_rules! page_routes {
    (
        preloaded { $( $route:ident => $path:tt => $page:ident ),* $(,)? }
        plain { $( $plain_path:tt => $plain_page:ident ),* $(,)? }
    ) => {
        /// The pages whose data is loaded ahead, by the route that serves
        /// them (made by [`page_routes!`] from the router's own list).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum PageRoute {
            $( $route ),*
        }

        impl PageRoute {
            pub const ALL: &'static [PageRoute] = &[ $( PageRoute::$route ),* ];

            /// The route's path as the app's `<Route>` writes it (`:id`).
            pub const fn leptos_path(self) -> &'static str {
                match self {
                    $( PageRoute::$route => $path ),*
                }
            }
        }

        /// Every page's `<Route>`, from the same list.
        #[component]
        fn PageRoutes() -> impl IntoView {
            view! {
                <Routes fallback=NotFoundPage>
                    $( <Route path=path!($path) view=$page ssr=SsrMode::Async/> )*
                    $( <Route path=path!($plain_path) view=$plain_page ssr=SsrMode::Async/> )*
                </Routes>
            }
        }
    };
}

page_routes! {
    preloaded {
        Servers => "/" => ServersPage,
        ServerCard => "/servers/:id" => ServerCardPage,
        Users => "/users" => UsersPage,
        UserCard => "/users/:id" => UserCardPage,
        Overview => "/overview" => OverviewPage,
        Routes => "/routes" => RoutesPage,
        Notifications => "/notifications" => NotificationsPage,
        Mesh => "/mesh" => MeshPage,
    }
    plain {
        "/login" => LoginPage,
        "/settings" => SettingsPage,
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    provide_context(crate::lang::detect());

    view! {
        <Title formatter=|page: String| if page.is_empty() { "meshwatch".to_owned() } else { format!("{page} · meshwatch") }/>
        <Router>
            <div class="min-h-screen">
                // Async SSR: pages arrive complete, so they read the same
                // without JavaScript (out-of-order streaming needs JS).
                <PageRoutes/>
            </div>
        </Router>
    }
}
