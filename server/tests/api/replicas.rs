//! Several `meshwatch-server` processes on one PostgreSQL database: any of
//! them takes every request, exactly one evaluates, and when it is killed
//! (`kill -9`, mid-stream) another takes over — no acknowledged report
//! lost, no status change recorded twice, one notification per incident,
//! and the live pages of the survivors still told. PostgreSQL only.

use crate::binary::{client, command, run, start, terminate, Panel};
use crate::helpers::backend::{postgres_admin_url, postgres_database_of, POSTGRES_SECRET_KEY};
use crate::helpers::{session_cookie, with_flash};
use serde_json::{json, Value};
use sqlx::PgPool;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ADMIN: &str = "replicas-admin-token-000";
const PASSWORD: &str = "a long password";
/// The verifier, and the servers of the one route.
const SERVERS: [&str; 4] = ["v-1", "s-1", "s-2", "s-3"];

fn replica(db: &str, name: &str) -> Panel {
    let mut cmd = command(db);
    cmd.env("MESHWATCH_ADMIN_TOKEN", ADMIN)
        .env("MESHWATCH_SECRET_KEY", POSTGRES_SECRET_KEY)
        .env("MESHWATCH_REPLICA", name);
    start(cmd)
}

async fn get_json(address: &str, path: &str) -> Value {
    let response = client()
        .get(format!("{address}{path}"))
        .bearer_auth(ADMIN)
        .send()
        .await
        .expect("sent");
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    response.json().await.expect("json")
}

/// Which replica evaluates, by `/readyz` of each: exactly one must.
async fn evaluators(replicas: &[&Panel]) -> Vec<String> {
    let mut evaluating = Vec::new();
    for panel in replicas {
        let ready = get_json(&panel.address, "/readyz").await;
        assert_eq!(ready["status"], "ready", "{ready}");
        if ready["evaluator"] == true {
            evaluating.push(ready["replica"].as_str().unwrap_or_default().to_owned());
        }
    }
    evaluating
}

