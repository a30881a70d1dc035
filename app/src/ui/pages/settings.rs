//! Settings: the verdict parameters of docs/PRODUCT.md §2, each with what it
//! does, validated on the server before anything is stored; the operator's
//! password; the API tokens scripts use; the actions; the connected
//! panels.

use crate::api::{
    import_proposal, load_actions, load_api_tokens, load_connectors, load_settings, ChangePassword,
    CreateApiToken, RevokeApiToken, SaveSettings,
};
use crate::error::AppError;
use crate::flash::{outcome_of, take_for_page, Form, Outcome};
use crate::lang::use_lang;
use crate::ui::actions::ActionsSection;
use crate::ui::components::ErrorNote;
use crate::ui::connectors::{ConnectorsSection, ImportSection, ImportedNote};
use crate::ui::format;
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use leptos_meta::Title;
use meshwatch::settings::Settings;
use meshwatch_views::i18n::Ui;
use meshwatch_views::views::ApiTokenView;

const BUTTON: &str = "rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400";
const CARD: &str = "mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
const HEADING: &str = "text-sm font-semibold uppercase tracking-wide text-slate-500";
const TEXT_INPUT: &str = "mt-1 block w-full max-w-sm rounded-md border border-slate-300 px-2 py-1 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200";
const INPUT: &str = "mt-1 block w-32 rounded-md border border-slate-300 px-2 py-1 tabular-nums focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200";

#[component]
pub fn SettingsPage() -> impl IntoView {
    let lang = use_lang();
    let settings = Resource::new(|| (), |_| load_settings());
    let tokens = Resource::new(|| (), |_| load_api_tokens());
    let actions = Resource::new(|| (), |_| load_actions());
    let connectors = Resource::new(|| (), |_| load_connectors());
    // `?import=<connector>`: that panel's import, read when asked for.
    let import_id = leptos_router::hooks::use_query_map().with_untracked(|q| q.get("import"));
    let proposal = import_id
        .clone()
        .map(|id| Resource::new(|| (), move |_| import_proposal(id.clone())));
    let flash = take_for_page();
    view! {
        <Title text=lang.ui(Ui::Settings)/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Settings)}</h1>
            <Suspense fallback=move || view! { <p class="mt-6 text-slate-500">{lang.ui(Ui::LoadingSettings)}</p> }>
                {move || {
                    let flash = flash.clone();
                    let import_id = import_id.clone();
                    Suspend::new(async move {
                    let parameters = match settings.await {
                        Ok(s) => view! { <Parameters s outcome=outcome_of(&flash, Form::Parameters)/> }.into_any(),
                        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                    };
                    let tokens = tokens.await;
                    let actions = actions.await;
                    let connectors = connectors.await;
                    let imported = match outcome_of(&flash, Form::Import) {
                        Some(Outcome::Imported { count, first }) => Some(view! { <ImportedNote count first/> }),
                        _ => None,
                    };
                    let import = match (import_id.clone(), proposal) {
                        (Some(id), Some(proposal)) => {
                            let proposal = proposal.await;
                            Some(view! { <ImportSection id proposal outcome=outcome_of(&flash, Form::Import)/> })
                        }
                        _ => None,
                    };
                    let import_failed = match (import.is_none(), outcome_of(&flash, Form::Import)) {
                        (true, Some(Outcome::Failed(error))) => Some(view! { <div class="mt-6"><ErrorNote error/></div> }),
                        _ => None,
                    };
                    view! {
                        {imported}
                        {import_failed}
                        {import}
                        {parameters}
                        <Account outcome=outcome_of(&flash, Form::Password)/>
                        <ApiTokens tokens created=outcome_of(&flash, Form::CreateToken) revoked=outcome_of(&flash, Form::RevokeToken)/>
                        <ActionsSection panel=actions outcome=outcome_of(&flash, Form::Action)/>
                        <ConnectorsSection connectors outcome=outcome_of(&flash, Form::Connector)/>
                    }
                })}}
            </Suspense>
        </Frame>
    }
}

/// What a form's last post did: `done` said on success, the error otherwise.
#[component]
fn Said(outcome: Option<Outcome>, done: Ui) -> impl IntoView {
    let lang = use_lang();
    match outcome {
        Some(Outcome::Failed(error)) => {
            view! { <div class="mt-4"><ErrorNote error/></div> }.into_any()
        }
        Some(_) => {
            view! { <p role="status" class="mt-4 text-sm text-emerald-800">{lang.ui(done)}</p> }
                .into_any()
        }
        None => ().into_any(),
    }
}

/// What a parameter's input takes.
#[derive(Clone, Copy)]
enum Field {
    /// A whole number, 1 or more.
    Whole,
    /// A decimal fraction, written with the page's decimal separator
    /// ("0,5" in Spanish); either separator is read back.
    Fraction,
}

