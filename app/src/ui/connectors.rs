//! Settings → Connected panels (§7): each panel meshwatch applies its
//! rotation in, with its state, last sync, pending changes and the hosts
//! it turned off; a form to connect one (in dry run). Plain form posts:
//! they work without JavaScript.

use crate::api::{ApplyImport, RemoveConnector, SaveConnector, SetConnectorMode};
use crate::error::AppError;
use crate::flash::Outcome;
use crate::lang::use_lang;
use crate::ui::components::ErrorNote;
use crate::ui::format;
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use meshwatch::connectors::{
    ConnectorMode, ConnectorState, ConnectorView, HostChange, PanelKind, Proposal, SkipReason,
    MAX_TAG_LEN, MAX_URL_LEN, UNKNOWN_COUNTRY,
};
use meshwatch_views::i18n::Ui;

const CARD: &str = "mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
const HEADING: &str = "text-sm font-semibold uppercase tracking-wide text-slate-500";
const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-2 py-1 text-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200";
const LABEL: &str = "block text-sm font-medium text-slate-800";
const BUTTON: &str = "rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400";
const SMALL_BUTTON: &str = "rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-50 focus:outline-none focus:ring-2 focus:ring-sky-300";

#[component]
pub fn ConnectorsSection(
    connectors: Result<Vec<ConnectorView>, AppError>,
    outcome: Option<Outcome>,
) -> impl IntoView {
    let lang = use_lang();
    let said = match outcome {
        Some(Outcome::Failed(error)) => Some(view! { <div class="mt-4"><ErrorNote error/></div> }),
        _ => None,
    };
    let list = match connectors {
        Ok(list) if list.is_empty() => {
            view! { <p class="mt-4 text-sm text-slate-500">{lang.ui(Ui::NoConnectors)}</p> }
                .into_any()
        }
        Ok(list) => view! {
            <ul class="mt-4 space-y-4">
                {list.into_iter().map(|c| view! { <Connector c/> }).collect_view()}
            </ul>
        }
        .into_any(),
        Err(error) => view! { <div class="mt-4"><ErrorNote error/></div> }.into_any(),
    };
    view! {
        <section class=CARD id="connected-panels" aria-labelledby="connected-panels-heading">
            <h2 id="connected-panels-heading" class=HEADING>{lang.ui(Ui::ConnectedPanels)}</h2>
            <p class="mt-2 text-sm text-slate-600">{lang.ui(Ui::ConnectedPanelsHelp)}</p>
            {said}
            {list}
            <AddConnector/>
        </section>
    }
}

