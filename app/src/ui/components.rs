//! Small reusable pieces of the pages.

use crate::error::AppError;
use crate::lang::use_lang;
use leptos::prelude::*;
use meshwatch::status::{ServerStatus, Tone};
use meshwatch_views::i18n::{Text, Ui};

/// A failed load, said in words, with a way back to sign-in when the
/// session is gone.
#[component]
pub fn ErrorNote(
    /// What went wrong.
    error: AppError,
) -> impl IntoView {
    let lang = use_lang();
    let sign_in = matches!(error, AppError::Unauthorized).then(|| {
        view! { <a class="ml-2 font-medium underline" href="/login">{lang.ui(Ui::SignIn)}</a> }
    });
    view! {
        <p role="alert" class="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
            {error.message(lang)}
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
    view! { <span class="chip">{text}</span> }
}

/// A server's status: a dot whose colour *and* shape tell the tone (red
/// square, amber diamond, grey ring, green circle, blue bar), and the
/// wording as text.
#[component]
pub fn StatusDot(
    /// The status to show.
    status: ServerStatus,
) -> impl IntoView {
    // The dot is the class's `::before` (in the stylesheet): lists carry
    // one per row, and a drawn shape says nothing to a screen reader.
    let class = match status.tone() {
        Tone::Red => "status dot-red",
        Tone::Amber => "status dot-amber",
        Tone::Grey => "status dot-grey",
        Tone::Green => "status dot-green",
        Tone::Blue => "status dot-blue",
    };
    view! { <span class=class>{use_lang().status(status)}</span> }
}

/// The "stale" badge: the last report is older than `stale_after`.
/// Blocked servers counted per verifier network (§6); nothing while no
/// verifier names a network.
#[component]
pub fn BlockedPerNetwork(counts: Vec<meshwatch::network::BlockedOnNetwork>) -> impl IntoView {
    let lang = use_lang();
    counts.iter().any(|c| c.network.is_some()).then(|| {
        let items = counts
            .iter()
            .map(|c| {
                let network = c
                    .network
                    .as_ref()
                    .map_or_else(|| lang.ui(Ui::NoNetworkNamed).to_owned(), |n| n.to_string());
                let mut text = lang.blocked_servers_on(&network, c.servers);
                if !c.kinds.is_empty() {
                    text.push_str(&format!(" ({})", lang.kind_counts(&c.kinds)));
                }
                view! { <li>{text}</li> }
            })
            .collect_view();
        view! {
            <div class="mt-3 text-sm text-red-900" data-testid="blocked-per-network">
                <p class="font-medium">{lang.ui(Ui::BlockedByNetwork)}</p>
                <ul class="mt-1 list-disc pl-5">{items}</ul>
            </div>
        }
    })
}

#[component]
pub fn StaleBadge() -> impl IntoView {
    view! { <span class="badge">{use_lang().text(Text::Stale)}</span> }
}

/// Copies `text` to the clipboard (the one part of the user card that
/// needs the browser). Without JavaScript the text stays selectable next
/// to it.
#[component]
pub fn CopyButton(
    /// What to copy.
    text: String,
    /// The button's label.
    copy: &'static str,
    /// Its label once copied.
    copied: &'static str,
) -> impl IntoView {
    // The text and both labels are rendered on the panel; `data-copied`
    // shows one label.
    view! {
        <CopyOnClick>
            <data value=text></data>
            <span class="group-data-[copied=true]:hidden">{copy}</span>
            <span class="hidden group-data-[copied=true]:inline">{copied}</span>
        </CopyOnClick>
    }
}

/// The copy button's island. It takes no props (what it copies and its
/// labels come as children): the islands' WASM then decodes no JSON.
#[island]
fn CopyOnClick(children: Children) -> impl IntoView {
    let copied = RwSignal::new(false);
    let on_click = move |_ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            let text = _ev
                .current_target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|button| button.query_selector("data").ok().flatten())
                .and_then(|data| data.get_attribute("value"));
            if let Some(text) = text {
                let _ = window().navigator().clipboard().write_text(&text);
                copied.set(true);
            }
        }
    };
    view! {
        <button type="button" on:click=on_click data-copied=move || copied.get().to_string()
            class="group rounded-md border border-slate-300 px-3 py-1 text-sm font-medium hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-400">
            {children()}
        </button>
    }
}

/// Previous / next links of a paged list, each to `path` with the list's
/// `params` (its search and filters: the links keep them) and the page.
#[component]
pub fn Pager(
    page: u32,
    pages: u32,
    path: &'static str,
    params: Vec<(&'static str, String)>,
) -> impl IntoView {
    let lang = use_lang();
    let link = move |to: u32| crate::ui::format::list_address(path, &params, to);
    view! {
        <nav aria-label=lang.ui(Ui::Pages) class="mt-4 flex items-center gap-3 text-sm">
            {(page > 1).then(|| view! { <a href=link(page - 1) rel="prev" class="rounded-md border border-slate-300 px-3 py-1 hover:bg-slate-100">{lang.ui(Ui::Previous)}</a> })}
            <span class="text-slate-500">{lang.page_of(page, pages)}</span>
            {(page < pages).then(|| view! { <a href=link(page + 1) rel="next" class="rounded-md border border-slate-300 px-3 py-1 hover:bg-slate-100">{lang.ui(Ui::Next)}</a> })}
        </nav>
    }
}