#[component]
fn Parameters(s: Settings, outcome: Option<Outcome>) -> impl IntoView {
    let lang = use_lang();
    let fields: [(&str, Ui, String, Field, Ui); 10] = [
        (
            "report_interval_s",
            Ui::ReportInterval,
            s.report_interval_s.to_string(),
            Field::Whole,
            Ui::ReportIntervalHelp,
        ),
        (
            "probe_interval_s",
            Ui::ProbeInterval,
            s.probe_interval_s.to_string(),
            Field::Whole,
            Ui::ProbeIntervalHelp,
        ),
        (
            "probe_timeout_s",
            Ui::ProbeTimeout,
            s.probe_timeout_s.to_string(),
            Field::Whole,
            Ui::ProbeTimeoutHelp,
        ),
        (
            "stale_after_s",
            Ui::StaleAfter,
            s.stale_after_s.to_string(),
            Field::Whole,
            Ui::StaleAfterHelp,
        ),
        (
            "failure_streak",
            Ui::FailureStreak,
            s.failure_streak.to_string(),
            Field::Whole,
            Ui::FailureStreakHelp,
        ),
        (
            "quorum",
            Ui::Quorum,
            s.quorum.to_string(),
            Field::Whole,
            Ui::QuorumHelp,
        ),
        (
            "unreliable_fraction",
            Ui::UnreliableFraction,
            lang.plain_decimal(s.unreliable_fraction),
            Field::Fraction,
            Ui::UnreliableFractionHelp,
        ),
        (
            "witness_set_threshold",
            Ui::WitnessSetThreshold,
            s.witness_set_threshold.to_string(),
            Field::Whole,
            Ui::WitnessSetThresholdHelp,
        ),
        (
            "witness_set_size",
            Ui::WitnessSetSize,
            s.witness_set_size.to_string(),
            Field::Whole,
            Ui::WitnessSetSizeHelp,
        ),
        (
            "witness_rotation_s",
            Ui::WitnessRotation,
            s.witness_rotation_s.to_string(),
            Field::Whole,
            Ui::WitnessRotationHelp,
        ),
    ];
    view! {
        <form method="post" action=SaveSettings::url() class=CARD>
            <h2 class=HEADING>{lang.ui(Ui::VerdictParameters)}</h2>
            <div class="mt-4 grid gap-5 md:grid-cols-2">
                {fields.into_iter().map(|(name, label, value, field, help)| {
                    let help_id = format!("{name}-help");
                    let input = match field {
                        Field::Whole => view! {
                            <input id=name name=name type="number" required min="1" step="1" value=value
                                aria-describedby=help_id.clone() class=INPUT/>
                        }.into_any(),
                        // A text input: a number input shows and accepts
                        // the browser's decimal separator, not the page's.
                        Field::Fraction => view! {
                            <input id=name name=name type="text" inputmode="decimal" required
                                pattern="[0-9]*[.,]?[0-9]+" value=value
                                aria-describedby=help_id.clone() class=INPUT/>
                        }.into_any(),
                    };
                    view! {
                        <div>
                            <label for=name class="block text-sm font-medium text-slate-800">{lang.ui(label)}</label>
                            {input}
                            <p id=help_id class="mt-1 text-xs text-slate-500">{lang.ui(help)}</p>
                        </div>
                    }
                }).collect_view()}
            </div>
            <Said outcome done=Ui::SettingsSaved/>
            <button type="submit" class=format!("mt-6 {BUTTON}")>{lang.ui(Ui::SaveParameters)}</button>
        </form>
    }
}

/// Changing the operator's own password; their other sessions end.
#[component]
fn Account(outcome: Option<Outcome>) -> impl IntoView {
    let lang = use_lang();
    let field = move |name: &'static str, label: Ui, autocomplete: &'static str| {
        view! {
            <div>
                <label for=name class="block text-sm font-medium text-slate-800">{lang.ui(label)}</label>
                <input id=name name=name type="password" required autocomplete=autocomplete class=TEXT_INPUT/>
            </div>
        }
    };
    view! {
        <form method="post" action=ChangePassword::url() class=CARD>
            <h2 class=HEADING>{lang.ui(Ui::OperatorAccount)}</h2>
            <div class="mt-4 grid gap-4 md:grid-cols-3">
                {field("current", Ui::CurrentPassword, "current-password")}
                {field("next", Ui::NewPassword, "new-password")}
                {field("repeat", Ui::RepeatNewPassword, "new-password")}
            </div>
            <p class="mt-2 text-xs text-slate-500">
                {lang.min_password_len(meshwatch::account::MIN_PASSWORD_LEN)}
            </p>
            {match outcome {
                Some(Outcome::PasswordChanged(revoked)) => view! {
                    <p role="status" class="mt-4 text-sm text-emerald-800" data-testid="password-changed">
                        {lang.ui(Ui::PasswordChanged)}" "{lang.tokens_revoked(&revoked)}
                    </p>
                }.into_any(),
                other => view! { <Said outcome=other done=Ui::PasswordChanged/> }.into_any(),
            }}
            <button type="submit" class=format!("mt-4 {BUTTON}")>{lang.ui(Ui::ChangePassword)}</button>
        </form>
    }
}

