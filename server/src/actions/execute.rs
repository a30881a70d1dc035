//! One attempt of an action: a command (argv, no shell) fed the event as
//! JSON on stdin and in `MESHWATCH_*` variables, or an HTTP call with its
//! body template filled in. Each is stopped after [`RUN_TIMEOUT_SECS`];
//! the first [`OUTPUT_BYTES`] of what it printed or answered are kept.

use meshwatch::actions::{
    fill_template, ActionKind, EventFacts, HttpCall, OUTPUT_BYTES, RUN_TIMEOUT_SECS,
};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// How an attempt ended.
pub struct Outcome {
    pub ok: bool,
    pub exit_status: Option<i32>,
    pub http_status: Option<u16>,
    pub output: String,
}

impl Outcome {
    fn failed(output: String) -> Self {
        Self {
            ok: false,
            exit_status: None,
            http_status: None,
            output: first_bytes(output.as_bytes()),
        }
    }
}

/// At most [`OUTPUT_BYTES`] of `bytes`, as text (cut at a character).
fn first_bytes(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(OUTPUT_BYTES + 4)]);
    let mut end = text.len().min(OUTPUT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

pub async fn attempt(http: &reqwest::Client, kind: &ActionKind, facts: &EventFacts) -> Outcome {
    match kind {
        ActionKind::Command(argv) => command(argv, facts).await,
        ActionKind::Http(call) => call_http(http, call, facts).await,
    }
}

/// The panel's own `MESHWATCH_*` settings (its tokens and keys among
/// them) are not passed on: the command gets the event's variables only.
async fn command(argv: &[String], facts: &EventFacts) -> Outcome {
    let Some((program, args)) = argv.split_first() else {
        return Outcome::failed("no program".into());
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MESHWATCH_") {
            command.env_remove(name);
        }
    }
    command
        .env("MESHWATCH_EVENT", facts.event.as_str())
        .env("MESHWATCH_SERVER_ID", facts.server_id.as_str())
        .env("MESHWATCH_SERVER_NAME", &facts.server_name)
        .env("MESHWATCH_SERVER_ADDRESSES", facts.addresses.join(","))
        .env("MESHWATCH_SINCE", facts.since.to_rfc3339())
        .env("MESHWATCH_ACTION", &facts.action);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return Outcome::failed(format!("cannot start {program}: {err}")),
    };
    let event = serde_json::to_vec(facts).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input is not a failure.
        let _ = stdin.write_all(&event).await;
    }
    let timeout = Duration::from_secs(RUN_TIMEOUT_SECS);
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Err(_) => Outcome::failed(format!(
            "stopped after {RUN_TIMEOUT_SECS} s without finishing"
        )),
        Ok(Err(err)) => Outcome::failed(format!("{program} failed: {err}")),
        Ok(Ok(output)) => {
            let mut printed = output.stdout;
            printed.extend_from_slice(&output.stderr);
            Outcome {
                ok: output.status.success(),
                exit_status: output.status.code(),
                http_status: None,
                output: first_bytes(&printed),
            }
        }
    }
}

async fn call_http(http: &reqwest::Client, call: &HttpCall, facts: &EventFacts) -> Outcome {
    let method = reqwest::Method::from_bytes(call.method.as_str().as_bytes())
        .unwrap_or(reqwest::Method::POST);
    let mut request = http.request(method, &call.url);
    for (name, value) in &call.headers {
        request = request.header(name, value);
    }
    if let Some(template) = &call.body {
        request = request.json(&fill_template(template, facts));
    }
    match request.send().await {
        // The error names the URL only: a header's value never shows.
        Err(err) => Outcome::failed(format!("the call failed: {}", err.without_url())),
        Ok(response) => {
            let status = response.status();
            let body = response.bytes().await.unwrap_or_default();
            Outcome {
                ok: status.is_success(),
                exit_status: None,
                http_status: Some(status.as_u16()),
                output: first_bytes(&body),
            }
        }
    }
}
