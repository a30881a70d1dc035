//! Backups and restores with the real binary: a backup taken while agents
//! report, restored into another panel's place, serves everything the
//! first panel had, its secrets included; a restore under a running panel,
//! and a second panel on one database, are refused.

use crate::agent::report;
use crate::binary::{client, command, run, start, terminate, Panel};
use crate::helpers::{location, session_cookie};
use serde_json::{json, Value};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ADMIN: &str = "backup-test-admin-token-0001";
const PASSWORD: &str = "a long operator password";
const SUB: &str = "alice-backup-sub-token-0001";
const AGENTS: [(&str, &str); 3] = [
    ("de-1", "de-1-backup-agent-token-0001"),
    ("de-2", "de-2-backup-agent-token-0001"),
    ("nl-1", "nl-1-backup-agent-token-0001"),
];

fn url(db: &Path) -> String {
    format!("sqlite://{}", db.display())
}

/// The panel binary on `db`; with the admin token configured or not.
fn panel_on(db: &Path, admin_token: bool) -> Panel {
    let mut cmd = command(&url(db));
    if admin_token {
        cmd.env("MESHWATCH_ADMIN_TOKEN", ADMIN);
    }
    start(cmd)
}

/// `meshwatch-server <args>` on `db`, to completion.
fn cli(db: &Path, args: &[&str]) -> Output {
    let mut cmd = command(&url(db));
    cmd.args(args);
    run(cmd)
}

/// The same, off the async runtime, so reports keep flowing meanwhile.
async fn cli_in_background(db: &Path, args: &[&str]) -> Output {
    let mut cmd = command(&url(db));
    cmd.args(args);
    tokio::task::spawn_blocking(move || run(cmd))
        .await
        .expect("the command ran")
}

fn said(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A number read straight from a database file that nothing has open
/// (`immutable`: no `-wal` or `-shm` file is made beside it).
/// Waits until the running panel has written its first status changes
/// (the tick after the verdicts the API shows).
async fn wait_for_history(db: &Path) {
    let options = SqliteConnectOptions::new().filename(db).read_only(true);
    let pool = SqlitePool::connect_with(options).await.expect("opens");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM status_history")
            .fetch_one(&pool)
            .await
            .expect("counted");
        if rows > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "no status history written");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    pool.close().await;
}

