//! The users list: a search (id, name or route) and pages of 50, both
//! plain query parameters, so they work without JavaScript too.

use crate::lang::use_lang;
use crate::preload;
use crate::ui::components::{Chip, EmptyState, ErrorNote, Pager};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch_views::i18n::Ui;
use meshwatch_views::views::{UserSummary, UsersPage as Page};

#[component]
pub fn UsersPage() -> impl IntoView {
    let lang = use_lang();
    let (table, search) = match preload::take::<Page>() {
        Ok(page) => {
            let search = page.search.clone();
            (view! { <UsersTable page/> }.into_any(), search)
        }
        Err(error) => (
            view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
            String::new(),
        ),
    };
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
            {table}
        </Frame>
    }
}

#[component]
fn UsersTable(
    /// One page of the matching users, sorted by id, and the search it
    /// answers.
    page: Page,
) -> impl IntoView {
    let lang = use_lang();
    let query = page.search.clone();
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
        <div class="mt-6 overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm" tabindex="0" role="region" aria-label=lang.ui(Ui::Users)>
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
        <Pager page=page.page pages=page.pages path="/users" params=vec![("q", query)]/>
    }
    .into_any()
}
