//! The `meshwatch-agent` binary as an operator runs it: `check-config`,
//! configuration errors, and `--once` against a panel stand-in on loopback.

use axum::routing::get;
use axum::{Json, Router};
use meshwatch::agent_api::{AgentConfig, AgentReport, Peer};
use meshwatch::fleet::Protocol;
use meshwatch_agent::lab::{LabListener, LabQuicListener, PathFilter};
use std::process::Command;

const AGENT: &str = env!("CARGO_BIN_EXE_meshwatch-agent");

fn agent(args: &[&str]) -> std::process::Output {
    Command::new(AGENT)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .output()
        .expect("run meshwatch-agent")
}

fn write_config(dir: &tempfile::TempDir, text: &str) -> String {
    let path = dir.path().join("agent.toml");
    std::fs::write(&path, text).expect("write config");
    path.display().to_string()
}

#[test]
fn check_config_prints_what_the_agent_would_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_config(
        &dir,
        r#"
panel_url = "https://panel.example.net"
token = "s3cret-token"
listener = "127.0.0.1:8443"
probe_concurrency = 16
[service]
systemd_unit = "xray"
"#,
    );
    let out = agent(&["check-config", "--config", &path]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("configuration OK"), "{stdout}");
    assert!(
        stdout.contains("https://panel.example.net/api/agent/v1/report"),
        "{stdout}"
    );
    assert!(stdout.contains("TCP connect to 127.0.0.1:8443"), "{stdout}");
    assert!(stdout.contains("systemd unit \"xray\""), "{stdout}");
    assert!(stdout.contains("16 at a time"), "{stdout}");
    assert!(
        !stdout.contains("s3cret-token"),
        "the token must stay hidden: {stdout}"
    );
}

#[test]
fn a_bad_configuration_names_the_field_and_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_config(
        &dir,
        "panel_url = \"https://panel.example.net\"\ntoken = \"t\"\nprobe_concurrency = 0\n[service]\nprocess = \"xray\"\n",
    );
    for args in [
        vec!["check-config", "--config", path.as_str()],
        vec!["--config", path.as_str()],
    ] {
        let out = agent(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("`probe_concurrency`"), "{stderr}");
    }
    let out = agent(&["check-config", "--config", "/nonexistent/agent.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = agent(&["--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}

/// A panel stand-in on loopback serving `peers`; its base URL.
async fn panel_serving(peers: Vec<Peer>) -> String {
    let config = AgentConfig {
        fleet_version: 1,
        report_interval_s: 60,
        probe_interval_s: 30,
        probe_timeout_s: 2,
        peers,
        verifier: None,
    };
    let panel = Router::new().route(
        "/api/agent/v1/config",
        get(move || {
            let config = config.clone();
            async move { Json(config) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let panel_url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, panel).await });
    panel_url
}

/// Runs `meshwatch-agent --once` with the given configuration.
async fn once(dir: &tempfile::TempDir, config: String) -> std::process::Output {
    let path = write_config(dir, &config);
    tokio::task::spawn_blocking(move || agent(&["--once", "--config", &path]))
        .await
        .expect("join")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_prints_the_report_it_would_send() {
    let entry = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), PathFilter::new())
        .await
        .expect("entry point");
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let closed_port = closed.local_addr().expect("addr").port();
    drop(closed);
    let quic = LabQuicListener::spawn("127.0.0.1:0".parse().expect("addr"), PathFilter::new())
        .await
        .expect("QUIC entry point");
    let panel_url = panel_serving(vec![
        peer("up-vless", entry.address().port(), Protocol::Vless),
        peer("down-trojan", closed_port, Protocol::Trojan),
        peer("up-hy2", quic.address().port(), Protocol::Hysteria2),
    ])
    .await;

    let dir = tempfile::tempdir().expect("tempdir");
    // The lab's entry points are on loopback, which agents refuse by default.
    let out = once(
        &dir,
        format!(
            "panel_url = {panel_url:?}\ntoken = \"t\"\nlistener = \"{}\"\nspool_dir = \"off\"\nallow_private_targets = true\n[service]\ncommand = [\"true\"]\n",
            entry.address()
        ),
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: AgentReport = serde_json::from_slice(&out.stdout).expect("a report as JSON");
    assert!(report.self_check.listener_ok && report.self_check.service_ok);
    assert!(uuid_like(&report.report_id), "{}", report.report_id);
    assert!(report.metrics.mem_total_bytes.is_some());
    let by_id = |id: &str| report.probes.iter().find(|p| p.entry_point_id == id);
    assert!(by_id("up-vless").expect("probed").ok);
    let down = by_id("down-trojan").expect("probed");
    assert!(!down.ok);
    assert_eq!(down.error, Some(meshwatch::evidence::ProbeError::Refused));
    let quic = by_id("up-hy2").expect("QUIC entry points are probed");
    assert!(quic.ok, "{quic:?}");
}

/// A panel (hijacked, say) listing peers on the agent's own loopback gets
/// no probe of them, and no failure blamed on them either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_allow_private_targets_loopback_peers_are_refused_and_not_reported() {
    let entry = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), PathFilter::new())
        .await
        .expect("entry point");
    let mut by_name = peer("by-name", entry.address().port(), Protocol::Vless);
    by_name.host = "localhost".into();
    let panel_url = panel_serving(vec![
        peer("loopback", entry.address().port(), Protocol::Vless),
        by_name,
    ])
    .await;

    let dir = tempfile::tempdir().expect("tempdir");
    let out = once(
        &dir,
        format!(
            "panel_url = {panel_url:?}\ntoken = \"t\"\nlistener = \"{}\"\nspool_dir = \"off\"\n[service]\ncommand = [\"true\"]\n",
            entry.address()
        ),
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: AgentReport = serde_json::from_slice(&out.stdout).expect("a report as JSON");
    assert!(report.probes.is_empty(), "{:?}", report.probes);
    assert!(
        report.self_check.listener_ok,
        "the self-check is not a probe"
    );
    for id in ["loopback", "by-name"] {
        assert!(
            stderr
                .lines()
                .any(|line| line.contains("probe refused") && line.contains(id)),
            "{id}: {stderr}"
        );
    }
    assert!(stderr.contains("loopback address"), "{stderr}");
}

fn peer(id: &str, port: u16, protocol: Protocol) -> Peer {
    Peer {
        entry_point_id: id.into(),
        server_id: "other".into(),
        protocol,
        host: "127.0.0.1".into(),
        port,
        sni: Some("www.example.com".into()),
        alpn: None,
        obfuscated: false,
        transfer_path: None,
        indirect: false,
    }
}

fn uuid_like(id: &str) -> bool {
    id.len() == 36 && id.chars().filter(|c| *c == '-').count() == 4
}
