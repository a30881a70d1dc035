//! The notification outbox: every "address blocked" / "cleared" message
//! with its target and delivery state (including why it was not sent), and
//! "Send test email" to prove the delivery path.

use crate::api::{load_outbox, SendTestNotification};
use crate::live::live_version;
use crate::ui::components::{EmptyState, ErrorNote};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::views::{DeliveryState, NotificationKind, OutboxItem};

#[component]
pub fn NotificationsPage() -> impl IntoView {
    let test = ServerAction::<SendTestNotification>::new();
    let outbox = Resource::new(
        move || (test.version().get(), live_version()),
        |_| load_outbox(),
    );
    let result = move || {
        test.value().get().map(|r| match r {
            Ok(n) => view! {
                <p role="status" class="mt-3 text-sm text-emerald-800">{format!("Test message queued for {n} target(s).")}</p>
            }
            .into_any(),
            Err(error) => view! { <div class="mt-3"><ErrorNote error/></div> }.into_any(),
        })
    };
    view! {
        <Title text="Notifications"/>
        <Frame>
            <div class="flex flex-wrap items-end justify-between gap-4">
                <h1 class="text-2xl font-semibold tracking-tight">"Notifications"</h1>
                <ActionForm action=test>
                    <button type="submit" class="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400">
                        "Send test email"
                    </button>
                </ActionForm>
            </div>
            {result}
            <Transition fallback=|| view! { <p class="mt-6 text-slate-500">"Loading the outbox…"</p> }>
                {move || Suspend::new(async move {
                    match outbox.await {
                        Ok(items) if items.is_empty() => view! {
                            <div class="mt-6"><EmptyState title="No notifications yet" hint="A blocked address (and its clearing) queues one here."/></div>
                        }.into_any(),
                        Ok(items) => view! { <Outbox items/> }.into_any(),
                        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                    }
                })}
            </Transition>
        </Frame>
    }
}

#[component]
fn Outbox(items: Vec<OutboxItem>) -> impl IntoView {
    view! {
        <div class="mt-6 overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
            <table class="min-w-full divide-y divide-slate-200 text-left text-sm" data-testid="outbox">
                <caption class="sr-only">"Notification outbox"</caption>
                <thead class="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                    <tr>
                        <th scope="col" class="px-4 py-3">"Queued"</th>
                        <th scope="col" class="px-4 py-3">"Kind"</th>
                        <th scope="col" class="px-4 py-3">"Server"</th>
                        <th scope="col" class="px-4 py-3">"Subject"</th>
                        <th scope="col" class="px-4 py-3">"To"</th>
                        <th scope="col" class="px-4 py-3">"State"</th>
                    </tr>
                </thead>
                <tbody class="divide-y divide-slate-100">
                    {items.into_iter().map(|n| view! { <Row n/> }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

#[component]
fn Row(n: OutboxItem) -> impl IntoView {
    let kind = match n.kind {
        NotificationKind::Blocked => "Address blocked",
        NotificationKind::Cleared => "Cleared",
        NotificationKind::Test => "Test",
    };
    let (state, tone) = match (n.state, n.to.is_empty()) {
        (DeliveryState::Queued, true) => (
            "Not delivered: no email or webhook configured",
            "text-amber-800",
        ),
        (DeliveryState::Queued, false) => ("Queued", "text-slate-700"),
        (DeliveryState::Sent, _) => ("Sent", "text-emerald-700"),
        (DeliveryState::Failed, _) => ("Failed", "text-red-700 font-semibold"),
    };
    let detail = n
        .last_error
        .clone()
        .map(|e| format!("{e} (after {} attempts)", n.attempts));
    view! {
        <tr class="align-top">
            <td class="whitespace-nowrap px-4 py-3 font-mono text-xs text-slate-500">{n.created_at.format("%Y-%m-%d %H:%M:%S UTC").to_string()}</td>
            <td class="px-4 py-3">{kind}</td>
            <td class="px-4 py-3">{n.server.map(|s| view! { <a href=format!("/servers/{s}") class="hover:underline">{s.to_string()}</a> })}</td>
            <td class="px-4 py-3">{n.subject}</td>
            <td class="px-4 py-3 font-mono text-xs">{if n.to.is_empty() { "—".to_string() } else { n.to }}</td>
            <td class=format!("px-4 py-3 {tone}")>
                {state}
                {detail.map(|d| view! { <span class="block text-xs text-slate-500">{d}</span> })}
            </td>
        </tr>
    }
}
