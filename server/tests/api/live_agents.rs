//! Real `meshwatch-agent` processes against a real panel, probing real TLS
//! listeners on their own loopback addresses; faults are cut into the
//! network paths by the lab's filter, never written into reports.

use crate::agent::get;
use crate::helpers::{spawn_app, TestApp, ADMIN_TOKEN};
use meshwatch_agent::lab::{Cut, LabListener, PathFilter};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(40);

/// The agent binary beside this test binary (`cargo test --workspace`
/// builds it: the root package's own tests need it).
pub(crate) fn agent_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target directory");
    let agent = dir.join("meshwatch-agent");
    assert!(
        agent.exists(),
        "{} is missing: run `cargo test --workspace` (or `cargo build --features agent --bin meshwatch-agent`)",
        agent.display()
    );
    agent
}

struct LiveServer {
    id: String,
    ip: IpAddr,
    address: SocketAddr,
    listener: Option<LabListener>,
    agent: Option<Child>,
    config: PathBuf,
    log: PathBuf,
}

struct LiveFleet {
    filter: PathFilter,
    servers: Vec<LiveServer>,
    _dir: tempfile::TempDir,
}

impl LiveFleet {
    /// `ids[i]` gets entry point 127.0.`subnet`.(i+1) and an agent probing
    /// from that address; `env(id)` adds variables to its agent.
    async fn start(
        app: &TestApp,
        subnet: u8,
        ids: &[&str],
        env: &dyn Fn(&str) -> Vec<(&'static str, String)>,
    ) -> Self {
        let settings = app
            .client
            .put(app.url("/api/v1/settings"))
            .bearer_auth(ADMIN_TOKEN)
            .json(
                &json!({"report_interval_s": 1, "probe_interval_s": 1, "probe_timeout_s": 1,
                          "stale_after_s": 10, "failure_streak": 2, "quorum": 2}),
            )
            .send()
            .await
            .expect("settings sent");
        assert_eq!(settings.status(), 200);

        let filter = PathFilter::new();
        let dir = tempfile::tempdir().expect("tempdir");
        let mut servers = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let ip = IpAddr::V4(Ipv4Addr::new(127, 0, subnet, i as u8 + 1));
            let listener = LabListener::spawn(SocketAddr::new(ip, 0), filter.clone())
                .await
                .expect("entry point listener");
            servers.push(LiveServer {
                id: (*id).into(),
                ip,
                address: listener.address(),
                listener: Some(listener),
                agent: None,
                config: dir.path().join(format!("{id}.toml")),
                log: dir.path().join(format!("{id}.log")),
            });
        }
        let fleet = json!({
            "routes": [{"id": "live", "name": "Live"}],
            "servers": servers.iter().map(|s| json!({
                "id": s.id, "name": s.id.to_uppercase(), "country": if s.id.starts_with('a') { "DE" } else { "NL" },
                "routes": ["live"],
                "entry_points": [{"id": format!("{}-vless", s.id), "protocol": "vless",
                                  "host": s.ip.to_string(), "port": s.address.port(), "sni": "www.example.com"}]
            })).collect::<Vec<_>>(),
            "users": [{"id": "alice", "name": "Alice", "routes": ["live"]}]
        });
        let response: Value = app
            .put_fleet(&fleet)
            .await
            .json()
            .await
            .expect("fleet json");
        let tokens: HashMap<String, String> =
            serde_json::from_value(response["agent_tokens"].clone()).expect("agent tokens");

        for s in &mut servers {
            let spool = dir.path().join(format!("{}-spool", s.id));
            // Their peers listen on 127.0.x.y, which agents refuse by default.
            std::fs::write(
                &s.config,
                format!(
                    "panel_url = {:?}\ntoken = {:?}\nlistener = \"{}\"\nprobe_source = \"{}\"\nspool_dir = {:?}\nallow_private_targets = true\n[service]\ncommand = [\"true\"]\n",
                    app.address,
                    tokens[&s.id],
                    s.address,
                    s.ip,
                    spool.display().to_string()
                ),
            )
            .expect("agent config");
            s.agent = Some(spawn_agent(s, &env(&s.id)));
        }
        Self {
            filter,
            servers,
            _dir: dir,
        }
    }

