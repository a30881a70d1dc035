//! The page for paths nothing answers.

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(res) = use_context::<leptos_axum::ResponseOptions>() {
        res.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found"/>
        <main class="mx-auto max-w-md px-6 py-24 text-center">
            <h1 class="text-2xl font-semibold">"Page not found"</h1>
            <p class="mt-2 text-slate-600">"There is nothing at this address."</p>
            <a class="mt-6 inline-block font-medium text-sky-700 underline" href="/">"Back to the servers"</a>
        </main>
    }
}