/// Polls `check` every 100 ms for up to `within`; the time it took.
async fn eventually<F, Fut>(within: Duration, what: &str, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    loop {
        if check().await {
            return start.elapsed();
        }
        assert!(start.elapsed() < within, "{what}: not within {within:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn status_of(address: &str, server: &str) -> String {
    let view = get_json(address, &format!("/api/v1/servers/{server}")).await;
    view["status"].as_str().unwrap_or_default().to_owned()
}

/// The report driver: every server reports every `PACE`, each probing the
/// others, to the replicas in turn; the verifier fails on s-1 while
/// `blocked` is set. Records the id of every report acknowledged.
struct Driver {
    targets: Arc<Mutex<Vec<String>>>,
    blocked: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    acknowledged: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

const PACE: Duration = Duration::from_millis(250);

impl Driver {
    fn start(targets: Vec<String>, tokens: Value) -> Self {
        let targets = Arc::new(Mutex::new(targets));
        let blocked = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let acknowledged = Arc::new(Mutex::new(Vec::new()));
        let (t, b, s, a) = (
            targets.clone(),
            blocked.clone(),
            stop.clone(),
            acknowledged.clone(),
        );
        let task = tokio::spawn(async move {
            let http = client();
            let sent = AtomicU32::new(0);
            while !s.load(Ordering::SeqCst) {
                for server in SERVERS {
                    let n = sent.fetch_add(1, Ordering::SeqCst);
                    let address = {
                        let targets = t.lock().expect("targets");
                        targets[n as usize % targets.len()].clone()
                    };
                    let id = format!("00000000-0000-4000-8000-{n:012}");
                    let body = report(&id, server, b.load(Ordering::SeqCst));
                    let token = tokens[server].as_str().expect("a token");
                    let answer = http
                        .post(format!("{address}/api/agent/v1/report"))
                        .bearer_auth(token)
                        .json(&body)
                        .timeout(Duration::from_secs(10))
                        .send()
                        .await;
                    // A killed replica refuses: the agent would retry
                    // elsewhere; the report was never acknowledged.
                    if answer.is_ok_and(|r| r.status() == 202) {
                        a.lock().expect("acks").push(id);
                    }
                }
                tokio::time::sleep(PACE).await;
            }
        });
        Self {
            targets,
            blocked,
            stop,
            acknowledged,
            task,
        }
    }

    fn send_to(&self, targets: Vec<String>) {
        *self.targets.lock().expect("targets") = targets;
    }

    fn acknowledged(&self) -> usize {
        self.acknowledged.lock().expect("acks").len()
    }

    async fn stop(self) -> Vec<String> {
        self.stop.store(true, Ordering::SeqCst);
        self.task.await.expect("the driver ends");
        let acks = self.acknowledged.lock().expect("acks").clone();
        acks
    }
}

fn report(id: &str, server: &str, blocked: bool) -> Value {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let probes: Vec<Value> = SERVERS
        .iter()
        .filter(|other| **other != server)
        .map(|other| {
            let ok = !(blocked && server == "v-1" && *other == "s-1");
            json!({"entry_point_id": format!("{other}-ep"), "at": now, "ok": ok,
                   "latency_ms": if ok { json!(20) } else { json!(null) },
                   "error": if ok { json!(null) } else { json!("timeout") }})
        })
        .collect();
    json!({"report_id": id, "agent_version": "0.1.0", "sent_at": now,
           "self_check": {"listener_ok": true, "service_ok": true, "detail": null},
           "metrics": {"cpu_pct": 5.0}, "probes": probes})
}

/// A fresh database on the test cluster; `None` on SQLite (the replicas
/// tests need PostgreSQL: they skip, saying so).
async fn fresh_database(dir: &std::path::Path) -> Option<String> {
    let Some(admin_url) = postgres_admin_url() else {
        eprintln!("replicas: needs PostgreSQL (make test-postgres); skipped on SQLite");
        return None;
    };
    Some(postgres_database_of(dir, &admin_url).await)
}

/// Puts the fleet (its servers' entry points on 127.0.`net`.x, and
/// `users`) through `fleet_to` and the settings through `settings_to`;
/// the agent tokens.
async fn provision(fleet_to: &str, settings_to: &str, net: u8, users: Value) -> Value {
    let fleet = client()
        .put(format!("{fleet_to}/api/v1/fleet"))
        .bearer_auth(ADMIN)
        .json(&json!({"routes": [{"id": "r", "name": "Route"}],
                      "servers": fleet_servers(net), "users": users}))
        .send()
        .await
        .expect("sent");
    assert_eq!(fleet.status(), 200);
    let tokens = fleet.json::<Value>().await.expect("json")["agent_tokens"].clone();
    let settings = client()
        .put(format!("{settings_to}/api/v1/settings"))
        .bearer_auth(ADMIN)
        // Knocks of one pair count half a probe interval apart (receipt
        // time): at 1 s, every other report of the driver is a knock.
        .json(&json!({"failure_streak": 2, "stale_after_s": 600, "probe_interval_s": 1}))
        .send()
        .await
        .expect("sent");
    assert_eq!(settings.status(), 200);
    tokens
}

/// The fleet's servers: v-1 the verifier, the others on route `r`, each
/// with one entry point on 127.0.`net`.x.
fn fleet_servers(net: u8) -> Vec<Value> {
    SERVERS
        .iter()
        .enumerate()
        .map(|(i, id)| {
            json!({"id": id, "name": id.to_uppercase(), "country": if i == 0 { "RU" } else { "DE" },
                   "routes": if i == 0 { json!([]) } else { json!(["r"]) }, "verifier": i == 0,
                   "entry_points": [{"id": format!("{id}-ep"), "protocol": "vless",
                                     "host": format!("127.0.{net}.{}", i + 1), "port": 443}]})
        })
        .collect()
}

/// The status history of `server`, oldest first, as recorded.
async fn history(db: &PgPool, server: &str) -> Vec<String> {
    sqlx::query_scalar("SELECT conditions FROM status_history WHERE server_id = $1 ORDER BY id")
        .bind(server)
        .fetch_all(db)
        .await
        .expect("history")
}

async fn notifications_about(address: &str, server: &str, kind: &str) -> usize {
    let all = get_json(address, "/api/v1/notifications").await;
    all.as_array()
        .expect("a list")
        .iter()
        .filter(|n| n["server_id"] == server && n["kind"] == kind)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_fail_over_from_a_killed_evaluator_without_losing_or_repeating_anything() {
    let dir = tempfile::tempdir().expect("dir");
    let Some(db) = fresh_database(dir.path()).await else {
        return;
    };

    let a = replica(&db, "replica-a");
    let b = replica(&db, "replica-b");
    let c = replica(&db, "replica-c");
    assert_eq!(evaluators(&[&a, &b, &c]).await, ["replica-a"]);
    let metrics = client()
        .get(format!("{}/metrics", b.address))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("text");
    assert!(
        metrics.contains("meshwatch_evaluator{replica=\"replica-b\"} 0"),
        "{metrics}"
    );

    // The fleet through one replica, the settings through another: the
    // third serves both.
    let users = json!([{"id": "alice", "name": "Alice", "routes": ["r"]}]);
    let tokens = provision(&b.address, &c.address, 31, users).await;
    eventually(
        Duration::from_secs(5),
        "the settings reach replica-a",
        || async { get_json(&a.address, "/api/v1/settings").await["failure_streak"] == 2 },
    )
    .await;
    eventually(
        Duration::from_secs(5),
        "the fleet reaches replica-a",
        || async {
            client()
                .get(format!("{}/api/v1/servers/s-3", a.address))
                .bearer_auth(ADMIN)
                .send()
                .await
                .is_ok_and(|r| r.status() == 200)
        },
    )
    .await;

    let mut created = command(&db);
    created
        .args(["create-operator", "ops"])
        .env("MESHWATCH_SECRET_KEY", POSTGRES_SECRET_KEY)
        .env("MESHWATCH_OPERATOR_PASSWORD", PASSWORD);
    let created = run(created);
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );

    let all = vec![a.address.clone(), b.address.clone(), c.address.clone()];
    let driver = Driver::start(all, tokens);
    for replica in [&a, &b, &c] {
        let address = replica.address.clone();
        eventually(
            Duration::from_secs(15),
            "every server healthy everywhere",
            || {
                let address = address.clone();
                async move {
                    let mut healthy = true;
                    for server in SERVERS {
                        healthy &= status_of(&address, server).await == "healthy";
                    }
                    healthy
                }
            },
        )
        .await;
    }

    // The incident: the verifier loses s-1, everyone else still reaches it.
    driver.blocked.store(true, Ordering::SeqCst);
    let lag = eventually(
        Duration::from_secs(15),
        "s-1 blocked on replica-c",
        || async { status_of(&c.address, "s-1").await == "blocked" },
    )
    .await;
    eprintln!("replicas: blocked seen on a replica that does not evaluate after {lag:?}");
    eventually(
        Duration::from_secs(10),
        "one blocked notification",
        || async { notifications_about(&b.address, "s-1", "blocked").await == 1 },
    )
    .await;

    // A live page on a survivor, open before the evaluator dies.
    let login = client()
        .post(format!("{}/login", c.address))
        .form(&[("username", "ops"), ("password", PASSWORD)])
        .send()
        .await
        .expect("sent");
    let cookie = session_cookie(login.headers()).expect("signed in on replica-c");
    // A form posted to one replica, its outcome shown by another.
    let created = client()
        .post(format!("{}/rpc/create_api_token", b.address))
        .header("cookie", &cookie)
        .header("origin", &b.address)
        .header("accept", "text/html")
        .form(&[("name", "ci"), ("scope", "admin"), ("password", PASSWORD)])
        .send()
        .await
        .expect("sent");
    assert_eq!(created.status(), 302);
    let shown = client()
        .get(format!("{}/settings", c.address))
        .header("cookie", with_flash(&cookie, &created))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("html");
    assert!(shown.contains("Copy it now"), "{shown}");

    let mut events = client()
        .get(format!("{}/events", c.address))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(events.status(), 200);

    // kill -9 of the evaluator, mid-stream.
    let before_kill = driver.acknowledged();
    let mut a = a;
    a.child.kill().expect("SIGKILL");
    let killed_at = Instant::now();
    a.child.wait().expect("reaped");
    driver.send_to(vec![b.address.clone(), c.address.clone()]);
    eventually(Duration::from_secs(5), "a survivor evaluates", || async {
        evaluators(&[&b, &c]).await.len() == 1
    })
    .await;
    let failover = killed_at.elapsed();
    eprintln!("replicas: a survivor evaluates {failover:?} after the kill");
    assert!(
        failover <= Duration::from_secs(5),
        "failover took {failover:?}"
    );

    // The block holds across the failover (no second notification), then
    // clears: told once, recorded once, pushed to the open page.
    eventually(
        Duration::from_secs(10),
        "reports acknowledged after the kill",
        || async { driver.acknowledged() >= before_kill + 2 * SERVERS.len() },
    )
    .await;
    driver.blocked.store(false, Ordering::SeqCst);
    eventually(
        Duration::from_secs(15),
        "s-1 healthy again on replica-b",
        || async { status_of(&b.address, "s-1").await == "healthy" },
    )
    .await;
    eventually(
        Duration::from_secs(10),
        "one cleared notification",
        || async { notifications_about(&c.address, "s-1", "cleared").await == 1 },
    )
    .await;
    let mut seen = String::new();
    let pushed = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(chunk)) = events.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("\"server\":\"s-1\"") && seen.contains("healthy") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(pushed, Ok(true), "the survivor's page hears of it: {seen}");

    // A replica started late catches up.
    let d = replica(&db, "replica-d");
    eventually(
        Duration::from_secs(10),
        "replica-d serves what replica-b serves",
        || async {
            let mut same = true;
            for server in SERVERS {
                same &= status_of(&d.address, server).await == status_of(&b.address, server).await;
            }
            same
        },
    )
    .await;

    // Its Overview says which replica it is and which one evaluates.
    let evaluator = evaluators(&[&b, &c, &d]).await;
    let overview = client()
        .get(format!("{}/overview", d.address))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("html");
    let says = format!(
        "This panel is replica replica-d; replica {} evaluates the verdicts.",
        evaluator[0]
    );
    assert!(overview.contains(&says), "{overview}");

    let acknowledged = driver.stop().await;
    assert_eq!(notifications_about(&d.address, "s-1", "blocked").await, 1);
    assert_eq!(notifications_about(&d.address, "s-1", "cleared").await, 1);

    let pool = PgPool::connect(&db).await.expect("the database");
    // Every acknowledged report is stored, once (the killed replica may
    // have stored some it never acknowledged: their agents would retry).
    let stored: Vec<String> = sqlx::query_scalar("SELECT report_id FROM agent_reports")
        .fetch_all(&pool)
        .await
        .expect("reports");
    let unique: std::collections::HashSet<&String> = stored.iter().collect();
    assert_eq!(unique.len(), stored.len(), "a report stored twice");
    let missing: Vec<&String> = acknowledged
        .iter()
        .filter(|id| !unique.contains(id))
        .collect();
    assert!(missing.is_empty(), "acknowledged, not stored: {missing:?}");
    // No status change recorded twice: each row differs from the one before.
    for server in SERVERS {
        let rows = history(&pool, server).await;
        assert!(
            rows.windows(2).all(|w| w[0] != w[1]),
            "{server}: a change recorded twice: {rows:?}"
        );
    }
    assert_eq!(
        history(&pool, "s-1")
            .await
            .iter()
            .filter(|c| c.contains("blocked"))
            .count(),
        1,
        "one blocked incident"
    );
    pool.close().await;

    for panel in [b, c, d] {
        terminate(panel);
    }
}

async fn sign_in(address: &str, password: &str) -> reqwest::Response {
    client()
        .post(format!("{address}/login"))
        .form(&[("username", "ops"), ("password", password)])
        .send()
        .await
        .expect("sent")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replicas_share_one_set_of_sign_in_limits() {
    let dir = tempfile::tempdir().expect("dir");
    let Some(db) = fresh_database(dir.path()).await else {
        return;
    };
    let a = replica(&db, "limits-a");
    let b = replica(&db, "limits-b");
    let mut created = command(&db);
    created
        .args(["create-operator", "ops"])
        .env("MESHWATCH_SECRET_KEY", POSTGRES_SECRET_KEY)
        .env("MESHWATCH_OPERATOR_PASSWORD", PASSWORD);
    assert!(run(created).status.success());

    // A right password first: it forgives, and remembers this address.
    assert!(session_cookie(sign_in(&b.address, PASSWORD).await.headers()).is_some());
    // Failures spread over the replicas count together: after the fifth
    // one from this address, the next attempt on either is refused.
    for k in 0..5 {
        let replica = if k % 2 == 0 { &a } else { &b };
        let failed = sign_in(&replica.address, "wrong password").await;
        assert_eq!(
            failed.headers()["location"],
            "/login?error=invalid",
            "attempt {k}"
        );
    }
    for replica in [&a, &b] {
        let locked = sign_in(&replica.address, PASSWORD).await;
        assert_eq!(locked.headers()["location"], "/login?error=locked");
        assert!(session_cookie(locked.headers()).is_none());
    }
    let pool = PgPool::connect(&db).await.expect("the database");
    let counters: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM login_windows")
        .fetch_one(&pool)
        .await
        .expect("counted");
    assert!(
        counters >= 3,
        "the counters are in the database: {counters}"
    );
    pool.close().await;
    for panel in [a, b] {
        terminate(panel);
    }
}

/// A connected panel among replicas: only the evaluating replica writes
/// to it, and a failover neither repeats a change nor loses one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_evaluator_writes_to_a_connected_panel_and_a_failover_repeats_nothing() {
    use crate::fake_panels::remnawave;
    let dir = tempfile::tempdir().expect("dir");
    let Some(db) = fresh_database(dir.path()).await else {
        return;
    };
    let a = replica(&db, "replica-a");
    let b = replica(&db, "replica-b");
    assert_eq!(evaluators(&[&a, &b]).await, ["replica-a"]);

    let tokens = provision(&b.address, &b.address, 32, json!([])).await;

    let hosts = (1..=3)
        .map(|i| {
            remnawave::host(
                &format!("6a1f0000-0000-4000-8000-00000000000{i}"),
                &format!("127.0.32.{}", i + 1),
                443,
                false,
                &[],
            )
        })
        .collect();
    let fake = remnawave::start(hosts).await;
    // Connected through the replica that does not evaluate.
    let connected = client()
        .put(format!("{}/api/v1/connectors/rw", b.address))
        .bearer_auth(ADMIN)
        .json(
            &json!({"kind": "remnawave", "url": fake.url(), "token": remnawave::TOKEN,
                      "mode": "apply"}),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(connected.status(), 200);

    let driver = Driver::start(vec![a.address.clone(), b.address.clone()], tokens);
    eventually(Duration::from_secs(15), "every server healthy", || async {
        let mut healthy = true;
        for server in SERVERS {
            healthy &= status_of(&b.address, server).await == "healthy";
        }
        healthy
    })
    .await;
    let s_1 = "6a1f0000-0000-4000-8000-000000000001";
    let disable = crate::fake_panels::Recorded {
        method: "POST".into(),
        path: "/api/hosts/bulk/disable".into(),
        body: json!({"uuids": [s_1]}),
    };
    let enable = crate::fake_panels::Recorded {
        path: "/api/hosts/bulk/enable".into(),
        ..disable.clone()
    };

    driver.blocked.store(true, Ordering::SeqCst);
    fake.wait_for_writes(std::slice::from_ref(&disable)).await;

    // kill -9 of the evaluator: the survivor takes over the connector.
    let mut a = a;
    a.child.kill().expect("SIGKILL");
    a.child.wait().expect("reaped");
    driver.send_to(vec![b.address.clone()]);
    eventually(Duration::from_secs(5), "replica-b evaluates", || async {
        evaluators(&[&b]).await.len() == 1
    })
    .await;
    driver.blocked.store(false, Ordering::SeqCst);
    fake.wait_for_writes(&[disable.clone(), enable.clone()])
        .await;
    eventually(Duration::from_secs(15), "the record cleared", || async {
        get_json(&b.address, "/api/v1/connectors/rw").await["turned_off"]
            .as_array()
            .is_some_and(Vec::is_empty)
    })
    .await;
    driver.stop().await;
    assert_eq!(fake.writes(), [disable, enable], "each change made once");
    fake.assert_only_documented();
    terminate(b);
}

/// The LISTEN connection is one of its own, outside the writer's pool: it
/// shows in `pg_stat_activity` under its own name, listening, and it is
/// the only connection that does. PostgreSQL only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listen_connection_is_its_own() {
    if postgres_admin_url().is_none() {
        return;
    }
    let app = crate::helpers::spawn_app().await;
    let pool = PgPool::connect(&app.database_url).await.expect("database");
    // `store::postgres::LISTENER_NAME`.
    let listening: Vec<(Option<String>, String)> = sqlx::query_as(
        "SELECT application_name, query FROM pg_stat_activity
         WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
    )
    .fetch_all(&pool)
    .await
    .expect("pg_stat_activity");
    assert_eq!(listening.len(), 1, "{listening:?}");
    assert_eq!(listening[0].0.as_deref(), Some("meshwatch listener"));
}
