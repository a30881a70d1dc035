//! Settings: the verdict parameters of PRODUCT.md §2, each with what it
//! does, validated on the server before anything is stored.

use crate::api::{load_settings, SaveSettings};
use crate::ui::components::ErrorNote;
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::settings::Settings;

const INPUT: &str = "mt-1 block w-32 rounded-md border border-slate-300 px-2 py-1 tabular-nums focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200";

#[component]
pub fn SettingsPage() -> impl IntoView {
    let save = ServerAction::<SaveSettings>::new();
    let settings = Resource::new(move || save.version().get(), |_| load_settings());
    let outcome = move || {
        save.value().get().map(|result| match result {
            Ok(_) => view! { <p role="status" class="mt-4 text-sm text-emerald-800">"Saved. The engine uses the new parameters from now on."</p> }.into_any(),
            Err(error) => view! { <div class="mt-4"><ErrorNote error/></div> }.into_any(),
        })
    };
    view! {
        <Title text="Settings"/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">"Settings"</h1>
            {outcome}
            <Transition fallback=|| view! { <p class="mt-6 text-slate-500">"Loading settings…"</p> }>
                {move || Suspend::new(async move {
                    match settings.await {
                        Ok(s) => view! { <Parameters s save/> }.into_any(),
                        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                    }
                })}
            </Transition>
        </Frame>
    }
}

#[component]
fn Parameters(s: Settings, save: ServerAction<SaveSettings>) -> impl IntoView {
    let fields: [(&str, &str, String, &str, &str); 7] = [
        ("report_interval_s", "Report interval (s)", s.report_interval_s.to_string(), "1", "How often each agent self-checks and reports (default 60)."),
        ("probe_interval_s", "Probe interval (s)", s.probe_interval_s.to_string(), "1", "How often each agent knocks on every other server's entry points, with jitter (default 30)."),
        ("probe_timeout_s", "Probe timeout (s)", s.probe_timeout_s.to_string(), "1", "How long a TCP connect plus TLS handshake may take (default 5)."),
        ("stale_after_s", "Stale after (s)", s.stale_after_s.to_string(), "1", "A server whose last report is older is \"No data\", and its evidence stops counting (default 180 = 3 report intervals)."),
        ("failure_streak", "Failure streak", s.failure_streak.to_string(), "1", "Consecutive failed probes before a pair's failure counts (default 3): one failed knock means nothing."),
        ("quorum", "Quorum", s.quorum.to_string(), "1", "Reliable witnesses that must fail to reach a server for \"Unreachable from your servers\" (default 2)."),
        ("unreliable_fraction", "Unreliable fraction", s.unreliable_fraction.to_string(), "any", "A witness failing to reach at least max(2, this × n) servers is unreliable and its votes are ignored (0 < f ≤ 1, default 0.5)."),
    ];
    view! {
        <ActionForm action=save attr:class="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
            <h2 class="text-sm font-semibold uppercase tracking-wide text-slate-500">"Verdict parameters"</h2>
            <div class="mt-4 grid gap-5 md:grid-cols-2">
                {fields.into_iter().map(|(name, label, value, step, help)| {
                    let help_id = format!("{name}-help");
                    view! {
                        <div>
                            <label for=name class="block text-sm font-medium text-slate-800">{label}</label>
                            <input id=name name=name type="number" required min=if step == "any" { "0" } else { "1" } step=step value=value
                                aria-describedby=help_id.clone() class=INPUT/>
                            <p id=help_id class="mt-1 text-xs text-slate-500">{help}</p>
                        </div>
                    }
                }).collect_view()}
            </div>
            <button type="submit" class="mt-6 rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-400">
                "Save parameters"
            </button>
        </ActionForm>
    }
}
