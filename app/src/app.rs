//! The HTML shell and the router: which page answers which path.

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
                <Routes fallback=NotFoundPage>
                    <Route path=path!("/login") view=LoginPage ssr=SsrMode::Async/>
                    <Route path=path!("/") view=ServersPage ssr=SsrMode::Async/>
                    <Route path=path!("/servers/:id") view=ServerCardPage ssr=SsrMode::Async/>
                    <Route path=path!("/users") view=UsersPage ssr=SsrMode::Async/>
                    <Route path=path!("/mesh") view=MeshPage ssr=SsrMode::Async/>
                    <Route path=path!("/overview") view=OverviewPage ssr=SsrMode::Async/>
                    <Route path=path!("/settings") view=SettingsPage ssr=SsrMode::Async/>
                    <Route path=path!("/routes") view=RoutesPage ssr=SsrMode::Async/>
                    <Route path=path!("/notifications") view=NotificationsPage ssr=SsrMode::Async/>
                    <Route path=path!("/users/:id") view=UserCardPage ssr=SsrMode::Async/>
                </Routes>
            </div>
        </Router>
    }
}
