//! The fleet at a glance: servers by status, what is out of rotation and
//! why, routes serving their best available server, the latest status
//! changes, and notifications that were not delivered.

use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::preload;
use crate::ui::components::{BlockedPerNetwork, ErrorNote, StatusDot};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use leptos_meta::Title;
use meshwatch_views::i18n::Ui;
use meshwatch_views::views::Overview;

const SECTION: &str = "rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
const HEADING: &str = "text-sm font-semibold uppercase tracking-wide text-slate-500";

#[component]
pub fn OverviewPage() -> impl IntoView {
    let lang = use_lang();
    let loaded = match preload::take::<Overview>() {
        Ok(o) => view! { <Glance o/> }.into_any(),
        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
    };
    view! {
        <Title text=lang.ui(Ui::Overview)/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Overview)}</h1>
            <LiveRegion key="overview">
                {loaded}
            </LiveRegion>
        </Frame>
    }
}

#[component]
fn Glance(o: Overview) -> impl IntoView {
    let lang = use_lang();
    let counts = o
        .counts
        .iter()
        .map(|(status, n)| {
            view! {
                <li class="rounded-lg border border-slate-200 px-4 py-3" data-testid="status-count">
                    <span class="block text-2xl font-semibold tabular-nums">{lang.number(u64::from(*n))}</span>
                    <span class="text-sm"><StatusDot status=*status/></span>
                </li>
            }
        })
        .collect_view();
    let out = if o.out_of_rotation.is_empty() {
        view! { <p class="mt-3 text-sm text-slate-500">{lang.ui(Ui::EveryServerInRotation)}</p> }
            .into_any()
    } else {
        view! {
            <ul class="mt-3 divide-y divide-slate-100 text-sm">
                {o.out_of_rotation.iter().map(|(s, status)| view! {
                    <li class="flex flex-wrap items-center gap-3 py-1.5">
                        <a href=format!("/servers/{}", s.id) class="min-w-36 font-medium hover:underline">{format!("{} ({})", s.name, s.country)}</a>
                        <StatusDot status=*status/>
                    </li>
                }).collect_view()}
            </ul>
        }
        .into_any()
    };
    let best = (!o.best_available.is_empty()).then(|| view! {
        <div role="note" class="mt-6 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
            <p class="font-medium">{lang.ui(Ui::RoutesServingBestAvailable)}</p>
            <ul class="mt-1 list-disc pl-5">
                {o.best_available.iter().map(|(route, s)| view! { <li>{format!("{route}: {} ({})", s.name, s.country)}</li> }).collect_view()}
            </ul>
        </div>
    });
    let witness_fault = o.witness_fault.map(|fault| view! {
        <p role="alert" class="mt-6 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900" data-testid="witness-fault">
            {lang.witness_fault(fault)}
        </p>
    });
    let actions_off = o.actions_off.map(|_| view! {
        <p role="alert" class="mt-6 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900" data-testid="actions-off">
            {lang.ui(Ui::ActionsOffBudget)}" "<a href="/settings" class="font-medium underline">{lang.ui(Ui::Settings)}</a>
        </p>
    });
    let connectors_failing = (o.connectors_failing > 0).then(|| view! {
        <p role="alert" class="mt-6 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900" data-testid="connectors-failing">
            {lang.connectors_failing(o.connectors_failing)}" "<a href="/settings#connected-panels" class="font-medium underline">{lang.ui(Ui::ConnectedPanels)}</a>
        </p>
    });
    let mass_blocks = o.mass_blocks.iter().map(|m| {
        let who = match &m.network {
            Some(network) => format!("{} ({}, {network})", m.verifier.name, m.verifier.country),
            None => format!("{} ({})", m.verifier.name, m.verifier.country),
        };
        let decided = m.decision.map(|d| view! {
            <p class="mt-1 font-medium">{lang.ui(match d {
                meshwatch::actions::MassDecision::Confirmed => Ui::MassBlockConfirmed,
                meshwatch::actions::MassDecision::Dismissed => Ui::MassBlockDismissed,
            })}</p>
        });
        let button = |decision: meshwatch::actions::MassDecision, label: Ui| view! {
            <form method="post" action=crate::api::DecideMassBlock::url() class="inline">
                <input type="hidden" name="verifier" value=m.verifier.id.to_string()/>
                <input type="hidden" name="decision" value=decision.as_str()/>
                <button type="submit" class="rounded-md border border-amber-400 bg-white px-3 py-1 text-sm font-medium hover:bg-amber-100 focus:outline-none focus:ring-2 focus:ring-amber-400">
                    {lang.ui(label)}
                </button>
            </form>
        };
        view! {
            <div role="alert" class="mt-6 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950" data-testid="mass-block">
                <p>{lang.mass_block(&who, m.blocked, m.probed)}</p>
                {decided}
                <div class="mt-2 flex flex-wrap gap-2">
                    {button(meshwatch::actions::MassDecision::Confirmed, Ui::RunTheirActions)}
                    {button(meshwatch::actions::MassDecision::Dismissed, Ui::DismissTheirActions)}
                </div>
            </div>
        }
    }).collect_view();
    let undelivered = (o.undelivered > 0 || o.failed > 0).then(|| view! {
        <div role="note" class="mt-6 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
            {lang.undelivered_notifications(o.undelivered, o.failed)}
            <a href="/notifications" class="font-medium underline">{lang.ui(Ui::SeeTheOutbox)}</a>
        </div>
    });
    let changes = o
        .latest_changes
        .iter()
        .map(|(at, s, status)| view! {
            <li class="flex flex-wrap items-center gap-3 py-1.5">
                <span class="w-24 text-xs text-slate-500">{lang.age(*at, o.now)}</span>
                <a href=format!("/servers/{}", s.id) class="min-w-36 font-medium hover:underline">{format!("{} ({})", s.name, s.country)}</a>
                <StatusDot status=*status/>
            </li>
        })
        .collect_view();
    let replicas = o.replicas.map(|r| {
        view! {
            <p class="mt-1 text-sm text-slate-500" data-testid="replica-roles">
                {lang.replica_roles(&r.this, r.evaluator.as_deref())}
            </p>
        }
    });
    view! {
        <ul class="mt-6 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6" aria-label=lang.ui(Ui::ServersByStatus)>{counts}</ul>
        <p class="mt-2 text-sm text-slate-500">{lang.stale_servers(o.stale)}</p>
        <BlockedPerNetwork counts=o.blocked_per_network.clone()/>
        {replicas}
        {witness_fault}
        {actions_off}
        {connectors_failing}
        {mass_blocks}
        {best}
        {undelivered}
        <div class="mt-6 grid gap-6 lg:grid-cols-2">
            <section class=SECTION aria-labelledby="out-of-rotation">
                <h2 id="out-of-rotation" class=HEADING>{lang.ui(Ui::OutOfRotation)}</h2>
                {out}
            </section>
            <section class=SECTION aria-labelledby="latest-changes">
                <h2 id="latest-changes" class=HEADING>{lang.ui(Ui::LatestStatusChanges)}</h2>
                {if o.latest_changes.is_empty() {
                    view! { <p class="mt-3 text-sm text-slate-500">{lang.ui(Ui::NoChangeYet)}</p> }.into_any()
                } else {
                    view! { <ol class="mt-3 divide-y divide-slate-100 text-sm">{changes}</ol> }.into_any()
                }}
            </section>
        </div>
    }
}
