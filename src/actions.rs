//! Actions (PRODUCT.md §6): what the operator has the panel do on an
//! event — a command (argv, no shell) or an HTTP call — once per incident,
//! after the event has held for a number of minutes. Typically: change a
//! blocked server's IP address at the cloud, then tell the panel the new
//! address.

use crate::ids::ServerId;
use crate::status::ServerStatus;
use crate::verdict::VerdictChange;
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
#[serde(transparent)]
pub struct ActionId(pub i64);

impl fmt::Display for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an action waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
        }
    }
}

impl std::error::Error for ActionError {}

fn clean(text: &str) -> bool {
    !text.chars().any(char::is_control)
}

impl ActionSpec {
    /// The action as it will be stored, or why it is refused.
    pub fn validate(self) -> Result<(String, ActionEvent, u32, ActionKind), ActionError> {
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
        Ok((name, self.on, self.after_minutes, kind))
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
    pub action: String,
    /// The server as the fleet document holds it: a script that moved it
    /// to a new address PUTs it back with the new host.
    pub server: serde_json::Value,
}

/// The body template with each `{{event}}`, `{{server_id}}`,
/// `{{server_name}}`, `{{addresses}}` (comma-separated) and `{{since}}`
/// replaced in its strings; keys are left alone.
pub fn fill_template(template: &serde_json::Value, facts: &EventFacts) -> serde_json::Value {
    use serde_json::Value;
    match template {
        Value::String(s) => Value::String(
            s.replace("{{event}}", facts.event.as_str())
                .replace("{{server_id}}", facts.server_id.as_str())
                .replace("{{server_name}}", &facts.server_name)
                .replace("{{addresses}}", &facts.addresses.join(","))
                .replace("{{since}}", &facts.since.to_rfc3339()),
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
pub struct ActionView {
    pub id: ActionId,
    #[serde(flatten)]
    pub spec: ActionSpec,
}

/// How a stored header value reads.
pub const HIDDEN: &str = "(hidden)";

impl Action {
    pub fn view(&self) -> ActionView {
        let (command, http) = match &self.kind {
            ActionKind::Command(argv) => (Some(argv.clone()), None),
            ActionKind::Http(call) => (
                None,
                Some(HttpCall {
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
            id: self.id,
            spec: ActionSpec {
                name: self.name.clone(),
                on: self.on,
                after_minutes: self.after_minutes,
                command,
                http,
            },
        }
    }
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    Ok,
    /// Failed; retried with backoff until [`MAX_ATTEMPTS`].
    Failed,
    Running,
}

/// One run of an action for one server's incident: its latest attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRun {
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
    pub actions: Vec<ActionView>,
    pub recent: Vec<ActionRun>,
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

#[cfg(test)]
mod tests;
