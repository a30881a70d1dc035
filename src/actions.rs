//! Actions (docs/PRODUCT.md §6): what the operator has the panel do on an
//! event — a command (argv, no shell) or an HTTP call — once per incident,
//! after the event has held for a number of minutes. Typically: change a
//! blocked server's IP address at the cloud, then tell the panel the new
//! address.

use crate::ids::ServerId;
use crate::status::ServerStatus;
use crate::verdict::{BlockKind, VerdictChange};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Actions kept at once.
pub const MAX_ACTIONS: usize = 50;
/// The longest name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Arguments of a command, the program included.
pub const MAX_ARGS: usize = 32;
/// Characters of one argument, of a URL, of a header value.
pub const MAX_ARG_CHARS: usize = 4096;
/// Headers of an HTTP call.
pub const MAX_HEADERS: usize = 32;
/// Bytes of an HTTP call's body template (as JSON).
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// The longest wait after the event: a week.
pub const MAX_AFTER_MINUTES: u32 = 7 * 24 * 60;
/// How long a command or a call may take before it is stopped (failed).
pub const RUN_TIMEOUT_SECS: u64 = 60;
/// Output kept of a run: the first KiB.
pub const OUTPUT_BYTES: usize = 1024;
/// Attempts of one run before it stays failed (retried with backoff).
pub const MAX_ATTEMPTS: u32 = 5;

/// A stored action's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct ActionId(pub i64);

impl fmt::Display for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an action waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionEvent {
    /// A verifier sees the server's address blocked (R4).
    Blocked,
    /// The block cleared.
    Cleared,
    /// The server's own report says it is down.
    Unavailable,
    /// A quorum of witnesses cannot reach it (R2).
    Unreachable,
}

impl ActionEvent {
    pub const ALL: [ActionEvent; 4] = [
        ActionEvent::Blocked,
        ActionEvent::Cleared,
        ActionEvent::Unavailable,
        ActionEvent::Unreachable,
    ];

    /// The wire name (`MESHWATCH_EVENT`, the API's `on`).
    pub fn as_str(self) -> &'static str {
        match self {
            ActionEvent::Blocked => "blocked",
            ActionEvent::Cleared => "cleared",
            ActionEvent::Unavailable => "unavailable",
            ActionEvent::Unreachable => "unreachable",
        }
    }

    pub fn from_wire(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == raw)
    }

    /// The condition whose start (or, for `Cleared`, whose end) is the
    /// event.
    fn condition(self) -> ServerStatus {
        match self {
            ActionEvent::Blocked | ActionEvent::Cleared => ServerStatus::Blocked,
            ActionEvent::Unavailable => ServerStatus::Unavailable,
            ActionEvent::Unreachable => ServerStatus::Unreachable,
        }
    }

    /// The change starts an incident of this event. Nothing starts while
    /// a maintenance window holds (no action runs for it), and leaving
    /// one, a condition that still holds starts one.
    pub fn starts_with(self, change: &VerdictChange) -> bool {
        let condition = self.condition();
        let in_window = |c: &[ServerStatus]| c.contains(&ServerStatus::Maintenance);
        if in_window(&change.conditions) {
            return false;
        }
        let previous: &[ServerStatus] = if in_window(&change.previous) {
            &[]
        } else {
            &change.previous
        };
        let now = change.conditions.contains(&condition);
        let before = previous.contains(&condition);
        match self {
            ActionEvent::Cleared => !now && before && !in_window(&change.previous),
            _ => now && !before,
        }
    }

    /// Whether an incident of this event held through every status the
    /// server recorded since it started: an incident is one continuous
    /// holding, so a verdict that cleared and came back is another one,
    /// and a run of the first is not run for the second.
    pub fn held_throughout<'a>(
        self,
        recorded: impl IntoIterator<Item = &'a [ServerStatus]>,
    ) -> bool {
        recorded
            .into_iter()
            .all(|conditions| self.still_holds(conditions))
    }

    /// Whether an incident of this event still stands for a server whose
    /// conditions are these (a `blocked` run waits while the block holds;
    /// a `cleared` one while it stays cleared).
    pub fn still_holds(self, conditions: &[ServerStatus]) -> bool {
        let holds = conditions.contains(&self.condition());
        match self {
            ActionEvent::Cleared => !holds,
            _ => holds,
        }
    }
}

/// The HTTP methods a call may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpMethod {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl HttpMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }
}

fn default_method() -> HttpMethod {
    HttpMethod::Post
}

