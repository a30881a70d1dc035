//! Ingest benchmark: N servers (default 1000), each report carrying a probe
//! result for every other server (999), posted over HTTP on loopback by
//! concurrent clients to a real panel on a fresh SQLite file (or a fresh
//! PostgreSQL database, run under `scripts/with-postgres.sh`). Prints
//! sustained reports/s and acknowledgement latency percentiles.
//!
//! Run: `cargo bench -p server --bench ingest`, and on PostgreSQL (with
//! fsync on, as production runs it):
//! `MESHWATCH_PG_DURABLE=1 scripts/with-postgres.sh cargo bench -p server --bench ingest`
//! (`MESHWATCH_BENCH_SERVERS`, `MESHWATCH_BENCH_REPORTS`, `MESHWATCH_BENCH_CLIENTS` override).

mod support;

use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{agent_token, env_or, fleet, BenchPanel};

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
    let panel = BenchPanel::start(&fleet(n, 0)).await;
    let (http, base) = (panel.http.clone(), panel.base.clone());

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
    panel.stop().await;
}
