//! The server card: its verdict with every condition, self-check, metrics,
//! who reaches it and who does not (by country), entry points with their
//! pair-failure causes, and the verifier toggle (a plain form post, so it
//! works without JavaScript).

use crate::api::{load_server_card, SetVerifier};
use crate::lang::use_lang;
use crate::live::live_version;
use crate::ui::components::{Chip, ErrorNote, StaleBadge, StatusDot};
use crate::ui::format;
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use meshwatch::i18n::Text;
use meshwatch::status::ServerStatus;
use meshwatch::views::{age, ServerCard, ServerRef};
use std::collections::BTreeMap;

const SECTION: &str = "rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
const HEADING: &str = "text-sm font-semibold uppercase tracking-wide text-slate-500";

#[component]
pub fn ServerCardPage() -> impl IntoView {
    let params = use_params_map();
    let toggle = ServerAction::<SetVerifier>::new();
    let card = Resource::new(
        move || {
            (
                params.read().get("id").unwrap_or_default(),
                toggle.version().get(),
                live_version(),
            )
        },
        |(id, _, _)| load_server_card(id),
    );
    view! {
        <Frame>
            <nav aria-label="Breadcrumb" class="text-sm text-slate-500">
                <a href="/" class="hover:underline">"Servers"</a>
            </nav>
            <Transition fallback=|| view! { <p class="mt-6 text-slate-500">"Loading server…"</p> }>
                {move || Suspend::new(async move {
                    match card.await {
                        Ok(card) => view! { <Card card toggle/> }.into_any(),
                        Err(error) => view! {
                            <Title text="Server"/>
                            <div class="mt-6"><ErrorNote error/></div>
                        }.into_any(),
                    }
                })}
            </Transition>
        </Frame>
    }
}

#[component]
fn Card(card: ServerCard, toggle: ServerAction<SetVerifier>) -> impl IntoView {
    let v = &card.verdict;
    let status = v.status;
    let silent = v.last_report_at.is_none() || (status == ServerStatus::NoData);
    let badge = v.stale.then(|| view! { <StaleBadge/> });
    let title = card.server.name.clone();
    let conditions = v
        .conditions
        .iter()
        .filter(|c| **c != ServerStatus::Healthy && **c != status)
        .map(|c| view! { <li><StatusDot status=*c/></li> })
        .collect_view();
    let rotation = if v.in_rotation {
        "In rotation"
    } else {
        "Out of rotation: its place in subscriptions is taken by healthy servers of its routes"
    };
    view! {
        <Title text=title/>
        <header class="mt-2 flex flex-wrap items-start justify-between gap-4">
            <div>
                <h1 class="text-2xl font-semibold tracking-tight">{card.server.name.clone()}</h1>
                <p class="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-500">
                    <span class="font-mono">{card.server.id.to_string()}</span>
                    <Chip text=card.server.country.clone()/>
                    {card.server.routes.iter().map(|r| view! { <Chip text=r.to_string()/> }).collect_view()}
                    {card.server.verifier.then(|| view! {
                        <span class="rounded-md bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-800">"Verifier"</span>
                    })}
                </p>
            </div>
            <div class="text-right">
                <p class="flex items-center justify-end gap-2 text-lg font-medium" data-testid="server-status">
                    <StatusDot status/>{badge}
                </p>
                <p class="mt-1 text-sm text-slate-500">{rotation}</p>
            </div>
        </header>
        {(!conditions.is_empty()).then(|| view! {
            <section aria-label="Other conditions" class="mt-4 text-sm">
                <p class="text-slate-500">"Also holds:"</p>
                <ul class="mt-1 space-y-1">{conditions}</ul>
            </section>
        })}
        <div class="mt-6 grid gap-6 lg:grid-cols-2">
            <SelfCheck card=card.clone() silent/>
            <Metrics card=card.clone()/>
        </div>
        <Notes card=card.clone()/>
        <MeshView card=card.clone()/>
        <EntryPoints card=card.clone()/>
        <History card=card.clone()/>
        <VerifierToggle card toggle/>
    }
}