/// An HTTP call: its body is a JSON template whose strings may name the
/// event's facts (see [`fill_template`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct HttpCall {
    pub url: String,
    #[serde(default = "default_method")]
    pub method: HttpMethod,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<serde_json::Value>,
}

/// What an action does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionKind {
    Command(Vec<String>),
    Http(HttpCall),
}

/// An action as the operator writes it (the API's body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ActionSpec {
    pub name: String,
    pub on: ActionEvent,
    #[serde(default)]
    pub after_minutes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpCall>,
    /// `blocked` actions only: the block kinds it runs on (PRODUCT.md §8);
    /// absent, every kind that takes a server out of rotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<Vec<BlockKind>>,
}

/// The kinds the shipped IP-rotation examples (`deploy/actions`) are
/// registered with: the kinds a new address fixes (§8).
pub const IP_ROTATION_KINDS: [BlockKind; 2] = [BlockKind::Ip, BlockKind::Throttled];

/// A valid action, before the store numbers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAction {
    pub name: String,
    pub on: ActionEvent,
    pub after_minutes: u32,
    pub kind: ActionKind,
    /// Empty: every kind.
    pub kinds: Vec<BlockKind>,
}

/// Why an action is refused; nothing is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionError {
    InvalidName,
    /// Neither or both of `command` and `http`.
    OneKind,
    InvalidCommand(String),
    InvalidHttp(String),
    AfterTooLong,
    /// A command, while `MESHWATCH_ACTION_COMMANDS` lists none.
    CommandActionsOff,
    /// A command whose program is not on the host's allow-list.
    CommandNotAllowed(String),
    /// An HTTP call to a restricted address the host does not allow.
    PrivateTarget(crate::net_ranges::RestrictedRange),
    /// `kinds` on an event other than `blocked`, or an empty list.
    InvalidKinds,
}

impl ActionError {
    /// The API's `error` code.
    pub fn code(&self) -> &'static str {
        match self {
            ActionError::InvalidName => "invalid_name",
            ActionError::OneKind => "command_or_http",
            ActionError::InvalidCommand(_) => "invalid_command",
            ActionError::InvalidHttp(_) => "invalid_http",
            ActionError::AfterTooLong => "invalid_after_minutes",
            ActionError::CommandActionsOff => "command_actions_off",
            ActionError::CommandNotAllowed(_) => "command_not_allowed",
            ActionError::PrivateTarget(_) => "private_target",
            ActionError::InvalidKinds => "invalid_kinds",
        }
    }
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::InvalidName => write!(
                f,
                "the name must be 1 to {MAX_NAME_CHARS} characters without control characters"
            ),
            ActionError::OneKind => f.write_str("give either \"command\" or \"http\", not both"),
            ActionError::InvalidCommand(why) | ActionError::InvalidHttp(why) => f.write_str(why),
            ActionError::AfterTooLong => {
                write!(f, "after_minutes is at most {MAX_AFTER_MINUTES} (a week)")
            }
            ActionError::CommandActionsOff => f.write_str(
                "command actions are off on this host: its operator lists the programs \
                 actions may run in MESHWATCH_ACTION_COMMANDS",
            ),
            ActionError::CommandNotAllowed(program) => write!(
                f,
                "{program:?} is not on this host's allow-list (MESHWATCH_ACTION_COMMANDS): \
                 only a program the host's operator listed can be run"
            ),
            ActionError::InvalidKinds => f.write_str(
                "kinds limits a \"blocked\" action to block kinds (ip, sni, protocol, \
                 throttled): give at least one, or leave it out for every kind",
            ),
            ActionError::PrivateTarget(range) => write!(
                f,
                "the URL names a {range} address; HTTP actions reach only public addresses \
                 unless the host sets MESHWATCH_ACTION_ALLOW_PRIVATE=1"
            ),
        }
    }
}

impl std::error::Error for ActionError {}

fn clean(text: &str) -> bool {
    !text.chars().any(char::is_control)
}

