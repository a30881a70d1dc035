//! Block kinds (PRODUCT.md §8) over HTTP: a verifier's control targets,
//! what its agent is told to check, and the kinds its reports make.

use crate::agent::{all_report, config_of, fleet, get, next_round, post, report, round_uuid};
use crate::helpers::{error_code, spawn_app, TestApp};
use crate::networks::put_verifier;
use serde_json::{json, Value};

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

/// Three probe rounds a knock apart: every server reports, then ir-1
/// posts `round(k)`; the verifier's last acknowledgement.
async fn verifier_rounds(
    app: &TestApp,
    tokens: &std::collections::HashMap<String, String>,
    round: impl Fn(u32) -> Vec<Value>,
) -> Value {
    let mut ack = Value::Null;
    for k in 0..3u32 {
        if k > 0 {
            next_round(app).await;
        }
        all_report(app, tokens, 100 + 10 * k).await;
        let answer = post(
            app,
            &tokens["ir-1"],
            &report(&round_uuid(900, k), true, round(k)),
        )
        .await;
        assert_eq!(answer.status(), 202);
        ack = answer.json().await.expect("json");
    }
    ack
}

/// ir-1's round `k`: nl-1 answers no SYN, de-1's real SNI is reset while
/// the control SNI answers, de-2's transfer freezes after 16 KB and fi-1
/// works throughout.
fn three_kinds_round(k: u32) -> Vec<Value> {
    let s = k * 2;
    vec![
        result("nl-1-ep", s, "handshake", Some(("timeout", "tcp")), None),
        result("de-1-ep", s, "handshake", Some(("reset", "tls")), None),
        result("de-1-ep", s + 1, "control_sni", None, None),
        result("de-2-ep", s, "handshake", None, None),
        result(
            "de-2-ep",
            s + 1,
            "transfer",
            Some(("frozen", "transfer")),
            Some(16_384),
        ),
        result("fi-1-ep", s, "handshake", None, None),
        result("fi-1-ep", s + 1, "transfer", None, Some(131_072)),
    ]
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
    let config = config_of(&app, &tokens["ir-1"]).await;
    assert_eq!(
        config["verifier"],
        json!({"control_sni": "ya.ru", "controls": ["ya.ru:443", "[2a02:6b8::2:242]:443"],
               "transfer_every": 4})
    );
    let other = config_of(&app, &tokens["de-1"]).await;
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
    let ack = verifier_rounds(&app, &tokens, three_kinds_round).await;
    assert_eq!(ack["accepted_probes"], 7);
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
    verifier_rounds(&app, &tokens, |k| {
        vec![
            result("nl-1-ep", k, "handshake", Some(("timeout", "tcp")), None),
            result("ya.ru:443", k, "control", Some(("timeout", "tcp")), None),
        ]
    })
    .await;
    let nl = get(&app, "/api/v1/servers/nl-1").await;
    assert_eq!(nl["status"], "healthy", "allowlist or shutdown: no block");
    let verifier = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(verifier["verifier_controls_unreachable"], true);
}

