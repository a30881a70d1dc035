//! The users list.

use crate::api::list_users;
use crate::ui::components::{Chip, EmptyState, ErrorNote};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::views::UserSummary;

#[component]
pub fn UsersPage() -> impl IntoView {
    let users = Resource::new(|| (), |_| list_users());
    view! {
        <Title text="Users"/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">"Users"</h1>
            <Transition fallback=|| view! { <p class="mt-6 text-slate-500">"Loading users…"</p> }>
                {move || Suspend::new(async move {
                    match users.await {
                        Ok(list) => view! { <UsersTable users=list/> }.into_any(),
                        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                    }
                })}
            </Transition>
        </Frame>
    }
}

#[component]
fn UsersTable(
    /// Every user, sorted by id.
    users: Vec<UserSummary>,
) -> impl IntoView {
    if users.is_empty() {
        return view! {
            <div class="mt-6">
                <EmptyState title="No users yet" hint="Provision users with PUT /api/v1/fleet."/>
            </div>
        }
        .into_any();
    }
    let count = users.len();
    view! {
        <p class="mt-1 text-sm text-slate-500">{format!("{count} users")}</p>
        <div class="mt-6 overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
            <table class="min-w-full divide-y divide-slate-200 text-left text-sm">
                <caption class="sr-only">"Users"</caption>
                <thead class="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                    <tr>
                        <th scope="col" class="px-4 py-3">"User"</th>
                        <th scope="col" class="px-4 py-3">"Id"</th>
                        <th scope="col" class="px-4 py-3">"Routes"</th>
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
    }
    .into_any()
}
