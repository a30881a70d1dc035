//! Do no harm (PRODUCT.md §2 R1/R4/streaks, §6): a crash is never a block,
//! silence explains failures, a burst of reports is one knock, and the
//! card and the messages tell the truth. Driven through the agent and
//! automation APIs on the test's clock.

use crate::agent::{
    all_report, fleet, get, knock, next_round, post, post_rounds, probes, report, uuid,
};
use crate::helpers::{spawn_app, TestApp, ADMIN_TOKEN};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

async fn view(app: &TestApp, id: &str) -> Value {
    get(app, &format!("/api/v1/servers/{id}")).await
}

async fn outbox(app: &TestApp) -> Vec<Value> {
    app.tick().await;
    get(app, "/api/v1/notifications")
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// An action on blocks that runs `/bin/true` at once.
async fn block_action(app: &TestApp) {
    let created = app
        .client
        .post(app.url("/api/v1/actions"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"name": "rotate", "on": "blocked", "command": ["/bin/true"]}))
        .send()
        .await
        .expect("sent");
    assert_eq!(created.status(), 201);
}

/// A report of `token`'s server with its self-check and no results.
async fn self_report(app: &TestApp, token: &str, id: u32, service_ok: bool) {
    let mut r = report(&uuid(id), true, vec![]);
    r["self_check"]["service_ok"] = json!(service_ok);
    assert_eq!(post(app, token, &r).await.status(), 202);
}

async fn with_verifier(app: &TestApp) -> HashMap<String, String> {
    let tokens = fleet(app).await;
    assert_eq!(app.set_verifier("ir-1", true).await.status(), 200);
    all_report(app, &tokens, 100).await;
    tokens
}

#[tokio::test]
async fn a_crash_with_a_verifier_present_is_no_block_no_message_and_no_action() {
    let app = spawn_app().await;
    let tokens = with_verifier(&app).await;
    block_action(&app).await;
    // de-1's VPN service stops: its listener is gone for everyone.
    self_report(&app, &tokens["de-1"], 1, false).await;
    for (i, witness) in ["ir-1", "nl-1", "fi-1"].iter().enumerate() {
        knock(
            &app,
            &tokens[*witness],
            10 + 10 * i as u32,
            "de-1-ep",
            false,
            0,
            3,
        )
        .await;
    }
    self_report(&app, &tokens["de-1"], 2, false).await;
    let de = view(&app, "de-1").await;
    assert_eq!(de["status"], "unavailable", "{de}");
    assert!(
        !de["conditions"]
            .as_array()
            .expect("conditions")
            .contains(&json!("blocked")),
        "a crash is never a block: {de}"
    );
    assert_eq!(de["blocked_on"], json!([]));
    assert!(outbox(&app).await.is_empty(), "no 'change the IP' message");
    let runs = get(&app, "/api/v1/actions/runs?server_id=de-1").await;
    assert_eq!(runs, json!([]), "no action run");
}

#[tokio::test]
async fn a_verifier_failing_a_living_server_still_blocks_it_and_tells_once() {
    let app = spawn_app().await;
    let tokens = with_verifier(&app).await;
    knock(&app, &tokens["ir-1"], 10, "de-1-ep", false, 0, 3).await;
    self_report(&app, &tokens["de-1"], 1, true).await;
    let de = view(&app, "de-1").await;
    assert_eq!(de["status"], "blocked", "{de}");
    assert_eq!(de["blocked_on"][0]["verifier"], "ir-1");
    let sent = outbox(&app).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["kind"], "blocked");
}

#[tokio::test]
async fn a_burst_of_reports_is_one_knock_and_never_a_block() {
    let app = spawn_app().await;
    let tokens = with_verifier(&app).await;
    // Three reports at once from the verifier's token: one knock.
    for k in 0..3u32 {
        let r = report(&uuid(10 + k), true, probes("de-1-ep", false, k, 1));
        let answer = post(&app, &tokens["ir-1"], &r).await;
        assert_eq!(answer.status(), 202);
    }
    assert_eq!(view(&app, "de-1").await["status"], "healthy");
    assert!(outbox(&app).await.is_empty());
    // Two more knocks, each a round later: now it is a streak of three.
    for k in 3..5u32 {
        next_round(&app).await;
        let r = report(&uuid(10 + k), true, probes("de-1-ep", false, k, 1));
        assert_eq!(post(&app, &tokens["ir-1"], &r).await.status(), 202);
    }
    self_report(&app, &tokens["de-1"], 1, true).await;
    assert_eq!(view(&app, "de-1").await["status"], "blocked");
}

