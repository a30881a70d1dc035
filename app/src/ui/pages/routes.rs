//! Routes: each route's servers and which are in rotation. Out-of-rotation
//! servers are replaced per user by the route's servers still in rotation;
//! when none is left the route serves its best available server (never an
//! empty route), and the page warns.

use crate::flash::{outcome_of, take_for_page, Form, Outcome};
use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::preload;
use crate::ui::components::{
    BlockedPerNetwork, Chip, EmptyState, ErrorNote, StaleBadge, StatusDot,
};
use crate::ui::frame::Frame;
use crate::ui::maintenance::{MaintenanceForm, MaintenanceList, Scope};
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::status::ServerStatus;
use meshwatch_views::i18n::Ui;
use meshwatch_views::views::RouteOverview;

#[component]
pub fn RoutesPage() -> impl IntoView {
    let lang = use_lang();
    let refused = match outcome_of(&take_for_page(), Form::Maintenance) {
        Some(Outcome::Failed(error)) => Some(view! { <div class="mt-6"><ErrorNote error/></div> }),
        _ => None,
    };
    let loaded = match preload::take::<Vec<RouteOverview>>() {
                Ok(list) if list.is_empty() => view! {
                    <div class="mt-6"><EmptyState title=lang.ui(Ui::NoRoutesYet) hint=lang.ui(Ui::ProvisionFleetHint)/></div>
                }.into_any(),
                Ok(list) => view! {
                    <div class="mt-6 grid gap-6 lg:grid-cols-2">
                        {list.into_iter().map(|route| view! { <RouteCard route/> }).collect_view()}
                    </div>
                }.into_any(),
                Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
    };
    view! {
        <Title text=lang.ui(Ui::Routes)/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Routes)}</h1>
            {refused}
            <LiveRegion key="routes">
                {loaded}
            </LiveRegion>
        </Frame>
    }
}

#[component]
fn RouteCard(route: RouteOverview) -> impl IntoView {
    let lang = use_lang();
    let in_rotation: Vec<String> = route
        .servers
        .iter()
        .filter(|s| s.in_rotation)
        .map(|s| s.server.name.clone())
        .collect();
    let per_user = route.servers_per_user.map_or_else(
        || lang.ui(Ui::EveryServerToEveryUser).to_string(),
        |k| lang.servers_per_user(k),
    );
    let warning = route.best_available.as_ref().map(|best| view! {
        <p role="note" class="mt-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            {lang.route_serves_best_available(&best.name, &best.country)}
        </p>
    });
    let all_in_maintenance = route.all_in_maintenance.then(|| view! {
        <p role="note" class="mt-3 rounded-md border border-blue-200 bg-blue-50 px-3 py-2 text-sm text-blue-900" data-testid="route-all-in-maintenance">
            {lang.ui(Ui::RouteAllInMaintenance)}
        </p>
    });
    let scope = Scope::Route(route.id.to_string());
    // What an out-of-rotation server's row says: who serves its users (by
    // name while they are few).
    let served_by = match route.in_rotation as usize {
        0 => None,
        n if n <= RouteOverview::NAMED_COVER_MAX => {
            Some(lang.out_of_rotation_served_by(&in_rotation))
        }
        _ => Some(lang.ui(Ui::OutOfRotationServedByRoute).to_string()),
    };
    // A big route lists the servers out of rotation, counts the rest and
    // links to all of them in the servers list.
    let big = route.is_big();
    let summary = big.then(|| {
        let all = crate::ui::format::list_address("/", &[("route", route.id.to_string())], 1);
        view! {
            <p class="mt-3 flex flex-wrap items-center gap-x-4 text-sm" data-testid="route-summary">
                <span>{lang.in_rotation_of(route.in_rotation as usize, route.total as usize)}</span>
                <a href=all class="font-medium text-sky-700 hover:underline">{lang.ui(Ui::AllServersOfRoute)}</a>
            </p>
        }
    });
    let rows = route
        .servers
        .into_iter()
        .filter(|s| !big || !s.in_rotation)
        .map(|s| {
            let note = if s.in_rotation {
                lang.ui(Ui::InRotation).to_string()
            } else {
                served_by.clone().unwrap_or_else(|| lang.ui(Ui::OutOfRotation).to_string())
            };
            let stale = (s.stale && s.status != ServerStatus::NoData).then(|| view! { <StaleBadge/> });
            view! {
                <li class="flex flex-wrap items-center gap-x-4 gap-y-1 py-2 text-sm" data-testid="route-server">
                    <a href=format!("/servers/{}", s.server.id) class="min-w-36 font-medium hover:underline">
                        {format!("{} ({})", s.server.name, s.server.country)}
                    </a>
                    <span class="inline-flex items-center gap-2"><StatusDot status=s.status/>{stale}</span>
                    <span class="ml-auto text-slate-500">{note}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="rounded-xl border border-slate-200 bg-white p-5 shadow-sm" aria-label=route.name.clone()>
            <h2 class="flex items-center gap-2 text-lg font-semibold">{route.name.clone()} <Chip text=route.id.to_string()/></h2>
            <p class="text-sm text-slate-500">{per_user}</p>
            {all_in_maintenance}
            {warning}
            <BlockedPerNetwork counts=route.blocked_per_network.clone()/>
            {summary}
            <ul class="mt-3 divide-y divide-slate-100">{rows}</ul>
            <details class="mt-3 border-t border-slate-100 pt-3" open=!route.maintenance.is_empty()>
                <summary class="cursor-pointer text-sm font-medium text-slate-700">{lang.ui(Ui::Maintenance)}</summary>
                <MaintenanceList windows=route.maintenance.clone() scope=scope.clone()/>
                <MaintenanceForm scope now=None/>
            </details>
        </section>
    }
}
