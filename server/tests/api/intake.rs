//! How the panel takes reports it must not trust blindly: stale streaks,
//! clocks that lie, one report that wants to be a whole streak, scripts in
//! other languages, floods, and servers that leave the fleet.

use crate::agent::{
    all_report, fleet, get, get_response, knock, next_round, post, probes, report, uuid,
};
use crate::helpers::{error_code, spawn_app, spawn_app_with_manual_clock, TestApp, ADMIN_TOKEN};
use chrono::{Duration, SecondsFormat, Utc};
use serde_json::{json, Value};

fn rfc3339(t: chrono::DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A report sent at `sent_at` (the agent's clock) with one result per
/// `(entry point, at, ok)`.
fn report_at(
    id: &str,
    sent_at: chrono::DateTime<Utc>,
    results: &[(&str, chrono::DateTime<Utc>, bool)],
) -> Value {
    let probes: Vec<Value> = results
        .iter()
        .map(|(ep, at, ok)| {
            json!({"entry_point_id": ep, "at": rfc3339(*at), "ok": ok,
                   "latency_ms": null, "error": if *ok { json!(null) } else { json!("timeout") }})
        })
        .collect();
    json!({"report_id": id, "agent_version": "0.1.0", "sent_at": rfc3339(sent_at),
           "self_check": {"listener_ok": true, "service_ok": true, "detail": null},
           "probes": probes})
}

/// The `message` of an docs/API.md error body.
async fn error_message(response: reqwest::Response) -> String {
    let body: Value = response.json().await.expect("json");
    body["error"]["message"]
        .as_str()
        .expect("message")
        .to_owned()
}

async fn status(app: &TestApp, id: &str) -> Value {
    get(app, &format!("/api/v1/servers/{id}")).await["status"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_knock_after_silence_does_not_continue_the_old_streak() {
    let app = spawn_app_with_manual_clock().await;
    let tokens = fleet(&app).await;
    app.put_settings(json!({"stale_after_s": 2, "probe_interval_s": 1}))
        .await;
    all_report(&app, &tokens, 100).await;
    knock(&app, &tokens["nl-1"], 1, "de-1-ep", false, 0, 3).await;
    assert_eq!(status(&app, "de-1").await, "entry_points_unavailable");
    // nl-1 falls silent past stale_after; everyone comes back.
    app.advance(std::time::Duration::from_millis(2_200)).await;
    all_report(&app, &tokens, 200).await;
    knock(&app, &tokens["nl-1"], 2, "de-1-ep", false, 3, 1).await;
    assert_eq!(
        status(&app, "de-1").await,
        "healthy",
        "one failed knock after stale evidence means nothing"
    );
    next_round(&app).await;
    knock(&app, &tokens["nl-1"], 3, "de-1-ep", false, 4, 2).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "entry_points_unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_report_counts_one_result_per_pair_so_it_can_never_block() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    app.set_verifier("ir-1", true).await;
    all_report(&app, &tokens, 100).await;
    let response = post(
        &app,
        &tokens["ir-1"],
        &report(&uuid(1), true, probes("de-1-ep", false, 0, 10)),
    )
    .await;
    assert_eq!(response.status(), 202);
    let ack: Value = response.json().await.expect("json");
    assert_eq!(ack["accepted_probes"], 10, "every known result is accepted");
    assert_eq!(status(&app, "de-1").await, "healthy", "but it is one knock");
    next_round(&app).await;
    knock(&app, &tokens["ir-1"], 2, "de-1-ep", false, 20, 2).await;
    assert_eq!(status(&app, "de-1").await, "blocked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_result_without_an_error_kind_counts_as_other() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    for k in 0..3u32 {
        if k > 0 {
            next_round(&app).await;
        }
        let mut r = report(&uuid(k + 1), true, probes("de-1-ep", false, k, 1));
        r["probes"][0]
            .as_object_mut()
            .expect("probe")
            .remove("error");
        let response = post(&app, &tokens["nl-1"], &r).await;
        assert_eq!(
            response.status(),
            202,
            "a missing error is no reason to refuse"
        );
    }
    assert_eq!(status(&app, "de-1").await, "entry_points_unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_is_any_non_negative_json_number() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    for (n, latency) in [json!(12.7), json!(20.0), json!(0), json!(35)]
        .into_iter()
        .enumerate()
    {
        let mut r = report(
            &uuid(n as u32 + 1),
            true,
            probes("de-2-ep", true, n as u32, 1),
        );
        r["probes"][0]["latency_ms"] = latency.clone();
        let response = post(&app, &tokens["de-1"], &r).await;
        assert_eq!(response.status(), 202, "latency {latency}");
    }
    let mut negative = report(&uuid(9), true, probes("de-2-ep", true, 9, 1));
    negative["probes"][0]["latency_ms"] = json!(-1.5);
    let response = post(&app, &tokens["de-1"], &negative).await;
    assert_eq!(response.status(), 422);
    let message = error_message(response).await;
    assert!(message.contains("probes[0].latency_ms"), "{message}");

    let mut text = report(&uuid(10), true, probes("de-2-ep", true, 10, 1));
    text["probes"][0]["latency_ms"] = json!("fast");
    let response = post(&app, &tokens["de-1"], &text).await;
    assert_eq!(response.status(), 422);
    let message = error_message(response).await;
    assert!(
        message.contains("latency_ms"),
        "the error names the field: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_from_the_future_is_taken_as_received_and_does_not_stall_the_pair() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let now = Utc::now();
    let future = report_at(
        &uuid(1),
        now,
        &[("de-1-ep", now + Duration::days(1), false)],
    );
    assert_eq!(post(&app, &tokens["nl-1"], &future).await.status(), 202);
    for k in 1..3 {
        next_round(&app).await;
        let t = Utc::now() + Duration::milliseconds(k);
        let r = report_at(&uuid(1 + k as u32), t, &[("de-1-ep", t, false)]);
        assert_eq!(post(&app, &tokens["nl-1"], &r).await.status(), 202);
    }
    assert_eq!(
        status(&app, "de-1").await,
        "entry_points_unavailable",
        "the results after the future one were applied"
    );
    let since = get(&app, "/api/v1/servers/de-1").await["entry_points"][0]["causes"][0]["since"]
        .as_str()
        .expect("since")
        .parse::<chrono::DateTime<Utc>>()
        .expect("time");
    assert!(since < Utc::now() + Duration::seconds(5), "{since}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_whose_clock_stepped_back_an_hour_is_still_heard() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let now = Utc::now();
    let first = report_at(
        &uuid(1),
        now,
        &[("de-1-ep", now - Duration::seconds(1), false)],
    );
    assert_eq!(post(&app, &tokens["nl-1"], &first).await.status(), 202);
    for k in 1..3i64 {
        next_round(&app).await;
        // The agent's clock is an hour behind from here on.
        let agent_now = Utc::now() - Duration::hours(1);
        let r = report_at(
            &uuid(1 + k as u32),
            agent_now,
            &[("de-1-ep", agent_now - Duration::milliseconds(10), false)],
        );
        assert_eq!(post(&app, &tokens["nl-1"], &r).await.status(), 202);
    }
    assert_eq!(status(&app, "de-1").await, "entry_points_unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_ids_are_per_server_and_compared_in_canonical_form() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let id = "6F1C1C9E-5D0B-4A51-9F5E-1B2C3D4E5F60";
    for witness in ["nl-1", "de-2"] {
        let r = report(id, true, probes("de-1-ep", false, 0, 1));
        assert_eq!(post(&app, &tokens[witness], &r).await.status(), 202);
    }
    let listed = get(&app, "/api/v1/servers/de-2/reports").await;
    assert_eq!(
        listed[0]["report_id"],
        id.to_lowercase(),
        "both servers' reports were stored"
    );
    // The same id in lower case is a retry, not a new result.
    let retry = report(&id.to_lowercase(), true, probes("de-1-ep", false, 1, 1));
    assert_eq!(post(&app, &tokens["nl-1"], &retry).await.status(), 202);
    knock(&app, &tokens["nl-1"], 7, "de-1-ep", false, 2, 1).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    let from_nl: Vec<&Value> = view["entry_points"][0]["causes"]
        .as_array()
        .expect("causes")
        .iter()
        .filter(|c| c["from"] == "nl-1")
        .collect();
    assert!(from_nl.is_empty(), "nl-1's streak is 2, not 3: {view}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_self_check_detail_is_cut() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let mut r = report(&uuid(1), false, vec![]);
    r["self_check"]["detail"] = json!("x".repeat(50_000));
    assert_eq!(post(&app, &tokens["de-1"], &r).await.status(), 202);
    let snapshot = app
        .store()
        .await
        .evidence_snapshot()
        .await
        .expect("snapshot");
    let (_, _, check) = snapshot
        .reports
        .iter()
        .find(|(id, _, _)| id.as_str() == "de-1")
        .expect("de-1 reported");
    let detail = check.detail.as_deref().expect("detail");
    assert!(
        detail.len() <= meshwatch::intake::MAX_DETAIL_BYTES,
        "{}",
        detail.len()
    );
    assert!(detail.ends_with('…'));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_over_the_fleets_probe_bound_gets_413_naming_it() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let many = report(&uuid(1), true, probes("de-2-ep", true, 0, 1_500));
    let response = post(&app, &tokens["de-1"], &many).await;
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "too_many_probes");
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains("at most 1000"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_reports_from_one_agent_gets_429_with_retry_after() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let burst = meshwatch_server::auth::report_limit::REPORT_BURST;
    for n in 0..burst {
        let r = post(&app, &tokens["de-1"], &report(&uuid(n + 1), true, vec![])).await;
        assert_eq!(r.status(), 202, "report {n} is within the burst");
    }
    let refused = post(
        &app,
        &tokens["de-1"],
        &report(&uuid(burst + 1), true, vec![]),
    )
    .await;
    assert_eq!(refused.status(), 429);
    let wait: u64 = refused
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After in seconds");
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(error_code(refused).await, "rate_limited");
    let other = post(&app, &tokens["de-2"], &report(&uuid(1), true, vec![])).await;
    assert_eq!(other.status(), 202, "the limit is per agent");
}

async fn config_of(app: &TestApp, token: &str) -> Value {
    app.client
        .get(app.url("/api/agent/v1/config"))
        .bearer_auth(token)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_server_leaves_routes_mesh_subscriptions_and_peers_config() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let before = config_of(&app, &tokens["nl-1"]).await;
    let response = app
        .client
        .delete(app.url("/api/v1/servers/de-1"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 204);

    assert_eq!(
        get_response(&app, "/api/v1/servers/de-1").await.status(),
        404
    );
    let ids: Vec<Value> = get(&app, "/api/v1/servers")
        .await
        .as_array()
        .expect("list")
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    assert!(!ids.contains(&json!("de-1")), "{ids:?}");
    let after = config_of(&app, &tokens["nl-1"]).await;
    let peers: Vec<&str> = after["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .filter_map(|p| p["server_id"].as_str())
        .collect();
    assert!(!peers.contains(&"de-1"), "{peers:?}");
    assert_ne!(after["fleet_version"], before["fleet_version"]);
    let user = get(&app, "/api/v1/users/alice").await;
    assert!(
        user["servers"]
            .as_array()
            .expect("rows")
            .iter()
            .all(|r| r["server_id"] != "de-1"),
        "{user}"
    );
    // Its agent is no longer one of the fleet.
    let gone = post(&app, &tokens["de-1"], &report(&uuid(500), true, vec![])).await;
    assert_eq!(gone.status(), 401);

    let again = app
        .client
        .delete(app.url("/api/v1/servers/de-1"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(again.status(), 404);
    assert_eq!(error_code(again).await, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_removed_no_longer_counts_against_its_witnesses() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    // fi-1 reaches de-2 and nl-1 but fails de-1 and ir-1: 2 of 4, unreliable.
    let mut list = probes("de-1-ep", false, 0, 3);
    list.extend(probes("ir-1-ep", false, 0, 3));
    list.extend(probes("de-2-ep", true, 0, 3));
    list.extend(probes("nl-1-ep", true, 0, 3));
    crate::agent::post_rounds(&app, &tokens["fi-1"], 1, list).await;
    let fi = get(&app, "/api/v1/servers/fi-1").await;
    assert_eq!(fi["unreliable_witness"], json!({"failing": 2, "of": 4}));
    let removed = app
        .put_fleet(&json!({"remove": {"servers": ["de-1"], "users": ["alice"]}}))
        .await;
    assert_eq!(removed.status(), 200);
    let fi = get(&app, "/api/v1/servers/fi-1").await;
    assert_eq!(fi["unreliable_witness"], Value::Null, "1 of 3 now: {fi}");
    assert_eq!(
        get_response(&app, "/api/v1/users/alice").await.status(),
        404
    );
    assert_eq!(
        get_response(&app, "/api/v1/servers/de-1").await.status(),
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_document_cannot_both_upsert_and_remove_one_server() {
    let app = spawn_app().await;
    fleet(&app).await;
    let both = json!({
        "servers": [{"id": "de-1", "name": "DE-1", "country": "DE", "routes": ["de"], "entry_points": []}],
        "remove": {"servers": ["de-1"]}
    });
    let response = app.put_fleet(&both).await;
    assert_eq!(response.status(), 422);
    assert!(error_message(response).await.contains("remove.servers[0]"));
    assert_eq!(status(&app, "de-1").await, "no_data", "nothing changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_reports_answer_carries_the_fleet_version_that_moves_with_the_fleet() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let config = config_of(&app, &tokens["nl-1"]).await;
    let version = config["fleet_version"].as_u64().expect("a version");
    let ack: Value = post(&app, &tokens["nl-1"], &report(&uuid(1), true, vec![]))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(ack["fleet_version"], version, "nothing changed yet");
    // The operator gives de-1 a new address, as the blocked email advises.
    let moved = json!({"servers": [{"id": "de-1", "name": "DE-1", "country": "DE", "routes": ["de"],
        "entry_points": [{"id": "de-1-ep", "protocol": "vless", "host": "127.0.31.9", "port": 443}]}]});
    assert_eq!(app.put_fleet(&moved).await.status(), 200);
    let ack: Value = post(&app, &tokens["nl-1"], &report(&uuid(2), true, vec![]))
        .await
        .json()
        .await
        .expect("json");
    assert_ne!(
        ack["fleet_version"], version,
        "the agent learns on its next report"
    );
    let config = config_of(&app, &tokens["nl-1"]).await;
    assert_eq!(config["fleet_version"], ack["fleet_version"]);
    let host = config["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .find(|p| p["entry_point_id"] == "de-1-ep")
        .map(|p| p["host"].clone());
    assert_eq!(host, Some(json!("127.0.31.9")));
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

async fn post_encoded(
    app: &TestApp,
    token: &str,
    encoding: &str,
    body: Vec<u8>,
) -> reqwest::Response {
    app.client
        .post(app.url("/api/agent/v1/report"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("content-encoding", encoding)
        .body(body)
        .send()
        .await
        .expect("sent")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_report_is_taken_and_a_decompression_bomb_gets_413() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let body =
        serde_json::to_vec(&report(&uuid(1), true, probes("de-2-ep", true, 0, 1))).expect("json");
    let response = post_encoded(&app, &tokens["de-1"], "gzip", gzip(&body)).await;
    assert_eq!(response.status(), 202);
    assert_eq!(status(&app, "de-1").await, "healthy");

    // 8 MiB of JSON whitespace compress to a few KiB.
    let mut bomb = b"{\"report_id\": ".to_vec();
    bomb.extend(std::iter::repeat_n(b' ', 8 << 20));
    let compressed = gzip(&bomb);
    assert!(compressed.len() < 64 * 1024);
    let response = post_encoded(&app, &tokens["de-1"], "gzip", compressed).await;
    assert_eq!(response.status(), 413);
    assert_eq!(error_code(response).await, "payload_too_large");

    let response = post_encoded(&app, &tokens["de-1"], "br", body).await;
    assert_eq!(response.status(), 415);
    assert_eq!(error_code(response).await, "unsupported_encoding");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_servers_history_stays_readable() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    // The evaluator records the change to healthy.
    app.tick().await;
    let response = app
        .client
        .delete(app.url("/api/v1/servers/fi-1"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 204);
    app.create_operator("ops", "a long password").await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (status, html) = app.page(&cookie, "/overview").await;
    assert_eq!(status, 200);
    assert!(
        html.contains("fi-1"),
        "the Overview's latest changes still list it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_an_unknown_id_is_refused_and_writes_nothing() {
    let app = spawn_app().await;
    fleet(&app).await;
    let response = app
        .put_fleet(&json!({"remove": {"servers": ["de-1", "xx-9"]}}))
        .await;
    assert_eq!(response.status(), 422);
    assert_eq!(error_code(response).await, "unknown_id");
    assert_eq!(status(&app, "de-1").await, "no_data", "de-1 is still there");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_config_answers_304_while_the_fleet_version_is_unchanged() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let ask = |tag: Option<String>| {
        let mut request = app
            .client
            .get(app.url("/api/agent/v1/config"))
            .bearer_auth(&tokens["nl-1"]);
        if let Some(tag) = tag {
            request = request.header("if-none-match", tag);
        }
        request.send()
    };
    let first = ask(None).await.expect("sent");
    assert_eq!(first.status(), 200);
    let etag = first.headers()["etag"].to_str().expect("etag").to_owned();
    let version = first.json::<Value>().await.expect("json")["fleet_version"].clone();
    assert_eq!(etag, format!("\"{version}\""));
    let again = ask(Some(etag.clone())).await.expect("sent");
    assert_eq!(again.status(), 304);
    assert!(again.bytes().await.expect("body").is_empty());
    app.set_verifier("ir-1", true).await;
    let changed = ask(Some(etag)).await.expect("sent");
    assert_eq!(changed.status(), 200, "the fleet changed");
}
