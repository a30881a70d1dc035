//! R4's emails: one when a verifier sees a block, one when it clears.

use crate::agent::{all_report, fleet, get, post, probes, report, uuid};
use crate::helpers::{spawn_app, TestApp, ADMIN_TOKEN};
use serde_json::{json, Value};
use std::time::Duration;

/// Polls the outbox until it has `n` entries (the evaluator tick records
/// changes once a second).
async fn outbox_with(app: &TestApp, n: usize) -> Vec<Value> {
    for _ in 0..50 {
        let list = get(app, "/api/v1/notifications").await;
        let list = list.as_array().cloned().unwrap_or_default();
        if list.len() >= n {
            return list;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the outbox never reached {n} entries");
}

#[tokio::test]
async fn a_block_sends_one_notification_and_its_clearing_another() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let toggled = app
        .client
        .put(app.url("/api/v1/servers/ir-1/verifier"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"enabled": true}))
        .send()
        .await
        .expect("sent");
    assert_eq!(toggled.status(), 200);
    all_report(&app, &tokens, 100).await;
    let mut seen = probes("de-2-ep", true, 0, 1);
    seen.extend(probes("de-1-ep", false, 0, 3));
    post(&app, &tokens["ir-1"], &report(&uuid(1), true, seen)).await;
    assert_eq!(get(&app, "/api/v1/servers/de-1").await["status"], "blocked");

    let outbox = outbox_with(&app, 1).await;
    assert_eq!(outbox[0]["kind"], "blocked");
    assert_eq!(outbox[0]["server_id"], "de-1");
    assert_eq!(outbox[0]["state"], "queued", "no SMTP configured: it waits");
    assert!(outbox[0]["subject"]
        .as_str()
        .expect("subject")
        .contains("DE-1"));

    // More evidence of the same incident sends nothing more.
    post(
        &app,
        &tokens["ir-1"],
        &report(&uuid(2), true, probes("de-1-ep", false, 3, 2)),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    assert_eq!(
        get(&app, "/api/v1/notifications")
            .await
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    post(
        &app,
        &tokens["ir-1"],
        &report(&uuid(3), true, probes("de-1-ep", true, 10, 1)),
    )
    .await;
    let outbox = outbox_with(&app, 2).await;
    assert_eq!(outbox[0]["kind"], "cleared", "newest first");
    assert_eq!(outbox[1]["kind"], "blocked");

    let history = app
        .store()
        .await
        .status_history("de-1", 10)
        .await
        .expect("history");
    let statuses: Vec<_> = history.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        statuses[..2],
        ["healthy", "blocked"],
        "newest first: {statuses:?}"
    );
}
