//! Upgrades. A database of every earlier schema, holding what that schema
//! can hold (`tests/fixtures/schema_<version>.sql`), is migrated when the
//! panel starts and keeps every row; the panel then serves it with the
//! tokens, session and password of before. A database that a newer
//! meshwatch migrated is refused, naming both versions.

use crate::agent::{get, get_response, report};
use crate::binary::{command, run};
use crate::helpers::{location, session_cookie, spawn_app_in, sqlite_only, TestApp, ADMIN_TOKEN};
use meshwatch::UserId;
use meshwatch_server::crypto::sealing::SealingKey;
use meshwatch_server::crypto::secrets::{self, TokenHash};
use meshwatch_server::store::schema::{self, MIGRATOR, PANEL_VERSION};
use meshwatch_server::store::{Store, StoreError};
use serde_json::{json, Value};
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};
use std::borrow::Cow;
use std::path::Path;

/// The migrations whose data the checks below tell apart.
const AGENT_INGEST: i64 = 20261202000002;
const OUTBOX_RETRIES: i64 = 20261202000003;
const USER_SUB_TOKEN: i64 = 20261202000004;
const OUTBOX_TEST_MESSAGES: i64 = 20261202000005;
const OUTBOX_TARGETS: i64 = 20261202000006;
const SERVERS_CAN_LEAVE: i64 = 20261203000006;
const TELEGRAM_TARGET: i64 = 20261207000001;
const VERIFIER_NETWORK: i64 = 20261207000002;
const MAINTENANCE: i64 = 20261208000001;
const ACTIONS: i64 = 20261208000002;
const ACTIONS_DO_NO_HARM: i64 = 20261209000001;
const TOKEN_SCOPES: i64 = 20261209000002;
const CONNECTORS: i64 = 20261210000001;
const BLOCK_KINDS: i64 = 20261211000001;
const ACTION_KINDS: i64 = 20261211000002;
const OUTBOX_BLOCK_KINDS: i64 = 20261211000003;
const WITNESS_SETS: i64 = 20261212000001;

/// The secrets whose hashes the fixtures hold.
const DE_1_AGENT: &str = "de-1-agent-token-0001";
const NL_1_AGENT: &str = "nl-1-agent-token-0001";
const SUB_TOKEN: &str = "alice-sub-token-0001";
const API_TOKEN: &str = "fixture-api-token-0001";
const SESSION: &str = "fixture-session-token-0001";
const OPERATOR_PASSWORD: &str = "fixture operator password";

/// How the webhook's delivery error reads once migration 6 took the URL
/// out of it.
const WITHHELD: &str = "delivery failed (details withheld: they named the webhook URL)";

fn database_url(dir: &Path) -> String {
    format!("sqlite://{}/meshwatch.db", dir.display())
}

/// The migrations up to and including `version`, as an older binary had.
fn migrator_up_to(version: i64) -> Migrator {
    let count = MIGRATOR
        .iter()
        .position(|m| m.version == version)
        .expect("a migration of this binary")
        + 1;
    Migrator {
        migrations: Cow::Owned(MIGRATOR.migrations[..count].to_vec()),
        ..Migrator::DEFAULT
    }
}

/// A database as the panel of schema `version` left it: the migrations up
/// to that one, and its fixture.
async fn database_of_schema(url: &str, version: i64) {
    let options: SqliteConnectOptions = url.parse().expect("a sqlite URL");
    let pool = SqlitePool::connect_with(options.create_if_missing(true))
        .await
        .expect("database");
    migrator_up_to(version)
        .run(&pool)
        .await
        .expect("the earlier migrations");
    let path = format!(
        "{}/tests/fixtures/schema_{version}.sql",
        env!("CARGO_MANIFEST_DIR")
    );
    let fixture = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!("no {path}: every migration needs a fixture holding the data its schema can")
    });
    sqlx::raw_sql(&fixture)
        .execute(&pool)
        .await
        .unwrap_or_else(|e| panic!("{path} does not load: {e}"));
    // argon2 hashes are not written by hand.
    let hash = secrets::hash_password(OPERATOR_PASSWORD).expect("hash");
    sqlx::query("UPDATE operators SET password_hash = ? WHERE username = 'ops'")
        .bind(hash)
        .execute(&pool)
        .await
        .expect("the operator's password");
    pool.close().await;
}

