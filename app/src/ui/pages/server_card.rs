//! The server card: its verdict with every condition, self-check, metrics,
//! who reaches it and who does not (by country), entry points with their
//! pair-failure causes and the guidance on them, and the verifier toggle
//! (a plain form post, so it works without JavaScript).

use crate::api::SetVerifier;
use crate::flash::{outcome_of, take_for_page, Form, Outcome};
use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::preload;
use crate::ui::actions::RunList;
use crate::ui::agent_install::AgentSection;
use crate::ui::chart::{ChartAxis, Sparkline};
use crate::ui::components::{Chip, ErrorNote, StaleBadge, StatusDot};
use crate::ui::format;
use crate::ui::frame::Frame;
use crate::ui::maintenance::{MaintenanceForm, MaintenanceList, Scope};
use crate::ui::memo::RenderMemo;
use chrono::{DateTime, DurationRound, Utc};
use leptos::either::Either;
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use leptos_meta::Title;
use meshwatch::agent_api::Metrics;
use meshwatch::controls::ControlTargets;
use meshwatch::ids::ServerId;
use meshwatch::maintenance::MaintenanceWindow;
use meshwatch::network::NetworkLabel;
use meshwatch::status::ServerStatus;
use meshwatch_views::chart::{ChartMetric, MetricCharts};
use meshwatch_views::i18n::{Lang, Text, Ui};
use meshwatch_views::views::ServerCard;
use std::sync::{Arc, LazyLock};

const SECTION: &str = "rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
const HEADING: &str = "text-sm font-semibold uppercase tracking-wide text-slate-500";

#[component]
pub fn ServerCardPage() -> impl IntoView {
    let lang = use_lang();
    // Only a failed form has something to say; a done one shows itself.
    let flash = take_for_page();
    let refused =
        [Form::Verifier, Form::Maintenance]
            .into_iter()
            .find_map(|form| match outcome_of(&flash, form) {
                Some(Outcome::Failed(error)) => {
                    Some(view! { <div class="mt-6"><ErrorNote error/></div> })
                }
                _ => None,
            });
    let agent_outcome = outcome_of(&flash, Form::AgentToken);
    let mut agent = None;
    let card = match preload::take::<ServerCard>() {
        Ok(card) => {
            // Outside the live region: a push redraws that, and the token
            // is shown only on this page view.
            let server = card.server.id.to_string();
            agent = Some(view! { <AgentSection server outcome=agent_outcome/> });
            Either::Left(view! { <Card card=Arc::new(card)/> })
        }
        Err(error) => Either::Right(view! {
            <Title text=lang.ui(Ui::Server)/>
            <div class="mt-6"><ErrorNote error/></div>
        }),
    };
    view! {
        <Frame>
            <nav aria-label=lang.ui(Ui::Breadcrumb) class="text-sm text-slate-500">
                <a href="/" class="hover:underline">{lang.ui(Ui::Servers)}</a>
            </nav>
            {refused}
            <LiveRegion key="server-card">{card}</LiveRegion>
            {agent}
        </Frame>
    }
}

