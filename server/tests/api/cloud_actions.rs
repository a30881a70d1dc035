//! The cloud examples of `deploy/actions` (README "Actions"), run by the
//! panel as actions on a real block, against local fakes of the documented
//! Hetzner Cloud and DigitalOcean endpoints. Each fake answers only the
//! exact requests the documentation describes and records them; the
//! example's last step moves the server to its new address in the panel.

use crate::helpers::{spawn_app_with, TestApp, ADMIN_TOKEN};
use crate::notifications::block_de_1;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request the fake saw: method, path and query, bearer token, body.
type Seen = (String, String, String, Value);

/// A fake API answering `routes` — (method, path and query, status,
/// answer) — and recording every request; anything else is a 404.
async fn fake_api(
    routes: Vec<(&'static str, String, u16, Value)>,
) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let record = seen.clone();
    let app = axum::Router::new().fallback(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let (record, routes) = (record.clone(), routes.clone());
            async move {
                let target = uri
                    .path_and_query()
                    .map(|p| p.to_string())
                    .unwrap_or_default();
                let token = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                record.lock().expect("lock").push((
                    method.to_string(),
                    target.clone(),
                    token,
                    body,
                ));
                match routes
                    .iter()
                    .find(|(m, p, ..)| *m == method.as_str() && *p == target)
                {
                    Some((_, _, status, answer)) => (
                        StatusCode::from_u16(*status).expect("status"),
                        axum::Json(answer.clone()),
                    ),
                    None => (
                        StatusCode::NOT_FOUND,
                        axum::Json(json!({"error": "unexpected request"})),
                    ),
                }
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

fn script(name: &str) -> String {
    format!("{}/../deploy/actions/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A panel whose host allows the example as an action's program.
async fn allowing_example(name: &str) -> TestApp {
    spawn_app_with(&[("MESHWATCH_ACTION_COMMANDS", script(name))]).await
}

/// Runs `example` as the action on de-1's block and returns its run,
/// with the secrets it reads in files of `dir`.
async fn run_on_block(app: &TestApp, dir: &std::path::Path, example: &str, api: &str) -> Value {
    let cloud_token = dir.join("cloud-token");
    let panel_token = dir.join("panel-token");
    std::fs::write(&cloud_token, "cloud-test-token\n").expect("written");
    std::fs::write(&panel_token, ADMIN_TOKEN).expect("written");
    let command = json!([
        script(example),
        "--token-file",
        cloud_token,
        "--panel",
        app.url(""),
        "--panel-token-file",
        panel_token,
        "--api",
        api
    ]);
    let created = app
        .client
        .post(app.url("/api/v1/actions"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"name": "new address", "on": "blocked", "command": command}))
        .send()
        .await
        .expect("sent");
    assert_eq!(created.status(), 201);
    block_de_1(app).await;
    app.tick().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let runs: Value = crate::agent::get(app, "/api/v1/actions/runs?server_id=de-1").await;
        let done = runs[0]["outcome"] == "ok" || (runs[0]["outcome"] == "failed");
        if done || std::time::Instant::now() > deadline {
            return runs[0].clone();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn host_of(app: &TestApp, entry_point: &str) -> String {
    let endpoints = app.store().await.endpoints().await.expect("endpoints");
    let id = meshwatch::EntryPointId::parse(entry_point).expect("slug");
    endpoints[&id].host.clone()
}

fn requests(seen: &Arc<Mutex<Vec<Seen>>>) -> Vec<Seen> {
    seen.lock().expect("lock").clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hetzner_example_gives_a_blocked_server_a_new_primary_ip() {
    let done = |id: u32| json!({"action": {"id": id, "status": "success"}});
    let (api, seen) = fake_api(vec![
        ("GET", "/v1/servers?name=de-1".into(), 200,
         json!({"servers": [{"id": 42, "name": "de-1", "public_net": {"ipv4": {"id": 7, "ip": "127.0.30.1"}}}]})),
        // Powering off is still running when asked: the example waits.
        ("POST", "/v1/servers/42/actions/poweroff".into(), 201, json!({"action": {"id": 1, "status": "running"}})),
        ("GET", "/v1/actions/1".into(), 200, done(1)),
        ("POST", "/v1/primary_ips/7/actions/unassign".into(), 201, done(2)),
        ("POST", "/v1/primary_ips".into(), 201,
         json!({"primary_ip": {"id": 8, "ip": "127.0.31.9"}, "action": {"id": 3, "status": "success"}})),
        ("POST", "/v1/servers/42/actions/poweron".into(), 201, done(4)),
        ("DELETE", "/v1/primary_ips/7".into(), 204, Value::Null),
    ])
    .await;
    let app = allowing_example("hetzner-new-primary-ip.py").await;
    let dir = tempfile::tempdir().expect("dir");
    let run = run_on_block(
        &app,
        dir.path(),
        "hetzner-new-primary-ip.py",
        &format!("{api}/v1"),
    )
    .await;
    assert_eq!(run["outcome"], "ok", "{run}");
    assert_eq!(run["output"], "de-1: 127.0.30.1 -> 127.0.31.9\n");

    let seen = requests(&seen);
    let calls: Vec<(&str, &str)> = seen
        .iter()
        .map(|(m, p, ..)| (m.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("GET", "/v1/servers?name=de-1"),
            ("POST", "/v1/servers/42/actions/poweroff"),
            ("GET", "/v1/actions/1"),
            ("POST", "/v1/primary_ips/7/actions/unassign"),
            ("POST", "/v1/primary_ips"),
            ("POST", "/v1/servers/42/actions/poweron"),
            ("DELETE", "/v1/primary_ips/7"),
        ]
    );
    assert!(seen
        .iter()
        .all(|(.., token, _)| token == "Bearer cloud-test-token"));
    let created = &seen[4].3;
    assert_eq!(
        (
            created["type"].clone(),
            created["assignee_type"].clone(),
            created["assignee_id"].clone(),
            created["auto_delete"].clone()
        ),
        (json!("ipv4"), json!("server"), json!(42), json!(true)),
        "{created}"
    );
    assert!(created["name"]
        .as_str()
        .is_some_and(|n| n.starts_with("de-1-")));
    assert_eq!(
        host_of(&app, "de-1-ep").await,
        "127.0.31.9",
        "the panel knows the new address"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hetzner_example_stopped_after_power_off_finishes_the_job_when_run_again() {
    // An earlier run powered the server off and unassigned its address,
    // then was stopped: the server is off, without a primary IP.
    let done = |id: u32| json!({"action": {"id": id, "status": "success"}});
    let (api, seen) = fake_api(vec![
        ("GET", "/v1/servers?name=de-1".into(), 200,
         json!({"servers": [{"id": 42, "name": "de-1", "status": "off", "public_net": {"ipv4": null}}]})),
        ("POST", "/v1/primary_ips".into(), 201,
         json!({"primary_ip": {"id": 8, "ip": "127.0.31.9"}, "action": {"id": 3, "status": "success"}})),
        ("POST", "/v1/servers/42/actions/poweron".into(), 201, done(4)),
        ("GET", "/v1/primary_ips?ip=127.0.30.1".into(), 200,
         json!({"primary_ips": [{"id": 7, "ip": "127.0.30.1", "assignee_id": null}]})),
        ("DELETE", "/v1/primary_ips/7".into(), 204, Value::Null),
    ])
    .await;
    let app = allowing_example("hetzner-new-primary-ip.py").await;
    let dir = tempfile::tempdir().expect("dir");
    let run = run_on_block(
        &app,
        dir.path(),
        "hetzner-new-primary-ip.py",
        &format!("{api}/v1"),
    )
    .await;
    assert_eq!(run["outcome"], "ok", "{run}");
    assert_eq!(run["output"], "de-1: 127.0.30.1 -> 127.0.31.9\n");
    let calls: Vec<(String, String)> = requests(&seen)
        .into_iter()
        .map(|(m, p, ..)| (m, p))
        .collect();
    let calls: Vec<(&str, &str)> = calls
        .iter()
        .map(|(m, p)| (m.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("GET", "/v1/servers?name=de-1"),
            ("POST", "/v1/primary_ips"),
            ("POST", "/v1/servers/42/actions/poweron"),
            ("GET", "/v1/primary_ips?ip=127.0.30.1"),
            ("DELETE", "/v1/primary_ips/7"),
        ],
        "no second power-off, no unassign of an address it no longer has"
    );
    assert_eq!(host_of(&app, "de-1-ep").await, "127.0.31.9");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hetzner_example_stopped_after_the_new_address_powers_on_and_tells_the_panel() {
    let done = |id: u32| json!({"action": {"id": id, "status": "success"}});
    let (api, seen) = fake_api(vec![
        (
            "GET",
            "/v1/servers?name=de-1".into(),
            200,
            json!({"servers": [{"id": 42, "name": "de-1", "status": "off",
                             "public_net": {"ipv4": {"id": 8, "ip": "127.0.31.9"}}}]}),
        ),
        (
            "POST",
            "/v1/servers/42/actions/poweron".into(),
            201,
            done(4),
        ),
        (
            "GET",
            "/v1/primary_ips?ip=127.0.30.1".into(),
            200,
            json!({"primary_ips": []}),
        ),
    ])
    .await;
    let app = allowing_example("hetzner-new-primary-ip.py").await;
    let dir = tempfile::tempdir().expect("dir");
    let run = run_on_block(
        &app,
        dir.path(),
        "hetzner-new-primary-ip.py",
        &format!("{api}/v1"),
    )
    .await;
    assert_eq!(run["outcome"], "ok", "{run}");
    let calls: Vec<String> = requests(&seen)
        .into_iter()
        .map(|(m, p, ..)| format!("{m} {p}"))
        .collect();
    assert_eq!(
        calls,
        [
            "GET /v1/servers?name=de-1",
            "POST /v1/servers/42/actions/poweron",
            "GET /v1/primary_ips?ip=127.0.30.1",
        ]
    );
    assert_eq!(host_of(&app, "de-1-ep").await, "127.0.31.9");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_digitalocean_example_moves_a_blocked_droplet_to_a_new_reserved_ip() {
    let (api, seen) = fake_api(vec![
        ("GET", "/v2/droplets?name=de-1".into(), 200, json!({"droplets": [{"id": 3164444, "name": "de-1"}]})),
        ("GET", "/v2/reserved_ips/127.0.30.1".into(), 200,
         json!({"reserved_ip": {"ip": "127.0.30.1", "region": {"slug": "fra1"}, "droplet": {"id": 3164444}}})),
        ("POST", "/v2/reserved_ips/127.0.30.1/actions".into(), 201, json!({"action": {"id": 11, "status": "completed"}})),
        ("POST", "/v2/reserved_ips".into(), 202, json!({"reserved_ip": {"ip": "127.0.31.10", "region": {"slug": "fra1"}}})),
        ("POST", "/v2/reserved_ips/127.0.31.10/actions".into(), 201, json!({"action": {"id": 12, "status": "in-progress"}})),
        ("GET", "/v2/actions/12".into(), 200, json!({"action": {"id": 12, "status": "completed"}})),
        ("DELETE", "/v2/reserved_ips/127.0.30.1".into(), 204, Value::Null),
    ])
    .await;
    let app = allowing_example("digitalocean-reserved-ip.py").await;
    let dir = tempfile::tempdir().expect("dir");
    let run = run_on_block(&app, dir.path(), "digitalocean-reserved-ip.py", &api).await;
    assert_eq!(run["outcome"], "ok", "{run}");
    assert_eq!(run["output"], "de-1: 127.0.30.1 -> 127.0.31.10\n");

    let seen = requests(&seen);
    let calls: Vec<(&str, &str, Value)> = seen
        .iter()
        .map(|(m, p, _, b)| (m.as_str(), p.as_str(), b.clone()))
        .collect();
    assert_eq!(
        calls,
        [
            ("GET", "/v2/droplets?name=de-1", Value::Null),
            ("GET", "/v2/reserved_ips/127.0.30.1", Value::Null),
            (
                "POST",
                "/v2/reserved_ips/127.0.30.1/actions",
                json!({"type": "unassign"})
            ),
            ("POST", "/v2/reserved_ips", json!({"region": "fra1"})),
            (
                "POST",
                "/v2/reserved_ips/127.0.31.10/actions",
                json!({"type": "assign", "droplet_id": 3164444})
            ),
            ("GET", "/v2/actions/12", Value::Null),
            ("DELETE", "/v2/reserved_ips/127.0.30.1", Value::Null),
        ]
    );
    assert!(seen
        .iter()
        .all(|(.., token, _)| token == "Bearer cloud-test-token"));
    assert_eq!(
        host_of(&app, "de-1-ep").await,
        "127.0.31.10",
        "the panel knows the new address"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_digitalocean_example_stopped_after_the_unassign_goes_on_when_run_again() {
    // An earlier run unassigned the blocked address, then was stopped.
    let (api, seen) = fake_api(vec![
        ("GET", "/v2/droplets?name=de-1".into(), 200, json!({"droplets": [{"id": 3164444, "name": "de-1"}]})),
        ("GET", "/v2/reserved_ips/127.0.30.1".into(), 200,
         json!({"reserved_ip": {"ip": "127.0.30.1", "region": {"slug": "fra1"}, "droplet": null}})),
        ("POST", "/v2/reserved_ips".into(), 202, json!({"reserved_ip": {"ip": "127.0.31.10", "region": {"slug": "fra1"}}})),
        ("POST", "/v2/reserved_ips/127.0.31.10/actions".into(), 201, json!({"action": {"id": 12, "status": "completed"}})),
        ("DELETE", "/v2/reserved_ips/127.0.30.1".into(), 204, Value::Null),
    ])
    .await;
    let app = allowing_example("digitalocean-reserved-ip.py").await;
    let dir = tempfile::tempdir().expect("dir");
    let run = run_on_block(&app, dir.path(), "digitalocean-reserved-ip.py", &api).await;
    assert_eq!(run["outcome"], "ok", "{run}");
    let calls: Vec<String> = requests(&seen)
        .into_iter()
        .map(|(m, p, ..)| format!("{m} {p}"))
        .collect();
    assert_eq!(
        calls,
        [
            "GET /v2/droplets?name=de-1",
            "GET /v2/reserved_ips/127.0.30.1",
            "POST /v2/reserved_ips",
            "POST /v2/reserved_ips/127.0.31.10/actions",
            "DELETE /v2/reserved_ips/127.0.30.1",
        ],
        "no second unassign"
    );
    assert_eq!(host_of(&app, "de-1-ep").await, "127.0.31.10");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_examples_call_no_cloud_for_an_sni_or_protocol_block() {
    let (api, seen) = fake_api(vec![]).await;
    let dir = tempfile::tempdir().expect("dir");
    let token = dir.path().join("token");
    std::fs::write(&token, "cloud-test-token\n").expect("written");
    for example in ["hetzner-new-primary-ip.py", "digitalocean-reserved-ip.py"] {
        for kinds in [json!(["sni"]), json!(["protocol"])] {
            let event = json!({"event": "blocked", "server_id": "de-1", "server_name": "DE-1",
                               "addresses": ["127.0.30.1:443"], "since": "2026-12-05T10:00:00Z",
                               "action": "new address", "kinds": kinds,
                               "server": {"id": "de-1", "entry_points": []}});
            let mut child = std::process::Command::new(script(example))
                .args(["--token-file", &token.display().to_string(), "--panel"])
                .args(["http://127.0.0.1:9", "--panel-token-file"])
                .arg(&token)
                .args(["--api", &api])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("the example starts");
            std::io::Write::write_all(
                child.stdin.as_mut().expect("stdin"),
                event.to_string().as_bytes(),
            )
            .expect("event written");
            drop(child.stdin.take());
            let out = child.wait_with_output().expect("it ends");
            assert!(out.status.success(), "{example} on {kinds}");
            let said = String::from_utf8_lossy(&out.stdout);
            assert!(said.contains("nothing to do"), "{example}: {said}");
        }
    }
    assert!(
        requests(&seen).is_empty(),
        "no cloud call: {:?}",
        requests(&seen)
    );
}
