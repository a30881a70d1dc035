//! The scenarios of docs/PRODUCT.md, driven only through the agent and
//! automation APIs.

use crate::agent::{all_report, fleet, get, knock, post, post_rounds, probes, report, uuid};
use crate::helpers::{spawn_app, spawn_app_with_manual_clock, TestApp};
use serde_json::{json, Value};
use std::collections::HashMap;

const SERVERS: [&str; 5] = ["de-1", "de-2", "fi-1", "ir-1", "nl-1"];

/// Every server reports OK with one successful probe to everyone else.
async fn healthy_mesh(app: &TestApp, tokens: &HashMap<String, String>, base: u32) {
    for (i, witness) in SERVERS.iter().enumerate() {
        let list: Vec<Value> = SERVERS
            .iter()
            .filter(|t| *t != witness)
            .flat_map(|t| probes(&format!("{t}-ep"), true, 0, 1))
            .collect();
        let r = post(
            app,
            &tokens[*witness],
            &report(&uuid(base + i as u32), true, list),
        )
        .await;
        assert_eq!(r.status(), 202);
    }
}

async fn status(app: &TestApp, id: &str) -> Value {
    get(app, &format!("/api/v1/servers/{id}")).await["status"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_healthy_fleet_is_all_green_and_in_rotation() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    healthy_mesh(&app, &tokens, 100).await;
    let servers = get(&app, "/api/v1/servers").await;
    for s in servers.as_array().expect("servers") {
        assert_eq!(s["status"], "healthy", "{s}");
        assert_eq!(s["conditions"], json!(["healthy"]));
        assert_eq!(s["in_rotation"], true);
        assert_eq!(s["stale"], false);
        assert_eq!(s["unreachable"], Value::Null);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_failed_knocks_are_ignored() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    healthy_mesh(&app, &tokens, 100).await;
    for (i, w) in ["de-2", "nl-1", "fi-1"].iter().enumerate() {
        knock(&app, &tokens[*w], i as u32, "de-1-ep", false, 10, 2).await;
    }
    assert_eq!(status(&app, "de-1").await, "healthy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_witness_marks_the_pair_naming_both_and_removes_nothing() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    healthy_mesh(&app, &tokens, 100).await;
    knock(&app, &tokens["fi-1"], 1, "de-1-ep", false, 10, 3).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "entry_points_unavailable");
    assert_eq!(view["in_rotation"], true, "nothing is removed");
    let ep = &view["entry_points"][0];
    assert_eq!(ep["available"], false);
    assert_eq!(
        (
            ep["causes"][0]["from"].as_str(),
            ep["causes"][0]["to"].as_str()
        ),
        (Some("fi-1"), Some("de-1"))
    );
    assert!(ep["causes"][0]["since"]
        .as_str()
        .expect("since")
        .starts_with("2026-12-02T09:00:10"));
    assert_eq!(status(&app, "fi-1").await, "healthy", "no one is blamed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_way_pair_failure_marks_both_sides() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    healthy_mesh(&app, &tokens, 100).await;
    knock(&app, &tokens["fi-1"], 1, "de-1-ep", false, 10, 3).await;
    knock(&app, &tokens["de-1"], 2, "fi-1-ep", false, 10, 3).await;
    assert_eq!(status(&app, "de-1").await, "entry_points_unavailable");
    assert_eq!(status(&app, "fi-1").await, "entry_points_unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreliable_witness_is_discarded_and_flagged() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    healthy_mesh(&app, &tokens, 100).await;
    let mut list = probes("de-1-ep", false, 10, 3);
    list.extend(probes("de-2-ep", false, 10, 3));
    post_rounds(&app, &tokens["fi-1"], 1, list).await;
    let fi = get(&app, "/api/v1/servers/fi-1").await;
    assert_eq!(fi["unreliable_witness"], json!({"failing": 2, "of": 4}));
    assert_eq!(
        status(&app, "de-1").await,
        "healthy",
        "its evidence is discarded"
    );
    assert_eq!(status(&app, "de-2").await, "healthy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verifier_that_reaches_no_one_blocks_no_one() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    app.set_verifier("ir-1", true).await;
    healthy_mesh(&app, &tokens, 100).await;
    let all_fail: Vec<Value> = ["de-1", "de-2", "fi-1", "nl-1"]
        .iter()
        .flat_map(|t| probes(&format!("{t}-ep"), false, 10, 3))
        .collect();
    post_rounds(&app, &tokens["ir-1"], 1, all_fail).await;
    for target in ["de-1", "de-2", "fi-1", "nl-1"] {
        assert_eq!(
            status(&app, target).await,
            "healthy",
            "{target}: the verifier is suspended"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_server_is_withheld_while_its_route_has_an_alternative() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let sub = json!({"users": [{"id": "alice", "name": "Alice", "routes": ["de"], "sub_token": "alice-subscription-token-0002"}]});
    app.put_fleet(&sub).await;
    app.set_verifier("ir-1", true).await;
    all_report(&app, &tokens, 100).await;
    let mut seen = probes("de-1-ep", false, 10, 3);
    seen.extend(probes("nl-1-ep", true, 10, 1));
    post_rounds(&app, &tokens["ir-1"], 1, seen).await;
    assert_eq!(status(&app, "de-1").await, "blocked");
    let links = app
        .client
        .get(app.url("/sub/alice-subscription-token-0002?format=plain"))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("text");
    assert!(
        links.contains("#DE-2") && !links.contains("#DE-1"),
        "{links}"
    );
    let user = get(&app, "/api/v1/users/alice").await;
    let rows = user["servers"].as_array().expect("rows");
    if let Some(row) = rows.iter().find(|r| r["server_id"] == "de-1") {
        assert_eq!(row["caption"], "Address blocked");
        assert_eq!(row["replaced_by"], "de-2");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_witness_evidence_stops_counting() {
    let app = spawn_app_with_manual_clock().await;
    let tokens = fleet(&app).await;
    let shorten = app
        .client
        .put(app.url("/api/v1/settings"))
        .bearer_auth(crate::helpers::ADMIN_TOKEN)
        .json(&json!({"stale_after_s": 4, "probe_interval_s": 1}))
        .send()
        .await
        .expect("sent");
    assert_eq!(shorten.status(), 200);
    healthy_mesh(&app, &tokens, 100).await;
    for (i, w) in ["de-2", "nl-1"].iter().enumerate() {
        knock(&app, &tokens[*w], i as u32, "de-1-ep", false, 10, 3).await;
    }
    assert_eq!(status(&app, "de-1").await, "unreachable");
    // de-2 and nl-1 fall silent past stale_after; the others keep reporting.
    app.advance(std::time::Duration::from_millis(4_100)).await;
    for (i, w) in ["de-1", "fi-1", "ir-1"].iter().enumerate() {
        post(
            &app,
            &tokens[*w],
            &report(&uuid(10 + i as u32), true, vec![]),
        )
        .await;
    }
    assert_eq!(
        status(&app, "de-1").await,
        "healthy",
        "the silent witnesses' votes expired"
    );
    assert_eq!(status(&app, "nl-1").await, "no_data");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_shows_each_servers_verdict() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    healthy_mesh(&app, &tokens, 100).await;
    post(&app, &tokens["de-1"], &report(&uuid(1), false, vec![])).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let items: Value = app
        .client
        .post(app.url("/rpc/servers"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    let de1 = items
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["server"]["id"] == "de-1")
        .expect("de-1");
    assert_eq!(
        de1["status"], "unavailable",
        "the engine's own type reaches the panel"
    );
    let html = app
        .client
        .get(app.url("/"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("html");
    assert!(
        html.contains("Server unavailable") && html.contains("Healthy"),
        "status wording on the page"
    );
}
