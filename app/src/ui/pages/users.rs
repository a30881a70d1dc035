//! The users list: a search (id, name or route) and pages of 50, both
//! plain query parameters, so they work without JavaScript too.

use crate::api::list_users;
use crate::lang::use_lang;
use crate::ui::components::{Chip, EmptyState, ErrorNote};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use meshwatch::i18n::Ui;
use meshwatch::views::{UserSummary, UsersPage as Page};

#[component]
pub fn UsersPage() -> impl IntoView {
    let lang = use_lang();
    let query = use_query_map();
    let search = move || query.read().get("q").unwrap_or_default();
    let page = move || {
        query
            .read()
            .get("page")
            .and_then(|p| p.parse().ok())
            .unwrap_or(1u32)
    };
    let users = Resource::new(move || (search(), page()), |(q, p)| list_users(q, p));
    view! {
        <Title text=lang.ui(Ui::Users)/>
        <Frame>
            <div class="flex flex-wrap items-end justify-between gap-4">
                <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Users)}</h1>
                <form method="get" action="/users" role="search" class="flex items-end gap-2">
                    <div>
                        <label for="user-search" class="block text-sm font-medium text-slate-700">{lang.ui(Ui::SearchUsers)}</label>
                        <input id="user-search" name="q" type="search" value=search placeholder=lang.ui(Ui::UserSearchPlaceholder)
                            class="mt-1 block w-64 rounded-md border border-slate-300 px-3 py-2 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200"/>
                    </div>
                    <button type="submit" class="rounded-md border border-slate-300 px-3 py-2 text-sm font-medium hover:bg-slate-100">{lang.ui(Ui::Search)}</button>
                </form>
            </div>
            <Transition fallback=move || view! { <p class="mt-6 text-slate-500">{lang.ui(Ui::LoadingUsers)}</p> }>
                {move || Suspend::new(async move {
                    match users.await {
                        Ok(page) => view! { <UsersTable page query=search()/> }.into_any(),
                        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                    }
                })}
            </Transition>
        </Frame>
    }
}

/// Previous / next links keeping the search.
#[component]
fn Pager(page: u32, pages: u32, query: String) -> impl IntoView {
    let lang = use_lang();
    let link = move |to: u32| {
        let q: String = query
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                    char::from(b).to_string()
                }
                other => format!("%{other:02X}"),
            })
            .collect();
        format!("/users?q={q}&page={to}")
    };
    view! {
        <nav aria-label=lang.ui(Ui::Pages) class="mt-4 flex items-center gap-3 text-sm">
            {(page > 1).then(|| view! { <a href=link(page - 1) rel="prev" class="rounded-md border border-slate-300 px-3 py-1 hover:bg-slate-100">{lang.ui(Ui::Previous)}</a> })}
            <span class="text-slate-500">{lang.page_of(page, pages)}</span>
            {(page < pages).then(|| view! { <a href=link(page + 1) rel="next" class="rounded-md border border-slate-300 px-3 py-1 hover:bg-slate-100">{lang.ui(Ui::Next)}</a> })}
        </nav>
    }
}

#[component]
fn UsersTable(
    /// One page of the matching users, sorted by id.
    page: Page,
    /// The search it answers.
    query: String,
) -> impl IntoView {
    let lang = use_lang();
    if page.users.is_empty() {
        let (title, hint) = if query.trim().is_empty() {
            (Ui::NoUsersYet, Ui::ProvisionUsersHint)
        } else {
            (Ui::NoUserMatches, Ui::UserSearchHint)
        };
        let (title, hint) = (lang.ui(title), lang.ui(hint));
        return view! {
            <div class="mt-6">
                <EmptyState title hint/>
            </div>
        }
        .into_any();
    }
    let first = (page.page as usize - 1) * Page::SIZE + 1;
    let last = first + page.users.len() - 1;
    let users: Vec<UserSummary> = page.users;
    view! {
        <p class="mt-1 text-sm text-slate-500" aria-live="polite">{lang.showing_users(first, last, page.total)}</p>
        <div class="mt-6 overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
            <table class="min-w-full divide-y divide-slate-200 text-left text-sm">
                <caption class="sr-only">{lang.ui(Ui::Users)}</caption>
                <thead class="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                    <tr>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::User)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Id)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Routes)}</th>
                    </tr>
                </thead>
                <tbody class="divide-y divide-slate-100">
                    {users.into_iter().map(|u| view! {
                        <tr class="hover:bg-slate-50">
                            <th scope="row" class="px-4 py-3 font-medium text-slate-900">
                                <a href=format!("/users/{}", u.id) class="hover:underline focus:underline">{u.name}</a>
                            </th>
                            <td class="px-4 py-3 font-mono text-xs text-slate-600">{u.id.to_string()}</td>
                            <td class="px-4 py-3">
                                <div class="flex flex-wrap gap-1">
                                    {u.routes.into_iter().map(|r| view! { <Chip text=r.to_string()/> }).collect_view()}
                                </div>
                            </td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <Pager page=page.page pages=page.pages query/>
    }
    .into_any()
}