impl ActionSpec {
    /// The action as it will be stored, or why it is refused.
    pub fn validate(self) -> Result<NewAction, ActionError> {
        let name = self.name.trim().to_owned();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || !clean(&name) {
            return Err(ActionError::InvalidName);
        }
        if self.after_minutes > MAX_AFTER_MINUTES {
            return Err(ActionError::AfterTooLong);
        }
        let kind = match (self.command, self.http) {
            (Some(argv), None) => ActionKind::Command(check_command(argv)?),
            (None, Some(call)) => ActionKind::Http(check_http(call)?),
            _ => return Err(ActionError::OneKind),
        };
        let kinds = match self.kinds {
            None => Vec::new(),
            Some(kinds) if kinds.is_empty() || self.on != ActionEvent::Blocked => {
                return Err(ActionError::InvalidKinds)
            }
            Some(mut kinds) => {
                kinds.sort();
                kinds.dedup();
                kinds
            }
        };
        Ok(NewAction {
            name,
            on: self.on,
            after_minutes: self.after_minutes,
            kind,
            kinds,
        })
    }
}

fn check_command(argv: Vec<String>) -> Result<Vec<String>, ActionError> {
    let bad = |why: String| Err(ActionError::InvalidCommand(why));
    if argv.is_empty() || argv[0].trim().is_empty() {
        return bad("the command needs a program: [\"/path/to/program\", \"arg\", …]".into());
    }
    if argv.len() > MAX_ARGS {
        return bad(format!("a command has at most {MAX_ARGS} arguments"));
    }
    if argv
        .iter()
        .any(|a| a.chars().count() > MAX_ARG_CHARS || a.contains('\0'))
    {
        return bad(format!(
            "each argument is at most {MAX_ARG_CHARS} characters, without NUL"
        ));
    }
    Ok(argv)
}

fn check_http(call: HttpCall) -> Result<HttpCall, ActionError> {
    let bad = |why: String| Err(ActionError::InvalidHttp(why));
    let url = call.url.trim();
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => {}
        _ => return bad("the URL must be http:// or https:// with a host".into()),
    }
    if url.chars().count() > MAX_ARG_CHARS || !clean(url) || url.contains(' ') {
        return bad(format!(
            "the URL is at most {MAX_ARG_CHARS} characters, without spaces"
        ));
    }
    if call.headers.len() > MAX_HEADERS {
        return bad(format!("at most {MAX_HEADERS} headers"));
    }
    for (name, value) in &call.headers {
        let token = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token || value.chars().count() > MAX_ARG_CHARS || !clean(value) {
            return bad(format!("header {name:?} is not a valid header"));
        }
    }
    if let Some(body) = &call.body {
        if serde_json::to_vec(body).map_or(true, |b| b.len() > MAX_BODY_BYTES) {
            return bad(format!(
                "the body template is at most {MAX_BODY_BYTES} bytes"
            ));
        }
    }
    Ok(HttpCall {
        url: url.to_owned(),
        ..call
    })
}

/// A stored action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub id: ActionId,
    pub name: String,
    pub on: ActionEvent,
    pub after_minutes: u32,
    pub kind: ActionKind,
    /// `blocked` only: the kinds it runs on; empty, every kind.
    pub kinds: Vec<BlockKind>,
}

impl Action {
    /// Whether this action is called for when its event starts on a
    /// server whose blocks are of `kinds` (the blocks that take it out of
    /// rotation; empty for every other event).
    pub fn runs_on(&self, kinds: &[BlockKind]) -> bool {
        self.on != ActionEvent::Blocked
            || self.kinds.is_empty()
            || kinds.iter().any(|k| self.kinds.contains(k))
    }
}

/// What a run is told about its event: on stdin (as JSON) and in a
/// command's environment, or in an HTTP call's body template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventFacts {
    pub event: ActionEvent,
    pub server_id: ServerId,
    pub server_name: String,
    /// `host:port` of each entry point, each once.
    pub addresses: Vec<String>,
    /// When the event happened (the incident's start).
    pub since: DateTime<Utc>,
    /// `blocked`: the kinds of the server's blocks (§8), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<BlockKind>,
    pub action: String,
    /// The server as the fleet document holds it: a script that moved it
    /// to a new address PUTs it back with the new host.
    pub server: serde_json::Value,
}