#[component]
fn Card(
    /// Each part reads the same card: shared, not copied.
    card: Arc<ServerCard>,
) -> impl IntoView {
    let lang = use_lang();
    let v = &card.verdict;
    let status = v.status;
    let badge = v.stale.then(|| view! { <StaleBadge/> });
    let title = card.server.name.clone();
    let conditions = v
        .conditions
        .iter()
        .filter(|c| **c != ServerStatus::Healthy && **c != status)
        .map(|c| view! { <li><StatusDot status=*c/></li> })
        .collect_view();
    let rotation = match v.maintenance {
        Some(m) if m.active => lang.in_maintenance_until(&format::timestamp(m.until)),
        Some(m) => lang.draining_for_maintenance(&format::timestamp(m.start)),
        None if v.in_rotation => lang.ui(Ui::InRotation).to_owned(),
        // Out of rotation, but every server of these routes is out too:
        // the route is never emptied, so subscriptions still serve it.
        None if !card.best_available_of.is_empty() => {
            let routes: Vec<&str> = card.best_available_of.iter().map(|r| r.as_str()).collect();
            format!(
                "{} ({})",
                lang.ui(Ui::ServedAsBestAvailable),
                routes.join(", ")
            )
        }
        None => lang.ui(Ui::OutOfRotationReplaced).to_owned(),
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
                        <span class="rounded-md bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-800">{lang.ui(Ui::Verifier)}</span>
                    })}
                </p>
            </div>
            <div class="text-right">
                <p class="flex items-center justify-end gap-2 text-lg font-medium" data-testid="server-status">
                    <StatusDot status/>{badge}
                </p>
                <p class="mt-1 max-w-sm text-sm text-slate-500" data-testid="server-rotation">{rotation}</p>
                {card.hidden_in.iter().map(|h| view! {
                    <p class="mt-1 max-w-sm text-sm text-slate-500" data-testid="hidden-in">
                        {lang.hidden_in(h.kind.display_name(), h.connector.as_str(), &format::timestamp(h.since))}
                    </p>
                }).collect_view()}
            </div>
        </header>
        {(!conditions.is_empty()).then(|| view! {
            <section aria-label=lang.ui(Ui::OtherConditions) class="mt-4 text-sm">
                <p class="text-slate-500">{lang.ui(Ui::AlsoHolds)}</p>
                <ul class="mt-1 space-y-1">{conditions}</ul>
            </section>
        })}
        <div class="mt-6 grid gap-6 lg:grid-cols-2">
            <SelfCheck card=card.clone()/>
            <section class=SECTION aria-labelledby="metrics" inner_html=metrics(&card, lang)></section>
        </div>
        <Notes card=card.clone()/>
        <MeshView card=card.clone()/>
        <EntryPoints card=card.clone()/>
        <History card=card.clone()/>
        <section class=format!("{SECTION} mt-6") aria-labelledby="maintenance" inner_html=maintenance(&card, lang)></section>
        <section class=format!("{SECTION} mt-6") aria-labelledby="verifier" inner_html=verifier(&card, lang)></section>
    }
}

#[component]
fn SelfCheck(card: Arc<ServerCard>) -> impl IntoView {
    let lang = use_lang();
    let v = &card.verdict;
    let last = v.last_report_at.map(|at| lang.age(at, card.now));
    // A stale report is no self-check, whatever status shows above it.
    let body = match (&v.self_check, v.stale) {
        (_, true) | (None, _) => Either::Left(view! {
            <p class="mt-3 font-medium text-slate-700">{lang.text(Text::AgentSilent)}</p>
            <p class="mt-1 text-sm text-slate-500">
                {match last.clone() {
                    Some(last) => lang.last_report_note(&last, card.stale_after_s),
                    None => lang.ui(Ui::NeverReported).to_string(),
                }}
            </p>
        }),
        (Some(check), false) => {
            let mark = |ok: bool| lang.ui(if ok { Ui::CheckOk } else { Ui::CheckFailing });
            let tone = |ok: bool| {
                if ok {
                    "text-emerald-700"
                } else {
                    "text-red-700 font-semibold"
                }
            };
            Either::Right(view! {
                <dl class="mt-3 grid grid-cols-2 gap-2 text-sm">
                    <dt class="text-slate-500">{lang.ui(Ui::TrafficListener)}</dt>
                    <dd class=tone(check.listener_ok)>{mark(check.listener_ok)}</dd>
                    <dt class="text-slate-500">{lang.ui(Ui::VpnService)}</dt>
                    <dd class=tone(check.service_ok)>{mark(check.service_ok)}</dd>
                    <dt class="text-slate-500">{lang.ui(Ui::LastReport)}</dt>
                    <dd>{last.clone().unwrap_or_default()}</dd>
                </dl>
                {check.detail.clone().map(|d| view! { <p class="mt-2 text-sm text-slate-600">{d}</p> })}
            })
        }
    };
    view! {
        <section class=SECTION aria-labelledby="self-check">
            <h2 id="self-check" class=HEADING>{lang.ui(Ui::SelfCheck)}</h2>
            {body}
        </section>
    }
}