    fn server(&self, id: &str) -> &LiveServer {
        self.servers
            .iter()
            .find(|s| s.id == id)
            .expect("known server")
    }

    fn server_mut(&mut self, id: &str) -> &mut LiveServer {
        self.servers
            .iter_mut()
            .find(|s| s.id == id)
            .expect("known server")
    }

    /// Cuts the path from `witness`'s agent to `target`'s entry point.
    fn cut(&self, witness: &str, target: &str) {
        self.filter.cut(
            self.server(target).address,
            self.server(witness).ip,
            Cut::Blackhole,
        );
    }

    fn restore(&self, witness: &str, target: &str) {
        self.filter
            .restore(self.server(target).address, self.server(witness).ip);
    }

    fn kill_listener(&mut self, id: &str) {
        self.server_mut(id).listener = None;
    }

    async fn restart_listener(&mut self, id: &str) {
        let filter = self.filter.clone();
        let server = self.server_mut(id);
        let mut attempts = 0;
        let listener = loop {
            match LabListener::spawn(server.address, filter.clone()).await {
                Ok(listener) => break listener,
                Err(e) if attempts < 50 => {
                    attempts += 1;
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot listen on {} again: {e}", server.address),
            }
        };
        server.listener = Some(listener);
    }

    /// SIGTERM to every agent, then waits for them to exit (they flush).
    fn stop_agents(&mut self) {
        for s in &mut self.servers {
            if let Some(mut child) = s.agent.take() {
                let _ = Command::new("kill")
                    .args(["-TERM", &child.id().to_string()])
                    .status();
                let status = wait_exit(&mut child, Duration::from_secs(15));
                assert!(
                    status.is_some_and(|s| s.success()),
                    "agent {} exits cleanly after SIGTERM: {status:?}\n{}",
                    s.id,
                    tail(&s.log)
                );
            }
        }
    }

    fn logs(&self) -> String {
        self.servers
            .iter()
            .map(|s| format!("--- {} ---\n{}", s.id, tail(&s.log)))
            .collect()
    }

    async fn view(&self, app: &TestApp, id: &str) -> Value {
        get(app, &format!("/api/v1/servers/{id}")).await
    }

    /// Polls the server's view until `ready` holds.
    async fn wait_for(
        &self,
        app: &TestApp,
        id: &str,
        what: &str,
        ready: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let view = self.view(app, id).await;
            if ready(&view) {
                return view;
            }
            if tokio::time::Instant::now() > deadline {
                panic!(
                    "{id}: {what} did not happen within {WAIT:?}; last view {view:#}\n{}",
                    self.logs()
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn wait_all_healthy(&self, app: &TestApp) {
        for s in &self.servers {
            self.wait_for(app, &s.id, "healthy with probes flowing", |v| {
                v["status"] == "healthy" && !v["stale"].as_bool().unwrap_or(true)
            })
            .await;
        }
    }
}

impl Drop for LiveFleet {
    fn drop(&mut self) {
        for s in &mut self.servers {
            if let Some(mut child) = s.agent.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

fn spawn_agent(server: &LiveServer, env: &[(&'static str, String)]) -> Child {
    let log = std::fs::File::create(&server.log).expect("agent log");
    Command::new(agent_binary())
        .arg("--config")
        .arg(&server.config)
        .env("RUST_LOG", "meshwatch=debug")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("meshwatch-agent starts")
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + within;
    while std::time::Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    None
}

fn tail(path: &PathBuf) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

fn no_env(_: &str) -> Vec<(&'static str, String)> {
    Vec::new()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_listener_makes_its_server_unavailable_until_it_listens_again() {
    let app = spawn_app().await;
    let mut fleet = LiveFleet::start(&app, 121, &["a1", "b1", "b2"], &no_env).await;
    fleet.wait_all_healthy(&app).await;

    fleet.kill_listener("b1");
    let view = fleet
        .wait_for(&app, "b1", "Server unavailable", |v| {
            v["status"] == "unavailable"
        })
        .await;
    assert_eq!(view["self_check"]["listener_ok"], false, "{view:#}");
    assert_eq!(view["in_rotation"], false);

    fleet.restart_listener("b1").await;
    fleet
        .wait_for(&app, "b1", "self-healing", |v| v["status"] == "healthy")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_path_marks_the_pair_and_blames_no_one() {
    let app = spawn_app().await;
    let fleet = LiveFleet::start(&app, 122, &["a1", "b1", "b2"], &no_env).await;
    fleet.wait_all_healthy(&app).await;

    fleet.cut("a1", "b1");
    let view = fleet
        .wait_for(&app, "b1", "a pair mark", |v| {
            v["status"] == "entry_points_unavailable"
        })
        .await;
    let causes = &view["entry_points"][0]["causes"];
    assert_eq!(causes[0]["from"], "a1", "{view:#}");
    assert_eq!(causes[0]["to"], "b1", "{view:#}");
    assert_eq!(view["in_rotation"], true, "a pair failure removes nothing");
    assert_eq!(fleet.view(&app, "a1").await["status"], "healthy");

    fleet.restore("a1", "b1");
    fleet
        .wait_for(&app, "b1", "the mark lifted", |v| v["status"] == "healthy")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verifier_agent_tells_a_filtered_sni_from_a_frozen_range() {
    let app = spawn_app().await;
    let fleet = LiveFleet::start(&app, 125, &["a1", "b1", "b2", "v1"], &no_env).await;
    fleet.wait_all_healthy(&app).await;
    let marked = app
        .client
        .put(app.url("/api/v1/servers/v1/verifier"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"enabled": true, "network": "MTS mobile", "control_sni": "ya.ru"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(marked.status(), 200);
    let verifier = fleet.server("v1").ip;
    // From the verifier's network only: b1's SNI is reset, b2's answers
    // freeze after 16 KB.
    fleet
        .filter
        .block_sni(fleet.server("b1").address, verifier, "www.example.com");
    fleet
        .filter
        .freeze_after(fleet.server("b2").address, verifier, 16 * 1024);
    let sni = fleet
        .wait_for(&app, "b1", "an SNI block", |v| {
            v["blocked_on"][0]["kind"] == "sni"
        })
        .await;
    assert_eq!(sni["status"], "blocked", "{sni:#}");
    assert_eq!(sni["blocked_on"][0]["network"], "MTS mobile");
    let frozen = fleet
        .wait_for(&app, "b2", "a freeze", |v| {
            v["blocked_on"][0]["kind"] == "throttled"
        })
        .await;
    // The 16 KB of the answer, with the handshake and the TLS records'
    // framing the connection received before them.
    let bytes = frozen["blocked_on"][0]["frozen_after_bytes"]
        .as_u64()
        .unwrap_or(0);
    assert!((16 * 1024..24 * 1024).contains(&bytes), "{frozen:#}");
    assert_eq!(frozen["in_rotation"], false);
    // The control path saw nothing: a1 is reached by the verifier.
    let a1 = fleet.view(&app, "a1").await;
    assert_eq!(a1["status"], "healthy", "{a1:#}");
    assert_eq!(a1["blocked_on"], json!([]));

    fleet.filter.restore_all();
    fleet
        .wait_for(&app, "b1", "the SNI block lifted", |v| {
            v["status"] == "healthy"
        })
        .await;
    fleet
        .wait_for(&app, "b2", "the freeze lifted", |v| {
            v["status"] == "healthy"
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cuts_from_two_witnesses_make_a_server_unreachable() {
    let app = spawn_app().await;
    let fleet = LiveFleet::start(&app, 123, &["a1", "a2", "b1", "b2"], &no_env).await;
    fleet.wait_all_healthy(&app).await;

    fleet.cut("a1", "b2");
    fleet.cut("a2", "b2");
    let view = fleet
        .wait_for(&app, "b2", "unreachable by quorum", |v| {
            v["status"] == "unreachable"
        })
        .await;
    assert_eq!(view["unreachable"]["failing"], 2, "{view:#}");
    assert_eq!(view["unreachable"]["of"], 3, "{view:#}");
    let failing: HashSet<&str> = view["unreachable"]["failing_witnesses"]
        .as_array()
        .expect("witnesses")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(failing, HashSet::from(["a1", "a2"]));

    fleet.restore("a1", "b2");
    fleet
        .wait_for(&app, "b2", "quorum lost", |v| v["status"] != "unreachable")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panel_restart_loses_no_report_and_counts_none_twice() {
    let app = spawn_app().await;
    let mut fleet = LiveFleet::start(&app, 124, &["a1", "b1", "b2"], &no_env).await;
    fleet.wait_all_healthy(&app).await;

    // The agents keep reporting into a dead port, queue, and resend.
    let app = app.restart_after(Duration::from_secs(4)).await;
    for s in &fleet.servers {
        fleet
            .wait_for(&app, &s.id, "reports after the restart", |v| {
                v["stale"] == false && v["status"] == "healthy"
            })
            .await;
    }
    // Every report the agents queued so far (during the outage too) has
    // arrived before they stop.
    for s in &fleet.servers {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let queued = queued_reports(&std::fs::read_to_string(&s.log).expect("agent log"));
            let received = get(
                &app,
                &format!("/api/v1/servers/{}/reports?limit=1000", s.id),
            )
            .await;
            let received: HashSet<String> = received
                .as_array()
                .expect("reports")
                .iter()
                .filter_map(|r| r["report_id"].as_str().map(str::to_owned))
                .collect();
            if queued.keys().all(|id| received.contains(id)) {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{}: queued reports never arrived",
                s.id
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    fleet.stop_agents();

    for s in &fleet.servers {
        let log = std::fs::read_to_string(&s.log).expect("agent log");
        assert!(
            log.contains("report not delivered"),
            "{} saw the panel down:\n{}",
            s.id,
            tail(&s.log)
        );
        let queued = queued_reports(&log);
        let received = get(
            &app,
            &format!("/api/v1/servers/{}/reports?limit=1000", s.id),
        )
        .await;
        let received: HashMap<String, u64> = received
            .as_array()
            .expect("reports")
            .iter()
            .map(|r| {
                (
                    r["report_id"].as_str().expect("id").to_owned(),
                    r["accepted_probes"].as_u64().expect("count"),
                )
            })
            .collect();
        assert_eq!(
            received.keys().collect::<HashSet<_>>(),
            queued.keys().collect::<HashSet<_>>(),
            "{}: every queued report arrives exactly once",
            s.id
        );
        assert_eq!(
            received, queued,
            "{}: each report's probes applied once",
            s.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_minutes_of_clock_skew_does_not_change_freshness() {
    let app = spawn_app().await;
    let skew = |id: &str| match id {
        "a1" => vec![("MESHWATCH_AGENT_CLOCK_OFFSET_S", "300".to_owned())],
        "b1" => vec![("MESHWATCH_AGENT_CLOCK_OFFSET_S", "-300".to_owned())],
        _ => Vec::new(),
    };
    let fleet = LiveFleet::start(&app, 125, &["a1", "b1", "b2"], &skew).await;
    fleet.wait_all_healthy(&app).await;
    for id in ["a1", "b1", "b2"] {
        let view = fleet.view(&app, id).await;
        let last: chrono::DateTime<chrono::Utc> =
            serde_json::from_value(view["last_report_at"].clone()).expect("last_report_at");
        let age = chrono::Utc::now() - last;
        assert!(
            age.num_seconds().abs() < 10,
            "{id}: freshness is the panel's clock at receipt, not the agent's ({age})"
        );
        assert_eq!(view["stale"], false);
    }
    // The skewed witnesses' probe results still count.
    fleet.cut("a1", "b2");
    fleet.cut("b1", "b2");
    fleet
        .wait_for(&app, "b2", "unreachable seen by skewed witnesses", |v| {
            v["status"] == "unreachable"
        })
        .await;
}

/// `report_id → probes` of every "report queued" line of an agent's log.
fn queued_reports(log: &str) -> HashMap<String, u64> {
    log.lines()
        .filter(|line| line.contains("report queued"))
        .filter_map(|line| {
            let field = |name: &str| {
                line.split_whitespace()
                    .find_map(|word| word.strip_prefix(name))
                    .map(str::to_owned)
            };
            Some((field("report_id=")?, field("probes=")?.parse().ok()?))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_too_big_for_one_report_is_reported_in_parts_and_nothing_is_lost() {
    const BIG: u16 = 2_500;
    let app = spawn_app().await;
    let fleet = LiveFleet::start(&app, 126, &["a1"], &no_env).await;
    fleet.wait_all_healthy(&app).await;
    // A server with more entry points than one report may carry, at an
    // address where nothing listens (each knock is refused at once). The
    // agent learns of it from its next report's answer (the fleet version),
    // not from its hourly configuration refresh.
    let entry_points: Vec<Value> = (1..=BIG)
        .map(|i| {
            json!({"id": format!("big-{i}"), "protocol": "shadowsocks",
                        "host": "127.0.126.250", "port": 20_000 + i})
        })
        .collect();
    let big = json!({"servers": [{"id": "big", "name": "BIG", "country": "FI", "routes": ["live"],
                                  "entry_points": entry_points}]});
    assert_eq!(app.put_fleet(&big).await.status(), 200);

    let view = fleet
        .wait_for(&app, "big", "every entry point marked by a1", |v| {
            v["entry_points"]
                .as_array()
                .is_some_and(|eps| eps.iter().all(|e| e["available"] == false))
        })
        .await;
    assert_eq!(
        view["entry_points"].as_array().map(Vec::len),
        Some(usize::from(BIG))
    );

    let reports = get(&app, "/api/v1/servers/a1/reports?limit=1000").await;
    let accepted: Vec<u64> = reports
        .as_array()
        .expect("reports")
        .iter()
        .filter_map(|r| r["accepted_probes"].as_u64())
        .collect();
    assert!(
        accepted
            .iter()
            .all(|&n| n <= meshwatch_agent::report_parts::MAX_PROBES_PER_REPORT as u64),
        "{accepted:?}"
    );
    assert!(
        accepted.iter().filter(|&&n| n > 0).count() >= 4,
        "several parts per interval: {accepted:?}"
    );
    // Every report the agent queued was applied once: the panel stored
    // exactly the ids the agent logged, and refused none.
    let log = std::fs::read_to_string(&fleet.server("a1").log).expect("log");
    assert!(!log.contains("refused a report"), "{}", fleet.logs());
    let queued = queued_reports(&log);
    for r in reports.as_array().expect("reports") {
        let id = r["report_id"].as_str().expect("id");
        assert_eq!(
            queued.get(id).copied(),
            r["accepted_probes"].as_u64(),
            "report {id} as queued and as applied"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peers_learn_a_new_entry_point_long_before_their_config_refresh() {
    let app = spawn_app().await;
    let fleet = LiveFleet::start(&app, 127, &["a1", "b1"], &no_env).await;
    fleet.wait_all_healthy(&app).await;
    // The operator gives b1 a second address (the agents' config refresh
    // is 300 s away; the wait below gives up after 40 s).
    let b1 = fleet.server("b1");
    let moved = json!({"servers": [{"id": "b1", "name": "B1", "country": "NL", "routes": ["live"],
    "entry_points": [
        {"id": "b1-vless", "protocol": "vless", "host": b1.ip.to_string(), "port": b1.address.port(), "sni": "www.example.com"},
        {"id": "b1-second", "protocol": "vless", "host": b1.ip.to_string(), "port": b1.address.port(), "sni": "www.example.com"}
    ]}]});
    assert_eq!(app.put_fleet(&moved).await.status(), 200);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let reports = get(&app, "/api/v1/servers/a1/reports?limit=5").await;
        if reports
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["accepted_probes"] == 2))
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "a1 never probed b1's new entry point\n{}",
            fleet.logs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
