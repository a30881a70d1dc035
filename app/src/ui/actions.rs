//! Actions in the panel (§6): Settings → Actions (the switch, the actions,
//! a form to add one) and the runs a server card and Settings list. Plain
//! form posts: they work without JavaScript.

use crate::api::{CreateAction, DeleteAction, RerunAction, SwitchActions};
use crate::error::AppError;
use crate::flash::Outcome;
use crate::lang::use_lang;
use crate::ui::components::ErrorNote;
use crate::ui::format;
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use meshwatch::actions::{ActionEvent, ActionRun, ActionView, ActionsPanel, MAX_NAME_CHARS};
use meshwatch_views::i18n::Ui;

const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-2 py-1 text-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200";
const LABEL: &str = "block text-sm font-medium text-slate-800";
const BUTTON: &str = "rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400";

/// Runs, newest first: when, which action on which event, how it ended,
/// and the start of what it printed.
#[component]
pub fn RunList(runs: Vec<ActionRun>, #[prop(optional)] show_server: bool) -> impl IntoView {
    let lang = use_lang();
    if runs.is_empty() {
        return view! { <p class="mt-2 text-sm text-slate-500">{lang.ui(Ui::NoActionRuns)}</p> }
            .into_any();
    }
    let items = runs
        .into_iter()
        .map(|run| {
            let status = match (run.exit_status, run.http_status) {
                (Some(code), _) => format!("exit {code}"),
                (_, Some(code)) => format!("HTTP {code}"),
                _ => String::new(),
            };
            let took = run
                .duration_ms
                .map(|ms| format!("{} ms", lang.number(ms.unsigned_abs())))
                .unwrap_or_default();
            let tone = match run.outcome {
                meshwatch::actions::RunOutcome::Ok => "text-emerald-800",
                meshwatch::actions::RunOutcome::Running => "text-slate-700",
                meshwatch::actions::RunOutcome::Failed
                | meshwatch::actions::RunOutcome::Interrupted => "text-red-800 font-semibold",
            };
            let again = (run.outcome == meshwatch::actions::RunOutcome::Interrupted).then(|| view! {
                <form method="post" action=RerunAction::url() class="inline">
                    <input type="hidden" name="id" value=run.id.to_string()/>
                    <button type="submit" class="rounded-md border border-slate-300 px-2 py-0.5 text-xs hover:bg-slate-50 focus:outline-none focus:ring-2 focus:ring-sky-300">
                        {lang.ui(Ui::RunAgain)}
                    </button>
                </form>
            });
            let server = show_server.then(|| {
                view! { <a class="font-mono text-xs hover:underline" href=format!("/servers/{}", run.server_id)>{run.server_id.to_string()}</a> }
            });
            view! {
                <li class="py-2 text-sm" data-testid="action-run">
                    <div class="flex flex-wrap items-center gap-x-3 gap-y-1">
                        <time datetime=run.started_at.to_rfc3339() class="font-mono text-xs text-slate-500">{format::timestamp(run.started_at)}</time>
                        {server}
                        <span class="font-medium">{run.action.clone()}</span>
                        <span class="text-slate-500">{lang.action_event(run.event)}</span>
                        <span class=tone>{lang.run_outcome(&run)}</span>
                        <span class="font-mono text-xs text-slate-600">{status}</span>
                        <span class="text-xs text-slate-500">{took}</span>
                        {again}
                    </div>
                    {(!run.output.is_empty()).then(|| view! {
                        <pre class="mt-1 max-h-32 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 px-2 py-1 font-mono text-xs text-slate-700">{run.output.clone()}</pre>
                    })}
                </li>
            }
        })
        .collect_view();
    view! { <ol class="mt-2 divide-y divide-slate-100" data-testid="action-runs">{items}</ol> }
        .into_any()
}

fn describe(action: &ActionView) -> String {
    match (&action.spec.command, &action.spec.http) {
        (Some(argv), _) => argv.join(" "),
        (_, Some(call)) => format!("{} {}", call.method.as_str(), call.url),
        _ => String::new(),
    }
}

