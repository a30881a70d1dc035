//! A signed-in panel under page load: a fleet that has reported (and keeps
//! reporting), an operator's session, and `wrk` (Debian's package, a
//! separate process, so its CPU is not the panel's) asking for pages as a
//! browser without JavaScript gets them, fully rendered.

use super::{agent_token, fleet, BenchPanel};
use meshwatch::ServerId;
use meshwatch_server::crypto::secrets;
use meshwatch_server::store::Store;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Panel {
    pub panel: BenchPanel,
    pub cookie: String,
}

/// One report of server `i` in a fleet of `servers`: its self-check and
/// metrics, and a probe result for every other server when `mesh`.
pub fn agent_report(i: usize, servers: usize, mesh: bool) -> Value {
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

pub async fn send_report(http: &reqwest::Client, base: &str, i: usize, report: &Value) {
    let r = http
        .post(format!("{base}/api/agent/v1/report"))
        .bearer_auth(agent_token(i))
        .json(report)
        .send()
        .await
        .expect("report sent");
    assert_eq!(r.status(), 202);
}

/// What the fleet has sent before the pages are measured.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// One report per server, and a day of metrics behind each (full charts).
    DayOfMetrics,
    /// One report per server with a probe result for every other server.
    FullMesh,
    /// One report per server: its self-check and metrics, no probes.
    OneReport,
}

pub const OPERATOR: (&str, &str) = ("bench", "bench password 123");

/// A real panel with `servers` servers and `users` users that has had
/// `evidence`, and the session of its operator.
pub async fn panel(servers: usize, users: usize, evidence: Evidence) -> Panel {
    let mut document = fleet(servers, users);
    let token = SUBSCRIPTIONS.prefix.trim_start_matches("/sub/");
    let listed = document["users"].as_array_mut().expect("users");
    for (i, user) in listed.iter_mut().enumerate() {
        user["sub_token"] = json!(format!("{token}{i}"));
    }
    let panel = BenchPanel::start(&document).await;
    let mesh = evidence == Evidence::FullMesh;
    for i in 0..servers {
        send_report(&panel.http, &panel.base, i, &agent_report(i, servers, mesh)).await;
    }
    let key = meshwatch_server::store::key_file::key_for_database(None, &panel.database_url)
        .expect("the panel's key")
        .key;
    let store = Store::open(&panel.database_url, key).await.expect("store");
    if evidence == Evidence::DayOfMetrics {
        let now_ms = chrono::Utc::now().timestamp_millis();
        for i in 0..servers {
            let day = meshwatch_server::ops::demo::past_day(i, now_ms);
            store
                .backfill_metrics(&ServerId::parse(&format!("s{i}")).expect("slug"), &day)
                .await
                .expect("a day of metrics");
        }
    }
    let hash = secrets::hash_password(OPERATOR.1).expect("hash");
    store
        .upsert_operator(OPERATOR.0, &hash)
        .await
        .expect("operator");
    let cookie = sign_in(&panel).await;
    Panel { panel, cookie }
}

/// Signs the operator in as the sign-in form does; the session cookie.
pub async fn sign_in(panel: &BenchPanel) -> String {
    let login = panel
        .http
        .post(format!("{}/login", panel.base))
        .form(&[("username", OPERATOR.0), ("password", OPERATOR.1)])
        .send()
        .await
        .expect("login");
    assert_eq!(login.status(), 303, "signed in");
    session_cookie(&login)
}

/// The session cookie (`name=value`) a sign-in's answer sets.
pub fn session_cookie(login: &reqwest::Response) -> String {
    login
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("meshwatch_session="))
        .and_then(|c| c.split(';').next())
        .expect("session cookie")
        .to_owned()
}

/// Reports flowing in while pages load, and how fast each was acknowledged.
pub struct Reporting {
    task: tokio::task::JoinHandle<()>,
    acknowledged: Arc<Mutex<Vec<Duration>>>,
}

/// Acknowledgement times of the reports sent during a phase.
pub struct Ingest {
    pub reports: usize,
    pub p50: Duration,
    pub p99: Duration,
}

impl Reporting {
    /// The acknowledgement times so far, forgetting them (the next call
    /// covers what came after).
    pub fn ingest(&self) -> Ingest {
        let mut times = std::mem::take(&mut *self.acknowledged.lock().expect("times"));
        times.sort();
        let at = |q: f64| {
            times
                .get(((times.len() as f64 * q).ceil() as usize).saturating_sub(1))
                .copied()
                .unwrap_or_default()
        };
        Ingest {
            reports: times.len(),
            p50: at(0.50),
            p99: at(0.99),
        }
    }

