//! The `meshwatch-server` binary itself: commands, start-up output, SIGTERM.

use crate::helpers::{location, session_cookie};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_meshwatch-server");

struct Panel {
    child: Child,
    address: String,
    /// Every line printed before the panel said it was listening.
    banner: Vec<String>,
}

fn command(db: &str) -> Command {
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
fn start(mut cmd: Command) -> Panel {
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
            };
        }
        banner.push(line);
    }
}

/// Runs a command to completion, failing the test if it takes over 30 s.
fn run(mut cmd: Command) -> std::process::Output {
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

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// SIGTERM, then the exit status.
fn terminate(mut panel: Panel) -> std::process::ExitStatus {
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

#[tokio::test]
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

#[tokio::test]
async fn demo_mode_seeds_a_fleet_and_prints_a_working_login() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/demo.db", dir.path().display());
    let mut cmd = command(&db);
    cmd.env("MESHWATCH_DEMO", "1");
    let panel = start(cmd);
    let line = panel
        .banner
        .iter()
        .find(|l| l.contains("Sign in as"))
        .expect("the demo login is printed")
        .clone();
    let password = line.rsplit('"').nth(1).expect("quoted password").to_owned();

    let response = client()
        .post(format!("{}/login", panel.address))
        .form(&[("username", "demo"), ("password", password.as_str())])
        .send()
        .await
        .expect("sent");
    let cookie = session_cookie(response.headers()).expect("signed in with the printed password");
    let servers: serde_json::Value = client()
        .post(format!("{}/rpc/servers", panel.address))
        .header("cookie", cookie)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(servers.as_array().map(Vec::len), Some(10));
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
