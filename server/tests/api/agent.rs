//! The agent API and the verdicts it feeds, driven only over HTTP.

use crate::helpers::{error_code, spawn_app, TestApp, ADMIN_TOKEN};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Five servers (two routes) and a user; returns the agent tokens.
pub async fn fleet(app: &TestApp) -> HashMap<String, String> {
    let servers: Vec<Value> = [("de-1", "DE", "de"), ("de-2", "DE", "de"), ("nl-1", "NL", "nl"), ("fi-1", "FI", "nl"), ("ir-1", "IR", "nl")]
        .iter()
        .map(|(id, country, route)| {
            json!({"id": id, "name": id.to_uppercase(), "country": country, "routes": [route],
                   "entry_points": [{"id": format!("{id}-ep"), "protocol": "vless", "host": "127.0.30.1", "port": 443}]})
        })
        .collect();
    let body = json!({
        "routes": [{"id": "de", "name": "Germany", "servers_per_user": 1}, {"id": "nl", "name": "Netherlands"}],
        "servers": servers,
        "users": [{"id": "alice", "name": "Alice", "routes": ["de"]}]
    });
    let response: Value = app.put_fleet(&body).await.json().await.expect("json");
    serde_json::from_value(response["agent_tokens"].clone()).expect("tokens")
}

/// A report sent now (the agent's clock is right: its results' times are
/// taken as they are).
pub fn report(id: &str, listener_ok: bool, probes: Vec<Value>) -> Value {
    let sent_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    json!({"report_id": id, "agent_version": "0.1.0", "sent_at": sent_at,
           "self_check": {"listener_ok": listener_ok, "service_ok": true, "detail": null},
           "metrics": {"cpu_pct": 12.5, "connections": 42}, "probes": probes})
}

/// `n` results for one entry point, one second apart, starting at `from`.
pub fn probes(entry_point: &str, ok: bool, from: u32, n: u32) -> Vec<Value> {
    (from..from + n)
        .map(|s| {
            json!({"entry_point_id": entry_point, "at": format!("2026-12-02T09:{:02}:{:02}Z", s / 60, s % 60),
                   "ok": ok, "latency_ms": if ok { json!(20) } else { json!(null) },
                   "error": if ok { json!(null) } else { json!("timeout") }})
        })
        .collect()
}

/// `n` results of `token`'s server for `entry_point`, one report each (a
/// report counts at most one result per pair), the first report's id being
/// `uuid(report_no)`. Returns the last answer.
pub async fn knock(
    app: &TestApp,
    token: &str,
    report_no: u32,
    entry_point: &str,
    ok: bool,
    from: u32,
    n: u32,
) -> reqwest::Response {
    post_rounds(app, token, report_no, probes(entry_point, ok, from, n)).await
}

/// Posts `list` the way an agent does with several probe rounds: one report
/// per round, each with at most one result per entry point, in order; the
/// ids are `round_uuid(report_no, round)`. Returns the last answer.
pub async fn post_rounds(
    app: &TestApp,
    token: &str,
    report_no: u32,
    list: Vec<Value>,
) -> reqwest::Response {
    let mut rounds: Vec<Vec<Value>> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for probe in list {
        let ep = probe["entry_point_id"].as_str().expect("ep").to_owned();
        let round = seen.entry(ep).or_insert(0);
        if rounds.len() <= *round {
            rounds.push(Vec::new());
        }
        rounds[*round].push(probe);
        *round += 1;
    }
    let mut last = None;
    for (k, round) in rounds.into_iter().enumerate() {
        if k > 0 {
            // The next round arrives a knock later, as an agent's would.
            next_round(app).await;
        }
        let response = post(
            app,
            token,
            &report(&round_uuid(report_no, k as u32), true, round),
        )
        .await;
        assert_eq!(response.status(), 202, "round {k}");
        last = Some(response);
    }
    last.expect("at least one result")
}

pub fn uuid(n: u32) -> String {
    round_uuid(n, 0)
}

/// The id of round `k` of report `n` (round 0 is `uuid(n)`).
pub fn round_uuid(n: u32, k: u32) -> String {
    format!("00000000-0000-4000-8{k:03}-{n:012}")
}