/// One connector: what it is, how its syncs go, what it would change and
/// what it turned off.
#[component]
fn Connector(c: ConnectorView) -> impl IntoView {
    let lang = use_lang();
    let (state, tone) = match c.state {
        ConnectorState::Ok => (Ui::ConnectorOk, "bg-emerald-100 text-emerald-900"),
        ConnectorState::Error => (Ui::ConnectorFailing, "bg-red-100 text-red-900"),
        ConnectorState::Removing => (Ui::ConnectorRemoving, "bg-amber-100 text-amber-900"),
    };
    let mode = match c.mode {
        ConnectorMode::DryRun => Ui::ConnectorDryRun,
        ConnectorMode::Apply => Ui::ConnectorApplying,
    };
    let last_sync = c
        .last_sync_at
        .map(format::timestamp)
        .unwrap_or_else(|| lang.ui(Ui::NeverSynced).to_owned());
    let label = |id: &str| {
        c.hosts
            .iter()
            .find(|h| h.external_id == id)
            .map(|h| format!("{} ({}:{}, {})", h.remark, h.address, h.port, h.server_id))
            .unwrap_or_else(|| id.to_owned())
    };
    let pending = if c.pending.is_empty() {
        view! { <p class="mt-1 text-sm text-slate-500">{lang.ui(Ui::NoPendingChanges)}</p> }
            .into_any()
    } else {
        view! {
            <ul class="mt-1 list-disc pl-5 text-sm" data-testid="pending-changes">
                {c.pending.iter().map(|p| {
                    let change = match p.change {
                        HostChange::Disable => Ui::WouldTurnOff,
                        HostChange::Enable => Ui::WouldTurnOn,
                    };
                    view! { <li>{format!("{}: {}", lang.ui(change), label(&p.external_id))}</li> }
                }).collect_view()}
            </ul>
        }
        .into_any()
    };
    let turned_off = (!c.turned_off.is_empty()).then(|| view! {
        <div class="mt-3">
            <p class="text-sm font-medium text-slate-800">{lang.ui(Ui::HostsTurnedOff)}</p>
            <ul class="mt-1 list-disc pl-5 text-sm" data-testid="hosts-turned-off">
                {c.turned_off.iter().map(|t| view! {
                    <li>
                        {format!("{}: ", label(&t.external_id))}
                        <a class="hover:underline" href=format!("/servers/{}", t.server_id)>{t.server_id.to_string()}</a>
                        {format!(" — {}, {}", lang.status(t.status), format::timestamp(t.since))}
                    </li>
                }).collect_view()}
            </ul>
        </div>
    });
    let switch = match (c.state, c.mode) {
        (ConnectorState::Removing, _) => None,
        (_, ConnectorMode::DryRun) => Some((ConnectorMode::Apply, Ui::ApplyChanges, BUTTON)),
        (_, ConnectorMode::Apply) => Some((ConnectorMode::DryRun, Ui::BackToDryRun, SMALL_BUTTON)),
    };
    let id = c.id.to_string();
    view! {
        <li class="rounded-lg border border-slate-200 p-4" data-testid="connector">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <p>
                    <span class="font-medium">{id.clone()}</span>
                    <span class="ml-2 text-sm text-slate-600">{c.kind.display_name()}" · "{c.url.clone()}</span>
                    {c.tag.clone().map(|t| view! { <span class="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs">{t}</span> })}
                </p>
                <p class="flex items-center gap-2 text-sm">
                    <span class="rounded px-2 py-0.5 text-xs font-medium bg-slate-100 text-slate-800" data-testid="connector-mode">{lang.ui(mode)}</span>
                    <span class=format!("rounded px-2 py-0.5 text-xs font-medium {tone}") data-testid="connector-state">{lang.ui(state)}</span>
                </p>
            </div>
            <p class="mt-1 text-xs text-slate-500">{lang.ui(Ui::LastSync)}": "{last_sync}</p>
            {c.last_error.clone().map(|e| view! { <p class="mt-1 text-sm text-red-800" data-testid="connector-error">{e}</p> })}
            <p class="mt-3 text-sm font-medium text-slate-800">{lang.ui(Ui::PendingChanges)}</p>
            {pending}
            {turned_off}
            <div class="mt-3 flex flex-wrap gap-2">
                {switch.map(|(to, text, class)| view! {
                    <form method="post" action=SetConnectorMode::url()>
                        <input type="hidden" name="id" value=id.clone()/>
                        <input type="hidden" name="mode" value=to.as_str()/>
                        <button type="submit" class=class>{lang.ui(text)}</button>
                    </form>
                })}
                <a class=SMALL_BUTTON href=format!("/settings?import={id}#import") data-testid="import-servers">{lang.ui(Ui::ImportServers)}</a>
                <form method="post" action=RemoveConnector::url()>
                    <input type="hidden" name="id" value=id.clone()/>
                    <button type="submit" class="rounded-md border border-red-300 px-3 py-1 text-sm text-red-800 hover:bg-red-50 focus:outline-none focus:ring-2 focus:ring-red-300">
                        {lang.ui(Ui::RemoveConnector)}
                    </button>
                </form>
            </div>
        </li>
    }
}

