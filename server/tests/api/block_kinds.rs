//! Block kinds (PRODUCT.md §8) over HTTP: a verifier's control targets,
//! what its agent is told to check, and the kinds its reports make.

use crate::agent::{all_report, fleet, get, next_round, post, report, round_uuid};
use crate::helpers::{error_code, spawn_app, TestApp, ADMIN_TOKEN};
use serde_json::{json, Value};

async fn put_verifier(app: &TestApp, server: &str, body: Value) -> reqwest::Response {
    app.client
        .put(app.url(&format!("/api/v1/servers/{server}/verifier")))
        .bearer_auth(ADMIN_TOKEN)
        .json(&body)
        .send()
        .await
        .expect("sent")
}

/// One result of `check` on `ep` at second `s` of the test's agent clock.
fn result(
    ep: &str,
    s: u32,
    check: &str,
    failure: Option<(&str, &str)>,
    bytes: Option<u64>,
) -> Value {
    let mut r = json!({"entry_point_id": ep, "at": format!("2026-12-02T09:00:{s:02}Z"),
                       "ok": failure.is_none(), "check": check});
    if let Some((error, stage)) = failure {
        r["error"] = json!(error);
        r["stage"] = json!(stage);
    }
    if let Some(bytes) = bytes {
        r["bytes"] = json!(bytes);
    }
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verifier_s_control_targets_are_kept_shown_and_sent_to_its_agent() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let set = put_verifier(
        &app,
        "ir-1",
        json!({"enabled": true, "network": "MTS mobile", "control_sni": "Ya.RU",
               "controls": ["ya.ru:443", "[2a02:6b8::2:242]:443"]}),
    )
    .await;
    assert_eq!(set.status(), 200);
    let view: Value = set.json().await.expect("json");
    assert_eq!(view["verifier_control_sni"], "ya.ru");
    assert_eq!(
        view["verifier_controls"],
        json!(["ya.ru:443", "[2a02:6b8::2:242]:443"])
    );
    // Absent fields are kept.
    let kept: Value = put_verifier(&app, "ir-1", json!({"enabled": true}))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(kept["verifier_control_sni"], "ya.ru");
    assert_eq!(kept["verifier_controls"].as_array().map(Vec::len), Some(2));
    // The verifier's agent is told what to check; the others are not.
    let config: Value = app
        .client
        .get(app.url("/api/agent/v1/config"))
        .bearer_auth(&tokens["ir-1"])
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(
        config["verifier"],
        json!({"control_sni": "ya.ru", "controls": ["ya.ru:443", "[2a02:6b8::2:242]:443"],
               "transfer_every": 4})
    );
    let other: Value = app
        .client
        .get(app.url("/api/agent/v1/config"))
        .bearer_auth(&tokens["de-1"])
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert!(other.get("verifier").is_none());
    // `null` clears the SNI; an empty list clears the addresses.
    let cleared: Value = put_verifier(
        &app,
        "ir-1",
        json!({"enabled": true, "control_sni": null, "controls": []}),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(cleared["verifier_control_sni"], Value::Null);
    assert_eq!(cleared["verifier_controls"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_control_targets_are_refused_and_nothing_changes() {
    let app = spawn_app().await;
    fleet(&app).await;
    assert_eq!(
        put_verifier(
            &app,
            "ir-1",
            json!({"enabled": true, "control_sni": "ya.ru"})
        )
        .await
        .status(),
        200
    );
    let nine: Vec<String> = (1..=9).map(|i| format!("10.0.0.{i}:443")).collect();
    for body in [
        json!({"enabled": true, "control_sni": "ya ru"}),
        json!({"enabled": true, "controls": ["ya.ru"]}),
        json!({"enabled": true, "controls": ["ya.ru:0"]}),
        json!({"enabled": true, "controls": nine}),
    ] {
        let refused = put_verifier(&app, "ir-1", body.clone()).await;
        assert_eq!(refused.status(), 422, "{body}");
        assert_eq!(error_code(refused).await, "invalid_controls", "{body}");
    }
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(
        view["verifier_control_sni"], "ya.ru",
        "nothing was half-written"
    );
    assert_eq!(view["verifier_controls"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verifier_s_checks_tell_ip_sni_and_throttled_blocks_apart() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    assert_eq!(app.set_verifier("ir-1", true).await.status(), 200);
    for k in 0..3u32 {
        if k > 0 {
            next_round(&app).await;
        }
        all_report(&app, &tokens, 100 + 10 * k).await;
        let s = k * 2;
        let round = vec![
            // nl-1: no SYN is answered.
            result("nl-1-ep", s, "handshake", Some(("timeout", "tcp")), None),
            // de-1: the real SNI is reset, the control SNI answers.
            result("de-1-ep", s, "handshake", Some(("reset", "tls")), None),
            result("de-1-ep", s + 1, "control_sni", None, None),
            // de-2: the handshake works, the transfer freezes.
            result("de-2-ep", s, "handshake", None, None),
            result(
                "de-2-ep",
                s + 1,
                "transfer",
                Some(("frozen", "transfer")),
                Some(16_384),
            ),
            // fi-1: everything works.
            result("fi-1-ep", s, "handshake", None, None),
            result("fi-1-ep", s + 1, "transfer", None, Some(131_072)),
        ];
        let answer = post(
            &app,
            &tokens["ir-1"],
            &report(&round_uuid(900, k), true, round),
        )
        .await;
        assert_eq!(answer.status(), 202);
        let ack: Value = answer.json().await.expect("json");
        assert_eq!(ack["accepted_probes"], 7);
    }
    let kind = |view: &Value| view["blocked_on"][0]["kind"].clone();
    let nl = get(&app, "/api/v1/servers/nl-1").await;
    assert_eq!(
        (nl["status"].clone(), kind(&nl)),
        (json!("blocked"), json!("ip"))
    );
    let de1 = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(
        (de1["status"].clone(), kind(&de1)),
        (json!("blocked"), json!("sni"))
    );
    let de2 = get(&app, "/api/v1/servers/de-2").await;
    assert_eq!(
        (de2["status"].clone(), kind(&de2)),
        (json!("blocked"), json!("throttled"))
    );
    assert_eq!(de2["blocked_on"][0]["frozen_after_bytes"], 16_384);
    assert_eq!(de2["in_rotation"], false);
    let fi = get(&app, "/api/v1/servers/fi-1").await;
    assert_eq!(fi["status"], "healthy");
    assert_eq!(fi["blocked_on"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verifier_that_reaches_none_of_its_controls_has_its_verdicts_suspended() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let set = put_verifier(
        &app,
        "ir-1",
        json!({"enabled": true, "controls": ["ya.ru:443"]}),
    )
    .await;
    assert_eq!(set.status(), 200);
    for k in 0..3u32 {
        if k > 0 {
            next_round(&app).await;
        }
        all_report(&app, &tokens, 100 + 10 * k).await;
        let round = vec![
            result("nl-1-ep", k, "handshake", Some(("timeout", "tcp")), None),
            result("ya.ru:443", k, "control", Some(("timeout", "tcp")), None),
        ];
        let answer = post(
            &app,
            &tokens["ir-1"],
            &report(&round_uuid(900, k), true, round),
        )
        .await;
        assert_eq!(answer.status(), 202);
    }
    let nl = get(&app, "/api/v1/servers/nl-1").await;
    assert_eq!(nl["status"], "healthy", "allowlist or shutdown: no block");
    let verifier = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(verifier["verifier_controls_unreachable"], true);
}