/// Posts a report as its agent would: an agent's clock follows the
/// panel's, so its `sent_at` moves on with however far the test moved the
/// panel's clock (a skew the report was written with stays).
pub async fn post(app: &TestApp, token: &str, body: &Value) -> reqwest::Response {
    let mut body = body.clone();
    let sent_at = body["sent_at"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    if let Some(sent_at) = sent_at {
        let moved = sent_at.with_timezone(&chrono::Utc) + app.clock_ahead();
        body["sent_at"] = json!(moved.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    }
    app.client
        .post(app.url("/api/agent/v1/report"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .expect("sent")
}

/// Moves the panel's clock on to the next probe round: half the
/// settings' `probe_interval_s`, the least time between two knocks of one
/// pair (docs/PRODUCT.md §1b: results received closer together are one knock).
pub async fn next_round(app: &TestApp) {
    let settings = get(app, "/api/v1/settings").await;
    let probe_interval_s = settings["probe_interval_s"]
        .as_u64()
        .expect("probe_interval_s");
    app.advance(std::time::Duration::from_millis(probe_interval_s * 500))
        .await;
}

/// `GET path` with the operator token, whatever the answer.
pub async fn get_response(app: &TestApp, path: &str) -> reqwest::Response {
    app.client
        .get(app.url(path))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent")
}

/// `GET path` with the operator token, expecting 200 and JSON.
pub async fn get(app: &TestApp, path: &str) -> Value {
    let response = get_response(app, path).await;
    assert_eq!(response.status(), 200, "{path}");
    response.json().await.expect("json")
}

/// Every server reports OK with no probes.
pub async fn all_report(app: &TestApp, tokens: &HashMap<String, String>, base: u32) {
    for (i, token) in tokens.values().enumerate() {
        let r = post(app, token, &report(&uuid(base + i as u32), true, vec![])).await;
        assert_eq!(r.status(), 202);
    }
}

/// The agent config `token`'s agent gets.
pub async fn config_of(app: &TestApp, token: &str) -> Value {
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
async fn an_agent_gets_the_intervals_and_every_other_entry_point() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let config = config_of(&app, &tokens["de-1"]).await;
    assert_eq!(config["report_interval_s"], 60);
    assert_eq!(config["probe_interval_s"], 30);
    assert_eq!(config["probe_timeout_s"], 5);
    let peers: Vec<&str> = config["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .map(|p| p["server_id"].as_str().expect("id"))
        .collect();
    assert_eq!(peers, ["de-2", "fi-1", "ir-1", "nl-1"]);
    assert_eq!(config["peers"][0]["entry_point_id"], "de-2-ep");
    assert_eq!(config["peers"][0]["port"], 443);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tuic_peer_carries_the_alpn_its_params_set() {
    let app = spawn_app().await;
    let entry = |id: &str, protocol: &str, params: Value| json!({"id": id, "protocol": protocol, "host": "127.0.30.1", "port": 443, "params": params});
    let body = json!({
        "routes": [{"id": "de", "name": "Germany"}],
        "servers": [
            {"id": "de-1", "name": "DE-1", "country": "DE", "routes": ["de"],
             "entry_points": [entry("de-1-ep", "vless", json!({}))]},
            {"id": "de-2", "name": "DE-2", "country": "DE", "routes": ["de"],
             "entry_points": [entry("de-2-tuic", "tuic", json!({"alpn": "h3,spdy/3.1"})),
                              entry("de-2-hy2", "hysteria2", json!({"alpn": "h2"}))]}
        ],
        "users": [{"id": "alice", "name": "Alice", "routes": ["de"]}]
    });
    let response: Value = app.put_fleet(&body).await.json().await.expect("json");
    let tokens: HashMap<String, String> =
        serde_json::from_value(response["agent_tokens"].clone()).expect("tokens");
    let config: Value = app
        .client
        .get(app.url("/api/agent/v1/config"))
        .bearer_auth(&tokens["de-1"])
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(config["peers"][0]["entry_point_id"], "de-2-tuic");
    assert_eq!(config["peers"][0]["alpn"], json!(["h3", "spdy/3.1"]));
    assert_eq!(config["peers"][1]["entry_point_id"], "de-2-hy2");
    assert!(
        config["peers"][1].get("alpn").is_none(),
        "Hysteria2 apps offer h3 whatever the params say: {config}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_and_operator_tokens_do_not_open_each_others_api() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let as_operator = app
        .client
        .get(app.url("/api/agent/v1/config"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(as_operator.status(), 401);
    assert_eq!(error_code(as_operator).await, "unauthorized");
    let as_agent = app
        .client
        .get(app.url("/api/v1/servers"))
        .bearer_auth(&tokens["de-1"])
        .send()
        .await
        .expect("sent");
    assert_eq!(as_agent.status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_entry_points_are_skipped_and_counted() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let mut list = probes("de-2-ep", true, 0, 2);
    list.extend(probes("gone-ep", false, 0, 1));
    let response = post(&app, &tokens["de-1"], &report(&uuid(1), true, list)).await;
    assert_eq!(response.status(), 202);
    let ack: Value = response.json().await.expect("json");
    assert_eq!(
        (&ack["accepted_probes"], &ack["skipped_probes"]),
        (&json!(2), &json!(1))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_self_report_makes_the_server_unavailable_and_a_good_one_heals_it() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    assert_eq!(get(&app, "/api/v1/servers/de-1").await["status"], "no_data");
    all_report(&app, &tokens, 100).await;
    post(&app, &tokens["de-1"], &report(&uuid(1), false, vec![])).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "unavailable");
    assert_eq!(view["in_rotation"], false);
    assert_eq!(
        view["self_check"],
        json!({"listener_ok": false, "service_ok": true})
    );

    let user = get(&app, "/api/v1/users/alice").await;
    let rows = user["servers"].as_array().expect("rows");
    if let Some(row) = rows.iter().find(|r| r["server_id"] == "de-1") {
        assert_eq!(row["caption"], "Server unavailable");
        assert_eq!(row["in_subscription"], false);
        assert_eq!(row["replaced_by"], "de-2");
    } else {
        assert!(rows
            .iter()
            .any(|r| r["server_id"] == "de-2" && r["in_subscription"] == true));
    }

    post(&app, &tokens["de-1"], &report(&uuid(2), true, vec![])).await;
    assert_eq!(get(&app, "/api/v1/servers/de-1").await["status"], "healthy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_report_is_applied_once() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    for retry in 0..3 {
        for k in 0..2 {
            if retry == 0 && k == 1 {
                next_round(&app).await;
            }
            let failed = report(&uuid(1 + k), true, probes("de-1-ep", false, k, 1));
            let response = post(&app, &tokens["nl-1"], &failed).await;
            assert_eq!(response.status(), 202);
            assert_eq!(
                response.json::<Value>().await.expect("json")["accepted_probes"],
                1
            );
        }
    }
    assert_eq!(
        get(&app, "/api/v1/servers/de-1").await["status"],
        "healthy",
        "streak 2, not 6"
    );
    next_round(&app).await;
    knock(&app, &tokens["nl-1"], 3, "de-1-ep", false, 2, 1).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "entry_points_unavailable");
    assert_eq!(view["entry_points"][0]["causes"][0]["from"], "nl-1");
    assert_eq!(view["entry_points"][0]["causes"][0]["to"], "de-1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_results_than_the_last_applied_are_ignored() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    knock(&app, &tokens["nl-1"], 1, "de-1-ep", true, 10, 1).await;
    knock(&app, &tokens["nl-1"], 2, "de-1-ep", false, 0, 5).await;
    assert_eq!(get(&app, "/api/v1/servers/de-1").await["status"], "healthy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quorum_makes_a_server_unreachable_k_of_n_and_one_success_heals() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    for (i, witness) in ["de-2", "nl-1", "fi-1"].iter().enumerate() {
        let ok = *witness == "fi-1";
        knock(&app, &tokens[*witness], i as u32, "de-1-ep", ok, 0, 3).await;
    }
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "unreachable");
    assert_eq!(view["unreachable"]["failing"], 2);
    assert_eq!(view["unreachable"]["of"], 3);
    assert_eq!(
        view["unreachable"]["failing_witnesses"],
        json!(["de-2", "nl-1"])
    );
    let user = get(&app, "/api/v1/users/alice").await;
    let captions: Vec<&str> = user["servers"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["caption"].as_str())
        .collect();
    if let Some(c) = captions.iter().find(|c| c.starts_with("Unreachable")) {
        assert!(c.contains("2 of 3 of your servers can't reach it"), "{c}");
    }
    knock(&app, &tokens["nl-1"], 10, "de-1-ep", true, 5, 1).await;
    assert_eq!(
        get(&app, "/api/v1/servers/de-1").await["status"],
        "entry_points_unavailable"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verifier_blocks_and_the_reverse_means_nothing() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let toggled = app.set_verifier("ir-1", true).await;
    assert_eq!(toggled.status(), 200);
    assert_eq!(
        toggled.json::<Value>().await.expect("json")["verifier"],
        true
    );
    all_report(&app, &tokens, 100).await;
    let mut list = probes("de-1-ep", false, 0, 3);
    list.extend(probes("de-2-ep", true, 0, 1));
    post_rounds(&app, &tokens["ir-1"], 1, list).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "blocked");
    assert_eq!(view["blocked_by"], json!(["ir-1"]));
    knock(&app, &tokens["de-2"], 2, "ir-1-ep", false, 0, 3).await;
    assert_eq!(get(&app, "/api/v1/servers/ir-1").await["status"], "healthy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_reports_survive_a_restart() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    knock(&app, &tokens["nl-1"], 1, "de-1-ep", false, 0, 3).await;
    assert_eq!(
        get(&app, "/api/v1/servers/de-1").await["status"],
        "entry_points_unavailable"
    );
    let app = app.restart().await;
    assert_eq!(
        get(&app, "/api/v1/servers/de-1").await["status"],
        "entry_points_unavailable"
    );
    let again = knock(&app, &tokens["nl-1"], 1, "de-1-ep", false, 0, 3).await;
    assert_eq!(
        again.status(),
        202,
        "a retry after the restart is still acknowledged"
    );
    knock(&app, &tokens["nl-1"], 2, "de-1-ep", true, 3, 1).await;
    assert_eq!(get(&app, "/api/v1/servers/de-1").await["status"], "healthy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_reports_get_the_error_body() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let token = &tokens["de-1"];
    let mut missing = report(&uuid(1), true, vec![]);
    missing
        .as_object_mut()
        .expect("object")
        .remove("self_check");
    let mut wrong_type = report(&uuid(2), true, vec![]);
    wrong_type["self_check"]["listener_ok"] = json!("yes");
    let mut unknown = report(&uuid(3), true, vec![]);
    unknown["colour"] = json!("blue");
    let mut bad_kind = report(&uuid(4), true, probes("de-2-ep", false, 0, 1));
    bad_kind["probes"][0]["error"] = json!("gremlins");
    let cases = [
        ("missing field", missing, "invalid_document"),
        ("wrong type", wrong_type, "invalid_document"),
        ("unknown field", unknown, "invalid_document"),
        ("unknown error kind", bad_kind, "invalid_document"),
        (
            "not a uuid",
            report("retry-1", true, vec![]),
            "invalid_report_id",
        ),
    ];
    for (what, body, code) in cases {
        let response = post(&app, token, &body).await;
        assert_eq!(response.status(), 422, "{what}");
        assert_eq!(error_code(response).await, code, "{what}");
    }
    assert_eq!(
        get(&app, "/api/v1/servers/de-1").await["status"],
        "no_data",
        "nothing was applied"
    );

    let malformed = app
        .client
        .post(app.url("/api/agent/v1/report"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(r#"{"report_id":"#)
        .send()
        .await
        .expect("sent");
    assert_eq!(malformed.status(), 400);
    let big = report(&uuid(9), true, probes("de-2-ep", true, 0, 12_000));
    let too_big = post(&app, token, &big).await;
    assert_eq!(too_big.status(), 413);
    assert_eq!(error_code(too_big).await, "payload_too_large");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_are_read_and_validated() {
    let app = spawn_app().await;
    let settings = get(&app, "/api/v1/settings").await;
    assert_eq!(
        settings,
        json!({"report_interval_s": 60, "probe_interval_s": 30, "probe_timeout_s": 5, "stale_after_s": 180,
               "failure_streak": 3, "quorum": 2, "unreliable_fraction": 0.5,
               "witness_set_threshold": 64, "witness_set_size": 12, "witness_rotation_s": 3600})
    );
    let put = |body: Value| {
        app.client
            .put(app.url("/api/v1/settings"))
            .bearer_auth(ADMIN_TOKEN)
            .json(&body)
            .send()
    };
    for bad in [
        json!({"quorum": 0}),
        json!({"unreliable_fraction": 0}),
        json!({"unreliable_fraction": 1.5}),
        json!({"failure_streak": -1}),
        json!({"stale_after_s": 1.5}),
        json!({"quorom": 2}),
        json!({"witness_set_size": 33}),
        json!({"witness_set_size": 0}),
        json!({"witness_set_threshold": 0}),
        json!({"witness_rotation_s": 0}),
    ] {
        let response = put(bad.clone()).await.expect("sent");
        assert_eq!(response.status(), 422, "{bad}");
        error_code(response).await;
    }
    assert_eq!(
        get(&app, "/api/v1/settings").await,
        settings,
        "nothing changed"
    );
    let changed: Value = put(json!({"quorum": 3, "unreliable_fraction": 1}))
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(changed["quorum"], 3);
    assert_eq!(changed["unreliable_fraction"], 1.0);
    assert_eq!(get(&app, "/api/v1/settings").await["quorum"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_servers_and_users_are_404() {
    let app = spawn_app().await;
    fleet(&app).await;
    for path in [
        "/api/v1/servers/xx-9",
        "/api/v1/users/nobody",
        "/api/v1/servers/BAD%20ID",
    ] {
        let response = app
            .client
            .get(app.url(path))
            .bearer_auth(ADMIN_TOKEN)
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(error_code(response).await, "not_found");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_metrics_and_folded_report_ids_are_pruned_but_unfolded_reports_are_kept() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let store = app.store().await;
    let future = chrono::Utc::now().timestamp_millis() + 60_000;
    let kept_unfolded = store.prune(future).await.expect("prune");
    assert_eq!(
        kept_unfolded, 5,
        "the 5 metrics samples go; the unfolded reports stay"
    );
    if let Some(shared) = store.shared() {
        // On PostgreSQL only the evaluator checkpoints: this store takes
        // over (the panel's own evaluator is fenced off from then on).
        shared
            .take_evaluator_term("test")
            .await
            .expect("the evaluator's term");
    }
    store
        .move_checkpoint(i64::MAX, &[])
        .await
        .expect("checkpoint");
    assert_eq!(
        store.prune(future).await.expect("prune"),
        5,
        "now the folded report ids go too"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reports_listing_shows_each_received_report_once_newest_first() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let two_results = |n: u32| report(&uuid(n), true, probes("nl-1-ep", true, n * 10, 2));
    for n in [1, 2] {
        let r = post(&app, &tokens["de-1"], &two_results(n)).await;
        assert_eq!(r.status(), 202);
    }
    // A retry of report 2 is not a new report.
    post(&app, &tokens["de-1"], &two_results(2)).await;
    let listed = get(&app, "/api/v1/servers/de-1/reports").await;
    let ids: Vec<&str> = listed
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|r| r["report_id"].as_str())
        .collect();
    assert_eq!(ids, [uuid(2), uuid(1)]);
    assert_eq!(listed[0]["accepted_probes"], 2);
    assert_eq!(
        get(&app, "/api/v1/servers/de-1/reports?limit=1")
            .await
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    for (path, status, code) in [
        ("/api/v1/servers/nope/reports", 404, "not_found"),
        ("/api/v1/servers/de-1/reports?limit=0", 400, "invalid_query"),
        (
            "/api/v1/servers/de-1/reports?limit=many",
            400,
            "invalid_query",
        ),
        ("/api/v1/servers/de-1/reports?since=1", 400, "invalid_query"),
    ] {
        let response = get_response(&app, path).await;
        assert_eq!(response.status(), status, "{path}");
        assert_eq!(error_code(response).await, code, "{path}");
    }
}