/// The body template with each `{{event}}`, `{{server_id}}`,
/// `{{server_name}}`, `{{addresses}}` (comma-separated), `{{since}}` and
/// `{{kinds}}` (comma-separated)
/// replaced in its strings; keys are left alone.
pub fn fill_template(template: &serde_json::Value, facts: &EventFacts) -> serde_json::Value {
    use serde_json::Value;
    match template {
        Value::String(s) => Value::String(
            s.replace("{{event}}", facts.event.as_str())
                .replace("{{server_id}}", facts.server_id.as_str())
                .replace("{{server_name}}", &facts.server_name)
                .replace("{{addresses}}", &facts.addresses.join(","))
                .replace("{{since}}", &facts.since.to_rfc3339())
                .replace(
                    "{{kinds}}",
                    &facts
                        .kinds
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                ),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| fill_template(v, facts)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill_template(v, facts)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What the API and the panel show of an action: a header's value may be
/// a credential, so it is shown as [`HIDDEN`] once stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionView {
    pub id: ActionId,
    #[serde(flatten)]
    pub spec: ActionSpec,
    /// Why it does not run on this host (its program is not on the
    /// allow-list), if it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_on_this_host: Option<String>,
}

/// How a stored header value reads.
pub const HIDDEN: &str = "(hidden)";

/// A URL as views show it: its userinfo and its query's values may be
/// credentials, so they read [`HIDDEN`].
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (before_fragment, fragment) = rest
        .split_once('#')
        .map_or((rest, None), |(a, f)| (a, Some(f)));
    let (before_query, query) = before_fragment
        .split_once('?')
        .map_or((before_fragment, None), |(a, q)| (a, Some(q)));
    let authority_end = before_query.find('/').unwrap_or(before_query.len());
    let (authority, path) = before_query.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((_, host)) => format!("{HIDDEN}@{host}"),
        None => authority.to_owned(),
    };
    let mut out = format!("{scheme}://{authority}{path}");
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}={HIDDEN}"),
                None => pair.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

impl Action {
    /// The action as the API and the panel show it on a host with
    /// `policy`: header values hidden, URL credentials redacted, and why
    /// it does not run here, if it does not.
    pub fn view(&self, policy: &HostPolicy) -> ActionView {
        let (command, http) = match &self.kind {
            ActionKind::Command(argv) => (Some(argv.clone()), None),
            ActionKind::Http(call) => (
                None,
                Some(HttpCall {
                    url: redact_url(&call.url),
                    headers: call
                        .headers
                        .keys()
                        .map(|k| (k.clone(), HIDDEN.to_owned()))
                        .collect(),
                    ..call.clone()
                }),
            ),
        };
        ActionView {
            off_on_this_host: policy.disarmed(&self.kind).map(|d| d.to_string()),
            id: self.id,
            spec: ActionSpec {
                name: self.name.clone(),
                on: self.on,
                after_minutes: self.after_minutes,
                command,
                http,
                kinds: (!self.kinds.is_empty()).then(|| self.kinds.clone()),
            },
        }
    }
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    Ok,
    /// Failed; retried with backoff until [`MAX_ATTEMPTS`].
    Failed,
    Running,
    /// It was running when its panel stopped: it is never started again
    /// by itself (it may have done half its work); the operator may run
    /// it again.
    Interrupted,
}

/// One run of an action for one server's incident: its latest attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionRun {
    /// The run's own number (`POST /api/v1/actions/runs/{id}/rerun`).
    pub id: i64,
    pub action_id: ActionId,
    /// The action's name when it ran.
    pub action: String,
    pub server_id: ServerId,
    pub event: ActionEvent,
    pub started_at: DateTime<Utc>,
    pub outcome: RunOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The first KiB of what it printed (stdout, then stderr) or answered.
    pub output: String,
    pub duration_ms: Option<i64>,
    pub attempts: u32,
    /// Another attempt follows (a failed run before [`MAX_ATTEMPTS`]).
    pub retrying: bool,
}

/// Settings → Actions: the switch, the actions, the latest runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionsPanel {
    pub enabled: bool,
    /// Why actions switched themselves off, when they did.
    pub off_reason: Option<OffReason>,
    pub budget: ActionBudget,
    pub actions: Vec<ActionView>,
    pub recent: Vec<ActionRun>,
}

/// The operator's word on a mass block's actions (see
/// [`crate::verdict::MassBlock`]): it holds while that guard does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MassDecision {
    /// Run the actions of its blocks.
    Confirmed,
    /// Run none of them.
    Dismissed,
}

impl MassDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            MassDecision::Confirmed => "confirmed",
            MassDecision::Dismissed => "dismissed",
        }
    }

    pub fn from_wire(raw: &str) -> Option<Self> {
        [MassDecision::Confirmed, MassDecision::Dismissed]
            .into_iter()
            .find(|d| d.as_str() == raw)
    }
}

/// What a `blocked` run may do under the mass block guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MassGate {
    /// Not a mass block, or one the operator confirmed: it runs.
    Open,
    /// It waits for the operator.
    Held,
    /// The operator dismissed it: it never runs.
    Dismissed,
}

