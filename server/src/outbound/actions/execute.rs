//! One attempt of an action: a command (argv, no shell) fed the event as
//! JSON on stdin and in `MESHWATCH_*` variables, or an HTTP call with its
//! body template filled in. Each is stopped after [`RUN_TIMEOUT_SECS`];
//! the first [`OUTPUT_BYTES`] of what it printed or answered are kept.
//!
//! Do no harm to the host: a command starts with an empty environment
//! (the event's variables and a fixed `PATH` only: none of the panel's
//! secrets), in a process group of its own that is killed whole when it
//! runs out of time, and its output is capped while it is read. An HTTP
//! call goes only to the addresses its host resolved to when they passed
//! the guard (no second lookup a rebinding DNS could answer differently),
//! never follows a redirect, and its answer is capped while it is read.

use meshwatch::actions::{
    fill_template, ActionKind, EventFacts, HostPolicy, HttpCall, OUTPUT_BYTES, RUN_TIMEOUT_SECS,
};
use meshwatch::net_ranges::first_restricted;
use std::net::{IpAddr, SocketAddr};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// The `PATH` a command gets (a script's `#!/usr/bin/env python3` needs
/// one); nothing else of the panel's environment is passed on.
pub const COMMAND_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// How an attempt ended.
pub struct Outcome {
    pub ok: bool,
    pub exit_status: Option<i32>,
    pub http_status: Option<u16>,
    pub output: String,
}

impl Outcome {
    /// Not run at all, and why.
    pub fn refused(why: String) -> Self {
        Self::failed(why)
    }

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

/// What is kept of a stream: a little more than [`OUTPUT_BYTES`], so the
/// cut can fall on a character.
const KEPT_BYTES: usize = OUTPUT_BYTES + 4;

/// Reads `stream` to its end, keeping only its first [`KEPT_BYTES`]: a
/// command that prints gigabytes costs the panel no memory (and is not
/// blocked on a full pipe either).
async fn read_capped(stream: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut kept = Vec::new();
    let Some(mut stream) = stream else {
        return kept;
    };
    let mut buffer = [0u8; 8192];
    while let Ok(n @ 1..) = stream.read(&mut buffer).await {
        let room = KEPT_BYTES.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..n.min(room)]);
    }
    kept
}

pub async fn attempt(kind: &ActionKind, facts: &EventFacts, policy: &HostPolicy) -> Outcome {
    match kind {
        ActionKind::Command(argv) => command(argv, facts).await,
        ActionKind::Http(call) => call_http(call, facts, policy).await,
    }
}

/// The variables a command gets: the event's, and [`COMMAND_PATH`].
pub fn command_environment(facts: &EventFacts) -> Vec<(&'static str, String)> {
    vec![
        ("PATH", COMMAND_PATH.to_owned()),
        ("MESHWATCH_EVENT", facts.event.as_str().to_owned()),
        ("MESHWATCH_SERVER_ID", facts.server_id.to_string()),
        ("MESHWATCH_SERVER_NAME", facts.server_name.clone()),
        ("MESHWATCH_SERVER_ADDRESSES", facts.addresses.join(",")),
        ("MESHWATCH_SINCE", facts.since.to_rfc3339()),
        ("MESHWATCH_ACTION", facts.action.clone()),
        (
            "MESHWATCH_BLOCK_KINDS",
            facts
                .kinds
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ),
    ]
}

/// Kills every process of the group `pid` leads (the command and
/// whatever it started).
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill(2) with a negative pid signals the process group;
        // it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