/// Settings → Actions.
#[component]
pub fn ActionsSection(
    panel: Result<ActionsPanel, AppError>,
    outcome: Option<Outcome>,
) -> impl IntoView {
    let lang = use_lang();
    let refused = match outcome {
        Some(Outcome::Failed(error)) => Some(view! { <div class="mt-4"><ErrorNote error/></div> }),
        _ => None,
    };
    let body = match panel {
        Err(error) => view! { <div class="mt-4"><ErrorNote error/></div> }.into_any(),
        Ok(panel) => {
            let switch = view! {
                <form method="post" action=SwitchActions::url() class="mt-3 flex flex-wrap items-center gap-3">
                    <input type="hidden" name="enabled" value=(!panel.enabled).to_string()/>
                    {(!panel.enabled).then(|| view! {
                        <label class="text-sm text-slate-700">
                            {lang.ui(Ui::YourPassword)}" "
                            <input name="password" type="password" required autocomplete="current-password" class="rounded-md border border-slate-300 px-2 py-1 text-sm"/>
                        </label>
                    })}
                    <p class=if panel.enabled { "text-sm text-emerald-800" } else { "text-sm font-semibold text-red-800" } data-testid="actions-switch">
                        {lang.ui(if panel.enabled { Ui::ActionsAreOn } else { Ui::ActionsAreOff })}
                    </p>
                    <button type="submit" class="rounded-md border border-slate-300 px-3 py-1 text-sm font-medium hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-400">
                        {lang.ui(if panel.enabled { Ui::SwitchActionsOff } else { Ui::SwitchActionsOn })}
                    </button>
                </form>
                {panel.off_reason.map(|_| view! {
                    <p role="alert" class="mt-2 text-sm text-red-800" data-testid="actions-off-reason">{lang.ui(Ui::ActionsOffBudget)}</p>
                })}
                <p class="mt-2 text-sm text-slate-600" data-testid="actions-budget">
                    {lang.action_budget(panel.budget.runs_per_hour, &lang.duration(u64::from(panel.budget.cooldown_s)))}
                </p>
            };
            let list = if panel.actions.is_empty() {
                view! { <p class="mt-3 text-sm text-slate-500">{lang.ui(Ui::NoActions)}</p> }
                    .into_any()
            } else {
                view! {
                    <ul class="mt-3 divide-y divide-slate-100" aria-label=lang.ui(Ui::Actions)>
                        {panel.actions.iter().map(|a| {
                            let when = if a.spec.after_minutes == 0 {
                                lang.ui(Ui::AtOnce).to_owned()
                            } else {
                                lang.duration(u64::from(a.spec.after_minutes) * 60)
                            };
                            view! {
                                <li class="flex flex-wrap items-center justify-between gap-2 py-2 text-sm" data-testid="action">
                                    <span>
                                        <span class="font-medium">{a.spec.name.clone()}</span>
                                        <span class="ml-2 text-slate-500">{format!("{} · {when}", lang.action_event(a.spec.on))}</span>
                                        <code class="mt-1 block break-all font-mono text-xs text-slate-600">{describe(a)}</code>
                                        {a.off_on_this_host.clone().map(|why| view! {
                                            <span class="mt-1 block text-xs font-medium text-red-700" data-testid="action-off">
                                                {format!("{}: {why}", lang.ui(Ui::OffOnThisHost))}
                                            </span>
                                        })}
                                    </span>
                                    <form method="post" action=DeleteAction::url()>
                                        <input type="hidden" name="id" value=a.id.to_string()/>
                                        <button type="submit" class="rounded-md border border-red-300 px-3 py-1 text-sm text-red-800 hover:bg-red-50 focus:outline-none focus:ring-2 focus:ring-red-300">
                                            {lang.ui(Ui::DeleteAction)}
                                        </button>
                                    </form>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any()
            };
            view! {
                {switch}
                {list}
                <AddAction/>
                <h3 class="mt-6 text-sm font-semibold text-slate-700">{lang.ui(Ui::ActionRuns)}</h3>
                <RunList runs=panel.recent show_server=true/>
            }
            .into_any()
        }
    };
    view! {
        <section class="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm" aria-labelledby="actions">
            <h2 id="actions" class="text-sm font-semibold uppercase tracking-wide text-slate-500">{lang.ui(Ui::Actions)}</h2>
            <p class="mt-2 text-sm text-slate-600">{lang.ui(Ui::ActionsHelp)}</p>
            {refused}
            {body}
        </section>
    }
}

#[component]
fn AddAction() -> impl IntoView {
    let lang = use_lang();
    view! {
        <form method="post" action=CreateAction::url() class="mt-4 grid gap-3 sm:grid-cols-3" data-testid="add-action">
            <div>
                <label for="action-name" class=LABEL>{lang.ui(Ui::ActionName)}</label>
                <input id="action-name" name="name" required maxlength=MAX_NAME_CHARS.to_string() class=INPUT/>
            </div>
            <div>
                <label for="action-on" class=LABEL>{lang.ui(Ui::ActionOn)}</label>
                <select id="action-on" name="on" class=INPUT>
                    {ActionEvent::ALL.iter().map(|e| view! { <option value=e.as_str()>{lang.action_event(*e)}</option> }).collect_view()}
                </select>
            </div>
            <div>
                <label for="action-after" class=LABEL>{lang.ui(Ui::AfterMinutes)}</label>
                <input id="action-after" name="after_minutes" type="number" min="0" max=meshwatch::actions::MAX_AFTER_MINUTES.to_string() value="0" class=INPUT/>
            </div>
            <div class="sm:col-span-3">
                <label for="action-command" class=LABEL>{lang.ui(Ui::ActionCommand)}</label>
                <textarea id="action-command" name="command" rows="3" class=format!("{INPUT} font-mono")></textarea>
            </div>
            <div class="sm:col-span-2">
                <label for="action-url" class=LABEL>{lang.ui(Ui::ActionUrl)}</label>
                <input id="action-url" name="url" type="url" class=INPUT/>
            </div>
            <div>
                <label for="action-method" class=LABEL>{lang.ui(Ui::ActionMethod)}</label>
                <select id="action-method" name="method" class=INPUT>
                    {["POST", "PUT", "PATCH", "GET", "DELETE"].into_iter().map(|m| view! { <option value=m>{m}</option> }).collect_view()}
                </select>
            </div>
            <div class="sm:col-span-3">
                <label for="action-headers" class=LABEL>{lang.ui(Ui::ActionHeaders)}</label>
                <textarea id="action-headers" name="headers" rows="2" class=format!("{INPUT} font-mono")></textarea>
            </div>
            <div class="sm:col-span-3">
                <label for="action-body" class=LABEL>{lang.ui(Ui::ActionBody)}</label>
                <textarea id="action-body" name="body" rows="3" class=format!("{INPUT} font-mono")></textarea>
            </div>
            <div>
                <label for="action-password" class=LABEL>{lang.ui(Ui::YourPassword)}</label>
                <input id="action-password" name="password" type="password" required autocomplete="current-password" class=INPUT/>
            </div>
            <div class="sm:col-span-3">
                <button type="submit" class=BUTTON>{lang.ui(Ui::AddAction)}</button>
            </div>
        </form>
    }
}
