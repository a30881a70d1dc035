//! Panel page benchmark: server-side rendering of the user card and the
//! server card for a 1000-server, 10 000-user fleet on a fresh SQLite file,
//! under 50 concurrent clients on loopback; then the mesh page of a
//! 300-server fleet whose every pair has evidence. Prints latency
//! percentiles (the pages are fetched as a browser without JavaScript gets
//! them, fully rendered).
//!
//! Run: `cargo bench -p server --bench panel_ssr`
//! (`MESHWATCH_BENCH_REQUESTS` per page, default 3000; `MESHWATCH_BENCH_CLIENTS`, default 50.)

mod support;

use meshwatch_server::secrets;
use meshwatch_server::store::Store;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{agent_token, env_or, fleet, BenchPanel};

struct Panel {
    panel: BenchPanel,
    cookie: String,
}

/// A real panel with `servers` servers and `users` users; every server has
/// reported once, with a probe result for every other server when `mesh`.
async fn panel(servers: usize, users: usize, mesh: bool) -> Panel {
    let panel = BenchPanel::start(&fleet(servers, users)).await;
    let (http, base) = (&panel.http, &panel.base);
    for i in 0..servers {
        let probes: Vec<Value> = if mesh {
            (0..servers)
                .filter(|&t| t != i)
                .map(|t| {
                    let ok = !(i * 31 + t * 17).is_multiple_of(40);
                    json!({"entry_point_id": format!("s{t}-ep"), "at": "2026-12-02T10:00:00Z", "ok": ok,
                           "error": if ok { Value::Null } else { json!("timeout") }})
                })
                .collect()
        } else {
            Vec::new()
        };
        let report = json!({"report_id": uuid::Uuid::new_v4().to_string(), "agent_version": "bench",
            "sent_at": "2026-12-02T10:00:00Z",
            "self_check": {"listener_ok": i % 97 != 0, "service_ok": true},
            "metrics": {"cpu_pct": 12.5, "mem_used_bytes": 1u64 << 30, "mem_total_bytes": 4u64 << 30},
            "probes": probes});
        let r = http
            .post(format!("{base}/api/agent/v1/report"))
            .bearer_auth(agent_token(i))
            .json(&report)
            .send()
            .await
            .expect("report sent");
        assert_eq!(r.status(), 202);
    }
    let store = Store::open(&panel.database_url).await.expect("store");
    let hash = secrets::hash_password("bench password 123").expect("hash");
    store
        .upsert_operator("bench", &hash)
        .await
        .expect("operator");
    let login = http
        .post(format!("{base}/login"))
        .form(&[("username", "bench"), ("password", "bench password 123")])
        .send()
        .await
        .expect("login");
    let cookie = login
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("meshwatch_session="))
        .and_then(|c| c.split(';').next())
        .expect("session cookie")
        .to_owned();
    Panel { panel, cookie }
}

/// CPU time this process (panel and clients) has used so far, from
/// `/proc/self/stat` (user + system, in clock ticks of 10 ms).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at state.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after ')'.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// What one load phase measured.
struct Run {
    /// Sorted latencies.
    times: Vec<Duration>,
    wall: Duration,
    /// CPU time of the whole process during the phase.
    cpu: Duration,
}

/// `total` GETs of `path(i)` by `clients` concurrent clients, signed in
/// unless the path is the sign-in page.
async fn load(panel: &Panel, clients: usize, total: usize, path: fn(usize) -> String) -> Run {
    let next = Arc::new(AtomicUsize::new(0));
    let cpu = cpu_time();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (http, base, cookie, next) = (
            panel.panel.http.clone(),
            panel.panel.base.clone(),
            panel.cookie.clone(),
            next.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return times;
                }
                let t = Instant::now();
                let path = path(i);
                let mut request = http.get(format!("{base}{path}"));
                if path != "/login" {
                    request = request.header("cookie", &cookie);
                }
                let response = request.send().await.expect("sent");
                assert_eq!(response.status(), 200);
                let body = response.bytes().await.expect("body");
                assert!(body.len() > 1000);
                times.push(t.elapsed());
            }
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("client"));
    }
    all.sort();
    Run {
        times: all,
        wall: started.elapsed(),
        cpu: cpu_time().saturating_sub(cpu),
    }
}

/// Latencies vary with this VM's load; CPU per request (panel and its
/// in-process clients together) is the steadier figure.
fn report(name: &str, run: &Run) {
    let times = &run.times;
    let pct = |p: usize| times[(times.len() * p / 100).min(times.len() - 1)].as_secs_f64() * 1000.0;
    println!(
        "  {name:<28} {:>6} req  {:>7.0} req/s  p50 {:>6.2} ms  p90 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  cpu {:>5.0} µs/req",
        times.len(),
        times.len() as f64 / run.wall.as_secs_f64(),
        pct(50),
        pct(90),
        pct(99),
        times.last().map_or(0.0, |t| t.as_secs_f64() * 1000.0),
        run.cpu.as_secs_f64() * 1e6 / times.len() as f64
    );
}

#[tokio::main]
async fn main() {
    let requests = env_or("MESHWATCH_BENCH_REQUESTS", 3000);
    let clients = env_or("MESHWATCH_BENCH_CLIENTS", 50);

    let big = panel(1000, 10_000, false).await;
    println!(
        "panel_ssr: 1000 servers, 10 000 users, SQLite; {clients} concurrent clients on loopback"
    );
    // Warm up connections and caches.
    load(&big, clients, clients * 4, |i| {
        format!("/users/u{}", i * 37 % 10_000)
    })
    .await;
    let run = load(&big, clients, requests, |i| {
        format!("/users/u{}", i * 37 % 10_000)
    })
    .await;
    report("user card (SSR)", &run);
    let run = load(&big, clients, requests, |i| {
        format!("/servers/s{}", i * 7 % 1000)
    })
    .await;
    report("server card (SSR)", &run);
    // No data and no session to look up: what rendering any page costs.
    let run = load(&big, clients, requests, |_| "/login".to_owned()).await;
    report("sign-in page (SSR floor)", &run);
    big.panel.stop().await;

    let mesh = panel(300, 10, true).await;
    println!("panel_ssr: mesh page of 300 servers (90 000 cells), one client");
    load(&mesh, 1, 3, |_| "/mesh".to_owned()).await;
    let run = load(&mesh, 1, 20, |_| "/mesh".to_owned()).await;
    report("mesh page (SSR)", &run);
    mesh.panel.stop().await;
}
