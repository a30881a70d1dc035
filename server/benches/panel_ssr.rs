//! Panel page benchmark: server-side rendering of the user card, the
//! server card and the public status page for a 1000-server, 10 000-user
//! fleet on a fresh SQLite file,
//! under 50 concurrent connections on loopback; then the mesh page of a
//! 300-server fleet whose every pair has evidence. The load comes from
//! `wrk` (Debian's package), a separate process, which gives the latency
//! percentiles; the panel's own CPU time per request is read from
//! `/proc/self/stat`. Pages are fetched as a browser without JavaScript
//! gets them, fully rendered. The card fleet has a day of metrics behind
//! every server and keeps reporting (each server once a minute) meanwhile.
//!
//! Run: `cargo bench -p server --bench panel_ssr` (needs `wrk`:
//! `apt-get install wrk`; `MESHWATCH_BENCH_SECONDS` per page, default 15;
//! `MESHWATCH_BENCH_CLIENTS`, default 50).

mod support;

use meshwatch::ServerId;
use meshwatch_server::secrets;
use meshwatch_server::store::Store;
use serde_json::{json, Value};
use std::time::Duration;
use support::{agent_token, env_or, fleet, BenchPanel};

struct Panel {
    panel: BenchPanel,
    cookie: String,
}

/// One report of server `i` in a fleet of `servers`: its self-check and
/// metrics, and a probe result for every other server when `mesh`.
fn agent_report(i: usize, servers: usize, mesh: bool) -> Value {
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
    json!({"report_id": uuid::Uuid::new_v4().to_string(), "agent_version": "bench",
        "sent_at": "2026-12-02T10:00:00Z",
        "self_check": {"listener_ok": !i.is_multiple_of(97), "service_ok": true},
        "metrics": {"cpu_pct": 12.5, "mem_used_bytes": 1u64 << 30, "mem_total_bytes": 4u64 << 30,
                    "connections": 100 + i},
        "probes": probes})
}

async fn send_report(http: &reqwest::Client, base: &str, i: usize, report: &Value) {
    let r = http
        .post(format!("{base}/api/agent/v1/report"))
        .bearer_auth(agent_token(i))
        .json(report)
        .send()
        .await
        .expect("report sent");
    assert_eq!(r.status(), 202);
}

/// A real panel with `servers` servers and `users` users; every server has
/// reported once, with a probe result for every other server when `mesh`,
/// and, unless `mesh`, has a day of metrics behind it (full charts).
async fn panel(servers: usize, users: usize, mesh: bool) -> Panel {
    let panel = BenchPanel::start(&fleet(servers, users)).await;
    for i in 0..servers {
        send_report(&panel.http, &panel.base, i, &agent_report(i, servers, mesh)).await;
    }
    let key = meshwatch_server::sealing::key_for_database(None, &panel.database_url)
        .expect("the panel's key")
        .key;
    let store = Store::open(&panel.database_url, key).await.expect("store");
    if !mesh {
        let now_ms = chrono::Utc::now().timestamp_millis();
        for i in 0..servers {
            let day = meshwatch_server::demo::past_day(i, now_ms);
            store
                .backfill_metrics(&ServerId::parse(&format!("s{i}")).expect("slug"), &day)
                .await
                .expect("a day of metrics");
        }
    }
    let hash = secrets::hash_password("bench password 123").expect("hash");
    store
        .upsert_operator("bench", &hash)
        .await
        .expect("operator");
    let login = panel
        .http
        .post(format!("{}/login", panel.base))
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

/// The fleet keeps reporting while pages load, as a live one does: every
/// server once a minute, spread evenly (each report moves that server's
/// card data on).
fn keep_reporting(panel: &Panel, servers: usize) -> tokio::task::JoinHandle<()> {
    let (http, base) = (panel.panel.http.clone(), panel.panel.base.clone());
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60) / servers as u32);
        for i in (0..servers).cycle() {
            every.tick().await;
            send_report(&http, &base, i, &agent_report(i, servers, false)).await;
        }
    })
}