/// How a charted value reads in the page's language ("42.0%").
type ReadValue = fn(Lang, f64) -> String;

fn percent(lang: Lang, p: f64) -> String {
    lang.percent(p, 1)
}

fn rate(lang: Lang, bytes_per_s: f64) -> String {
    format!("{}/s", format::bytes(lang, bytes_per_s as u64))
}

/// What the metrics section draws: the latest report's figures, the
/// charts of the last 24 h and whether they are stale.
#[derive(Clone, PartialEq)]
struct MetricsInput {
    metrics: Option<Metrics>,
    charts: MetricCharts,
    stale: bool,
}

/// Each kept section of the card (metrics, maintenance, verifier): at
/// most this many servers and languages.
const MAX_CARD_SECTIONS: usize = 16_384;

/// A section of the card kept per server and language, while the input it
/// was drawn from is the card's.
type CardSections<V> = LazyLock<RenderMemo<(Lang, ServerId), V>>;

/// The section `draw` makes of `input` for `card`'s server, kept in
/// `memo`.
fn kept_section<V: PartialEq + Clone, IV: RenderHtml>(
    memo: &CardSections<V>,
    card: &ServerCard,
    lang: Lang,
    input: V,
    draw: impl FnOnce(ServerId, V) -> IV,
) -> Arc<str> {
    let id = &card.server.id;
    memo.html((lang, id.clone()), &input, |input| draw(id.clone(), input))
}

static METRICS: CardSections<MetricsInput> = LazyLock::new(|| RenderMemo::new(MAX_CARD_SECTIONS));

/// The metrics section, drawn once per report (and chart refresh) and
/// language: its charts and figures change with nothing else.
fn metrics(card: &ServerCard, lang: Lang) -> Arc<str> {
    let input = MetricsInput {
        metrics: card.metrics.clone(),
        charts: card.charts.clone(),
        stale: card.verdict.stale,
    };
    kept_section(&METRICS, card, lang, input, |_, input| {
        view! { <MetricsSection input/> }
    })
}

#[component]
fn MetricsSection(input: MetricsInput) -> impl IntoView {
    let lang = use_lang();
    let MetricsInput {
        metrics,
        charts,
        stale,
    } = input;
    let Some(m) = metrics else {
        return Either::Left(view! {
            <h2 id="metrics" class=HEADING>{lang.ui(Ui::Metrics)}</h2>
            <p class="mt-3 text-sm text-slate-500">{lang.ui(Ui::NoMetricsYet)}</p>
        });
    };
    let pair = |used: Option<u64>, total: Option<u64>| match (used, total) {
        (Some(u), Some(t)) => lang.used_of_total(&format::bytes(lang, u), &format::bytes(lang, t)),
        (Some(u), None) => format::bytes(lang, u),
        _ => "—".into(),
    };
    let charted: Vec<(&'static str, String, ChartMetric, ReadValue)> = vec![
        (
            lang.ui(Ui::Cpu),
            m.cpu_pct.map_or("—".into(), |p| percent(lang, p)),
            ChartMetric::CpuPct,
            percent,
        ),
        (
            lang.ui(Ui::Memory),
            pair(m.mem_used_bytes, m.mem_total_bytes),
            ChartMetric::MemoryPct,
            percent,
        ),
        (
            lang.ui(Ui::Disk),
            pair(m.disk_used_bytes, m.disk_total_bytes),
            ChartMetric::DiskPct,
            percent,
        ),
        (
            lang.ui(Ui::NetworkIn),
            m.net_rx_rate_bps.map(|r| rate(lang, r)).unwrap_or_else(|| {
                m.net_rx_bytes
                    .map_or("—".into(), |b| format::bytes(lang, b))
            }),
            ChartMetric::NetInBps,
            rate,
        ),
        (
            lang.ui(Ui::NetworkOut),
            m.net_tx_rate_bps.map(|r| rate(lang, r)).unwrap_or_else(|| {
                m.net_tx_bytes
                    .map_or("—".into(), |b| format::bytes(lang, b))
            }),
            ChartMetric::NetOutBps,
            rate,
        ),
        (
            lang.ui(Ui::Connections),
            m.connections.map_or("—".into(), |c| lang.number(c)),
            ChartMetric::Connections,
            |lang, c| lang.decimal(c, 0),
        ),
        (
            lang.ui(Ui::Load1),
            m.load1.map_or("—".into(), |l| lang.decimal(l, 2)),
            ChartMetric::Load1,
            |lang, l| lang.decimal(l, 2),
        ),
    ];
    let stale = stale.then(|| view! { <StaleBadge/> });
    let uptime = m.uptime_s.map(|u| {
        view! {
            <p class="mt-3 text-sm text-slate-600">{lang.up_for(&lang.duration(u))}</p>
        }
    });
    Either::Right(view! {
        <h2 id="metrics" class=format!("{HEADING} flex items-center gap-2")>{lang.ui(Ui::Metrics)} {stale}</h2>
        <dl class="mt-3 grid gap-x-6 gap-y-4 text-sm sm:grid-cols-2">
            {charted.into_iter().map(|(label, now, metric, read)| {
                let chart = charts.series(metric).map(|series| {
                    let peak = series.peak().map(|p| read(lang, f64::from(p)));
                    view! { <Sparkline series label peak/> }
                });
                view! {
                    <div>
                        <dt class="flex justify-between gap-2">
                            <span class="text-slate-500">{label}</span>
                            <span class="tabular-nums text-slate-900">{now}</span>
                        </dt>
                        <dd>{chart}</dd>
                    </div>
                }
            }).collect_view()}
        </dl>
        <ChartAxis/>
        {uptime}
    })
}

