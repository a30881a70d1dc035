//! The notification outbox: every "address blocked" / "cleared" message
//! with its target and delivery state (including why it was not sent), and
//! "Send test email" to prove the delivery path.

use crate::api::SendTestNotification;
use crate::flash::{outcome_of, take_for_page, Form, Outcome};
use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::preload;
use crate::ui::components::{EmptyState, ErrorNote};
use crate::ui::format;
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use leptos_meta::Title;
use meshwatch_views::i18n::{Text, Ui};
use meshwatch_views::views::{DeliveryState, NotificationKind, OutboxItem};

#[component]
pub fn NotificationsPage() -> impl IntoView {
    let lang = use_lang();
    let result = match outcome_of(&take_for_page(), Form::TestNotification) {
        Some(Outcome::Queued(n)) => view! {
            <p role="status" class="mt-3 text-sm text-emerald-800">{lang.test_message_queued(n)}</p>
        }
        .into_any(),
        Some(Outcome::Failed(error)) => {
            view! { <div class="mt-3"><ErrorNote error/></div> }.into_any()
        }
        _ => ().into_any(),
    };
    let loaded = match preload::take::<Vec<OutboxItem>>() {
                Ok(items) if items.is_empty() => view! {
                    <div class="mt-6"><EmptyState title=lang.ui(Ui::NoNotificationsYet) hint=lang.ui(Ui::NotificationsHint)/></div>
                }.into_any(),
                Ok(items) => view! { <Outbox items/> }.into_any(),
                Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
    };
    view! {
        <Title text=lang.ui(Ui::Notifications)/>
        <Frame>
            <div class="flex flex-wrap items-end justify-between gap-4">
                <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Notifications)}</h1>
                <form method="post" action=SendTestNotification::url()>
                    <button type="submit" class="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400">
                        {lang.ui(Ui::SendTestEmail)}
                    </button>
                </form>
            </div>
            {result}
            <LiveRegion key="outbox">
                {loaded}
            </LiveRegion>
        </Frame>
    }
}

#[component]
fn Outbox(items: Vec<OutboxItem>) -> impl IntoView {
    let lang = use_lang();
    view! {
        <div class="mt-6 overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm" tabindex="0" role="region" aria-label=lang.ui(Ui::Notifications)>
            <table class="min-w-full divide-y divide-slate-200 text-left text-sm" data-testid="outbox">
                <caption class="sr-only">{lang.ui(Ui::OutboxCaption)}</caption>
                <thead class="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                    <tr>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::QueuedAt)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Kind)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Server)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Subject)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::To)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::State)}</th>
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
    let lang = use_lang();
    let kind = match n.kind {
        NotificationKind::Blocked => lang.text(Text::Blocked),
        NotificationKind::Cleared => lang.ui(Ui::KindCleared),
        NotificationKind::Test => lang.ui(Ui::KindTest),
        NotificationKind::WitnessNetwork => lang.ui(Ui::KindWitnessNetwork),
        NotificationKind::ActionsOff => lang.ui(Ui::KindActionsOff),
        NotificationKind::ConnectorFailed => lang.ui(Ui::KindConnectorFailed),
    };
    let (state, tone) = match (n.state, n.to.is_empty()) {
        (DeliveryState::Queued, true) => (Ui::NotDeliveredNoTarget, "text-amber-800"),
        (DeliveryState::Queued, false) => (Ui::StateQueued, "text-slate-700"),
        (DeliveryState::Sent, _) => (Ui::StateSent, "text-emerald-700"),
        (DeliveryState::Failed, _) => (Ui::StateFailed, "text-red-700 font-semibold"),
    };
    let state = lang.ui(state);
    let detail = n
        .last_error
        .clone()
        .map(|e| lang.after_attempts(&e, n.attempts));
    view! {
        <tr class="align-top">
            <td class="whitespace-nowrap px-4 py-3 font-mono text-xs text-slate-500">{format::timestamp(n.created_at)}</td>
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