/// Tokens for the automation API: listed by name, created with their
/// secret shown once, revoked at once.
#[component]
fn ApiTokens(
    tokens: Result<Vec<ApiTokenView>, AppError>,
    /// The last creation's outcome (with the secret, this once).
    created: Option<Outcome>,
    /// The last revocation's outcome.
    revoked: Option<Outcome>,
) -> impl IntoView {
    let lang = use_lang();
    let created = match created {
        Some(Outcome::TokenCreated(new)) => view! {
            <div role="status" class="mt-4 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
                <p>{lang.token_created(&new.name)}</p>
                <code aria-label=lang.ui(Ui::NewApiToken) class="mt-2 block break-all rounded bg-white px-2 py-1 font-mono text-xs text-slate-900 select-all">{new.token}</code>
            </div>
        }.into_any(),
        Some(Outcome::Failed(error)) => view! { <div class="mt-4"><ErrorNote error/></div> }.into_any(),
        _ => ().into_any(),
    };
    let revoked = match revoked {
        Some(Outcome::Failed(error)) => Some(view! { <div class="mt-4"><ErrorNote error/></div> }),
        _ => None,
    };
    let list = match tokens {
        Ok(list) if list.is_empty() => view! { <p class="mt-4 text-sm text-slate-500">{lang.ui(Ui::NoApiTokens)}</p> }.into_any(),
        Ok(list) => view! {
            <ul class="mt-4 divide-y divide-slate-100" aria-label=lang.ui(Ui::ApiTokens)>
                {list.into_iter().map(|t| view! {
                    <li class="flex flex-wrap items-center justify-between gap-2 py-2">
                        <span>
                            <span class="font-medium">{t.name.clone()}</span>
                            <span class="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700" data-testid="token-scope">{lang.token_scope(t.scope)}</span>
                            <span class="ml-2 text-xs text-slate-500">{lang.created_at(&format::timestamp(t.created_at))}</span>
                        </span>
                        <form method="post" action=RevokeApiToken::url()>
                            <input type="hidden" name="name" value=t.name.clone()/>
                            <button type="submit" aria-label=lang.revoke_token(&t.name)
                                class="rounded-md border border-red-300 px-3 py-1 text-sm text-red-800 hover:bg-red-50 focus:outline-none focus:ring-2 focus:ring-red-300">
                                {lang.ui(Ui::Revoke)}
                            </button>
                        </form>
                    </li>
                }).collect_view()}
            </ul>
        }.into_any(),
        Err(error) => view! { <div class="mt-4"><ErrorNote error/></div> }.into_any(),
    };
    view! {
        <section class=CARD aria-labelledby="api-tokens">
            <h2 id="api-tokens" class=HEADING>{lang.ui(Ui::ApiTokens)}</h2>
            <p class="mt-2 text-sm text-slate-600">
                {lang.ui(Ui::ApiTokensHelpBefore)} <code class="font-mono text-xs">"Authorization: Bearer <token>"</code>
                {lang.ui(Ui::ApiTokensHelpAfter)}
            </p>
            {revoked}
            {list}
            <form method="post" action=CreateApiToken::url() class="mt-4 flex flex-wrap items-end gap-3">
                <div>
                    <label for="token-name" class="block text-sm font-medium text-slate-800">{lang.ui(Ui::NewTokenName)}</label>
                    <input id="token-name" name="name" required maxlength="64" placeholder="ansible" class=TEXT_INPUT/>
                </div>
                <div>
                    <label for="token-scope" class="block text-sm font-medium text-slate-800">{lang.ui(Ui::TokenScopeLabel)}</label>
                    <select id="token-scope" name="scope" class=TEXT_INPUT>
                        {meshwatch::account::TokenScope::ALL.into_iter().map(|scope| view! {
                            <option value=scope.as_str()>{lang.token_scope(scope)}</option>
                        }).collect_view()}
                    </select>
                </div>
                <div>
                    <label for="token-password" class="block text-sm font-medium text-slate-800">{lang.ui(Ui::YourPassword)}</label>
                    <input id="token-password" name="password" type="password" required autocomplete="current-password" class=TEXT_INPUT/>
                </div>
                <button type="submit" class=BUTTON>{lang.ui(Ui::CreateToken)}</button>
            </form>
            {created}
        </section>
    }
}
