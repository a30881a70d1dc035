//! The page for paths nothing answers.

use crate::lang::use_lang;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch_views::i18n::Ui;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(res) = use_context::<leptos_axum::ResponseOptions>() {
        res.set_status(http::StatusCode::NOT_FOUND);
    }
    let lang = use_lang();
    view! {
        <Title text=lang.ui(Ui::NotFound)/>
        <main class="mx-auto max-w-md px-6 py-24 text-center">
            <h1 class="text-2xl font-semibold">{lang.ui(Ui::PageNotFound)}</h1>
            <p class="mt-2 text-slate-600">{lang.ui(Ui::NothingAtThisAddress)}</p>
            <a class="mt-6 inline-block font-medium text-sky-700 underline" href="/">{lang.ui(Ui::BackToServers)}</a>
        </main>
    }
}
