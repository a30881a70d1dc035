//! Probe cost of one real `meshwatch-agent` process with 1000 peers (or
//! `PROBE_BENCH_PEERS`: beyond the witness-set threshold an agent is given
//! its targets only, a few dozen whatever the fleet's size).
//!
//! A panel stand-in on loopback hands the agent its TLS entry points (spread
//! over 100 lab listeners on 127.0.200.x) with the default 30 s probe
//! interval, and counts what the reports carry. The agent's own CPU time and
//! memory are read from /proc/<pid>, so the listeners' work in this process
//! is not counted against it.
//!
//! `cargo bench -p meshwatch-agent --bench probe_cost`
//! (`PROBE_BENCH_SECONDS`, default 95: three probe rounds.)

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use meshwatch::agent_api::{AgentConfig, AgentReport, Peer, ReportAck};
use meshwatch::fleet::Protocol;
use meshwatch_agent::lab::{LabListener, PathFilter};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEFAULT_PEERS: usize = 1000;
const LISTENERS: usize = 100;
const PROBE_INTERVAL_S: u32 = 30;

#[derive(Default)]
struct Seen {
    reports: Vec<(Instant, AgentReport)>,
}

type Shared = Arc<Mutex<Seen>>;

async fn config(State((config, _)): State<(AgentConfig, Shared)>) -> Json<AgentConfig> {
    Json(config)
}

async fn report(
    State((_, seen)): State<(AgentConfig, Shared)>,
    Json(report): Json<AgentReport>,
) -> (StatusCode, Json<ReportAck>) {
    let ack = ReportAck {
        accepted_probes: report.probes.len() as u32,
        skipped_probes: 0,
        fleet_version: 0,
    };
    seen.lock()
        .unwrap_or_else(|p| p.into_inner())
        .reports
        .push((Instant::now(), report));
    (StatusCode::ACCEPTED, Json(ack))
}

/// utime + stime of a process, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_comm = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    // Fields 14 and 15 of proc(5); after the comm, state is index 0.
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|i| fields.get(*i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    ticks as f64 / 100.0
}

/// A `Vm*` line of /proc/<pid>/status, in MB.
fn memory_mb(pid: u32, key: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let seconds: u64 = std::env::var("PROBE_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(95);
    let peer_count: usize = std::env::var("PROBE_BENCH_PEERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_PEERS);
    let filter = PathFilter::new();
    let mut listeners = Vec::new();
    for i in 0..LISTENERS {
        let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 200, i as u8 + 1));
        listeners.push(
            LabListener::spawn(SocketAddr::new(ip, 0), filter.clone())
                .await
                .expect("lab listener"),
        );
    }
    let peers: Vec<Peer> = (0..peer_count)
        .map(|i| {
            let target = listeners[i % LISTENERS].address();
            Peer {
                entry_point_id: format!("peer-{i}"),
                server_id: format!("server-{i}"),
                protocol: Protocol::Vless,
                host: target.ip().to_string(),
                port: target.port(),
                sni: Some("www.example.com".into()),
                alpn: None,
                obfuscated: false,
                transfer_path: None,
                indirect: false,
            }
        })
        .collect();
    let agent_config = AgentConfig {
        fleet_version: 1,
        report_interval_s: 10,
        probe_interval_s: PROBE_INTERVAL_S,
        probe_timeout_s: 5,
        peers,
        verifier: None,
    };
    let seen: Shared = Arc::default();
    let panel = Router::new()
        .route("/api/agent/v1/config", get(config))
        .route("/api/agent/v1/report", post(report))
        .layer(axum::extract::DefaultBodyLimit::max(1 << 24))
        .with_state((agent_config, seen.clone()));
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let panel_url = format!("http://{}", socket.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(socket, panel).await });

    let dir = tempfile::tempdir().expect("tempdir");
    let config_path = dir.path().join("agent.toml");
    std::fs::write(
        &config_path,
        format!(
            "panel_url = {panel_url:?}\ntoken = \"bench\"\nlistener = \"{}\"\nspool_dir = \"off\"\nallow_private_targets = true\n[service]\nprocess = \"meshwatch-agent\"\n",
            listeners[0].address()
        ),
    )
    .expect("config");
    let mut agent = Command::new(env!("CARGO_BIN_EXE_meshwatch-agent"))
        .arg("--config")
        .arg(&config_path)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .expect("agent starts");
    let pid = agent.id();

    // Measure from the first probe result on, so start-up is not counted.
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let seen = seen.lock().unwrap_or_else(|p| p.into_inner());
        if seen.reports.iter().any(|(_, r)| !r.probes.is_empty()) {
            break;
        }
    }
    let cpu_start = cpu_seconds(pid);
    let wall_start = Instant::now();
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let cpu = cpu_seconds(pid) - cpu_start;
    let wall = wall_start.elapsed().as_secs_f64();
    let (rss, peak) = (memory_mb(pid, "VmRSS:"), memory_mb(pid, "VmHWM:"));
    let _ = agent.kill();
    let _ = agent.wait();

    let seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    let probes: Vec<_> = seen.reports.iter().flat_map(|(_, r)| &r.probes).collect();
    let failed = probes.iter().filter(|p| !p.ok).count();
    // Rounds: probe start times cluster; a gap > 5 s separates rounds.
    let mut starts: Vec<_> = probes.iter().map(|p| p.at).collect();
    starts.sort();
    let mut rounds: Vec<(
        chrono::DateTime<chrono::Utc>,
        chrono::DateTime<chrono::Utc>,
        usize,
    )> = Vec::new();
    for at in starts {
        match rounds.last_mut() {
            Some((_, end, n)) if (at - *end).num_milliseconds() < 5_000 => {
                *end = at;
                *n += 1;
            }
            _ => rounds.push((at, at, 1)),
        }
    }
    let full: Vec<_> = rounds.iter().filter(|(_, _, n)| *n == peer_count).collect();
    let longest = full
        .iter()
        .map(|(s, e, _)| (*e - *s).num_milliseconds() as f64 / 1000.0)
        .fold(0.0, f64::max);
    let mut latencies: Vec<u32> = probes
        .iter()
        .filter_map(|p| p.latency_ms)
        .map(|ms| ms as u32)
        .collect();
    latencies.sort_unstable();
    let p99 = latencies
        .get(latencies.len().saturating_sub(1) * 99 / 100)
        .copied()
        .unwrap_or(0);

    println!("probe_cost: one meshwatch-agent process, {peer_count} TLS peers, probe interval {PROBE_INTERVAL_S} s, concurrency 64");
    println!("  measured window         {wall:.1} s");
    println!(
        "  probe results received  {} ({failed} failed)",
        probes.len()
    );
    println!(
        "  full rounds             {} of {} seen",
        full.len(),
        rounds.len()
    );
    println!(
        "  longest full round      {longest:.2} s  (≈ {:.0} probes/s while probing)",
        if longest > 0.0 {
            peer_count as f64 / longest
        } else {
            f64::NAN
        }
    );
    println!("  probe latency p99       {p99} ms (TCP + TLS on loopback)");
    println!(
        "  CPU                     {:.2} % of one core ({cpu:.2} s CPU in {wall:.1} s)",
        cpu / wall * 100.0
    );
    println!("  memory                  RSS {rss:.1} MB, peak RSS {peak:.1} MB");
    let goal = |ok: bool| if ok { "met" } else { "NOT met" };
    println!(
        "  goal (round ≤ 30 s, ≤ 5 % of a core, ≤ 30 MB RSS): {}",
        goal(!full.is_empty() && longest <= 30.0 && cpu / wall <= 0.05 && peak <= 30.0)
    );
}