/// CPU time this process (the panel: the load comes from `wrk`) has used
/// so far, from `/proc/self/stat` (user + system, in ticks of 10 ms).
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

/// Which pages a load phase asks for: `prefix` + `(n × step) mod modulo`
/// for the n-th request of a `wrk` thread, or always `prefix` when
/// `modulo` is 0.
struct Pages {
    prefix: &'static str,
    step: usize,
    modulo: usize,
}

const USER_CARDS: Pages = Pages {
    prefix: "/users/u",
    step: 37,
    modulo: 10_000,
};
const SERVER_CARDS: Pages = Pages {
    prefix: "/servers/s",
    step: 7,
    modulo: 1000,
};
const SIGN_IN: Pages = Pages::only("/login");
const STATUS_PAGE: Pages = Pages::only("/status");
const STATUS_JSON: Pages = Pages::only("/status.json");
const MESH: Pages = Pages::only("/mesh");

impl Pages {
    /// The same page for every request.
    const fn only(path: &'static str) -> Pages {
        Pages {
            prefix: path,
            step: 0,
            modulo: 0,
        }
    }
}

/// The `wrk` script: each thread walks its own half of the pages, with
/// the session cookie unless it asks for the sign-in page.
fn wrk_script(pages: &Pages, cookie: &str) -> String {
    let Pages {
        prefix,
        step,
        modulo,
    } = pages;
    // The sign-in page and the public status page are asked for signed out.
    let cookie = if *prefix == "/login" || prefix.starts_with("/status") {
        ""
    } else {
        cookie
    };
    // n × step mod modulo visits every page once in `modulo` requests
    // (step and modulo are coprime); two threads start half-way apart,
    // so together they cover them all in that many requests.
    let half = modulo / 2;
    format!(
        r#"local threads = 0
function setup(thread)
  thread:set("offset", threads * {half})
  threads = threads + 1
end
function init(args)
  n = offset or 0
  if "{cookie}" ~= "" then wrk.headers["Cookie"] = "{cookie}" end
end
function request()
  n = n + 1
  local path = "{prefix}"
  if {modulo} > 0 then path = path .. tostring((n * {step}) % {modulo}) end
  return wrk.format("GET", path)
end
"#
    )
}

/// What one `wrk` load phase measured.
struct Run {
    requests: u64,
    per_second: f64,
    /// Latency percentiles 50, 90 and 99, in ms.
    p50: f64,
    p90: f64,
    p99: f64,
    /// Panel CPU time per request.
    cpu_per_request: Duration,
}

/// `wrk`'s duration figures ("812.00us", "12.34ms", "1.02s") in ms.
fn wrk_ms(figure: &str) -> Option<f64> {
    let (number, factor) = if let Some(n) = figure.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = figure.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = figure.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (figure, 1.0)
    };
    number.parse::<f64>().ok().map(|v| v * factor)
}

/// The figure after `label` on the line of `wrk`'s output that starts with it.
fn wrk_field<'a>(output: &'a str, label: &str) -> Option<&'a str> {
    output
        .lines()
        .map(str::trim)
        .find_map(|line| line.strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
}