#[component]
fn AddConnector() -> impl IntoView {
    let lang = use_lang();
    view! {
        <form method="post" action=SaveConnector::url() class="mt-6 grid gap-4 md:grid-cols-2" aria-label=lang.ui(Ui::ConnectPanel)>
            <div>
                <label for="connector-id" class=LABEL>{lang.ui(Ui::ConnectorName)}</label>
                <input id="connector-id" name="id" required maxlength="64" pattern="[a-z0-9][a-z0-9_\\-]*" placeholder="remnawave" class=INPUT/>
            </div>
            <div>
                <label for="connector-kind" class=LABEL>{lang.ui(Ui::ConnectorKind)}</label>
                <select id="connector-kind" name="kind" class=INPUT>
                    {PanelKind::ALL.into_iter().map(|k| view! { <option value=k.as_str()>{k.display_name()}</option> }).collect_view()}
                </select>
            </div>
            <div>
                <label for="connector-url" class=LABEL>{lang.ui(Ui::ConnectorUrl)}</label>
                <input id="connector-url" name="url" type="url" required maxlength=MAX_URL_LEN.to_string() placeholder="http://127.0.0.1:3000" class=INPUT/>
            </div>
            <div>
                <label for="connector-tag" class=LABEL>{lang.ui(Ui::ConnectorTag)}</label>
                <input id="connector-tag" name="tag" maxlength=MAX_TAG_LEN.to_string() placeholder="MESHWATCH" class=INPUT/>
            </div>
            <div>
                <label for="connector-token" class=LABEL>{lang.ui(Ui::ConnectorToken)}</label>
                <input id="connector-token" name="token" type="password" required autocomplete="off" aria-describedby="connector-token-help" class=INPUT/>
                <p id="connector-token-help" class="mt-1 text-xs text-slate-500">{lang.ui(Ui::ConnectorTokenHelp)}</p>
            </div>
            <div>
                <label for="connector-password" class=LABEL>{lang.ui(Ui::YourPassword)}</label>
                <input id="connector-password" name="password" type="password" required autocomplete="current-password" class=INPUT/>
            </div>
            <div class="md:col-span-2">
                <button type="submit" class=BUTTON>{lang.ui(Ui::ConnectPanel)}</button>
            </div>
        </form>
    }
}

/// "Import servers": what the connector's panel would add to the fleet, as
/// a diff against it (new routes, new servers with their entry points,
/// hosts already in the fleet, hosts left out and why), with one button to
/// add it. What is added is exactly what is shown.
#[component]
pub fn ImportSection(
    id: String,
    proposal: Result<Proposal, AppError>,
    outcome: Option<Outcome>,
) -> impl IntoView {
    let lang = use_lang();
    let said = match outcome {
        Some(Outcome::Failed(error)) => Some(view! { <div class="mt-4"><ErrorNote error/></div> }),
        _ => None,
    };
    let body = match proposal {
        Err(error) => view! { <div class="mt-4"><ErrorNote error/></div> }.into_any(),
        Ok(p) => view! { <ProposalView p/> }.into_any(),
    };
    view! {
        <section class=CARD id="import" aria-labelledby="import-heading" data-testid="import">
            <h2 id="import-heading" class=HEADING>{format!("{} — {id}", lang.ui(Ui::ImportProposal))}</h2>
            <p class="mt-2 text-sm text-slate-600">{lang.ui(Ui::ImportHelp)}</p>
            {said}
            {body}
        </section>
    }
}