/// ir-1, on "MTS mobile", after [`three_kinds_round`]s.
async fn three_kinds(app: &TestApp) -> std::collections::HashMap<String, String> {
    let tokens = fleet(app).await;
    let set = put_verifier(
        app,
        "ir-1",
        json!({"enabled": true, "network": "MTS mobile"}),
    )
    .await;
    assert_eq!(set.status(), 200);
    verifier_rounds(app, &tokens, three_kinds_round).await;
    tokens
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_has_its_own_words_and_fix_on_the_card() {
    let app = spawn_app().await;
    three_kinds(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, nl) = app.page(&cookie, "/servers/nl-1").await;
    assert!(nl.contains("Address blocked on MTS mobile"), "{nl}");
    let (_, de1) = app.page(&cookie, "/servers/de-1").await;
    // The fleet's entry points name no SNI: the note names none either.
    assert!(
        de1.contains("filtered on MTS mobile: choose another SNI"),
        "{de1}"
    );
    assert!(de1.contains("a new IP will not help"), "{de1}");
    assert!(!de1.contains("consider changing this server"), "{de1}");
    let (_, de2) = app.page(&cookie, "/servers/de-2").await;
    assert!(
        de2.contains("Connections freeze after about 16 KB on MTS mobile: move the server to another provider"),
        "{de2}"
    );
    // The Overview counts them per network and kind.
    let (_, overview) = app.page(&cookie, "/overview").await;
    assert!(
        overview.contains("MTS mobile: 3 servers blocked (address 1, SNI 1, freeze 1)"),
        "{overview}"
    );
    // In another language, the same facts.
    let hindi = format!("{cookie}; meshwatch_lang=hi");
    let (_, hi) = app.page(&hindi, "/servers/de-2").await;
    assert!(hi.contains("लगभग 16 KB के बाद कनेक्शन रुक जाते हैं"), "{hi}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verifier_card_saves_its_control_targets_and_refuses_bad_ones() {
    let app = spawn_app().await;
    fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let saved = app
        .form_post(
            &cookie,
            "set_verifier",
            &[
                ("id", "ir-1"),
                ("enabled", "true"),
                ("network", "MTS mobile"),
                ("control_sni", "ya.ru"),
                ("controls", "ya.ru:443\nvk.com:443"),
            ],
        )
        .await;
    assert_eq!(saved.status().as_u16(), 302);
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(view["verifier_control_sni"], "ya.ru");
    assert_eq!(
        view["verifier_controls"],
        json!(["ya.ru:443", "vk.com:443"])
    );
    let (_, html) = app.page(&cookie, "/servers/ir-1").await;
    assert!(
        html.contains("value=\"ya.ru\"") && html.contains("vk.com:443"),
        "{html}"
    );
    assert!(html.contains("Control addresses"), "{html}");

    let refused = app
        .form_post(
            &cookie,
            "set_verifier",
            &[("id", "ir-1"), ("enabled", "true"), ("controls", "ya.ru")],
        )
        .await;
    assert_eq!(refused.status().as_u16(), 302);
    let (_, html) = app
        .page(
            &crate::helpers::with_flash(&cookie, &refused),
            "/servers/ir-1",
        )
        .await;
    assert!(
        html.contains("role=\"alert\"") && html.contains("is not host:port"),
        "the form says why: {html}"
    );
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(
        view["verifier_controls"].as_array().map(Vec::len),
        Some(2),
        "kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_card_and_the_message_name_the_kind() {
    let (hook, mut hooks) = crate::notifications::webhook_receiver("/hook").await;
    let app = crate::helpers::spawn_app_with(&[("MESHWATCH_WEBHOOK_URL", hook)]).await;
    let tokens = fleet(&app).await;
    assert_eq!(app.set_verifier("ir-1", true).await.status(), 200);
    verifier_rounds(&app, &tokens, |k| {
        vec![
            result("de-1-ep", 2 * k, "handshake", Some(("reset", "tls")), None),
            result("de-1-ep", 2 * k + 1, "control_sni", None, None),
        ]
    })
    .await;
    app.tick().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, alice) = app.page(&cookie, "/users/alice").await;
    assert!(
        alice.contains("SNI filtered: a new IP will not help"),
        "{alice}"
    );
    let message = tokio::time::timeout(std::time::Duration::from_secs(10), hooks.recv())
        .await
        .expect("a message in time")
        .expect("a message");
    assert_eq!(message["block_kinds"], json!(["sni"]), "{message}");
    let body = message["body"].as_str().unwrap_or_default();
    assert!(body.contains("(de-1)"), "{body}");
    assert!(body.contains("a new IP will not help"), "{body}");
    assert!(!body.contains("change this server's IP address"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fleet_document_sets_keeps_and_clears_control_targets() {
    let app = spawn_app().await;
    fleet(&app).await;
    let server = |extra: Value| {
        let mut s = json!({"id": "ir-1", "name": "IR-1", "country": "IR", "routes": ["nl"],
                           "verifier": true,
                           "entry_points": [{"id": "ir-1-ep", "protocol": "vless",
                                             "host": "127.0.30.1", "port": 443}]});
        for (k, v) in extra.as_object().expect("fields") {
            s[k] = v.clone();
        }
        json!({"servers": [s]})
    };
    let put = app
        .put_fleet(&server(
            json!({"control_sni": "ya.ru", "controls": ["ya.ru:443"]}),
        ))
        .await;
    assert_eq!(put.status(), 200);
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(view["verifier_control_sni"], "ya.ru");
    assert_eq!(view["verifier_controls"], json!(["ya.ru:443"]));
    // Absent: kept.
    assert_eq!(app.put_fleet(&server(json!({}))).await.status(), 200);
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(view["verifier_control_sni"], "ya.ru");
    // A bad one is refused, naming the field; nothing is written.
    let refused = app
        .put_fleet(&server(json!({"name": "renamed", "controls": ["ya.ru"]})))
        .await;
    assert_eq!(refused.status(), 422);
    let body: Value = refused.json().await.expect("json");
    assert_eq!(body["error"]["code"], "invalid_controls");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("servers[0].controls"),
        "{body}"
    );
    assert_eq!(get(&app, "/api/v1/servers/ir-1").await["name"], "IR-1");
    // Blank and empty: cleared.
    let cleared = app
        .put_fleet(&server(json!({"control_sni": "", "controls": []})))
        .await;
    assert_eq!(cleared.status(), 200);
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(
        (
            view["verifier_control_sni"].clone(),
            view["verifier_controls"].clone()
        ),
        (Value::Null, json!([]))
    );
}