    pub fn stop(self) {
        self.task.abort();
    }
}

impl Ingest {
    pub fn print(&self) {
        println!(
            "  ingest meanwhile: {} reports acknowledged, p50 {:.1} ms, p99 {:.1} ms",
            self.reports,
            self.p50.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3
        );
    }
}

/// The fleet keeps reporting while pages load, as a live one does: every
/// server once per `interval`, spread evenly (each report moves that
/// server's card data on), with a probe result for every other server when
/// `mesh`. Each report is sent on its own, so a slow acknowledgement does
/// not slow the fleet down.
pub fn keep_reporting(panel: &Panel, servers: usize, interval: Duration, mesh: bool) -> Reporting {
    let (http, base) = (panel.panel.http.clone(), panel.panel.base.clone());
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let times = acknowledged.clone();
    let task = tokio::spawn(async move {
        let mut every = tokio::time::interval(interval / servers as u32);
        for i in (0..servers).cycle() {
            every.tick().await;
            let (http, base, times) = (http.clone(), base.clone(), times.clone());
            tokio::spawn(async move {
                let report = agent_report(i, servers, mesh);
                let sent = std::time::Instant::now();
                send_report(&http, &base, i, &report).await;
                times.lock().expect("times").push(sent.elapsed());
            });
        }
    });
    Reporting { task, acknowledged }
}

/// CPU time this process (the panel: the load comes from `wrk`) has used
/// so far.
pub fn cpu_time() -> Duration {
    super::panel_process::cpu_of(std::process::id())
}

/// Which pages a load phase asks for: `prefix` + `(n × step) mod modulo`
/// for the n-th request of a `wrk` thread, or always `prefix` when
/// `modulo` is 0.
pub struct Pages {
    pub prefix: &'static str,
    pub step: usize,
    pub modulo: usize,
}

pub const USER_CARDS: Pages = Pages {
    prefix: "/users/u",
    step: 37,
    modulo: 10_000,
};
pub const SERVER_CARDS: Pages = Pages {
    prefix: "/servers/s",
    step: 7,
    modulo: 1000,
};
/// Subscriptions as apps refresh them: signed out, in the default format
/// (user `u{i}`'s token is the prefix's last part followed by `i`).
pub const SUBSCRIPTIONS: Pages = Pages {
    prefix: "/sub/bench-sub-token-",
    step: 37,
    modulo: 10_000,
};
pub const SIGN_IN: Pages = Pages::only("/login");
pub const STATUS_PAGE: Pages = Pages::only("/status");
pub const STATUS_JSON: Pages = Pages::only("/status.json");
pub const MESH: Pages = Pages::only("/mesh");
pub const MESH_PICTURE: Pages = Pages::only("/mesh.svg");

impl Pages {
    /// The same page for every request.
    pub const fn only(path: &'static str) -> Pages {
        Pages {
            prefix: path,
            step: 0,
            modulo: 0,
        }
    }
}

/// The `wrk` script: each thread walks its own half of the pages, with
/// the session cookie unless it asks for the sign-in page.
pub fn wrk_script(pages: &Pages, cookie: &str) -> String {
    let Pages {
        prefix,
        step,
        modulo,
    } = pages;
    // The sign-in page, the public status page and subscriptions are asked
    // for signed out.
    let cookie =
        if *prefix == "/login" || prefix.starts_with("/status") || prefix.starts_with("/sub/") {
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
pub struct Run {
    pub requests: u64,
    pub per_second: f64,
    /// Latency percentiles 50, 90 and 99, in ms.
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    /// Panel CPU time per request.
    pub cpu_per_request: Duration,
}

/// `wrk`'s duration figures ("812.00us", "12.34ms", "1.02s") in ms.
pub fn wrk_ms(figure: &str) -> Option<f64> {
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
pub fn wrk_field<'a>(output: &'a str, label: &str) -> Option<&'a str> {
    output
        .lines()
        .map(str::trim)
        .find_map(|line| line.strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
}

/// `clients` concurrent connections asking for `pages` for `seconds`,
/// driven by `wrk` (a separate process, so its CPU is not the panel's).
pub async fn load(panel: &Panel, clients: usize, seconds: usize, pages: &Pages) -> Run {
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
pub async fn page_bytes(panel: &Panel, path: &str) -> usize {
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
pub fn report(name: &str, run: &Run) {
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
