//! Small reusable pieces of the pages.

use crate::error::AppError;
use leptos::prelude::*;

/// A failed load, said in words, with a way back to sign-in when the
/// session is gone.
#[component]
pub fn ErrorNote(
    /// What went wrong.
    error: AppError,
) -> impl IntoView {
    let sign_in = matches!(error, AppError::Unauthorized)
        .then(|| view! { <a class="ml-2 font-medium underline" href="/login">"Sign in"</a> });
    view! {
        <p role="alert" class="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
            {error.to_string()}
            {sign_in}
        </p>
    }
}

/// What an empty list shows instead of an empty table.
#[component]
pub fn EmptyState(
    /// The headline.
    title: &'static str,
    /// How to fill the list.
    hint: &'static str,
) -> impl IntoView {
    view! {
        <div class="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-12 text-center">
            <p class="font-medium text-slate-900">{title}</p>
            <p class="mt-1 text-sm text-slate-500">{hint}</p>
        </div>
    }
}

/// A small rounded label (route ids, protocols, flags).
#[component]
pub fn Chip(
    /// The label text.
    #[prop(into)]
    text: String,
) -> impl IntoView {
    view! {
        <span class="inline-flex items-center rounded-md bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700">
            {text}
        </span>
    }
}
