//! Actions (docs/PRODUCT.md §6, docs/API.md "Operator features"): configured through
//! the API and the panel; on an event a command gets the event on stdin and
//! in its environment, or an HTTP call is made; each run is recorded, once
//! per incident, retried when it fails, never while actions are off or the
//! server is in maintenance.

use crate::agent::{get, get_response};
use crate::helpers::{error_code, location, spawn_app_with, TestApp, ADMIN_TOKEN};
use crate::notifications::{block_de_1, webhook_receiver};
use serde_json::{json, Value};
use std::time::Duration;

/// `POST /api/v1/actions` with the admin token, whatever the answer.
pub async fn create(app: &TestApp, body: Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/actions"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&body)
        .send()
        .await
        .expect("sent")
}

/// Runs of `server` once `wanted` says they are all there (10 s at most).
async fn runs_until(app: &TestApp, server: &str, wanted: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let runs = get(app, &format!("/api/v1/actions/runs?server_id={server}")).await;
        let runs = runs.as_array().expect("a list").clone();
        if wanted(&runs) || std::time::Instant::now() > deadline {
            return runs;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A script that keeps its input and environment in `dir` and says so.
fn recording_script(dir: &std::path::Path) -> String {
    let script = dir.join("record.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > {dir}/event.json\nenv > {dir}/env.txt\necho \"rotated $MESHWATCH_SERVER_ID on $MESHWATCH_EVENT\"\n",
            dir = dir.display()
        ),
    )
    .expect("script written");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("executable");
    script.display().to_string()
}

/// A panel whose host allows [`recording_script`] (written in the
/// directory returned) and has an action "rotate" on blocks that runs it.
async fn with_recording_action() -> (TestApp, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("dir");
    let script = recording_script(dir.path());
    let app = spawn_app_with(&[("MESHWATCH_ACTION_COMMANDS", script.clone())]).await;
    let created = create(
        &app,
        json!({"name": "rotate", "on": "blocked", "command": [script]}),
    )
    .await;
    assert_eq!(created.status(), 201);
    (app, dir)
}

/// A panel whose host allows the programs the tests run.
async fn allowing(programs: &str) -> TestApp {
    spawn_app_with(&[("MESHWATCH_ACTION_COMMANDS", programs.to_owned())]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_are_checked_listed_and_deleted_and_header_values_never_shown() {
    let app = allowing("/usr/local/bin/rotate,/bin/true").await;
    let created = create(
        &app,
        json!({"name": "rotate", "on": "blocked", "after_minutes": 10, "command": ["/usr/local/bin/rotate", "--now"]}),
    )
    .await;
    assert_eq!(created.status(), 201);
    let action: Value = created.json().await.expect("json");
    assert!(action["id"].is_i64(), "{action}");
    assert_eq!(action["command"], json!(["/usr/local/bin/rotate", "--now"]));
    let hook = create(
        &app,
        json!({"name": "tell the cloud", "on": "cleared", "http": {"url": "https://cloud.example/hook",
               "method": "POST", "headers": {"Authorization": "Bearer cloud-secret-123"},
               "body": {"server": "{{server_id}}"}}}),
    )
    .await;
    assert_eq!(hook.status(), 201);
    let listed = get_response(&app, "/api/v1/actions")
        .await
        .text()
        .await
        .expect("text");
    assert!(!listed.contains("cloud-secret-123"), "{listed}");
    let listed: Value = serde_json::from_str(&listed).expect("json");
    assert_eq!(listed.as_array().map(Vec::len), Some(2));
    assert_eq!(listed[1]["http"]["headers"]["Authorization"], "(hidden)");

    let refused = [
        (
            json!({"name": "x", "on": "blocked"}),
            422,
            "command_or_http",
        ),
        (
            json!({"name": "", "on": "blocked", "command": ["/bin/true"]}),
            422,
            "invalid_name",
        ),
        (
            json!({"name": "x", "on": "blocked", "command": []}),
            422,
            "invalid_command",
        ),
        (
            json!({"name": "x", "on": "blocked", "http": {"url": "ftp://a.example"}}),
            422,
            "invalid_http",
        ),
        (
            json!({"name": "x", "on": "blocked", "after_minutes": 10081, "command": ["/bin/true"]}),
            422,
            "invalid_after_minutes",
        ),
        (
            json!({"name": "rotate", "on": "blocked", "command": ["/bin/true"]}),
            409,
            "name_taken",
        ),
    ];
    for (body, status, code) in refused {
        let response = create(&app, body.clone()).await;
        assert_eq!(response.status(), status, "{body}");
        assert_eq!(error_code(response).await, code, "{body}");
    }
    let bad = create(
        &app,
        json!({"name": "x", "on": "sometimes", "command": ["/bin/true"]}),
    )
    .await;
    assert!(bad.status().is_client_error());
    assert_eq!(
        get(&app, "/api/v1/actions").await.as_array().map(Vec::len),
        Some(2)
    );

    let dir = app.stop().await;
    let app = crate::helpers::spawn_app_in(
        dir,
        &[(
            "MESHWATCH_ACTION_COMMANDS",
            "/usr/local/bin/rotate".to_owned(),
        )],
    )
    .await;
    let id = get(&app, "/api/v1/actions").await[0]["id"].clone();
    let delete = |id: String| {
        let app = &app;
        async move {
            app.client
                .delete(app.url(&format!("/api/v1/actions/{id}")))
                .bearer_auth(ADMIN_TOKEN)
                .send()
                .await
                .expect("sent")
                .status()
        }
    };
    assert_eq!(delete(id.to_string()).await, 204);
    assert_eq!(delete(id.to_string()).await, 404);
    assert_eq!(
        get(&app, "/api/v1/actions").await.as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(
        get_response(&app, "/api/v1/actions/runs?server_id=Not%20A%20Slug")
            .await
            .status(),
        422
    );
    assert_eq!(
        app.client
            .get(app.url("/api/v1/actions"))
            .send()
            .await
            .expect("sent")
            .status(),
        401
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_runs_the_command_once_with_the_event_on_stdin_and_in_its_environment() {
    let dir = tempfile::tempdir().expect("dir");
    let script = recording_script(dir.path());
    let app = allowing(&script).await;
    let created = create(
        &app,
        json!({"name": "rotate IP", "on": "blocked", "command": [script]}),
    )
    .await;
    assert_eq!(created.status(), 201);
    let action_id = created.json::<Value>().await.expect("json")["id"].clone();
    block_de_1(&app).await;
    app.tick().await;

    let runs = runs_until(&app, "de-1", |runs| {
        runs.iter().any(|r| r["outcome"] == "ok")
    })
    .await;
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run = &runs[0];
    assert_eq!(run["action_id"], action_id);
    assert_eq!(
        (run["server_id"].clone(), run["event"].clone()),
        (json!("de-1"), json!("blocked"))
    );
    assert_eq!(run["outcome"], "ok", "{run}");
    assert_eq!(run["exit_status"], 0);
    assert_eq!(run["output"], "rotated de-1 on blocked\n");
    assert!(run["started_at"].is_string());

    let event: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("event.json")).expect("the event was written"),
    )
    .expect("JSON on stdin");
    assert_eq!(event["event"], "blocked");
    assert_eq!(event["server_id"], "de-1");
    assert_eq!(event["addresses"], json!(["127.0.30.1:443"]));
    assert_eq!(event["server"]["entry_points"][0]["id"], "de-1-ep");
    assert_eq!(event["kinds"], json!(["ip"]), "the block's kind (§8)");
    let env = std::fs::read_to_string(dir.path().join("env.txt")).expect("env written");
    for line in [
        "MESHWATCH_EVENT=blocked",
        "MESHWATCH_SERVER_ID=de-1",
        "MESHWATCH_SERVER_ADDRESSES=127.0.30.1:443",
        "MESHWATCH_BLOCK_KINDS=ip",
    ] {
        assert!(env.lines().any(|l| l == line), "{line} in {env}");
    }
    // Nothing of the panel's own environment: only the event and a PATH.
    for line in env.lines() {
        let name = line.split('=').next().unwrap_or_default();
        assert!(
            name.starts_with("MESHWATCH_") || ["PATH", "PWD", "SHLVL", "_"].contains(&name),
            "{line} leaked into the command's environment:\n{env}"
        );
    }
    assert!(!env.contains(crate::helpers::ADMIN_TOKEN));

    // The same incident never runs it again.
    for _ in 0..3 {
        app.tick().await;
    }
    app.wait_for_action_round().await;
    assert_eq!(runs_until(&app, "de-1", |_| true).await.len(), 1);
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/servers/de-1").await;
    assert!(
        html.contains("Action runs") && html.contains("rotated de-1 on blocked"),
        "{html}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_run_is_retried_with_backoff() {
    let app = allowing("/bin/false").await;
    assert_eq!(
        create(
            &app,
            json!({"name": "flaky", "on": "blocked", "command": ["/bin/false"]})
        )
        .await
        .status(),
        201
    );
    block_de_1(&app).await;
    app.tick().await;
    let runs = runs_until(&app, "de-1", |runs| runs.iter().any(|r| r["attempts"] == 1)).await;
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(
        (runs[0]["outcome"].clone(), runs[0]["retrying"].clone()),
        (json!("failed"), json!(true))
    );
    assert_eq!(runs[0]["exit_status"], 1);
    // 30 s later: the second attempt, the same run.
    app.advance(Duration::from_secs(31)).await;
    let runs = runs_until(&app, "de-1", |runs| runs.iter().any(|r| r["attempts"] == 2)).await;
    assert_eq!(
        (runs.len(), runs[0]["attempts"].clone()),
        (1, json!(2)),
        "{runs:?}"
    );
    // Switched off, the next attempt does not happen; the run stays
    // listed as failed.
    let off = app
        .client
        .put(app.url("/api/v1/actions/enabled"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"enabled": false}))
        .send()
        .await
        .expect("sent");
    assert_eq!(off.status(), 200);
    app.advance(Duration::from_secs(61)).await;
    let runs = runs_until(&app, "de-1", |runs| {
        runs.iter().any(|r| r["retrying"] == false)
    })
    .await;
    assert_eq!(
        (
            runs.len(),
            runs[0]["outcome"].clone(),
            runs[0]["retrying"].clone(),
            runs[0]["attempts"].clone()
        ),
        (1, json!("failed"), json!(false), json!(2)),
        "{runs:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_runs_while_actions_are_off() {
    let (app, dir) = with_recording_action().await;
    let switched = app
        .client
        .put(app.url("/api/v1/actions/enabled"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"enabled": false}))
        .send()
        .await
        .expect("sent");
    assert_eq!(switched.status(), 200);
    assert_eq!(
        get(&app, "/api/v1/actions/enabled").await,
        json!({"enabled": false, "off_reason": null})
    );
    block_de_1(&app).await;
    app.tick().await;
    app.wait_for_action_round().await;
    assert_eq!(
        get(&app, "/api/v1/actions/runs").await,
        json!([]),
        "off: nothing ran"
    );
    assert!(!dir.path().join("event.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_call_gets_its_body_filled_in_and_its_status_recorded() {
    let (hook, mut calls) = webhook_receiver("/hook").await;
    // The receiver listens on loopback: this host allows that.
    let app = spawn_app_with(&[("MESHWATCH_ACTION_ALLOW_PRIVATE", "1".to_owned())]).await;
    let created = create(
        &app,
        json!({"name": "hook", "on": "blocked", "http": {"url": hook, "headers": {"X-Token": "t0k"},
               "body": {"text": "{{server_name}} ({{server_id}}) {{event}}", "at": "{{addresses}}"}}}),
    )
    .await;
    assert_eq!(created.status(), 201);
    block_de_1(&app).await;
    app.tick().await;
    let body = tokio::time::timeout(Duration::from_secs(10), calls.recv())
        .await
        .expect("a call within 10 s")
        .expect("a body");
    assert_eq!(
        body,
        json!({"text": "DE-1 (de-1) blocked", "at": "127.0.30.1:443"})
    );
    let runs = runs_until(&app, "de-1", |runs| {
        runs.iter().any(|r| r["outcome"] == "ok")
    })
    .await;
    assert_eq!(runs[0]["http_status"], 200, "{runs:?}");
    assert_eq!(runs[0]["output"], "ok");
    assert!(runs[0].get("exit_status").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_adds_switches_and_deletes_actions() {
    let app = allowing("/bin/echo").await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(
        html.contains("No actions yet.") && html.contains("Add action"),
        "{html}"
    );
    let added = app
        .form_post(
            &cookie,
            "create_action",
            &[
                ("name", "log it"),
                ("on", "unavailable"),
                ("after_minutes", "5"),
                ("command", "/bin/echo\nhello world"),
                ("password", "a long password"),
            ],
        )
        .await;
    assert_eq!(
        (added.status().as_u16(), location(&added)),
        (302, "/settings")
    );
    let actions = get(&app, "/api/v1/actions").await;
    assert_eq!(
        actions[0]["command"],
        json!(["/bin/echo", "hello world"]),
        "{actions}"
    );
    assert_eq!(
        (
            actions[0]["on"].clone(),
            actions[0]["after_minutes"].clone()
        ),
        (json!("unavailable"), json!(5))
    );
    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(
        html.contains("log it") && html.contains("/bin/echo hello world"),
        "{html}"
    );

    let off = app
        .form_post(&cookie, "switch_actions", &[("enabled", "false")])
        .await;
    assert_eq!(location(&off), "/settings");
    assert_eq!(get(&app, "/api/v1/actions/enabled").await["enabled"], false);
    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(html.contains("Actions are off"), "{html}");

    let id = actions[0]["id"].to_string();
    let deleted = app
        .form_post(&cookie, "delete_action", &[("id", &id)])
        .await;
    assert_eq!(location(&deleted), "/settings");
    assert_eq!(get(&app, "/api/v1/actions").await, json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_action_runs_for_a_server_in_a_maintenance_window() {
    let (app, dir) = with_recording_action().await;
    let now = chrono::Utc::now();
    let at =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let tokens = crate::agent::fleet(&app).await;
    let planned = app
        .client
        .post(app.url("/api/v1/maintenance"))
        .bearer_auth(ADMIN_TOKEN)
        .json(
            &json!({"servers": ["de-1"], "start": at(now - chrono::Duration::minutes(1)),
                      "end": at(now + chrono::Duration::hours(1))}),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(planned.status(), 201);
    assert_eq!(app.set_verifier("ir-1", true).await.status(), 200);
    crate::agent::all_report(&app, &tokens, 100).await;
    crate::agent::post_rounds(
        &app,
        &tokens["ir-1"],
        1,
        crate::agent::probes("de-1-ep", false, 0, 3),
    )
    .await;
    app.tick().await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(
        view["conditions"],
        json!(["maintenance", "blocked"]),
        "{view}"
    );
    app.wait_for_action_round().await;
    assert_eq!(get(&app, "/api/v1/actions/runs").await, json!([]));
    assert!(!dir.path().join("event.json").exists());
}

/// ir-1 (a verifier) sees de-1's SNI filtered: the real SNI is reset
/// after TCP connects, the control SNI answers.
async fn sni_block_de_1(app: &TestApp) {
    let tokens = crate::agent::fleet(app).await;
    assert_eq!(app.set_verifier("ir-1", true).await.status(), 200);
    for k in 0..3u32 {
        if k > 0 {
            crate::agent::next_round(app).await;
        }
        crate::agent::all_report(app, &tokens, 100 + 10 * k).await;
        let at = |s: u32| format!("2026-12-02T09:00:{s:02}Z");
        let round = vec![
            json!({"entry_point_id": "de-1-ep", "at": at(2 * k), "ok": false,
                   "error": "reset", "stage": "tls"}),
            json!({"entry_point_id": "de-1-ep", "at": at(2 * k + 1), "ok": true,
                   "check": "control_sni"}),
        ];
        let sent = crate::agent::post(
            app,
            &tokens["ir-1"],
            &crate::agent::report(&crate::agent::round_uuid(700, k), true, round),
        )
        .await;
        assert_eq!(sent.status(), 202);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_limited_to_ip_kinds_never_runs_on_an_sni_block() {
    let dir = tempfile::tempdir().expect("dir");
    let script = recording_script(dir.path());
    let app = allowing(&script).await;
    let rotate = create(
        &app,
        json!({"name": "rotate IP", "on": "blocked", "command": [script],
               "kinds": ["ip", "throttled"]}),
    )
    .await;
    assert_eq!(rotate.status(), 201);
    let view: Value = rotate.json().await.expect("json");
    assert_eq!(view["kinds"], json!(["ip", "throttled"]));
    let any = create(
        &app,
        json!({"name": "tell", "on": "blocked", "command": [script.clone()]}),
    )
    .await;
    assert_eq!(any.status(), 201);
    sni_block_de_1(&app).await;
    app.tick().await;
    let de_1 = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(de_1["blocked_on"][0]["kind"], "sni", "{de_1}");
    runs_until(&app, "de-1", |runs| {
        runs.iter().any(|r| r["outcome"] == "ok")
    })
    .await;
    // Another round: a wrongly queued run would have been carried out.
    app.wait_for_action_round().await;
    let runs = runs_until(&app, "de-1", |_| true).await;
    let names: Vec<&str> = runs.iter().filter_map(|r| r["action"].as_str()).collect();
    assert_eq!(names, ["tell"], "the IP action stays out of an SNI block");
    let event: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("event.json")).expect("the event was written"),
    )
    .expect("JSON on stdin");
    assert_eq!(event["kinds"], json!(["sni"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kinds_are_refused_on_other_events_and_when_empty() {
    let app = allowing("/bin/true").await;
    for body in [
        json!({"name": "a", "on": "cleared", "command": ["/bin/true"], "kinds": ["ip"]}),
        json!({"name": "b", "on": "blocked", "command": ["/bin/true"], "kinds": []}),
    ] {
        let refused = create(&app, body.clone()).await;
        assert_eq!(refused.status(), 422, "{body}");
        assert_eq!(error_code(refused).await, "invalid_kinds");
    }
    let unknown = create(
        &app,
        json!({"name": "c", "on": "blocked", "command": ["/bin/true"], "kinds": ["dns"]}),
    )
    .await;
    assert!(
        unknown.status().is_client_error(),
        "an unknown kind is refused"
    );
    assert_eq!(get(&app, "/api/v1/actions").await, json!([]));
}
