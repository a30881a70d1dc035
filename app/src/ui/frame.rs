//! The signed-in frame: brand, navigation, who is signed in, sign out.

use crate::lang::use_lang;
use crate::live::LiveIndicator;
use leptos::prelude::*;
use leptos_router::hooks::use_location;
use meshwatch_views::i18n::{Lang, Ui};

const NAV_LINK: &str = "rounded-md px-3 py-2 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 aria-[current=page]:bg-slate-900 aria-[current=page]:text-white";

#[component]
pub fn Frame<C: IntoView + 'static>(
    /// The page's own content (typed, not boxed as any view: rendering
    /// it needs no conversion).
    children: TypedChildren<C>,
) -> impl IntoView {
    let lang = use_lang();
    let operator = signed_in_operator();
    // Pages render on the server only: the current section is known once.
    let path = use_location().pathname.get_untracked();
    let current = move |href: &str| {
        let here = if href == "/" {
            path == "/" || path.starts_with("/servers/")
        } else {
            path == href || path.starts_with(&format!("{href}/"))
        };
        here.then_some("page")
    };
    view! {
        <header class="border-b border-slate-200 bg-white">
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
                    {operator.map(|o| view! {
                        <span>{lang.ui(Ui::SignedInAs)} <strong class="font-medium text-slate-900">{o.username}</strong></span>
                    })}
                    <LanguageSwitch/>
                    <form method="post" action="/logout">
                        <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 font-medium text-slate-700 hover:bg-slate-100">
                            {lang.ui(Ui::SignOut)}
                        </button>
                    </form>
                </div>
            </div>
        </header>
        <main class="mx-auto max-w-6xl px-6 py-8">{children.into_inner()()}</main>
    }
}

/// The operator the page guard found for the request being rendered. Pages
/// render on the server only, so the header needs no request of its own.
fn signed_in_operator() -> Option<meshwatch_views::views::OperatorView> {
    #[cfg(feature = "ssr")]
    {
        use_context::<http::request::Parts>()?
            .extensions
            .get::<crate::auth::SignedIn>()
            .map(|crate::auth::SignedIn(operator)| operator.clone())
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
