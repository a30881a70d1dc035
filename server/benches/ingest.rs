//! Ingest benchmark: N servers (default 1000), each report carrying a probe
//! result for every other server (999), posted over HTTP on loopback by
//! concurrent clients to a real panel on a fresh SQLite file. Prints
//! sustained reports/s and acknowledgement latency percentiles.
//!
//! Run: `cargo bench -p server --bench ingest`
//! (`MESHWATCH_BENCH_SERVERS`, `MESHWATCH_BENCH_REPORTS`, `MESHWATCH_BENCH_CLIENTS` override).

use meshwatch_server::config::Config;
use meshwatch_server::startup::Application;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ADMIN: &str = "bench-admin-token-0000000";

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn agent_token(i: usize) -> String {
    format!("bench-agent-token-{i:06}")
}

fn fleet(n: usize) -> Value {
    let servers: Vec<Value> = (0..n)
        .map(|i| {
            let country = ["DE", "NL", "FI", "US", "JP"][i % 5];
            let route = country.to_lowercase();
            json!({"id": format!("s{i}"), "name": format!("Server {i}"), "country": country,
                   "routes": [route], "agent_token": agent_token(i),
                   "entry_points": [{"id": format!("s{i}-ep"), "protocol": "vless",
                                     "host": format!("127.0.{}.{}", 40 + i / 250, 1 + i % 250), "port": 443}]})
        })
        .collect();
    let routes: Vec<Value> = ["de", "nl", "fi", "us", "jp"]
        .iter()
        .map(|r| json!({"id": r, "name": r.to_uppercase(), "servers_per_user": 2}))
        .collect();
    json!({"routes": routes, "servers": servers})
}

/// Round `round` of witness `w`: one result per peer, 2 % of them failing.
fn report(n: usize, w: usize, round: usize) -> Vec<u8> {
    let at = format!(
        "2026-12-02T{:02}:{:02}:{:02}Z",
        10 + round / 3600,
        (round / 60) % 60,
        round % 60
    );
    let probes: Vec<Value> = (0..n)
        .filter(|&t| t != w)
        .map(|t| {
            let ok = !(w * 31 + t * 17).is_multiple_of(50);
            json!({"entry_point_id": format!("s{t}-ep"), "at": at, "ok": ok,
                   "latency_ms": if ok { json!(35) } else { Value::Null },
                   "error": if ok { Value::Null } else { json!("timeout") }})
        })
        .collect();
    let body = json!({"report_id": format!("00000000-0000-4000-8000-{:012}", round * n + w), "agent_version": "bench",
                      "sent_at": at, "self_check": {"listener_ok": true, "service_ok": true},
                      "metrics": {"cpu_pct": 3.5, "connections": 120}, "probes": probes});
    serde_json::to_vec(&body).expect("serialises")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() {
    let n = env_or("MESHWATCH_BENCH_SERVERS", 1000);
    let total = env_or("MESHWATCH_BENCH_REPORTS", 2000);
    let clients = env_or("MESHWATCH_BENCH_CLIENTS", 16);
    let dir = tempfile::tempdir().expect("temp dir");
    let vars: HashMap<&str, String> = HashMap::from([
        ("MESHWATCH_LISTEN", "127.0.0.1:0".to_owned()),
        (
            "MESHWATCH_DATABASE_URL",
            format!("sqlite://{}/bench.db", dir.path().display()),
        ),
        ("MESHWATCH_ADMIN_TOKEN", ADMIN.to_owned()),
    ]);
    let app = Application::build(Config::from_lookup(|k| vars.get(k).cloned()).expect("config"))
        .await
        .expect("panel builds");
    let base = format!("http://{}", app.local_addr().expect("bound"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::new();
    let put = http
        .put(format!("{base}/api/v1/fleet"))
        .bearer_auth(ADMIN)
        .json(&fleet(n))
        .send()
        .await
        .expect("fleet sent");
    assert_eq!(put.status(), 200, "fleet accepted");

    println!(
        "ingest: {n} servers, {} probe results per report, {total} reports, {clients} clients",
        n - 1
    );
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (http, base, next) = (http.clone(), base.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= total {
                    break latencies;
                }
                let (w, round) = (k % n, k / n);
                let body = report(n, w, round);
                let sent = Instant::now();
                let response = http
                    .post(format!("{base}/api/agent/v1/report"))
                    .bearer_auth(agent_token(w))
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .expect("report sent");
                assert_eq!(response.status(), 202, "report acknowledged");
                latencies.push(sent.elapsed());
            }
        }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.expect("client finished"));
    }
    let elapsed = started.elapsed();
    latencies.sort();
    println!(
        "ingest: {:.0} reports/s sustained ({} in {:.1} s); ack latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        total as f64 / elapsed.as_secs_f64(),
        total,
        elapsed.as_secs_f64(),
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );
    let _ = stop.send(());
    let _ = server.await;
}