async fn read_only(url: &str) -> SqlitePool {
    let options: SqliteConnectOptions = url.parse().expect("a sqlite URL");
    SqlitePool::connect_with(options.read_only(true))
        .await
        .expect("opens")
}

/// Every row the fixture put in, read back from the upgraded file.
async fn assert_rows_survived(url: &str, version: i64, key: &SealingKey) {
    let db = read_only(url).await;
    let from = format!("from schema {version}");

    let applied: Vec<(i64, bool)> =
        sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&db)
            .await
            .expect("migrations");
    let all: Vec<(i64, bool)> = MIGRATOR.iter().map(|m| (m.version, true)).collect();
    assert_eq!(applied, all, "{from}: every migration applied");

    let routes: Vec<(String, String, Option<i64>)> =
        sqlx::query_as("SELECT id, name, servers_per_user FROM routes ORDER BY id")
            .fetch_all(&db)
            .await
            .expect("routes");
    let expected: Vec<(String, String, Option<i64>)> = vec![
        ("de".into(), "Germany".into(), Some(1)),
        ("nl".into(), "Netherlands".into(), None),
    ];
    assert_eq!(routes, expected, "{from}");

    let servers: Vec<(String, String, String, bool, String)> = sqlx::query_as(
        "SELECT id, name, country, verifier, agent_token_hash FROM servers ORDER BY id",
    )
    .fetch_all(&db)
    .await
    .expect("servers");
    let expected: Vec<(String, String, String, bool, String)> = vec![
        (
            "de-1".into(),
            "Frankfurt 1".into(),
            "DE".into(),
            false,
            TokenHash::of(DE_1_AGENT).as_str().to_owned(),
        ),
        (
            "nl-1".into(),
            "Amsterdam 1".into(),
            "NL".into(),
            true,
            TokenHash::of(NL_1_AGENT).as_str().to_owned(),
        ),
    ];
    assert_eq!(servers, expected, "{from}");
    let networks: Vec<Option<String>> =
        sqlx::query_scalar("SELECT verifier_network FROM servers ORDER BY id")
            .fetch_all(&db)
            .await
            .expect("networks");
    let nl_network = (version >= VERIFIER_NETWORK).then(|| "MTS mobile".to_owned());
    assert_eq!(networks, vec![None, nl_network], "{from}");
    let server_routes: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT server_id, route_id, position FROM server_routes ORDER BY server_id, position",
    )
    .fetch_all(&db)
    .await
    .expect("server routes");
    let expected: Vec<(String, String, i64)> = vec![
        ("de-1".into(), "de".into(), 0),
        ("nl-1".into(), "nl".into(), 0),
        ("nl-1".into(), "de".into(), 1),
    ];
    assert_eq!(server_routes, expected, "{from}");

    type EntryPoint = (String, String, String, String, i64, Option<String>, String);
    let entry_points: Vec<EntryPoint> = sqlx::query_as(
        "SELECT id, server_id, protocol, host, port, sni, params FROM entry_points ORDER BY id",
    )
    .fetch_all(&db)
    .await
    .expect("entry points");
    let expected: Vec<EntryPoint> = vec![
        (
            "de-1-vless".into(),
            "de-1".into(),
            "vless".into(),
            "203.0.113.10".into(),
            443,
            Some("www.example.com".into()),
            r#"{"flow":"xtls-rprx-vision"}"#.into(),
        ),
        (
            "nl-1-trojan".into(),
            "nl-1".into(),
            "trojan".into(),
            "203.0.113.20".into(),
            8443,
            None,
            "{}".into(),
        ),
    ];
    assert_eq!(entry_points, expected, "{from}");

    let users: Vec<(String, String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT id, name, sub_token_hash, credential, sub_token FROM users ORDER BY id",
    )
    .fetch_all(&db)
    .await
    .expect("users");
    assert_eq!(users.len(), 1, "{from}");
    let (id, name, hash, credential, sealed) = &users[0];
    assert_eq!((id.as_str(), name.as_str()), ("alice", "Alice"), "{from}");
    assert!(
        credential.starts_with("v1:"),
        "{from}: the clear credential is sealed at start"
    );
    let opened = key
        .open_bound(b"credential:alice", credential)
        .expect("sealed with the panel's key, bound to the user's credential");
    assert_eq!(opened, b"4f1c2a9e-0000-4000-8000-000000000001", "{from}");
    assert_eq!(hash, TokenHash::of(SUB_TOKEN).as_str(), "{from}");
    if version >= USER_SUB_TOKEN {
        let sealed = sealed.as_deref().expect("the token is kept");
        assert!(
            sealed.starts_with("v1:") && !sealed.contains(SUB_TOKEN),
            "{from}: the clear token is sealed at start"
        );
        let alice = UserId::parse("alice").expect("id");
        assert_eq!(
            key.open(&alice, sealed).as_deref(),
            Ok(SUB_TOKEN),
            "{from}: sealed with the panel's key"
        );
    } else {
        assert_eq!(sealed, &None, "{from}: the panel never knew the token");
    }
    let user_routes: i64 = scalar(
        &db,
        "SELECT COUNT(*) FROM user_routes WHERE user_id = 'alice'",
    )
    .await;
    assert_eq!(user_routes, 1, "{from}");

    let operators: Vec<(i64, String)> = sqlx::query_as("SELECT id, username FROM operators")
        .fetch_all(&db)
        .await
        .expect("operators");
    assert_eq!(operators, vec![(1_i64, "ops".to_owned())], "{from}");
    let sessions: Vec<(String, i64)> =
        sqlx::query_as("SELECT token_hash, operator_id FROM sessions")
            .fetch_all(&db)
            .await
            .expect("sessions");
    assert_eq!(
        sessions,
        vec![(TokenHash::of(SESSION).as_str().to_owned(), 1_i64)],
        "{from}"
    );
    let api_tokens: Vec<(String, String, String, Option<i64>)> =
        sqlx::query_as("SELECT name, token_hash, scope, created_by FROM api_tokens ORDER BY id")
            .fetch_all(&db)
            .await
            .expect("API tokens");
    // An action's HTTP call, stored in clear by an earlier version, is
    // sealed once the panel has opened the database.
    if version >= ACTIONS {
        let call: String = sqlx::query_scalar("SELECT http FROM actions WHERE id = 2")
            .fetch_one(&db)
            .await
            .expect("the call");
        assert!(
            call.starts_with("v1:") && !call.contains("fixture-cloud-secret"),
            "{from}: {call}"
        );
    }
    // Tokens of before scopes could do everything: they are admin.
    let mut expected = vec![(
        "scripts".to_owned(),
        TokenHash::of(API_TOKEN).as_str().to_owned(),
        "admin".to_owned(),
        None,
    )];
    if version >= TOKEN_SCOPES {
        expected.push((
            "reader".to_owned(),
            "0000000000000000000000000000000000000000000000000000000000000002".to_owned(),
            "read".to_owned(),
            Some(1),
        ));
    }
    assert_eq!(api_tokens, expected, "{from}");

    let settings: (i64, i64, i64, Option<String>, Option<String>) = sqlx::query_as(
        "SELECT report_interval_s, stale_after_s, quorum, notify_email, notify_lang FROM settings",
    )
    .fetch_one(&db)
    .await
    .expect("settings");
    let lang = (version >= OUTBOX_TARGETS).then(|| "es".to_owned());
    let expected: (i64, i64, i64, Option<String>, Option<String>) =
        (30, 240, 3, Some("old@example.com".to_owned()), lang);
    assert_eq!(settings, expected, "{from}");
    let sets: (i64, i64, i64) = sqlx::query_as(
        "SELECT witness_set_threshold, witness_set_size, witness_rotation_s FROM settings",
    )
    .fetch_one(&db)
    .await
    .expect("witness set settings");
    // Earlier schemas take the defaults.
    let expected = if version >= WITNESS_SETS {
        (100, 8, 1800)
    } else {
        (64, 12, 3600)
    };
    assert_eq!(sets, expected, "{from}");

    assert_outbox_survived(&db, version).await;

    let connectors: Vec<(String, String, Option<String>, String)> =
        sqlx::query_as("SELECT id, kind, tag, mode FROM connectors")
            .fetch_all(&db)
            .await
            .expect("connectors");
    let off: Vec<(String, String, bool)> =
        sqlx::query_as("SELECT external_id, server_id, confirmed FROM connector_hosts_off")
            .fetch_all(&db)
            .await
            .expect("connector hosts off");
    if version >= CONNECTORS {
        assert_eq!(
            connectors,
            [(
                "rw".to_owned(),
                "remnawave".to_owned(),
                Some("MESHWATCH".to_owned()),
                "apply".to_owned()
            )],
            "{from}"
        );
        assert_eq!(
            off,
            [(
                "6a1f0000-0000-4000-8000-0000000000d1".to_owned(),
                "de-1".to_owned(),
                true
            )],
            "{from}"
        );
    } else {
        assert!(connectors.is_empty() && off.is_empty(), "{from}");
    }

    let history: Vec<(i64, String, String, String)> =
        sqlx::query_as("SELECT id, server_id, status, conditions FROM status_history ORDER BY id")
            .fetch_all(&db)
            .await
            .expect("history");
    let mut expected: Vec<(i64, String, String, String)> = vec![
        (1, "de-1".into(), "healthy".into(), "[]".into()),
        (2, "de-1".into(), "blocked".into(), r#"["blocked"]"#.into()),
        (3, "nl-1".into(), "no_data".into(), r#"["no_data"]"#.into()),
    ];
    if version >= SERVERS_CAN_LEAVE {
        expected.push((4, "fi-1".into(), "healthy".into(), "[]".into()));
    }
    if version >= MAINTENANCE {
        expected.push((
            5,
            "de-1".into(),
            "maintenance".into(),
            r#"["maintenance","blocked"]"#.into(),
        ));
    }
    assert_eq!(history, expected, "{from}");

    if version >= AGENT_INGEST {
        assert_ingest_survived(&db, &from).await;
        assert_block_kinds_survived(&db, version).await;
    }
    db.close().await;
}

/// The outbox rows, with what the migrations did to them: a webhook URL
/// taken out of the recipient and of the stored error.
async fn assert_outbox_survived(db: &SqlitePool, version: i64) {
    let from = format!("from schema {version}");
    type Row = (
        i64,
        String,
        Option<String>,
        String,
        String,
        String,
        i64,
        Option<String>,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, kind, server_id, recipient, target, state, attempts, last_error
         FROM notification_outbox ORDER BY id",
    )
    .fetch_all(db)
    .await
    .expect("outbox");
    let mut expected: Vec<Row> = vec![(
        1,
        "blocked".into(),
        Some("de-1".into()),
        "ops@example.com".into(),
        "email".into(),
        "sent".into(),
        1,
        None,
    )];
    expected.push(if version >= OUTBOX_TARGETS {
        (
            2,
            "cleared".into(),
            Some("de-1".into()),
            "webhook (hooks.example)".into(),
            "webhook".into(),
            "queued".into(),
            2,
            Some("webhook (hooks.example): operation timed out".into()),
        )
    } else {
        (
            2,
            "cleared".into(),
            Some("de-1".into()),
            "webhook".into(),
            "webhook".into(),
            "queued".into(),
            if version >= OUTBOX_RETRIES { 2 } else { 0 },
            (version >= OUTBOX_RETRIES).then(|| WITHHELD.to_owned()),
        )
    });
    if version >= OUTBOX_TEST_MESSAGES {
        expected.push((
            3,
            "test".into(),
            None,
            "ops@example.com".into(),
            "email".into(),
            "sent".into(),
            1,
            None,
        ));
    }
    if version >= OUTBOX_TARGETS {
        expected.push((
            4,
            "test".into(),
            None,
            String::new(),
            "none".into(),
            "queued".into(),
            0,
            None,
        ));
    }
    if version >= SERVERS_CAN_LEAVE {
        expected.push((
            5,
            "witness_network".into(),
            None,
            "ops@example.com".into(),
            "email".into(),
            "queued".into(),
            0,
            None,
        ));
    }
    if version >= TELEGRAM_TARGET {
        expected.push((
            6,
            "blocked".into(),
            Some("de-1".into()),
            "-1001234567890".into(),
            "telegram".into(),
            "sent".into(),
            1,
            None,
        ));
    }
    assert_eq!(rows, expected, "{from}");
    let leaked: i64 = scalar(
        db,
        "SELECT COUNT(*) FROM notification_outbox
         WHERE recipient LIKE '%secret-hook-token%' OR IFNULL(last_error, '') LIKE '%secret-hook-token%'",
    )
    .await;
    assert_eq!(leaked, 0, "{from}: the webhook URL is gone from the outbox");
}

/// Reports (ids in canonical form), the checkpoint and its sequence, the
/// latest self-report, metrics and pair state.
async fn assert_ingest_survived(db: &SqlitePool, from: &str) {
    let reports: Vec<(i64, String, String, bool)> = sqlx::query_as(
        "SELECT seq, report_id, server_id, probes IS NULL FROM agent_reports ORDER BY seq",
    )
    .fetch_all(db)
    .await
    .expect("reports");
    let expected: Vec<(i64, String, String, bool)> = vec![
        (
            39,
            "aaaaaaaa-0000-4000-8000-000000000039".into(),
            "nl-1".into(),
            true,
        ),
        (
            41,
            "aaaaaaaa-0000-4000-8000-000000000041".into(),
            "nl-1".into(),
            false,
        ),
    ];
    assert_eq!(reports, expected, "{from}");
    assert_eq!(
        scalar(db, "SELECT applied_seq FROM checkpoint WHERE id = 1").await,
        40,
        "{from}"
    );
    let next: i64 = scalar(
        db,
        "SELECT seq FROM sqlite_sequence WHERE name = 'agent_reports'",
    )
    .await;
    assert!(
        next >= 41,
        "{from}: report numbers go on above 41, not {next}"
    );
    let latest: Vec<(String, bool, bool, String)> = sqlx::query_as(
        "SELECT server_id, listener_ok, service_ok, agent_version FROM server_reports",
    )
    .fetch_all(db)
    .await
    .expect("self-reports");
    let expected: Vec<(String, bool, bool, String)> =
        vec![("nl-1".into(), true, true, "0.1.0".into())];
    assert_eq!(latest, expected, "{from}");
    assert_eq!(
        scalar(
            db,
            "SELECT COUNT(*) FROM metrics_history WHERE server_id = 'nl-1'"
        )
        .await,
        2,
        "{from}"
    );
    let pairs: Vec<(String, String, i64, Option<String>)> =
        sqlx::query_as("SELECT witness_id, entry_point_id, streak, last_error FROM pair_states")
            .fetch_all(db)
            .await
            .expect("pairs");
    let expected: Vec<(String, String, i64, Option<String>)> = vec![(
        "nl-1".into(),
        "de-1-vless".into(),
        2,
        Some("timeout".into()),
    )];
    assert_eq!(pairs, expected, "{from}");
}

/// What §8's checks left: a pair's stage, control retry and transfer
/// streak, a verifier's control targets and its control checks.
async fn assert_block_kinds_survived(db: &SqlitePool, version: i64) {
    let from = format!("from schema {version}");
    let kinds: (Option<String>, Option<bool>, Option<i64>, Option<i64>) = sqlx::query_as(
        "SELECT last_stage, sni_control, transfer_streak, transfer_bytes FROM pair_states",
    )
    .fetch_one(db)
    .await
    .expect("pair kinds");
    let controls: Vec<(String, i64)> =
        sqlx::query_as("SELECT verifier_id, streak FROM control_states")
            .fetch_all(db)
            .await
            .expect("control states");
    let targets: (Option<String>, String) = sqlx::query_as(
        "SELECT verifier_control_sni, verifier_controls FROM servers WHERE id = 'nl-1'",
    )
    .fetch_one(db)
    .await
    .expect("control targets");
    if version >= BLOCK_KINDS {
        assert_eq!(
            kinds,
            (Some("tls".into()), Some(true), Some(1), Some(16_384)),
            "{from}"
        );
        assert_eq!(controls, [("nl-1".to_owned(), 1)], "{from}");
        let kinds: Vec<String> =
            sqlx::query_scalar("SELECT block_kinds FROM notification_outbox ORDER BY id")
                .fetch_all(db)
                .await
                .expect("outbox kinds");
        let first = if version >= OUTBOX_BLOCK_KINDS {
            r#"["sni"]"#
        } else {
            "[]"
        };
        assert_eq!(kinds.first().map(String::as_str), Some(first), "{from}");
        assert!(kinds[1..].iter().all(|k| k == "[]"), "{from}: {kinds:?}");
        assert_eq!(
            targets,
            (
                Some("ya.ru".into()),
                r#"["ya.ru:443","vk.com:443"]"#.to_owned()
            ),
            "{from}"
        );
    } else {
        assert_eq!(kinds, (None, None, None, None), "{from}");
        assert!(controls.is_empty(), "{from}");
        assert_eq!(targets, (None, "[]".to_owned()), "{from}");
    }
}

async fn scalar(db: &SqlitePool, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(db)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The upgraded panel serves what the old one did, with its secrets.
async fn assert_the_panel_serves_it(app: &TestApp, version: i64) {
    let from = format!("from schema {version}");
    let http = &app.client;

    // The API token of before.
    let servers = http
        .get(app.url("/api/v1/servers"))
        .bearer_auth(API_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(servers.status(), 200, "{from}: the API token still works");
    let servers: Value = servers.json().await.expect("json");
    let shown: Vec<(&str, &str, bool)> = servers
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap_or(""),
                s["name"].as_str().unwrap_or(""),
                s["verifier"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("de-1", "Frankfurt 1", false),
            ("nl-1", "Amsterdam 1", true)
        ],
        "{from}"
    );

    // The maintenance windows planned before.
    let windows = get(app, "/api/v1/maintenance").await;
    let planned: Vec<(&str, &str)> = windows
        .as_array()
        .expect("a list")
        .iter()
        .map(|w| {
            (
                w["note"].as_str().unwrap_or(""),
                w["start"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let expected: Vec<(&str, &str)> = if version >= MAINTENANCE {
        vec![("kernel upgrade", "2099-01-01T02:00:00Z")]
    } else {
        Vec::new()
    };
    assert_eq!(planned, expected, "{from}");

    // The actions and their runs, the switch as it was.
    let actions = get_response(app, "/api/v1/actions")
        .await
        .text()
        .await
        .expect("text");
    assert!(
        !actions.contains("fixture-cloud-secret"),
        "{from}: {actions}"
    );
    let actions: Value = serde_json::from_str(&actions).expect("json");
    let runs = get(app, "/api/v1/actions/runs?server_id=de-1").await;
    let enabled = get(app, "/api/v1/actions/enabled").await;
    if version >= ACTIONS {
        assert_eq!(actions[0]["name"], "rotate IP", "{from}");
        assert_eq!(
            actions[1]["http"]["headers"]["Authorization"], "(hidden)",
            "{from}"
        );
        assert_eq!(runs[0]["output"], "new address 203.0.113.99", "{from}");
        assert_eq!(enabled["enabled"], false, "{from}");
        // Kinds came with their migration; before, an action ran on all.
        let kinds = (version >= ACTION_KINDS).then(|| json!(["ip", "throttled"]));
        assert_eq!(actions[0].get("kinds").cloned(), kinds, "{from}");
        assert_eq!(actions[1].get("kinds"), None, "{from}");
        // This host lists no program: the stored command stays off.
        assert!(
            actions[0]["off_on_this_host"]
                .as_str()
                .is_some_and(|why| why.contains("MESHWATCH_ACTION_COMMANDS")),
            "{from}: {actions}"
        );
    } else {
        assert_eq!(
            (actions, runs),
            (Value::Array(vec![]), Value::Array(vec![])),
            "{from}"
        );
        assert_eq!(enabled["enabled"], true, "{from}: on by default");
    }

    let budget = get(app, "/api/v1/actions/budget").await;
    let interrupted = get(app, "/api/v1/actions/runs?server_id=nl-1").await;
    if version >= ACTIONS_DO_NO_HARM {
        assert_eq!(
            budget,
            serde_json::json!({"runs_per_hour": 4, "cooldown_s": 7200}),
            "{from}"
        );
        assert_eq!(enabled["off_reason"], "budget", "{from}");
        assert_eq!(interrupted[0]["outcome"], "interrupted", "{from}");
    } else {
        assert_eq!(
            budget,
            serde_json::json!({"runs_per_hour": 6, "cooldown_s": 21600}),
            "{from}"
        );
        assert_eq!(enabled["off_reason"], Value::Null, "{from}");
        assert_eq!(interrupted, serde_json::json!([]), "{from}");
    }

    let settings: Value = http
        .get(app.url("/api/v1/settings"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(
        (
            &settings["report_interval_s"],
            &settings["stale_after_s"],
            &settings["quorum"]
        ),
        (&Value::from(30), &Value::from(240), &Value::from(3)),
        "{from}"
    );
    let threshold = if version >= WITNESS_SETS { 100 } else { 64 };
    assert_eq!(settings["witness_set_threshold"], threshold, "{from}");

    // The agent tokens of before.
    let config = http
        .get(app.url("/api/agent/v1/config"))
        .bearer_auth(NL_1_AGENT)
        .send()
        .await
        .expect("sent");
    assert_eq!(config.status(), 200, "{from}");
    let config: Value = config.json().await.expect("json");
    assert!(
        config["peers"]
            .as_array()
            .expect("peers")
            .iter()
            .any(|p| p["entry_point_id"] == "de-1-vless"),
        "{from}: {config}"
    );
    let ack = http
        .post(app.url("/api/agent/v1/report"))
        .bearer_auth(DE_1_AGENT)
        .json(&report(
            "00000000-0000-4000-8000-000000000777",
            true,
            vec![],
        ))
        .send()
        .await
        .expect("sent");
    assert_eq!(ack.status(), 202, "{from}: the agent token still works");
    if version >= AGENT_INGEST {
        let listed: Value = http
            .get(app.url("/api/v1/servers/nl-1/reports"))
            .bearer_auth(ADMIN_TOKEN)
            .send()
            .await
            .expect("sent")
            .json()
            .await
            .expect("json");
        let ids: Vec<&str> = listed
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|r| r["report_id"].as_str())
            .collect();
        assert_eq!(
            ids,
            [
                "aaaaaaaa-0000-4000-8000-000000000041",
                "aaaaaaaa-0000-4000-8000-000000000039"
            ],
            "{from}: newest first"
        );
    }

    // The subscription link of before, and the card's copy of it.
    let sub = http
        .get(app.url(&format!("/sub/{SUB_TOKEN}")))
        .send()
        .await
        .expect("sent");
    assert_eq!(
        sub.status(),
        200,
        "{from}: the subscription link still serves"
    );
    let alice = UserId::parse("alice").expect("id");
    let (_, token) = app
        .store()
        .await
        .user(&alice)
        .await
        .expect("read")
        .expect("alice");
    let known = (version >= USER_SUB_TOKEN).then(|| SUB_TOKEN.to_owned());
    assert_eq!(token, known, "{from}: the user card's link");

    // A session of before, and the operator's password.
    let signed_in = http
        .get(app.url("/login"))
        .header("cookie", format!("meshwatch_session={SESSION}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(
        (signed_in.status().as_u16(), location(&signed_in)),
        (303, "/"),
        "{from}: the session still holds"
    );
    let login = app.login("ops", OPERATOR_PASSWORD).await;
    assert_eq!(location(&login), "/", "{from}: the password still works");
    assert!(session_cookie(login.headers()).is_some(), "{from}");

    // The outbox as the API lists it (the panel may have queued more
    // since it started, e.g. for status changes: only the fixture's rows,
    // all made before 2026-12-02, are compared).
    let listed: Value = http
        .get(app.url("/api/v1/notifications"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    let mut ids: Vec<i64> = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter(|n| n["created_at"].as_str().is_some_and(|at| at < "2026-12-02"))
        .filter_map(|n| n["id"].as_i64())
        .collect();
    ids.sort_unstable();
    let expected: i64 = 2
        + i64::from(version >= OUTBOX_TEST_MESSAGES)
        + i64::from(version >= OUTBOX_TARGETS)
        + i64::from(version >= SERVERS_CAN_LEAVE)
        + i64::from(version >= TELEGRAM_TARGET);
    assert_eq!(ids, (1..=expected).collect::<Vec<_>>(), "{from}");
    if version >= TELEGRAM_TARGET {
        let telegram = listed
            .as_array()
            .and_then(|rows| rows.iter().find(|n| n["id"] == 6))
            .expect("the Telegram row");
        assert_eq!(telegram["to"], "telegram (chat -1001234567890)", "{from}");
    }
}

/// One schema: build it, upgrade it, check the rows, serve it.
async fn upgrade_from(version: i64) {
    let dir = tempfile::tempdir().expect("dir");
    let url = database_url(dir.path());
    database_of_schema(&url, version).await;

    // The upgrade itself, as the panel's start does it.
    let key = meshwatch_server::store::key_file::key_for_database(None, &url)
        .expect("the key file")
        .key;
    match Store::open(&url, key.clone()).await {
        Ok(store) => store.close().await,
        Err(err) => panic!("schema {version} does not upgrade: {err}"),
    }
    assert_rows_survived(&url, version, &key).await;

    let app = spawn_app_in(dir, &[]).await;
    assert_the_panel_serves_it(&app, version).await;
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_every_earlier_schema_upgrades_with_all_its_data() {
    if sqlite_only("a_database_of_every_earlier_schema_upgrades_with_all_its_data") {
        return;
    }
    for migration in MIGRATOR.iter() {
        upgrade_from(migration.version).await;
    }
}

/// A database of this binary's schema, plus a migration from the future.
async fn database_from_the_future(dir: &Path) -> String {
    let url = database_url(dir);
    match Store::open(&url, SealingKey::random()).await {
        Ok(store) => store.close().await,
        Err(err) => panic!("a new database: {err}"),
    }
    let options: SqliteConnectOptions = url.parse().expect("url");
    let pool = SqlitePool::connect_with(options).await.expect("opens");
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (99999999999999, 'from the future', TRUE, x'00', 1)",
    )
    .execute(&pool)
    .await
    .expect("a future migration");
    pool.close().await;
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_from_a_newer_meshwatch_is_refused_naming_both_versions() {
    let dir = tempfile::tempdir().expect("dir");
    let url = database_from_the_future(dir.path()).await;

    let refused = match Store::open(&url, SealingKey::random()).await {
        Ok(_) => panic!("a newer schema must be refused"),
        Err(err) => err,
    };
    assert!(matches!(refused, StoreError::NewerSchema(_)), "{refused}");
    let expected = format!(
        "database schema 99999999999999 is from a newer meshwatch; this is meshwatch \
         {PANEL_VERSION} (schema {}). Install the newer version or restore a backup made \
         by this one.",
        schema::binary_schema()
    );
    assert_eq!(refused.to_string(), expected);

    let db = read_only(&url).await;
    let applied = scalar(&db, "SELECT COUNT(*) FROM _sqlx_migrations").await;
    db.close().await;
    assert_eq!(
        applied,
        MIGRATOR.iter().count() as i64 + 1,
        "nothing was written"
    );

    // The binary stops with the same words.
    let serve = run(command(&url));
    assert!(!serve.status.success());
    let said = String::from_utf8_lossy(&serve.stderr);
    assert!(said.contains(&expected), "{said}");
}

#[test]
fn version_and_check_config_tell_both_schemas_apart() {
    let dir = tempfile::tempdir().expect("dir");
    let url = database_url(dir.path());
    let binary = schema::binary_schema();

    // No database yet: the binary's own lines only, and check-config says
    // it would be created, making nothing.
    let mut version = command(&url);
    version.arg("--version");
    let out = run(version);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        said.lines().collect::<Vec<_>>(),
        [
            format!("meshwatch-server {PANEL_VERSION}"),
            format!("database schema {binary}")
        ]
    );
    let mut check = command(&url);
    check
        .arg("check-config")
        .env("MESHWATCH_ADMIN_TOKEN", ADMIN_TOKEN);
    let out = run(check);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.starts_with("configuration OK"), "{said}");
    assert!(said.contains("would be created"), "{said}");
    assert!(!said.contains(ADMIN_TOKEN), "secrets never show: {said}");
    assert!(
        !dir.path().join("meshwatch.db").exists(),
        "check-config makes nothing"
    );

    // --version answers even when the configuration is wrong.
    let mut broken = command(&url);
    broken
        .arg("version")
        .env("MESHWATCH_LISTEN", "not an address");
    let out = run(broken);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(PANEL_VERSION));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_and_check_config_name_a_newer_database() {
    let dir = tempfile::tempdir().expect("dir");
    let url = database_from_the_future(dir.path()).await;
    let mut version = command(&url);
    version.arg("--version");
    let out = run(version);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("schema 99999999999999, from a newer meshwatch"),
        "{said}"
    );

    let mut check = command(&url);
    check.arg("check-config");
    let out = run(check);
    assert_eq!(out.status.code(), Some(2), "a start would stop");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("database schema 99999999999999 is from a newer meshwatch"),
        "{said}"
    );
}
