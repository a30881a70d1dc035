//! Maintenance windows in the panel (§6): the list with a way to cancel
//! each, and the form that plans one, for a server card and for a route.
//! Plain form posts: they work without JavaScript.

use crate::api::{CancelMaintenance, PlanMaintenance};
use crate::lang::use_lang;
use crate::ui::format;
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use meshwatch::maintenance::{form_time, MaintenanceWindow, MAX_NOTE_CHARS};
use meshwatch_views::i18n::Ui;

const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 text-sm shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200";
const BUTTON: &str = "rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-400";

/// What the form is for: one server (its card) or one route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Server(String),
    Route(String),
}

impl Scope {
    /// The element ids of this form's fields are unique on the page.
    fn key(&self) -> String {
        match self {
            Scope::Server(id) => format!("server-{id}"),
            Scope::Route(id) => format!("route-{id}"),
        }
    }

    /// The server a post comes back to; none for a route.
    fn server(&self) -> Option<String> {
        match self {
            Scope::Server(id) => Some(id.clone()),
            Scope::Route(_) => None,
        }
    }
}

/// The windows that have not ended, each with a button to cancel it.
#[component]
pub fn MaintenanceList(windows: Vec<MaintenanceWindow>, scope: Scope) -> impl IntoView {
    let lang = use_lang();
    if windows.is_empty() {
        return view! { <p class="mt-2 text-sm text-slate-500">{lang.ui(Ui::NoMaintenancePlanned)}</p> }
            .into_any();
    }
    let items = windows
        .into_iter()
        .map(|w| {
            let weekly = w.plan.weekly.then(|| format!(" · {}", lang.ui(Ui::EveryWeek)));
            let note = (!w.plan.note.is_empty()).then(|| {
                view! { <span class="block text-slate-600">{w.plan.note.clone()}</span> }
            });
            let server = scope.server();
            view! {
                <li class="flex flex-wrap items-center gap-3 py-2 text-sm" data-testid="maintenance-window">
                    <span class="grow">
                        <span class="font-mono text-xs">
                            {format!("{} – {}", format::timestamp(w.plan.start), format::timestamp(w.plan.end))}
                        </span>
                        {weekly}
                        {note}
                    </span>
                    <form method="post" action=CancelMaintenance::url()>
                        <input type="hidden" name="id" value=w.id.to_string()/>
                        {server.map(|s| view! { <input type="hidden" name="server" value=s/> })}
                        <button type="submit" class=BUTTON>{lang.ui(Ui::CancelMaintenance)}</button>
                    </form>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="mt-2 divide-y divide-slate-100">{items}</ul> }.into_any()
}

/// "Schedule maintenance": start and end (UTC), weekly, a note. On a card
/// it proposes the next two hours.
#[component]
pub fn MaintenanceForm(scope: Scope, now: Option<DateTime<Utc>>) -> impl IntoView {
    let lang = use_lang();
    let key = scope.key();
    let (start, end) = now.map_or((String::new(), String::new()), |now| {
        (form_time(now), form_time(now + chrono::Duration::hours(2)))
    });
    let target = match &scope {
        Scope::Server(id) => view! { <input type="hidden" name="server" value=id.clone()/> },
        Scope::Route(id) => view! { <input type="hidden" name="route" value=id.clone()/> },
    };
    let field = |name: &str| format!("maintenance-{name}-{key}");
    view! {
        <form method="post" action=PlanMaintenance::url() class="mt-3 grid gap-3 sm:grid-cols-2" data-testid="maintenance-form">
            {target}
            <div>
                <label for=field("start") class="block text-sm font-medium text-slate-800">{lang.ui(Ui::MaintenanceStart)}</label>
                <input id=field("start") name="start" type="datetime-local" required value=start class=INPUT/>
            </div>
            <div>
                <label for=field("end") class="block text-sm font-medium text-slate-800">{lang.ui(Ui::MaintenanceEnd)}</label>
                <input id=field("end") name="end" type="datetime-local" required value=end class=INPUT/>
            </div>
            <div class="sm:col-span-2">
                <label for=field("note") class="block text-sm font-medium text-slate-800">{lang.ui(Ui::MaintenanceNote)}</label>
                <input id=field("note") name="note" type="text" maxlength=MAX_NOTE_CHARS.to_string() class=INPUT/>
            </div>
            <label class="flex items-center gap-2 text-sm">
                <input id=field("weekly") name="weekly" type="checkbox" value="on" class="rounded border-slate-300"/>
                {lang.ui(Ui::RepeatWeekly)}
            </label>
            <div class="sm:text-right">
                <button type="submit" class="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400">
                    {lang.ui(Ui::ScheduleMaintenance)}
                </button>
            </div>
        </form>
    }
}