#[component]
fn ProposalView(p: Proposal) -> impl IntoView {
    let lang = use_lang();
    let document = serde_json::to_string(&p.document).unwrap_or_default();
    let routes = (!p.document.routes.is_empty()).then(|| view! {
        <p class="mt-4 text-sm font-medium text-slate-800">{lang.ui(Ui::NewRoutes)}</p>
        <ul class="mt-1 list-disc pl-5 text-sm text-emerald-900" data-testid="import-routes">
            {p.document.routes.iter().map(|r| view! { <li>{format!("+ {} ({})", r.id, r.name)}</li> }).collect_view()}
        </ul>
    });
    let servers = if p.document.servers.is_empty() {
        view! { <p class="mt-4 text-sm text-slate-500" data-testid="import-nothing">{lang.ui(Ui::NothingToImport)}</p> }.into_any()
    } else {
        view! {
            <p class="mt-4 text-sm font-medium text-slate-800">{lang.ui(Ui::NewServers)}</p>
            <ul class="mt-1 space-y-2 text-sm" data-testid="import-servers-list">
                {p.document.servers.iter().map(|s| {
                    let unknown = (s.country == UNKNOWN_COUNTRY).then(|| view! {
                        <span class="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900">{lang.ui(Ui::CountryUnknown)}</span>
                    });
                    let routes = if s.routes.is_empty() { String::new() } else { format!(" · {}", s.routes.join(", ")) };
                    view! {
                        <li class="rounded border border-emerald-200 bg-emerald-50 p-2" data-testid="import-server">
                            <p>
                                <span class="font-medium">{format!("+ {} — {}", s.id, s.name)}</span>
                                <span class="ml-2 text-slate-600">{format!("{}{routes}", s.country)}</span>
                                {unknown}
                            </p>
                            <ul class="mt-1 pl-4 font-mono text-xs text-slate-700">
                                {s.entry_points.iter().map(|e| view! {
                                    <li>{format!("{} {}:{} ({})", e.protocol, e.host, e.port, e.id)}</li>
                                }).collect_view()}
                            </ul>
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
        .into_any()
    };
    let known = (!p.known.is_empty()).then(|| view! {
        <p class="mt-4 text-sm font-medium text-slate-800">{lang.ui(Ui::AlreadyInFleet)}</p>
        <ul class="mt-1 list-disc pl-5 text-sm text-slate-600" data-testid="import-known">
            {p.known.iter().map(|k| view! {
                <li>
                    {format!("{} → ", k.remark)}
                    <a class="hover:underline" href=format!("/servers/{}", k.server_id)>{k.server_id.to_string()}</a>
                </li>
            }).collect_view()}
        </ul>
    });
    let skipped = (!p.skipped.is_empty()).then(|| {
        view! {
            <p class="mt-4 text-sm font-medium text-slate-800">{lang.ui(Ui::LeftOut)}</p>
            <ul class="mt-1 list-disc pl-5 text-sm text-slate-600" data-testid="import-skipped">
                {p.skipped.iter().map(|s| {
                    let why = match s.reason {
                        SkipReason::NoPort => Ui::SkipNoPort,
                        SkipReason::NoProtocol => Ui::SkipNoProtocol,
                        SkipReason::NotAnAddress => Ui::SkipNotAnAddress,
                    };
                    view! { <li>{format!("{}: {}", s.remark, lang.ui(why))}</li> }
                }).collect_view()}
            </ul>
        }
    });
    let apply = (!p.document.servers.is_empty()).then(|| view! {
        <form method="post" action=ApplyImport::url() class="mt-4 flex flex-wrap items-end gap-3">
            <input type="hidden" name="document" value=document/>
            <div>
                <label for="import-password" class=LABEL>{lang.ui(Ui::YourPassword)}</label>
                <input id="import-password" name="password" type="password" required autocomplete="current-password" class=INPUT/>
            </div>
            <button type="submit" class=BUTTON>{lang.ui(Ui::AddImportedServers)}</button>
        </form>
    });
    view! { {routes} {servers} {known} {skipped} {apply} }
}

/// What the last import added, with a link to each new server's card
/// (where its agent's install command is).
#[component]
pub fn ImportedNote(count: usize, first: Vec<meshwatch::ServerId>) -> impl IntoView {
    let lang = use_lang();
    let more = count.saturating_sub(first.len());
    view! {
        <section class=CARD role="status" data-testid="imported">
            <p class="text-sm text-emerald-800">{format!("{} ({count})", lang.ui(Ui::ServersAdded))}</p>
            <ul class="mt-1 flex flex-wrap gap-2 text-sm">
                {first.into_iter().map(|id| view! {
                    <li><a class="hover:underline" href=format!("/servers/{id}")>{id.to_string()}</a></li>
                }).collect_view()}
                {(more > 0).then(|| view! { <li>{format!("+{more}")}</li> })}
            </ul>
        </section>
    }
}
