//! kill -9 of the panel in the middle of real agents' reports: every report
//! an agent saw acknowledged is applied exactly once after the restart, and
//! the reports that found the panel down are delivered from the spool.

use crate::binary::{client, command, start, terminate, Panel};
use crate::live_agents::agent_binary;
use meshwatch_agent::lab::{LabListener, PathFilter};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ADMIN: &str = "crash-agents-admin-token-0";
const IDS: [&str; 3] = ["k-1", "k-2", "k-3"];

fn panel(db: &str, listen: &str) -> Panel {
    let mut cmd = command(db);
    cmd.env("MESHWATCH_ADMIN_TOKEN", ADMIN)
        .env("MESHWATCH_LISTEN", listen);
    start(cmd)
}

/// The report ids an agent's log says the panel acknowledged.
fn acknowledged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|line| line.contains("report delivered"))
        .filter_map(|line| {
            let start = line.find("report_id=")? + "report_id=".len();
            line[start..].split_whitespace().next().map(str::to_owned)
        })
        .collect()
}

/// Waits until every agent's log shows at least `count` acknowledgements.
async fn wait_for_acks(logs: &[PathBuf], count: usize, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let least = logs
            .iter()
            .map(|l| acknowledged(l).len())
            .min()
            .unwrap_or(0);
        if least >= count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: only {least} acknowledged"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until every agent's log says a report was not delivered.
async fn wait_for_undelivered(logs: &[PathBuf]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let all = logs.iter().all(|l| {
            std::fs::read_to_string(l).is_ok_and(|text| text.contains("report not delivered"))
        });
        if all {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "an agent never saw the panel gone"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_acknowledged_before_a_kill_9_are_applied_exactly_once() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/crash.db", dir.path().display());
    let first = panel(&db, "127.0.0.1:0");
    let address = first.address.clone();
    let http = client();
    let settings = http
        .put(format!("{address}/api/v1/settings"))
        .bearer_auth(ADMIN)
        .json(
            &json!({"report_interval_s": 1, "probe_interval_s": 1, "probe_timeout_s": 1,
                      "stale_after_s": 30, "failure_streak": 2, "quorum": 2}),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(settings.status(), 200);

    let filter = PathFilter::new();
    let mut listeners = Vec::new();
    for (i, _) in IDS.iter().enumerate() {
        let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 41, i as u8 + 1));
        listeners.push(
            LabListener::spawn(SocketAddr::new(ip, 0), filter.clone())
                .await
                .expect("listener"),
        );
    }
    let fleet = json!({
        "routes": [{"id": "k", "name": "Crash"}],
        "servers": IDS.iter().zip(&listeners).map(|(id, l)| json!({
            "id": id, "name": id, "country": "DE", "routes": ["k"],
            "entry_points": [{"id": format!("{id}-vless"), "protocol": "vless",
                              "host": l.address().ip().to_string(), "port": l.address().port(),
                              "sni": "www.example.com"}]
        })).collect::<Vec<_>>()
    });
    let put = http
        .put(format!("{address}/api/v1/fleet"))
        .bearer_auth(ADMIN)
        .json(&fleet)
        .send()
        .await
        .expect("sent");
    assert_eq!(put.status(), 200);
    let tokens: HashMap<String, String> =
        serde_json::from_value(put.json::<Value>().await.expect("json")["agent_tokens"].clone())
            .expect("tokens");

    let mut agents: Vec<Child> = Vec::new();
    let mut logs = Vec::new();
    for (id, listener) in IDS.iter().zip(&listeners) {
        let config = dir.path().join(format!("{id}.toml"));
        std::fs::write(
            &config,
            format!(
                "panel_url = {address:?}\ntoken = {:?}\nlistener = \"{}\"\nprobe_source = \"{}\"\nspool_dir = {:?}\nallow_private_targets = true\n[service]\ncommand = [\"true\"]\n",
                tokens[*id],
                listener.address(),
                listener.address().ip(),
                dir.path().join(format!("{id}-spool")).display().to_string()
            ),
        )
        .expect("config");
        let log = dir.path().join(format!("{id}.log"));
        agents.push(
            Command::new(agent_binary())
                .arg("--config")
                .arg(&config)
                .env("RUST_LOG", "meshwatch=debug")
                .env("NO_COLOR", "1")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).expect("log"))
                .spawn()
                .expect("agent starts"),
        );
        logs.push(log);
    }

    wait_for_acks(&logs, 4, "before the crash").await;
    // kill -9 in the middle of the stream: no graceful shutdown.
    let mut first = first;
    first.child.kill().expect("SIGKILL");
    first.child.wait().expect("reaped");
    let before: Vec<usize> = logs.iter().map(|l| acknowledged(l).len()).collect();
    // Agents keep probing and spool what they cannot deliver: each has
    // failed to deliver at least once before the panel comes back.
    wait_for_undelivered(&logs).await;

    let again = panel(&db, address.trim_start_matches("http://"));
    let most_before = before.iter().copied().max().unwrap_or(0);
    wait_for_acks(&logs, most_before + 4, "after the restart").await;
    for agent in &mut agents {
        let _ = Command::new("kill")
            .args(["-TERM", &agent.id().to_string()])
            .status();
    }
    for agent in &mut agents {
        let _ = agent.wait();
    }

    let status = |id: &'static str| {
        let http = http.clone();
        let address = again.address.clone();
        async move {
            http.get(format!("{address}/api/v1/servers/{id}"))
                .bearer_auth(ADMIN)
                .send()
                .await
                .expect("sent")
                .json::<Value>()
                .await
                .expect("json")
        }
    };
    for id in IDS {
        let server = status(id).await;
        assert_eq!(server["status"], "healthy", "{id}: {server}");
    }
    let spooled: usize = logs
        .iter()
        .map(|l| {
            std::fs::read_to_string(l)
                .unwrap_or_default()
                .matches("will retry")
                .count()
        })
        .sum();
    assert!(spooled > 0, "some reports found the panel down");
    assert!(terminate(again).success());

    let pool = sqlx::SqlitePool::connect(&db).await.expect("database");
    for (id, log) in IDS.iter().zip(&logs) {
        let acked = acknowledged(log);
        let unique: HashSet<&String> = acked.iter().collect();
        assert_eq!(
            unique.len(),
            acked.len(),
            "{id}: each report acknowledged once"
        );
        for report_id in &acked {
            let stored: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM agent_reports WHERE server_id = ? AND report_id = ?",
            )
            .bind(id)
            .bind(report_id.to_lowercase())
            .fetch_one(&pool)
            .await
            .expect("count");
            assert_eq!(
                stored, 1,
                "{id}: report {report_id} stored and applied once"
            );
        }
    }
    pool.close().await;
}