#[component]
fn SelfCheck(card: ServerCard, silent: bool) -> impl IntoView {
    let v = &card.verdict;
    let last = v.last_report_at.map(|at| age(at, card.now));
    let body = match (&v.self_check, silent && v.stale) {
        (_, true) | (None, _) => view! {
            <p class="mt-3 font-medium text-slate-700">{use_lang().text(Text::AgentSilent)}</p>
            <p class="mt-1 text-sm text-slate-500">
                {match last.clone() {
                    Some(last) => format!("Last report {last}; reports older than {} s do not count.", card.stale_after_s),
                    None => "This server's agent has never reported.".to_string(),
                }}
            </p>
        }
        .into_any(),
        (Some(check), false) => {
            let mark = |ok: bool| if ok { "OK" } else { "Failing" };
            let tone = |ok: bool| if ok { "text-emerald-700" } else { "text-red-700 font-semibold" };
            view! {
                <dl class="mt-3 grid grid-cols-2 gap-2 text-sm">
                    <dt class="text-slate-500">"Traffic listener"</dt>
                    <dd class=tone(check.listener_ok)>{mark(check.listener_ok)}</dd>
                    <dt class="text-slate-500">"VPN service"</dt>
                    <dd class=tone(check.service_ok)>{mark(check.service_ok)}</dd>
                    <dt class="text-slate-500">"Last report"</dt>
                    <dd>{last.clone().unwrap_or_default()}</dd>
                </dl>
                {check.detail.clone().map(|d| view! { <p class="mt-2 text-sm text-slate-600">{d}</p> })}
            }
            .into_any()
        }
    };
    view! {
        <section class=SECTION aria-labelledby="self-check">
            <h2 id="self-check" class=HEADING>"Self-check"</h2>
            {body}
        </section>
    }
}

#[component]
fn Metrics(card: ServerCard) -> impl IntoView {
    let Some(m) = card.metrics.clone() else {
        return view! {
            <section class=SECTION aria-labelledby="metrics">
                <h2 id="metrics" class=HEADING>"Metrics"</h2>
                <p class="mt-3 text-sm text-slate-500">"No metrics reported yet."</p>
            </section>
        }
        .into_any();
    };
    let pair = |used: Option<u64>, total: Option<u64>| match (used, total) {
        (Some(u), Some(t)) => format!("{} of {}", format::bytes(u), format::bytes(t)),
        (Some(u), None) => format::bytes(u),
        _ => "—".into(),
    };
    let rate = |r: Option<f64>| r.map(|r| format!("{}/s", format::bytes(r as u64)));
    let rows: Vec<(&str, String)> = vec![
        ("CPU", m.cpu_pct.map_or("—".into(), |c| format!("{c:.1} %"))),
        ("Memory", pair(m.mem_used_bytes, m.mem_total_bytes)),
        ("Disk", pair(m.disk_used_bytes, m.disk_total_bytes)),
        (
            "Network in",
            rate(m.net_rx_rate_bps)
                .unwrap_or_else(|| m.net_rx_bytes.map_or("—".into(), format::bytes)),
        ),
        (
            "Network out",
            rate(m.net_tx_rate_bps)
                .unwrap_or_else(|| m.net_tx_bytes.map_or("—".into(), format::bytes)),
        ),
        (
            "Connections",
            m.connections.map_or("—".into(), |c| c.to_string()),
        ),
        (
            "Load (1 min)",
            m.load1.map_or("—".into(), |l| format!("{l:.2}")),
        ),
        ("Uptime", m.uptime_s.map_or("—".into(), format::duration)),
    ];
    let stale = card.verdict.stale.then(|| view! { <StaleBadge/> });
    view! {
        <section class=SECTION aria-labelledby="metrics">
            <h2 id="metrics" class=format!("{HEADING} flex items-center gap-2")>"Metrics" {stale}</h2>
            <dl class="mt-3 grid grid-cols-2 gap-2 text-sm">
                {rows.into_iter().map(|(k, v)| view! {
                    <dt class="text-slate-500">{k}</dt>
                    <dd class="tabular-nums">{v}</dd>
                }).collect_view()}
            </dl>
        </section>
    }
    .into_any()
}

