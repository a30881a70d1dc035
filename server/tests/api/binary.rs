//! The `meshwatch-server` binary itself: commands, start-up output, SIGTERM.

use crate::helpers::{location, session_cookie};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_meshwatch-server");

pub(crate) struct Panel {
    pub(crate) child: Child,
    pub(crate) address: String,
    /// Every line printed before the panel said it was listening.
    banner: Vec<String>,
    /// The lines printed since, as they come.
    later: mpsc::Receiver<String>,
}

impl Drop for Panel {
    /// A test that fails half-way leaves no panel running behind it.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Panel {
    /// The next line printed after "listening on" that contains `text`.
    fn printed_later(&self, text: &str) -> String {
        loop {
            let line = self
                .later
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("the panel prints a line with {text:?}"));
            if line.contains(text) {
                return line;
            }
        }
    }
}

pub(crate) fn command(db: &str) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .env("MESHWATCH_DATABASE_URL", db)
        .env("MESHWATCH_LISTEN", "127.0.0.1:0");
    cmd
}

/// Starts the binary and waits for its "listening on" line.
// The child moves into `Panel`, whose owner stops and reaps it (`terminate`).
#[allow(clippy::zombie_processes)]
pub(crate) fn start(mut cmd: Command) -> Panel {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut banner = Vec::new();
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the panel starts within 20 s");
        if let Some(rest) = line.split("listening on http://").nth(1) {
            return Panel {
                child,
                address: format!("http://{}", rest.trim()),
                banner,
                later: rx,
            };
        }
        banner.push(line);
    }
}