async fn command(argv: &[String], facts: &EventFacts) -> Outcome {
    let Some((program, args)) = argv.split_first() else {
        return Outcome::failed("no program".into());
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(command_environment(facts))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return Outcome::failed(format!("cannot start {program}: {err}")),
    };
    let pid = child.id();
    let event = serde_json::to_vec(facts).unwrap_or_default();
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let feed = async move {
        if let Some(mut stdin) = stdin {
            // A command that does not read its input is not a failure.
            let _ = stdin.write_all(&event).await;
        }
    };
    let run = async {
        let (_, out, err, status) =
            tokio::join!(feed, read_capped(stdout), read_capped(stderr), child.wait());
        (out, err, status)
    };
    let timeout = Duration::from_secs(RUN_TIMEOUT_SECS);
    match tokio::time::timeout(timeout, run).await {
        Err(_) => {
            kill_group(pid);
            let _ = child.kill().await;
            Outcome::failed(format!(
                "stopped after {RUN_TIMEOUT_SECS} s without finishing"
            ))
        }
        Ok((_, _, Err(err))) => Outcome::failed(format!("{program} failed: {err}")),
        Ok((mut printed, stderr, Ok(status))) => {
            printed.extend_from_slice(&stderr);
            Outcome {
                ok: status.success(),
                exit_status: status.code(),
                http_status: None,
                output: first_bytes(&printed),
            }
        }
    }
}

/// The addresses `url`'s host stands for, if the policy lets a call reach
/// them.
async fn guarded_addresses(
    url: &reqwest::Url,
    policy: &HostPolicy,
) -> Result<(String, Vec<SocketAddr>), String> {
    let host = url
        .host_str()
        .ok_or("the URL has no host")?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = url.port_or_known_default().ok_or("the URL has no port")?;
    let addresses: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|err| format!("cannot resolve {host}: {err}"))?
            .collect(),
    };
    if addresses.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    if !policy.allows_private_http() {
        if let Some(refused) = first_restricted(&addresses) {
            return Err(format!(
                "refused: {host} is {refused}; HTTP actions reach only public addresses \
                 unless the host sets MESHWATCH_ACTION_ALLOW_PRIVATE=1"
            ));
        }
    }
    Ok((host, addresses))
}

async fn call_http(call: &HttpCall, facts: &EventFacts, policy: &HostPolicy) -> Outcome {
    let timeout = Duration::from_secs(RUN_TIMEOUT_SECS);
    match tokio::time::timeout(timeout, call_http_within(call, facts, policy)).await {
        Ok(outcome) => outcome,
        Err(_) => Outcome::failed(format!(
            "stopped after {RUN_TIMEOUT_SECS} s without an answer"
        )),
    }
}

async fn call_http_within(call: &HttpCall, facts: &EventFacts, policy: &HostPolicy) -> Outcome {
    let Ok(url) = reqwest::Url::parse(&call.url) else {
        return Outcome::failed("the URL does not parse".into());
    };
    let (host, addresses) = match guarded_addresses(&url, policy).await {
        Ok(pinned) => pinned,
        Err(why) => return Outcome::failed(why),
    };
    // The call goes to exactly the addresses that passed the guard.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .resolve_to_addrs(&host, &addresses)
        .build();
    let Ok(client) = client else {
        return Outcome::failed("cannot build the HTTP client".into());
    };
    let method = reqwest::Method::from_bytes(call.method.as_str().as_bytes())
        .unwrap_or(reqwest::Method::POST);
    let mut request = client.request(method, url);
    for (name, value) in &call.headers {
        request = request.header(name, value);
    }
    if let Some(template) = &call.body {
        request = request.json(&fill_template(template, facts));
    }
    match request.send().await {
        // The error names no URL: its query or userinfo may be a secret,
        // and a header's value never shows.
        Err(err) => Outcome::failed(format!("the call failed: {}", err.without_url())),
        Ok(mut response) => {
            let status = response.status();
            let mut kept = Vec::new();
            while let Ok(Some(chunk)) = response.chunk().await {
                let room = KEPT_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if room == 0 {
                    // Enough read: the rest of the answer is not wanted.
                    break;
                }
            }
            Outcome {
                ok: status.is_success(),
                exit_status: None,
                http_status: Some(status.as_u16()),
                output: first_bytes(&kept),
            }
        }
    }
}
