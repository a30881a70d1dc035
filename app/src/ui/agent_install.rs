//! The server card's "Agent" section: a new agent token, shown once inside
//! the one line that installs it on the server and (re)starts the agent.
//! A plain form post, after the operator's password again.

use crate::api::NewAgentToken;
use crate::flash::Outcome;
use crate::lang::use_lang;
use crate::ui::components::ErrorNote;
use leptos::prelude::*;
use leptos::server_fn::ServerFn as _;
use meshwatch_views::i18n::Ui;

const SECTION: &str = "mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
const HEADING: &str = "text-sm font-semibold uppercase tracking-wide text-slate-500";

/// The line an operator runs on the server, as root: the token into the
/// file the agent's unit hands it as a credential
/// (`deploy/meshwatch-agent.service`), then the agent enabled and
/// restarted, so it reads the new token.
pub fn install_command(token: &str) -> String {
    format!(
        "printf '%s' '{token}' | install -D -m 600 /dev/stdin /etc/meshwatch/agent.token \
         && systemctl enable meshwatch-agent && systemctl restart meshwatch-agent"
    )
}

#[component]
pub fn AgentSection(server: String, outcome: Option<Outcome>) -> impl IntoView {
    let lang = use_lang();
    let said = match outcome {
        Some(Outcome::AgentToken(token)) => Some(
            view! {
                <div class="mt-4" role="status">
                    <p class="text-sm font-medium text-emerald-800">{lang.ui(Ui::InstallCommandOnce)}</p>
                    <pre class="mt-2 overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-3 font-mono text-xs text-slate-100" data-testid="install-command">{install_command(&token)}</pre>
                </div>
            }
            .into_any(),
        ),
        Some(Outcome::Failed(error)) => {
            Some(view! { <div class="mt-4"><ErrorNote error/></div> }.into_any())
        }
        _ => None,
    };
    view! {
        <section class=SECTION aria-labelledby="agent-heading" data-testid="agent-install">
            <h2 id="agent-heading" class=HEADING>{lang.ui(Ui::AgentInstall)}</h2>
            <p class="mt-2 text-sm text-slate-600">{lang.ui(Ui::AgentInstallHelp)}</p>
            {said}
            <form method="post" action=NewAgentToken::url() class="mt-3 flex flex-wrap items-end gap-3">
                <input type="hidden" name="server" value=server/>
                <div>
                    <label for="agent-password" class="block text-sm font-medium text-slate-800">{lang.ui(Ui::YourPassword)}</label>
                    <input id="agent-password" name="password" type="password" required autocomplete="current-password" class="mt-1 block w-full rounded-md border border-slate-300 px-2 py-1 text-sm"/>
                </div>
                <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50 focus:outline-none focus:ring-2 focus:ring-sky-300">{lang.ui(Ui::NewAgentToken)}</button>
            </form>
        </section>
    }
}