#[component]
fn Notes(card: Arc<ServerCard>) -> impl IntoView {
    let lang = use_lang();
    let v = &card.verdict;
    let witness_fault = card.witness_fault.map(|fault| view! {
        <p role="alert" class="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900" data-testid="witness-fault">
            {lang.witness_fault(fault)}
        </p>
    });
    let unreliable = v.unreliable_witness.map(|w| view! {
        <p role="note" class="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
            {lang.unreliable_witness(w.failing, w.of)}
        </p>
    });
    let suspended = v.suspended_verifier.then(|| view! {
        <p role="note" class="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
            {lang.ui(Ui::SuspendedVerifier)}
        </p>
    });
    let controls = v.controls_unreachable.then(|| view! {
        <p role="note" class="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900" data-testid="controls-note">
            {lang.ui(Ui::ControlsUnreachable)}
        </p>
    });
    let snis: Vec<&str> = card
        .server
        .entry_points
        .iter()
        .filter_map(|e| e.sni.as_deref())
        .collect();
    let notes: Vec<_> = lang
        .block_notes(&card.blocks, &card.still_reached_by, &snis, |id| card.label(id))
        .into_iter()
        .map(|(kind, text)| {
            let (tone, testid) = if kind.takes_out_of_rotation() {
                ("rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900", "blocked-note")
            } else {
                ("rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900", "protocol-note")
            };
            view! {
                <p role="note" class=tone data-testid=testid data-kind=kind.as_str()>{text}</p>
            }
        })
        .collect();
    view! { <div class="mt-6 space-y-3">{witness_fault}{unreliable}{suspended}{controls}{notes}</div> }
}

