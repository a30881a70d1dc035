//! Fleet document benchmark: `PUT /api/v1/fleet` of 1000 servers and
//! 100,000 users as one document (~10 MiB) to a real panel, first as a new
//! fleet, then again unchanged (an operator's script re-applying it).
//! Prints the body size, each PUT's time and the panel process's peak
//! memory growth (VmHWM, the panel runs in this process).
//!
//! Run: `cargo bench -p server --bench fleet_put`, and on PostgreSQL:
//! `MESHWATCH_PG_DURABLE=1 scripts/with-postgres.sh cargo bench -p server --bench fleet_put`
//! (`MESHWATCH_BENCH_SERVERS`, `MESHWATCH_BENCH_USERS` override).

mod support;

use std::time::Instant;
use support::{env_or, fleet, BenchPanel, ADMIN};

/// The process's peak resident memory so far, in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

#[tokio::main]
async fn main() {
    let servers = env_or("MESHWATCH_BENCH_SERVERS", 1000);
    let users = env_or("MESHWATCH_BENCH_USERS", 100_000);
    let panel = BenchPanel::start(&fleet(0, 0)).await;
    let body = serde_json::to_vec(&fleet(servers, users)).expect("json");
    println!(
        "fleet_put: {servers} servers, {users} users, {:.1} MiB document",
        body.len() as f64 / f64::from(1 << 20)
    );
    for pass in ["new fleet", "unchanged"] {
        let before = peak_rss_kib();
        let started = Instant::now();
        let response = panel
            .http
            .put(format!("{}/api/v1/fleet", panel.base))
            .bearer_auth(ADMIN)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .expect("sent");
        let status = response.status();
        let _ = response.bytes().await;
        assert_eq!(status, 200, "fleet accepted");
        println!(
            "fleet_put: {pass}: {:.2} s; peak RSS {} MiB (+{} MiB)",
            started.elapsed().as_secs_f64(),
            peak_rss_kib() / 1024,
            peak_rss_kib().saturating_sub(before) / 1024
        );
    }
    panel.stop().await;
}