async fn count(db: &Path, sql: &str) -> i64 {
    let options = SqliteConnectOptions::new()
        .filename(db)
        .read_only(true)
        .immutable(true);
    let pool = SqlitePool::connect_with(options).await.expect("opens");
    let n = sqlx::query_scalar(sql)
        .fetch_one(&pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    pool.close().await;
    n
}

fn probe(server: &str) -> Value {
    json!({"entry_point_id": format!("{server}-ep"), "ok": true, "latency_ms": 20,
           "at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)})
}

/// Every agent reports (each probing the others) until told to stop;
/// counts the reports acknowledged.
fn keep_reporting(
    address: String,
    stop: Arc<AtomicBool>,
    acknowledged: Arc<AtomicU32>,
) -> tokio::task::JoinHandle<()> {
    let http = client();
    tokio::spawn(async move {
        let mut n = 0u32;
        while !stop.load(Ordering::SeqCst) {
            for (id, token) in AGENTS {
                n += 1;
                let probes = AGENTS
                    .iter()
                    .filter(|(other, _)| *other != id)
                    .map(|(other, _)| probe(other))
                    .collect();
                let response = http
                    .post(format!("{address}/api/agent/v1/report"))
                    .bearer_auth(token)
                    .json(&report(
                        &format!("00000000-0000-4000-8000-{n:012}"),
                        true,
                        probes,
                    ))
                    .send()
                    .await
                    .expect("sent");
                if response.status() == 202 {
                    acknowledged.fetch_add(1, Ordering::SeqCst);
                }
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    })
}

async fn admin_get(address: &str, path: &str, token: &str) -> reqwest::Response {
    client()
        .get(format!("{address}{path}"))
        .bearer_auth(token)
        .send()
        .await
        .expect("sent")
}

/// The fleet, a setting, an operator (made by the command while the panel
/// runs) and a test notification; returns the session cookie.
async fn provision(panel: &Panel, db: &Path) -> String {
    let http = client();
    let fleet = json!({
        "routes": [{"id": "de", "name": "Germany"}],
        "servers": AGENTS.iter().map(|(id, token)| json!({
            "id": id, "name": id.to_uppercase(), "country": "DE", "routes": ["de"],
            "agent_token": token,
            "entry_points": [{"id": format!("{id}-ep"), "protocol": "vless",
                              "host": "127.0.30.1", "port": 443}]})).collect::<Vec<_>>(),
        "users": [{"id": "alice", "name": "Alice", "routes": ["de"], "sub_token": SUB}]
    });
    let put = http
        .put(format!("{}/api/v1/fleet", panel.address))
        .bearer_auth(ADMIN)
        .json(&fleet)
        .send()
        .await
        .expect("sent");
    assert_eq!(put.status(), 200);
    // Fast reports (the rate limit follows the report interval).
    let settings = http
        .put(format!("{}/api/v1/settings", panel.address))
        .bearer_auth(ADMIN)
        .json(
            &json!({"report_interval_s": 1, "probe_interval_s": 1, "probe_timeout_s": 1,
                      "stale_after_s": 30, "failure_streak": 2, "quorum": 2}),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(settings.status(), 200);

    let mut create = command(&url(db));
    create
        .args(["create-operator", "ops"])
        .env("MESHWATCH_OPERATOR_PASSWORD", PASSWORD);
    let created = tokio::task::spawn_blocking(move || run(create))
        .await
        .expect("ran");
    assert!(created.status.success(), "{}", said(&created.stderr));

    let login = http
        .post(format!("{}/login", panel.address))
        .form(&[("username", "ops"), ("password", PASSWORD)])
        .send()
        .await
        .expect("sent");
    let cookie = session_cookie(login.headers()).expect("signed in");
    let test = http
        .post(format!("{}/rpc/send_test_notification", panel.address))
        .header("cookie", &cookie)
        .header("origin", &panel.address)
        .header("accept", "application/json")
        .send()
        .await
        .expect("sent");
    assert_eq!(test.status(), 200, "a test notification is queued");
    cookie
}

/// Waits until every server is healthy (their status history has rows).
async fn wait_until_healthy(address: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let servers: Value = admin_get(address, "/api/v1/servers", ADMIN)
            .await
            .json()
            .await
            .expect("json");
        let statuses: Vec<&str> = servers
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|s| s["status"].as_str())
            .collect();
        if statuses.len() == AGENTS.len() && statuses.iter().all(|s| *s == "healthy") {
            return;
        }
        assert!(Instant::now() < deadline, "never all healthy: {statuses:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_agents_report_restores_into_a_working_panel() {
    let dir = tempfile::tempdir().expect("dir");
    let first_db = dir.path().join("first").join("meshwatch.db");
    let second_db = dir.path().join("second").join("meshwatch.db");
    let backups = dir.path().join("backups");
    std::fs::create_dir_all(&backups).expect("backups dir");
    let backup = backups.join("meshwatch-2026-12-04.db");
    let backup_arg = backup.to_str().expect("a UTF-8 path").to_owned();

    // A panel in use: fleet, settings, an operator, an outbox row, and
    // agents reporting throughout the backup.
    let first = panel_on(&first_db, true);
    provision(&first, &first_db).await;
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(AtomicU32::new(0));
    let reporter = keep_reporting(first.address.clone(), stop.clone(), acknowledged.clone());
    wait_until_healthy(&first.address).await;
    wait_for_history(&first_db).await;

    let before_backup = acknowledged.load(Ordering::SeqCst);
    let made = cli_in_background(&first_db, &["backup", backup_arg.as_str()]).await;
    assert!(made.status.success(), "{}", said(&made.stderr));
    let told = said(&made.stdout);
    assert!(told.contains("Backed up"), "{told}");
    let key_file = first_db.with_file_name("meshwatch.key");
    assert!(
        told.contains(&format!("back up {} too", key_file.display())),
        "the key file is named: {told}"
    );
    assert!(!backups.join("meshwatch-2026-12-04.db.partial").exists());
    // The panel went on ingesting.
    let after_backup = acknowledged.load(Ordering::SeqCst);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while acknowledged.load(Ordering::SeqCst) <= after_backup {
        assert!(
            std::time::Instant::now() < deadline,
            "reports are still acknowledged after the backup"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let again = cli_in_background(&first_db, &["backup", backup_arg.as_str()]).await;
    assert!(!again.status.success(), "a backup never replaces a file");
    assert!(said(&again.stderr).contains("already exists"));

    stop.store(true, Ordering::SeqCst);
    reporter.await.expect("the reporter ends");
    assert!(terminate(first).success());

    // Everything acknowledged before the backup began is in it.
    let in_backup = count(&backup, "SELECT COUNT(*) FROM agent_reports").await;
    assert!(
        in_backup >= i64::from(before_backup),
        "{in_backup} reports in the backup, {before_backup} acknowledged before it"
    );
    let history = count(&backup, "SELECT COUNT(*) FROM status_history").await;
    let outbox = count(&backup, "SELECT COUNT(*) FROM notification_outbox").await;
    assert!(
        history > 0 && outbox > 0,
        "history {history}, outbox {outbox}"
    );

    // Another panel's place: it ran once (its own key file and database).
    let fresh = panel_on(&second_db, false);
    assert!(terminate(fresh).success());

    // Not under a running panel; and no second panel on one database.
    let running = panel_on(&second_db, false);
    let refused = cli(&second_db, &["restore", backup_arg.as_str()]);
    assert!(!refused.status.success());
    assert!(
        said(&refused.stderr).contains(&format!(
            "the database {} is in use by a running panel (stop it first)",
            second_db.display()
        )),
        "{}",
        said(&refused.stderr)
    );
    let second_panel = cli(&second_db, &[]);
    assert!(!second_panel.status.success(), "two panels on one database");
    assert!(said(&second_panel.stderr).contains("in use by a running panel"));
    assert!(terminate(running).success());

    let restored = cli(&second_db, &["restore", backup_arg.as_str()]);
    assert!(restored.status.success(), "{}", said(&restored.stderr));
    let told = said(&restored.stdout);
    assert!(told.contains("before-restore-"), "{told}");
    assert!(
        told.contains("Warning: the key file") && told.contains("is not the key"),
        "the fresh panel's key cannot open the backup's links: {told}"
    );
    let kept: Vec<PathBuf> = std::fs::read_dir(second_db.parent().expect("dir"))
        .expect("listed")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("meshwatch.db.before-restore-") && !n.ends_with("-wal")
            })
        })
        .collect();
    assert_eq!(kept.len(), 1, "the replaced database is kept: {kept:?}");
    assert!(!second_db.with_file_name("meshwatch.db-wal").exists());
    assert_eq!(
        count(&second_db, "SELECT COUNT(*) FROM status_history").await,
        history
    );
    assert_eq!(
        count(&second_db, "SELECT COUNT(*) FROM notification_outbox").await,
        outbox
    );
    // As the README says: the key file goes with the backup.
    std::fs::copy(&key_file, second_db.with_file_name("meshwatch.key")).expect("key copied");

    // No admin token configured now: the one that works is the backup's.
    let panel = panel_on(&second_db, false);
    let servers = admin_get(&panel.address, "/api/v1/servers", ADMIN).await;
    assert_eq!(servers.status(), 200, "the API token of before");
    let servers: Value = servers.json().await.expect("json");
    let ids: Vec<&str> = servers
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids, ["de-1", "de-2", "nl-1"]);
    let settings: Value = admin_get(&panel.address, "/api/v1/settings", ADMIN)
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(
        (&settings["report_interval_s"], &settings["stale_after_s"]),
        (&json!(1), &json!(30)),
        "the settings of before"
    );
    let notifications: Value = admin_get(&panel.address, "/api/v1/notifications", ADMIN)
        .await
        .json()
        .await
        .expect("json");
    assert!(
        notifications
            .as_array()
            .expect("a list")
            .iter()
            .any(|n| n["kind"] == "test"),
        "the outbox of before: {notifications}"
    );

    let http = client();
    let login = http
        .post(format!("{}/login", panel.address))
        .form(&[("username", "ops"), ("password", PASSWORD)])
        .send()
        .await
        .expect("sent");
    assert_eq!(location(&login), "/", "the operator signs in");
    let cookie = session_cookie(login.headers()).expect("a session");
    let card = http
        .get(format!("{}/users/alice", panel.address))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(card.status(), 200);
    assert!(
        card.text()
            .await
            .expect("html")
            .contains(&format!("/sub/{SUB}")),
        "the card shows the link again: the key file came with the backup"
    );
    let sub = http
        .get(format!("{}/sub/{SUB}", panel.address))
        .send()
        .await
        .expect("sent");
    assert_eq!(sub.status(), 200, "the subscription link of before");
    let ack = http
        .post(format!("{}/api/agent/v1/report", panel.address))
        .bearer_auth(AGENTS[0].1)
        .json(&report(
            "00000000-0000-4000-8000-999999999999",
            true,
            vec![],
        ))
        .send()
        .await
        .expect("sent");
    assert_eq!(ack.status(), 202, "the agent token of before");
    assert!(terminate(panel).success());
}

#[test]
fn restore_refuses_what_is_not_a_meshwatch_database() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("meshwatch.db");
    let not_a_database = dir.path().join("notes.txt");
    std::fs::write(&not_a_database, "just some text, not SQLite at all").expect("written");
    let refused = cli(&db, &["restore", not_a_database.to_str().expect("utf-8")]);
    assert!(!refused.status.success());
    assert!(
        said(&refused.stderr).contains("is not a meshwatch database"),
        "{}",
        said(&refused.stderr)
    );
    assert!(!db.exists(), "nothing restored");
}

#[test]
fn backup_refuses_an_in_memory_database() {
    let dir = tempfile::tempdir().expect("dir");
    let mut cmd = command("sqlite::memory:");
    cmd.args(["backup", dir.path().join("b.db").to_str().expect("utf-8")]);
    let refused = run(cmd);
    assert!(!refused.status.success());
    assert!(said(&refused.stderr).contains("in-memory database"));
}