/// Who reaches it and who does not, by country: the difference of opinions.
#[component]
fn MeshView(card: Arc<ServerCard>) -> impl IntoView {
    let lang = use_lang();
    let q = &card.verdict.quorum;
    let summary = if q.of == 0 {
        lang.ui(Ui::NoFreshWitness).to_string()
    } else if q.failing == 0 {
        lang.all_reach_it(q.of)
    } else {
        lang.unreachable_count(q.failing, q.of)
    };
    let rows = card
        .opinions
        .iter()
        .map(|o| {
            view! {
                <tr>
                    <th scope="row" class="py-1 pr-4 font-medium">{o.country.clone()}</th>
                    <td class="py-1 pr-4 text-emerald-800">{o.reaching.clone()}</td>
                    <td class="py-1 text-red-800">{o.failing.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="mesh-view">
            <h2 id="mesh-view" class=HEADING>{lang.ui(Ui::MeshView)}</h2>
            <p class="mt-2 text-sm" data-testid="mesh-summary">{summary}</p>
            {(!card.opinions.is_empty()).then(|| view! {
                <table class="mt-3 w-full text-left text-sm">
                    <thead class="text-xs uppercase text-slate-500">
                        <tr>
                            <th scope="col" class="py-1 pr-4">{lang.ui(Ui::Country)}</th>
                            <th scope="col" class="py-1 pr-4">{lang.ui(Ui::ReachIt)}</th>
                            <th scope="col" class="py-1">{lang.ui(Ui::CantReachIt)}</th>
                        </tr>
                    </thead>
                    <tbody class="divide-y divide-slate-100">{rows}</tbody>
                </table>
            })}
        </section>
    }
}

#[component]
fn EntryPoints(card: Arc<ServerCard>) -> impl IntoView {
    let lang = use_lang();
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
                            lang.check_fails_since(
                                &card.label(&c.from),
                                &card.label(&c.to),
                                &format::timestamp(c.since),
                                &lang.age(c.since, card.now),
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let verifier_failures = verdict
                .map(|e| {
                    e.verifier_failures
                        .iter()
                        .map(|c| {
                            lang.verifier_fails_entry_point(
                                &card.label(&c.from),
                                &format::timestamp(c.since),
                                &lang.age(c.since, card.now),
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let state = if available {
                lang.ui(Ui::Available)
            } else {
                lang.text(Text::EpNotAvailable)
            };
            let tone = if available { "text-emerald-700" } else { "text-amber-700 font-semibold" };
            view! {
                <li>
                    <details id=format!("entry-point-{}", ep.id) class="group rounded-lg border border-slate-200 px-4 py-2">
                        <summary class="flex cursor-pointer flex-wrap items-center gap-3 text-sm">
                            <span class="font-mono">{ep.id.to_string()}</span>
                            <span class="text-slate-500">{format!("{} {}:{}", ep.protocol, ep.host, ep.port)}</span>
                            <span class=format!("ml-auto {tone}")>{state}</span>
                        </summary>
                        <div class="mt-2 text-sm text-slate-700">
                            {verifier_failures.into_iter().map(|note| view! {
                                <p role="note" class="mb-2 text-amber-800">{note}</p>
                            }).collect_view()}
                            {if causes.is_empty() {
                                Either::Left(view! { <p>{lang.ui(Ui::NoSustainedFailure)}</p> })
                            } else {
                                // Neither side is blamed (R3), so the card
                                // says whose call a replacement is.
                                Either::Right(view! {
                                    <ul class="list-disc space-y-1 pl-5">{causes.into_iter().map(|c| view! { <li>{c}</li> }).collect_view()}</ul>
                                    <p role="note" class="mt-2 text-slate-600">{lang.ui(Ui::PairFailureGuidance)}</p>
                                })
                            }}
                        </div>
                    </details>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="entry-points">
            <h2 id="entry-points" class=HEADING>{lang.ui(Ui::EntryPoints)}</h2>
            <ul class="mt-3 space-y-2">{items}</ul>
        </section>
    }
}

/// What the maintenance section shows: the windows planned, and the
/// minute its form proposes to start at (the form drops the seconds).
#[derive(Clone, PartialEq)]
struct MaintenanceInput {
    windows: Vec<MaintenanceWindow>,
    minute: DateTime<Utc>,
}

static MAINTENANCE: CardSections<MaintenanceInput> =
    LazyLock::new(|| RenderMemo::new(MAX_CARD_SECTIONS));

/// The maintenance section, drawn once per minute, plan and language.
fn maintenance(card: &ServerCard, lang: Lang) -> Arc<str> {
    let input = MaintenanceInput {
        windows: card.maintenance.clone(),
        minute: card
            .now
            .duration_trunc(chrono::TimeDelta::minutes(1))
            .unwrap_or(card.now),
    };
    kept_section(&MAINTENANCE, card, lang, input, |id, input| {
        view! { <Maintenance id input/> }
    })
}

/// The windows planned for it, and a form to plan one.
#[component]
fn Maintenance(id: ServerId, input: MaintenanceInput) -> impl IntoView {
    let lang = use_lang();
    let scope = Scope::Server(id.to_string());
    view! {
        <h2 id="maintenance" class=HEADING>{lang.ui(Ui::Maintenance)}</h2>
        <p class="mt-2 text-sm text-slate-600">{lang.ui(Ui::MaintenanceHelp)}</p>
        <MaintenanceList windows=input.windows scope=scope.clone()/>
        <MaintenanceForm scope now=Some(input.minute)/>
    }
}

/// What the verifier section shows.
#[derive(Clone, PartialEq)]
struct VerifierInput {
    enabled: bool,
    network: Option<NetworkLabel>,
    controls: ControlTargets,
}

static VERIFIER: CardSections<VerifierInput> = LazyLock::new(|| RenderMemo::new(MAX_CARD_SECTIONS));

/// The verifier section, drawn once per verifier setting and language.
fn verifier(card: &ServerCard, lang: Lang) -> Arc<str> {
    let input = VerifierInput {
        enabled: card.server.verifier,
        network: card.server.verifier_network.clone(),
        controls: card.server.verifier_controls.clone(),
    };
    kept_section(&VERIFIER, card, lang, input, |id, input| {
        view! { <VerifierToggle id input/> }
    })
}

/// Marks or unmarks the verifier with a form post; the browser comes back
/// to the card, which shows the new state.
#[component]
fn VerifierToggle(id: ServerId, input: VerifierInput) -> impl IntoView {
    let lang = use_lang();
    let VerifierInput {
        enabled,
        network,
        controls,
    } = input;
    let network = network.map(|n| n.to_string()).unwrap_or_default();
    let label = lang.text(if enabled {
        Text::StopUsingAsVerifier
    } else {
        Text::UseAsVerifier
    });
    let id = id.to_string();
    view! {
            <h2 id="verifier" class=HEADING>{lang.ui(Ui::Verifier)}</h2>
            <p class="mt-2 text-sm text-slate-600">
                {lang.ui(if enabled { Ui::VerifierOnHelp } else { Ui::VerifierOffHelp })}
            </p>
            // Becoming a verifier takes its network along; a verifier saves
            // its network on its own, and stops without losing it.
            {(!enabled).then(|| view! {
                <form method="post" action=SetVerifier::url() class="mt-3 space-y-3">
                    <input type="hidden" name="id" value=id.clone()/>
                    <input type="hidden" name="enabled" value="true"/>
                    <NetworkField value=String::new()/>
                    <button type="submit" class=VERIFIER_BUTTON>{label}</button>
                </form>
            })}
            {enabled.then(|| view! {
                <form method="post" action=SetVerifier::url() class="mt-3 space-y-3">
                    <input type="hidden" name="id" value=id.clone()/>
                    <input type="hidden" name="enabled" value="true"/>
                    <NetworkField value=network.clone()/>
                    <ControlFields targets=controls.clone()/>
                    <button type="submit" class="rounded-md border border-slate-300 px-4 py-2 text-sm font-medium hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-400">
                        {lang.ui(Ui::SaveNetwork)}
                    </button>
                </form>
                <form method="post" action=SetVerifier::url() class="mt-3">
                    <input type="hidden" name="id" value=id.clone()/>
                    <input type="hidden" name="enabled" value="false"/>
                    <button type="submit" class=VERIFIER_BUTTON>{label}</button>
                </form>
            })}
    }
}

const VERIFIER_BUTTON: &str = "rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400";

/// The verifier's control SNI and control addresses (§8), with what
/// each is for.
#[component]
fn ControlFields(targets: ControlTargets) -> impl IntoView {
    let lang = use_lang();
    let sni = targets
        .control_sni
        .as_ref()
        .map(|s| s.to_string())
        .unwrap_or_default();
    let addresses = targets
        .controls
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    view! {
        <div>
            <label for="verifier-control-sni" class="block text-sm font-medium text-slate-800">{lang.ui(Ui::ControlSni)}</label>
            <input id="verifier-control-sni" name="control_sni" type="text" value=sni maxlength="253"
                aria-describedby="verifier-control-sni-help"
                class="mt-1 block w-full max-w-sm rounded-md border border-slate-300 px-3 py-1.5 text-sm shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200"/>
            <p id="verifier-control-sni-help" class="mt-1 text-xs text-slate-500">{lang.ui(Ui::ControlSniHint)}</p>
        </div>
        <div>
            <label for="verifier-controls" class="block text-sm font-medium text-slate-800">{lang.ui(Ui::ControlAddresses)}</label>
            <textarea id="verifier-controls" name="controls" rows="3"
                aria-describedby="verifier-controls-help"
                class="mt-1 block w-full max-w-sm rounded-md border border-slate-300 px-3 py-1.5 font-mono text-sm shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200">{addresses}</textarea>
            <p id="verifier-controls-help" class="mt-1 text-xs text-slate-500">{lang.ui(Ui::ControlAddressesHint)}</p>
        </div>
    }
}

/// The verifier's network label, with what it is for.
#[component]
fn NetworkField(value: String) -> impl IntoView {
    let lang = use_lang();
    view! {
        <div>
            <label for="verifier-network" class="block text-sm font-medium text-slate-800">{lang.ui(Ui::VerifierNetwork)}</label>
            <input id="verifier-network" name="network" type="text" value=value
                maxlength=meshwatch::network::MAX_NETWORK_LABEL_CHARS.to_string()
                aria-describedby="verifier-network-help"
                class="mt-1 block w-full max-w-sm rounded-md border border-slate-300 px-3 py-1.5 text-sm shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200"/>
            <p id="verifier-network-help" class="mt-1 text-xs text-slate-500">{lang.ui(Ui::VerifierNetworkHint)}</p>
        </div>
    }
}

/// Uptime over three windows and the latest status changes.
#[component]
fn History(card: Arc<ServerCard>) -> impl IntoView {
    let lang = use_lang();
    let uptime = [Ui::Window24h, Ui::Window7d, Ui::Window30d]
        .into_iter()
        .zip(card.uptime)
        .map(|(window, uptime)| {
            let value = uptime
                .in_rotation
                .map_or("—".to_string(), |s| lang.percent(s * 100.0, 2));
            let planned = (uptime.maintenance_s > 0).then(|| {
                let time =
                    lang.maintenance_time(&lang.duration(uptime.maintenance_s.unsigned_abs()));
                view! { <dd class="text-xs text-blue-800">{time}</dd> }
            });
            view! {
                <div>
                    <dt class="text-slate-500">{lang.uptime_over(lang.ui(window))}</dt>
                    <dd class="text-lg font-medium tabular-nums">{value}</dd>
                    {planned}
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
                        {format::timestamp(*at)}
                    </time>
                    <StatusDot status=*status/>
                    <span class="text-xs text-slate-500">{lang.age(*at, card.now)}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="history">
            <h2 id="history" class=HEADING>{lang.ui(Ui::History)}</h2>
            <p class="mt-1 text-xs text-slate-500">{lang.ui(Ui::UptimeHelp)}</p>
            <dl class="mt-3 grid grid-cols-3 gap-4 text-sm">{uptime}</dl>
            {if card.history.is_empty() {
                Either::Left(view! { <p class="mt-3 text-sm text-slate-500">{lang.ui(Ui::NoStatusChangeYet)}</p> })
            } else {
                Either::Right(view! { <ol class="mt-3 divide-y divide-slate-100 text-sm" data-testid="status-history">{changes}</ol> })
            }}
            <h3 class="mt-5 text-sm font-semibold text-slate-700">{lang.ui(Ui::ActionRuns)}</h3>
            <RunList runs=card.action_runs.clone()/>
        </section>
    }
}