/// The gate of a block seen by `blocked_by` verifiers, given the
/// verifiers under the mass block guard and the operator's decisions. A
/// block some verifier outside the guard sees too stands on its own.
pub fn mass_gate(
    blocked_by: &[ServerId],
    guarded: &[ServerId],
    decision: impl Fn(&ServerId) -> Option<MassDecision>,
) -> MassGate {
    if blocked_by.is_empty() || blocked_by.iter().any(|v| !guarded.contains(v)) {
        return MassGate::Open;
    }
    let decisions: Vec<Option<MassDecision>> = blocked_by.iter().map(&decision).collect();
    if decisions.contains(&Some(MassDecision::Confirmed)) {
        MassGate::Open
    } else if decisions
        .iter()
        .all(|d| *d == Some(MassDecision::Dismissed))
    {
        MassGate::Dismissed
    } else {
        MassGate::Held
    }
}

/// Why actions switched themselves off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum OffReason {
    /// A run would have gone past [`ActionBudget`].
    Budget,
}

impl OffReason {
    pub fn as_str(self) -> &'static str {
        match self {
            OffReason::Budget => "budget",
        }
    }

    pub fn from_wire(raw: &str) -> Option<Self> {
        (raw == "budget").then_some(OffReason::Budget)
    }
}

/// The most runs may do: actions change real infrastructure, and a fault
/// of the panel, a verifier or a script must not turn into a storm of
/// them. Past either bound, actions switch themselves off (docs/PRODUCT.md §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ActionBudget {
    /// `action_runs_per_hour`: runs started across the fleet in any hour.
    pub runs_per_hour: u32,
    /// `action_cooldown`: the least time between two runs of one action
    /// for one server, in seconds.
    pub cooldown_s: u32,
}

impl Default for ActionBudget {
    fn default() -> Self {
        Self {
            runs_per_hour: 6,
            cooldown_s: 6 * 3600,
        }
    }
}

/// The largest `runs_per_hour` the budget takes.
pub const MAX_RUNS_PER_HOUR: u32 = 1000;
/// The longest `cooldown_s`: 30 days.
pub const MAX_COOLDOWN_S: u32 = 30 * 24 * 3600;

/// What a run would go past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverBudget {
    /// `runs_per_hour` runs started in the last hour already.
    RunsPerHour(u32),
    /// This action ran for this server less than `cooldown_s` ago.
    Cooldown(u32),
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OverBudget::RunsPerHour(n) => {
                write!(
                    f,
                    "{n} runs started in the last hour (action_runs_per_hour)"
                )
            }
            OverBudget::Cooldown(s) => write!(
                f,
                "this action ran for this server less than {s} s ago (action_cooldown)"
            ),
        }
    }
}

impl ActionBudget {
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_RUNS_PER_HOUR).contains(&self.runs_per_hour) {
            return Err(format!("runs_per_hour must be 1 to {MAX_RUNS_PER_HOUR}"));
        }
        if self.cooldown_s > MAX_COOLDOWN_S {
            return Err(format!(
                "cooldown_s must be 0 to {MAX_COOLDOWN_S} (30 days)"
            ));
        }
        Ok(())
    }

    /// Whether one more run may start, given the runs that started in the
    /// last hour and whether this action ran for this server within the
    /// cooldown.
    pub fn allows(
        &self,
        started_last_hour: u32,
        ran_within_cooldown: bool,
    ) -> Result<(), OverBudget> {
        if started_last_hour >= self.runs_per_hour {
            return Err(OverBudget::RunsPerHour(started_last_hour));
        }
        if ran_within_cooldown {
            return Err(OverBudget::Cooldown(self.cooldown_s));
        }
        Ok(())
    }
}

/// A header a form wrote as one "Name: value" line.
pub fn parse_header_lines(text: &str) -> Result<BTreeMap<String, String>, ActionError> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (name, value) = line.split_once(':').ok_or_else(|| {
                ActionError::InvalidHttp(format!("{line:?} is not a \"Name: value\" header"))
            })?;
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        })
        .collect()
}

/// How a failed run waits before attempt `attempt + 1`: 30 s, 1, 2,
/// 4 min…
pub fn retry_after(attempt: u32) -> chrono::Duration {
    chrono::Duration::seconds(30 * (1i64 << attempt.saturating_sub(1).min(10)))
}

mod host_policy;
pub use host_policy::{url_host, Disarmed, HostPolicy, MAX_ALLOWED_COMMANDS};

#[cfg(test)]
mod tests;