#[tokio::test]
async fn when_half_the_fleet_goes_dark_the_survivors_votes_take_it_out_of_rotation() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    // de-2 and nl-1 go dark: no more reports, every probe of them fails.
    app.advance(Duration::from_secs(181)).await;
    let survivors = ["de-1", "fi-1", "ir-1"];
    for (i, witness) in survivors.iter().enumerate() {
        let list: Vec<Value> = ["de-2-ep", "nl-1-ep"]
            .iter()
            .flat_map(|ep| probes(ep, false, 0, 3))
            .chain(
                survivors
                    .iter()
                    .filter(|s| *s != witness)
                    .flat_map(|s| probes(&format!("{s}-ep"), true, 0, 3)),
            )
            .collect();
        post_rounds(&app, &tokens[*witness], 10 + 10 * i as u32, list).await;
    }
    for id in survivors {
        let v = view(&app, id).await;
        assert_eq!(v["unreliable_witness"], Value::Null, "{id}: {v}");
    }
    for id in ["de-2", "nl-1"] {
        let v = view(&app, id).await;
        assert_eq!(v["conditions"], json!(["unreachable", "no_data"]), "{v}");
        assert_eq!(v["in_rotation"], false);
        assert_eq!(v["unreachable"]["failing"], 3);
    }
    // Alice's route `de` serves one server: de-1, not the dark de-2.
    let alice = get(&app, "/api/v1/users/alice").await;
    let served: Vec<&Value> = alice["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter(|s| s["in_subscription"] == true)
        .map(|s| &s["server_id"])
        .collect();
    assert_eq!(served, vec![&json!("de-1")], "{alice}");

    // The dark server's card says its agent is silent, under "Unreachable".
    app.create_operator("ops", "a long password").await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, card) = app.page(&cookie, "/servers/de-2").await;
    assert!(card.contains("Unreachable from your servers"), "{card}");
    assert!(card.contains("No data — agent not responding"));
}

#[tokio::test]
async fn a_server_served_as_its_route_s_best_available_says_so() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    // Both servers of route `de` are down: the route serves its best available.
    self_report(&app, &tokens["de-1"], 1, false).await;
    self_report(&app, &tokens["de-2"], 2, false).await;
    let alice = get(&app, "/api/v1/users/alice").await;
    let best = alice["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .find(|s| s["in_subscription"] == true)
        .expect("never empty")["server_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let other = if best == "de-1" { "de-2" } else { "de-1" };
    app.create_operator("ops", "a long password").await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, card) = app.page(&cookie, &format!("/servers/{best}")).await;
    assert!(
        card.contains("In the subscription as the route's best available server"),
        "{card}"
    );
    assert!(!card.contains("its place in subscriptions is taken by healthy servers"));
    let (_, card) = app.page(&cookie, &format!("/servers/{other}")).await;
    assert!(card.contains("its place in subscriptions is taken by healthy servers"));
}

#[tokio::test]
async fn a_block_that_clears_during_maintenance_is_told_cleared_when_the_window_ends() {
    let app = spawn_app().await;
    let tokens = with_verifier(&app).await;
    knock(&app, &tokens["ir-1"], 10, "de-1-ep", false, 0, 3).await;
    self_report(&app, &tokens["de-1"], 1, true).await;
    assert_eq!(outbox(&app).await.len(), 1, "the block is told");
    let start = app.now();
    let end = start + chrono::Duration::minutes(30);
    let at =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let planned = app
        .client
        .post(app.url("/api/v1/maintenance"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"servers": ["de-1"], "routes": [], "start": at(start), "end": at(end)}))
        .send()
        .await
        .expect("sent");
    assert_eq!(planned.status(), 201);
    app.tick().await;
    assert_eq!(view(&app, "de-1").await["status"], "maintenance");
    // The block clears inside the window: nothing is told then.
    next_round(&app).await;
    knock(&app, &tokens["ir-1"], 20, "de-1-ep", true, 10, 1).await;
    assert_eq!(outbox(&app).await.len(), 1);
    // The window ends; everyone reports again.
    app.advance(Duration::from_secs(31 * 60)).await;
    all_report(&app, &tokens, 200).await;
    let sent = outbox(&app).await;
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0]["kind"], "cleared", "newest first");
    assert_eq!(sent[0]["server_id"], "de-1");
}

#[tokio::test]
async fn a_whole_fleet_fault_that_flaps_is_told_once() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let servers = ["de-1", "de-2", "fi-1", "ir-1", "nl-1"];
    let everyone = |ok: bool, from: u32, n: u32, witness: &str| -> Vec<Value> {
        servers
            .iter()
            .filter(|t| **t != witness)
            .flat_map(|t| probes(&format!("{t}-ep"), ok, from, n))
            .collect()
    };
    for (flap, (ok, from, n)) in [(false, 0, 3), (true, 3, 1), (false, 4, 3)]
        .into_iter()
        .enumerate()
    {
        for (i, witness) in servers.iter().enumerate() {
            let report_no = 10 * (flap as u32 + 1) + i as u32 * 100;
            post_rounds(
                &app,
                &tokens[*witness],
                report_no,
                everyone(ok, from, n, witness),
            )
            .await;
        }
        next_round(&app).await;
    }
    let kinds: Vec<Value> = outbox(&app)
        .await
        .iter()
        .map(|n| n["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        vec![json!("witness_network")],
        "one message for a flapping fault"
    );
}