#[component]
fn Notes(card: ServerCard) -> impl IntoView {
    let v = &card.verdict;
    let unreliable = v.unreliable_witness.map(|w| view! {
        <p role="note" class="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
            {format!("Unreliable witness: can't reach {} of {} servers — its votes are ignored.", w.failing, w.of)}
        </p>
    });
    let suspended = v.suspended_verifier.then(|| view! {
        <p role="note" class="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
            "Suspended verifier: it reaches none of the other servers, so its blocking verdicts are suspended."
        </p>
    });
    let blocked = (!v.blocked_by.is_empty()).then(|| {
        let by = v.blocked_by.iter().map(|id| card.label(id)).collect::<Vec<_>>().join(", ");
        view! {
            <p role="note" class="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
                {format!("Address blocked as seen by the verifier {by}: consider changing this server's IP address.")}
            </p>
        }
    });
    view! { <div class="mt-6 space-y-3">{unreliable}{suspended}{blocked}</div> }
}

/// Who reaches it and who does not, by country: the difference of opinions.
#[component]
fn MeshView(card: ServerCard) -> impl IntoView {
    let mut by_country: BTreeMap<String, (Vec<ServerRef>, Vec<ServerRef>)> = BTreeMap::new();
    for s in &card.reaching {
        by_country
            .entry(s.country.clone())
            .or_default()
            .0
            .push(s.clone());
    }
    for s in &card.failing {
        by_country
            .entry(s.country.clone())
            .or_default()
            .1
            .push(s.clone());
    }
    let q = &card.verdict.quorum;
    let summary = if q.of == 0 {
        "No fresh reliable witness probes this server.".to_string()
    } else if q.failing == 0 {
        format!("All {} of your servers that probe it reach it.", q.of)
    } else {
        use_lang().unreachable_count(q.failing, q.of)
    };
    let names = |list: &[ServerRef]| {
        list.iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="mesh-view">
            <h2 id="mesh-view" class=HEADING>"Mesh view"</h2>
            <p class="mt-2 text-sm" data-testid="mesh-summary">{summary}</p>
            {(!by_country.is_empty()).then(|| view! {
                <table class="mt-3 w-full text-left text-sm">
                    <thead class="text-xs uppercase text-slate-500">
                        <tr>
                            <th scope="col" class="py-1 pr-4">"Country"</th>
                            <th scope="col" class="py-1 pr-4">"Reach it"</th>
                            <th scope="col" class="py-1">"Can't reach it"</th>
                        </tr>
                    </thead>
                    <tbody class="divide-y divide-slate-100">
                        {by_country.into_iter().map(|(country, (reach, fail))| view! {
                            <tr>
                                <th scope="row" class="py-1 pr-4 font-medium">{country}</th>
                                <td class="py-1 pr-4 text-emerald-800">{names(&reach)}</td>
                                <td class="py-1 text-red-800">{names(&fail)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            })}
        </section>
    }
}

#[component]
fn EntryPoints(card: ServerCard) -> impl IntoView {
    let items = card
        .server
        .entry_points
        .iter()
        .map(|ep| {
            let verdict = card.verdict.entry_points.iter().find(|e| e.id == ep.id);
            let available = verdict.is_none_or(|e| e.available);
            let causes = verdict
                .map(|e| {
                    e.causes
                        .iter()
                        .map(|c| {
                            format!(
                                "Check from {} to {} fails since {} ({})",
                                card.label(&c.from),
                                card.label(&c.to),
                                c.since.format("%Y-%m-%d %H:%M:%S UTC"),
                                age(c.since, card.now)
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let state = if available {
                "Available"
            } else {
                use_lang().text(Text::EpNotAvailable)
            };
            let tone = if available { "text-emerald-700" } else { "text-amber-700 font-semibold" };
            view! {
                <li>
                    <details class="group rounded-lg border border-slate-200 px-4 py-2">
                        <summary class="flex cursor-pointer flex-wrap items-center gap-3 text-sm">
                            <span class="font-mono">{ep.id.to_string()}</span>
                            <span class="text-slate-500">{format!("{} {}:{}", ep.protocol, ep.host, ep.port)}</span>
                            <span class=format!("ml-auto {tone}")>{state}</span>
                        </summary>
                        <div class="mt-2 text-sm text-slate-700">
                            {if causes.is_empty() {
                                view! { <p>"No witness reports a sustained failure towards it."</p> }.into_any()
                            } else {
                                view! { <ul class="list-disc space-y-1 pl-5">{causes.into_iter().map(|c| view! { <li>{c}</li> }).collect_view()}</ul> }.into_any()
                            }}
                        </div>
                    </details>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="entry-points">
            <h2 id="entry-points" class=HEADING>"Entry points"</h2>
            <ul class="mt-3 space-y-2">{items}</ul>
        </section>
    }
}

/// Marks or unmarks the verifier with a form post (no JavaScript needed);
/// hydrated, it submits in place and the card reloads.
#[component]
fn VerifierToggle(card: ServerCard, toggle: ServerAction<SetVerifier>) -> impl IntoView {
    let enabled = card.server.verifier;
    let label = use_lang().text(if enabled {
        Text::StopUsingAsVerifier
    } else {
        Text::UseAsVerifier
    });
    let error = move || {
        toggle
            .value()
            .get()
            .and_then(Result::err)
            .map(|error| view! { <div class="mt-3"><ErrorNote error/></div> })
    };
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="verifier">
            <h2 id="verifier" class=HEADING>"Verifier"</h2>
            <p class="mt-2 text-sm text-slate-600">
                {if enabled {
                    "This server checks the others for blocking: when it can't reach every entry point of a server, that address is marked blocked."
                } else {
                    "A verifier is a server (ideally in the censored network) whose failing checks mark another server's address as blocked."
                }}
            </p>
            <ActionForm action=toggle attr:class="mt-3">
                <input type="hidden" name="id" value=card.server.id.to_string()/>
                <input type="hidden" name="enabled" value=(!enabled).to_string()/>
                <button type="submit" class="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400 disabled:opacity-50"
                    disabled=move || toggle.pending().get()>
                    {label}
                </button>
            </ActionForm>
            {error}
        </section>
    }
}

/// Uptime over three windows and the latest status changes.
#[component]
fn History(card: ServerCard) -> impl IntoView {
    let uptime = ["24 h", "7 d", "30 d"]
        .into_iter()
        .zip(card.uptime)
        .map(|(window, share)| {
            let value = share.map_or("—".to_string(), |s| format!("{:.2} %", s * 100.0));
            view! {
                <div>
                    <dt class="text-slate-500">{format!("Uptime {window}")}</dt>
                    <dd class="text-lg font-medium tabular-nums">{value}</dd>
                </div>
            }
        })
        .collect_view();
    let changes = card
        .history
        .iter()
        .map(|(at, status)| {
            view! {
                <li class="flex flex-wrap items-center gap-3 py-1">
                    <time datetime=at.to_rfc3339() class="w-48 font-mono text-xs text-slate-500">
                        {at.format("%Y-%m-%d %H:%M:%S UTC").to_string()}
                    </time>
                    <StatusDot status=*status/>
                    <span class="text-xs text-slate-400">{age(*at, card.now)}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="history">
            <h2 id="history" class=HEADING>"History"</h2>
            <p class="mt-1 text-xs text-slate-500">"Uptime is the share of time in rotation (not unavailable, unreachable or blocked)."</p>
            <dl class="mt-3 grid grid-cols-3 gap-4 text-sm">{uptime}</dl>
            {if card.history.is_empty() {
                view! { <p class="mt-3 text-sm text-slate-500">"No status change recorded yet."</p> }.into_any()
            } else {
                view! { <ol class="mt-3 divide-y divide-slate-100 text-sm" data-testid="status-history">{changes}</ol> }.into_any()
            }}
        </section>
    }
}
