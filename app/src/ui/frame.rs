//! The signed-in frame: brand, navigation, who is signed in, sign out.

use crate::lang::use_lang;
use crate::live::LiveIndicator;
use crate::ui::memo::RenderMemo;
use leptos::prelude::*;
use leptos_router::hooks::use_location;
use meshwatch_views::i18n::{Lang, Ui};
use std::sync::LazyLock;

const NAV_LINK: &str = "rounded-md px-3 py-2 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 aria-[current=page]:bg-slate-900 aria-[current=page]:text-white";

/// Frame headers kept (a language, a section and an operator each).
const MAX_HEADERS: usize = 1024;

/// The header drawn for a language, the section the page is in and the
/// operator signed in: the same for every page of that section.
type HeaderKey = (Lang, Option<&'static str>, Option<String>);

static HEADERS: LazyLock<RenderMemo<HeaderKey, ()>> =
    LazyLock::new(|| RenderMemo::new(MAX_HEADERS));

/// Where the main navigation's links go, in the header's order.
const SECTIONS: [&str; 7] = [
    "/overview",
    "/",
    "/users",
    "/routes",
    "/mesh",
    "/notifications",
    "/settings",
];

/// The section a path is in (a server's card is in the servers list's).
fn section_of(path: &str) -> Option<&'static str> {
    SECTIONS.into_iter().find(|href| {
        if *href == "/" {
            path == "/" || path.starts_with("/servers/")
        } else {
            path == *href
                || path
                    .strip_prefix(href)
                    .is_some_and(|rest| rest.starts_with('/'))
        }
    })
}

#[component]
pub fn Frame<C: IntoView + 'static>(
    /// The page's own content (typed, not boxed as any view: rendering
    /// it needs no conversion).
    children: TypedChildren<C>,
) -> impl IntoView {
    let lang = use_lang();
    // Pages render on the server only: the current section is known once.
    let section = section_of(&use_location().pathname.get_untracked());
    let operator = signed_in_operator().map(|o| o.username);
    let key = (lang, section, operator.clone());
    let header = HEADERS.html(
        key,
        &(),
        move |()| view! { <Header lang section operator/> },
    );
    view! {
        <header class="border-b border-slate-200 bg-white" inner_html=header></header>
        <main class="mx-auto max-w-6xl px-6 py-8">{children.into_inner()()}</main>
    }
}

/// The header's content: brand, navigation, the live indicator, who is
/// signed in, the language and signing out.
#[component]
fn Header(lang: Lang, section: Option<&'static str>, operator: Option<String>) -> impl IntoView {
    let current = move |href: &str| (section == Some(href)).then_some("page");
    view! {
        <div class="mx-auto flex max-w-6xl flex-wrap items-center gap-4 px-6 py-3">
            <a href="/" class="flex items-center gap-2 text-lg font-semibold tracking-tight">
                <span aria-hidden="true" class="inline-block size-3 rounded-full bg-emerald-500 ring-4 ring-emerald-100"></span>
                "meshwatch"
            </a>
            <nav aria-label=lang.ui(Ui::MainNav) class="flex flex-wrap gap-1">
                <a href="/overview" class=NAV_LINK aria-current=current("/overview")>{lang.ui(Ui::Overview)}</a>
                <a href="/" class=NAV_LINK aria-current=current("/")>{lang.ui(Ui::Servers)}</a>
                <a href="/users" class=NAV_LINK aria-current=current("/users")>{lang.ui(Ui::Users)}</a>
                <a href="/routes" class=NAV_LINK aria-current=current("/routes")>{lang.ui(Ui::Routes)}</a>
                <a href="/mesh" class=NAV_LINK aria-current=current("/mesh")>{lang.ui(Ui::Mesh)}</a>
                <a href="/notifications" class=NAV_LINK aria-current=current("/notifications")>{lang.ui(Ui::Notifications)}</a>
                <a href="/settings" class=NAV_LINK aria-current=current("/settings")>{lang.ui(Ui::Settings)}</a>
            </nav>
            <div class="ml-auto flex flex-wrap items-center gap-x-3 gap-y-2 text-sm text-slate-600">
                <LiveIndicator on=lang.ui(Ui::Live) off=lang.ui(Ui::NotLive)/>
                {operator.map(|name| view! {
                    <span>{lang.ui(Ui::SignedInAs)} <strong class="font-medium text-slate-900">{name}</strong></span>
                })}
                <LanguageSwitch/>
                <form method="post" action="/logout">
                    <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 font-medium text-slate-700 hover:bg-slate-100">
                        {lang.ui(Ui::SignOut)}
                    </button>
                </form>
            </div>
        </div>
    }
}

/// The operator the page guard found for the request being rendered. Pages
/// render on the server only, so the header needs no request of its own.
fn signed_in_operator() -> Option<meshwatch_views::views::OperatorView> {
    #[cfg(feature = "ssr")]
    {
        // Borrowed: cloning the request's parts costs more than the name.
        with_context::<http::request::Parts, _>(|parts| {
            parts
                .extensions
                .get::<crate::auth::SignedIn>()
                .map(|crate::auth::SignedIn(operator)| operator.clone())
        })
        .flatten()
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
    }
}

/// The language switcher: a plain form (works without JavaScript); the
/// server remembers the choice in a cookie and renders in it from then on.
#[component]
fn LanguageSwitch() -> impl IntoView {
    let current = use_lang();
    view! {
        <form method="post" action="/lang" class="flex items-center gap-1">
            <label for="language" class="sr-only">{current.ui(Ui::Language)}</label>
            <select id="language" name="lang" class="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm">
                {Lang::ALL.into_iter().map(|lang| view! {
                    <option value=lang.code() selected=lang == current>{lang.native_name()}</option>
                }).collect_view()}
            </select>
            <button type="submit" class="rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100">{current.ui(Ui::ChangeLanguage)}</button>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::section_of;

    #[test]
    fn a_page_is_in_the_section_of_its_list() {
        for (path, section) in [
            ("/", Some("/")),
            ("/servers/de-1", Some("/")),
            ("/users", Some("/users")),
            ("/users/alice", Some("/users")),
            ("/usersx", None),
            ("/overview", Some("/overview")),
            ("/settings", Some("/settings")),
            ("/login", None),
            ("/nowhere", None),
        ] {
            assert_eq!(section_of(path), section, "{path}");
        }
    }
}