/// `clients` concurrent connections asking for `pages` for `seconds`,
/// driven by `wrk` (a separate process, so its CPU is not the panel's).
async fn load(panel: &Panel, clients: usize, seconds: usize, pages: &Pages) -> Run {
    let script = tempfile::NamedTempFile::new().expect("script file");
    std::fs::write(script.path(), wrk_script(pages, &panel.cookie)).expect("script written");
    let threads = clients.clamp(1, 2);
    let mut wrk = std::process::Command::new("wrk");
    wrk.args([
        format!("-t{threads}"),
        format!("-c{clients}"),
        format!("-d{seconds}s"),
        "--latency".to_owned(),
        "-s".to_owned(),
        script.path().display().to_string(),
        panel.panel.base.clone(),
    ]);
    let cpu = cpu_time();
    let output = tokio::task::spawn_blocking(move || wrk.output())
        .await
        .expect("wrk waited for")
        .expect("wrk runs (Debian: apt-get install wrk)");
    let cpu = cpu_time().saturating_sub(cpu);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "wrk failed: {text}");
    assert!(
        !text.contains("Non-2xx") && !text.contains("Socket errors"),
        "every request answered 200: {text}"
    );
    let requests: u64 = text
        .lines()
        .find(|l| l.contains("requests in"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("request count");
    let ms = |label: &str| wrk_field(&text, label).and_then(wrk_ms).expect(label);
    Run {
        requests,
        per_second: wrk_field(&text, "Requests/sec:")
            .and_then(|v| v.parse().ok())
            .expect("rate"),
        p50: ms("50%"),
        p90: ms("90%"),
        p99: ms("99%"),
        cpu_per_request: cpu / u32::try_from(requests.max(1)).unwrap_or(u32::MAX),
    }
}

/// The size of one page as served (HTML, uncompressed).
async fn page_bytes(panel: &Panel, path: &str) -> usize {
    let page = panel
        .panel
        .http
        .get(format!("{}{path}", panel.panel.base))
        .header("cookie", &panel.cookie)
        .send()
        .await
        .expect("page fetched");
    assert_eq!(page.status(), 200, "{path}");
    page.bytes().await.expect("page read").len()
}

/// Latencies vary with this VM's load; the panel's CPU per request is the
/// steadier figure.
fn report(name: &str, run: &Run) {
    println!(
        "  {name:<28} {:>7} req  {:>7.0} req/s  p50 {:>6.2} ms  p90 {:>6.2} ms  p99 {:>6.2} ms  panel cpu {:>5.0} µs/req",
        run.requests,
        run.per_second,
        run.p50,
        run.p90,
        run.p99,
        run.cpu_per_request.as_secs_f64() * 1e6,
    );
}

#[tokio::main]
async fn main() {
    let seconds = env_or("MESHWATCH_BENCH_SECONDS", 15);
    let clients = env_or("MESHWATCH_BENCH_CLIENTS", 50);

    let big = panel(1000, 10_000, false).await;
    println!(
        "panel_ssr: 1000 servers, 10 000 users, SQLite; wrk, {clients} connections on loopback, {seconds} s per page"
    );
    println!(
        "  page sizes: user card {} B, server card {} B",
        page_bytes(&big, "/users/u1").await,
        page_bytes(&big, "/servers/s1").await
    );
    let reporting = keep_reporting(&big, 1000);
    // Each set of pages is walked once before it is measured: connections
    // and per-page caches warm up as they would on a panel in use.
    load(&big, clients, 3, &USER_CARDS).await;
    let run = load(&big, clients, seconds, &USER_CARDS).await;
    report("user card (SSR)", &run);
    load(&big, clients, 3, &SERVER_CARDS).await;
    let run = load(&big, clients, seconds, &SERVER_CARDS).await;
    report("server card (SSR)", &run);
    // The public status page, as a crowd of customers reloads it while
    // the fleet reports: served from memory, rebuilt every few seconds.
    load(&big, clients, 3, &STATUS_PAGE).await;
    let run = load(&big, clients, seconds, &STATUS_PAGE).await;
    report("status page (public)", &run);
    let run = load(&big, clients, seconds, &STATUS_JSON).await;
    report("status.json (public)", &run);
    reporting.abort();
    // No data and no session to look up: what rendering any page costs.
    let run = load(&big, clients, seconds, &SIGN_IN).await;
    report("sign-in page (SSR floor)", &run);
    big.panel.stop().await;

    let mesh = panel(300, 10, true).await;
    println!("panel_ssr: mesh page of 300 servers (90 000 cells), one connection");
    load(&mesh, 1, 2, &MESH).await;
    report("mesh page (SSR)", &load(&mesh, 1, seconds, &MESH).await);
    mesh.panel.stop().await;
}