/// Runs a command to completion, failing the test if it takes over 30 s.
pub(crate) fn run(mut cmd: Command) -> std::process::Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the command finishes within 30 s")
        .expect("output")
}

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// SIGTERM, then the exit status.
pub(crate) fn terminate(mut panel: Panel) -> std::process::ExitStatus {
    let pid = panel.child.id().to_string();
    let sent = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    for _ in 0..100 {
        if let Some(status) = panel.child.try_wait().expect("wait") {
            return status;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = panel.child.kill();
    panic!("the panel did not stop within 10 s of SIGTERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_operator_then_sign_in_then_stop_gracefully() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/nested/panel.db", dir.path().display());

    let mut short = command(&db);
    short
        .args(["create-operator", "ops"])
        .env("MESHWATCH_OPERATOR_PASSWORD", "short");
    let short = run(short);
    assert!(!short.status.success(), "a short password is refused");

    let mut created = command(&db);
    created
        .args(["create-operator", "ops"])
        .env("MESHWATCH_OPERATOR_PASSWORD", "a long password");
    let created = run(created);
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    assert!(String::from_utf8_lossy(&created.stdout).contains("created"));

    let panel = start(command(&db));
    let token_lines: Vec<_> = panel
        .banner
        .iter()
        .filter(|l| l.contains("Operator API token"))
        .collect();
    assert_eq!(
        token_lines.len(),
        1,
        "a generated API token is printed once: {:?}",
        panel.banner
    );

    let response = client()
        .post(format!("{}/login", panel.address))
        .form(&[("username", "ops"), ("password", "a long password")])
        .send()
        .await
        .expect("sent");
    assert_eq!(location(&response), "/");
    assert!(session_cookie(response.headers()).is_some());

    let status = terminate(panel);
    assert!(status.success(), "SIGTERM is a clean stop, got {status}");

    let again = start(command(&db));
    assert!(
        !again
            .banner
            .iter()
            .any(|l| l.contains("Operator API token")),
        "the token is shown only when generated"
    );
    assert!(terminate(again).success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_mode_seeds_a_fleet_and_prints_a_working_login_and_api_token() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/demo.db", dir.path().display());
    let mut cmd = command(&db);
    cmd.env("MESHWATCH_DEMO", "1");
    let panel = start(cmd);
    // After "listening on", the last thing `make run` shows.
    let running = panel.printed_later("meshwatch is running: ");
    assert!(running.ends_with(&panel.address), "{running}");
    let line = panel.printed_later("sign in:");
    let password = line
        .split(" / ")
        .nth(1)
        .expect("demo / password")
        .trim()
        .to_owned();
    let line = panel.printed_later("API token:");
    let token = line
        .split_whitespace()
        .nth(2)
        .expect("the token")
        .to_owned();
    panel.printed_later("try first:");
    let api = client()
        .get(format!("{}/api/v1/servers", panel.address))
        .bearer_auth(&token)
        .send()
        .await
        .expect("sent");
    assert_eq!(api.status(), 200, "the printed API token works");
    let verifier: serde_json::Value = client()
        .get(format!("{}/api/v1/servers/jp-1", panel.address))
        .bearer_auth(&token)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(
        (
            verifier["verifier"].clone(),
            verifier["verifier_network"].clone()
        ),
        (serde_json::json!(true), serde_json::json!("NTT home fiber")),
        "the demo's verifier names its network"
    );
    // Its connected panel, a Remnawave stand-in, is read and applied to.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let connectors: serde_json::Value = client()
            .get(format!("{}/api/v1/connectors", panel.address))
            .bearer_auth(&token)
            .send()
            .await
            .expect("sent")
            .json()
            .await
            .expect("json");
        let demo = &connectors[0];
        if demo["state"] == "ok" && !demo["last_sync_at"].is_null() {
            assert_eq!(demo["id"], "demo-remnawave");
            assert_eq!(demo["mode"], "apply");
            assert_eq!(demo["hosts"].as_array().map(Vec::len), Some(10), "{demo}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{connectors}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    let response = client()
        .post(format!("{}/login", panel.address))
        .form(&[("username", "demo"), ("password", password.as_str())])
        .send()
        .await
        .expect("sent");
    let cookie = session_cookie(response.headers()).expect("signed in with the printed password");
    let servers = || async {
        let list: serde_json::Value = client()
            .post(format!("{}/rpc/servers", panel.address))
            .header("cookie", &cookie)
            .send()
            .await
            .expect("sent")
            .json()
            .await
            .expect("json");
        list.as_array()
            .expect("a list")
            .iter()
            .map(|item| {
                (
                    item["server"]["id"].as_str().unwrap_or("").to_owned(),
                    item["status"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect::<std::collections::HashMap<String, String>>()
    };
    assert_eq!(servers().await.len(), 10);
    // Real agents report at once, and the fault script stops de-2's VPN
    // service 15 s in.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut reporting = false;
    loop {
        let now = servers().await;
        reporting |= now.values().all(|status| status != "no_data");
        if reporting && now.get("de-2").map(String::as_str) == Some("unavailable") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the live demo fleet shows its agents and faults: {now:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    assert!(terminate(panel).success());
}

#[test]
fn bad_configuration_stops_the_server_with_the_variable_named() {
    let mut bad = command("sqlite::memory:");
    bad.env("MESHWATCH_LISTEN", "not-an-address");
    let output = run(bad);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("MESHWATCH_LISTEN"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_reports_survive_kill_9() {
    use serde_json::{json, Value};
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/crash.db", dir.path().display());
    let admin = "crash-test-admin-token-000";
    let with_token = |db: &str| {
        let mut cmd = command(db);
        cmd.env("MESHWATCH_ADMIN_TOKEN", admin);
        cmd
    };
    let panel = start(with_token(&db));
    let http = client();
    let fleet = json!({"routes": [{"id": "de", "name": "Germany"}], "servers": [
        {"id": "de-1", "name": "DE-1", "country": "DE", "routes": ["de"],
         "entry_points": [{"id": "de-1-ep", "protocol": "vless", "host": "127.0.30.1", "port": 443}]},
        {"id": "nl-1", "name": "NL-1", "country": "NL", "routes": ["de"], "agent_token": "nl-1-agent-token-000000",
         "entry_points": [{"id": "nl-1-ep", "protocol": "vless", "host": "127.0.30.2", "port": 443}]}]});
    let put = http
        .put(format!("{}/api/v1/fleet", panel.address))
        .bearer_auth(admin)
        .json(&fleet)
        .send()
        .await
        .expect("sent");
    assert_eq!(put.status(), 200);
    let de_token = put.json::<Value>().await.expect("json")["agent_tokens"]["de-1"]
        .as_str()
        .expect("token")
        .to_owned();
    let report = |id: &str, ok: bool, from: u32| {
        let probes: Vec<Value> = (from..from + 1)
            .map(|s| json!({"entry_point_id": "de-1-ep", "at": format!("2026-12-02T09:00:{s:02}Z"), "ok": ok,
                            "error": if ok { json!(null) } else { json!("refused") }}))
            .collect();
        json!({"report_id": id, "agent_version": "0.1.0", "sent_at": "2026-12-02T09:01:00Z",
               "self_check": {"listener_ok": true, "service_ok": true}, "probes": probes})
    };
    let post = |address: String, token: &'static str, body: Value| {
        let http = http.clone();
        async move {
            http.post(format!("{address}/api/agent/v1/report"))
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .expect("sent")
        }
    };
    // One knock is a streak: the binary runs on the system's clock, and
    // the knocks of one pair are half a probe interval apart at least.
    let settings = http
        .put(format!("{}/api/v1/settings", panel.address))
        .bearer_auth(admin)
        .json(&json!({"failure_streak": 1}))
        .send()
        .await
        .expect("sent");
    assert_eq!(settings.status(), 200);
    let de_token: &'static str = Box::leak(de_token.into_boxed_str());
    let quiet = json!({"report_id": "00000000-0000-4000-8000-000000000009", "agent_version": "0.1.0",
                       "sent_at": "2026-12-02T09:01:00Z", "self_check": {"listener_ok": true, "service_ok": true}});
    assert_eq!(
        post(panel.address.clone(), de_token, quiet).await.status(),
        202
    );
    // Three failed results, one report each: one knock, sent three times.
    let mut first_ack = Value::Null;
    let mut failing = Value::Null;
    for k in 0..3u32 {
        failing = report(&format!("00000000-0000-4000-8000-00000000010{k}"), false, k);
        let ack = post(
            panel.address.clone(),
            "nl-1-agent-token-000000",
            failing.clone(),
        )
        .await;
        assert_eq!(ack.status(), 202);
        first_ack = ack.json().await.expect("json");
    }

    let status = |address: String| {
        let http = http.clone();
        async move {
            http.get(format!("{address}/api/v1/servers/de-1"))
                .bearer_auth(admin)
                .send()
                .await
                .expect("sent")
                .json::<Value>()
                .await
                .expect("json")["status"]
                .clone()
        }
    };
    assert_eq!(
        status(panel.address.clone()).await,
        "entry_points_unavailable"
    );

    // kill -9: no graceful shutdown, no checkpoint.
    let mut panel = panel;
    panel.child.kill().expect("SIGKILL");
    panel.child.wait().expect("reaped");

    let again = start(with_token(&db));
    assert_eq!(
        status(again.address.clone()).await,
        "entry_points_unavailable",
        "the 202'd report survived"
    );
    let retry = post(again.address.clone(), "nl-1-agent-token-000000", failing).await;
    assert_eq!(retry.status(), 202);
    let retry: Value = retry.json().await.expect("json");
    assert_eq!(
        (&retry["accepted_probes"], &retry["skipped_probes"]),
        (&first_ack["accepted_probes"], &first_ack["skipped_probes"]),
        "a retry gets the first answer"
    );
    let heal = report("00000000-0000-4000-8000-000000000002", true, 10);
    post(again.address.clone(), "nl-1-agent-token-000000", heal).await;
    assert_eq!(
        status(again.address.clone()).await,
        "healthy",
        "one success resets a streak counted once"
    );
    assert!(terminate(again).success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panel_open_to_other_hosts_without_its_public_url_does_not_start() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/open.db", dir.path().display());
    let mut open = command(&db);
    open.env("MESHWATCH_LISTEN", "0.0.0.0:0");
    let output = run(open);
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("MESHWATCH_PUBLIC_URL"), "{said}");
    let mut demo = command(&db);
    demo.env("MESHWATCH_LISTEN", "0.0.0.0:0")
        .env("MESHWATCH_PUBLIC_URL", "https://panel.example")
        .env("MESHWATCH_DEMO", "1");
    let output = run(demo);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("MESHWATCH_LISTEN"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_on_this_host_forwarding_clients_while_none_is_trusted_is_warned_about() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/xff.db", dir.path().display());
    let panel = start(command(&db));
    let answer = client()
        .post(format!("{}/login", panel.address))
        .header("x-forwarded-for", "203.0.113.9")
        .form(&[("username", "someone"), ("password", "not the password")])
        .send()
        .await
        .expect("sent");
    assert_eq!(answer.status(), 303);
    let line = panel.printed_later("MESHWATCH_TRUSTED_PROXIES is unset");
    assert!(
        line.contains("MESHWATCH_TRUSTED_PROXIES=127.0.0.1"),
        "{line}"
    );
    assert!(terminate(panel).success());
}
