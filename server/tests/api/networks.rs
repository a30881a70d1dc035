//! Verifiers per network (docs/PRODUCT.md §6, docs/API.md "Operator features"): the
//! label is set and kept through the API and the panel, and a block says
//! which networks see it and which verifiers still reach the server.

use crate::agent::{all_report, fleet, get, post_rounds, probes};
use crate::helpers::{location, spawn_app, spawn_app_with, with_flash, TestApp, ADMIN_TOKEN};
use crate::notifications::webhook_receiver;
use serde_json::{json, Value};

pub async fn put_verifier(app: &TestApp, server: &str, body: Value) -> reqwest::Response {
    app.client
        .put(app.url(&format!("/api/v1/servers/{server}/verifier")))
        .bearer_auth(ADMIN_TOKEN)
        .json(&body)
        .send()
        .await
        .expect("sent")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_is_set_kept_cleared_and_checked() {
    let app = spawn_app().await;
    fleet(&app).await;
    let set = put_verifier(
        &app,
        "ir-1",
        json!({"enabled": true, "network": " MTS mobile "}),
    )
    .await;
    assert_eq!(set.status(), 200);
    let view: Value = set.json().await.expect("json");
    assert_eq!(
        (view["verifier"].clone(), view["verifier_network"].clone()),
        (json!(true), json!("MTS mobile"))
    );

    // Absent: kept, also while the verifier is switched off and on.
    for enabled in [false, true] {
        let kept: Value = put_verifier(&app, "ir-1", json!({"enabled": enabled}))
            .await
            .json()
            .await
            .expect("json");
        assert_eq!(kept["verifier_network"], "MTS mobile", "enabled {enabled}");
    }
    // The fleet document does not touch it either.
    fleet(&app).await;
    assert_eq!(
        get(&app, "/api/v1/servers/ir-1").await["verifier_network"],
        "MTS mobile"
    );

    for bad in [json!("x".repeat(65)), json!("MTS\nmobile"), json!(42)] {
        let refused = put_verifier(&app, "ir-1", json!({"enabled": true, "network": bad})).await;
        assert_eq!(refused.status(), 422, "{bad}");
        let body: Value = refused.json().await.expect("a JSON error");
        assert!(
            body["error"].is_string() || body["error"].is_object(),
            "{body}"
        );
    }
    assert_eq!(
        get(&app, "/api/v1/servers/ir-1").await["verifier_network"],
        "MTS mobile",
        "nothing changed by a refused request"
    );
    assert_eq!(
        put_verifier(
            &app,
            "ir-1",
            json!({"enabled": true, "network": "x".repeat(64)})
        )
        .await
        .status(),
        200,
        "64 characters is the limit"
    );

    let cleared: Value = put_verifier(&app, "ir-1", json!({"enabled": true, "network": null}))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(cleared["verifier_network"], Value::Null);
    assert_eq!(
        put_verifier(&app, "nobody", json!({"enabled": true, "network": "MTS"}))
            .await
            .status(),
        404
    );
}

/// ir-1 on "MTS mobile" fails every entry point of de-1; fi-1 on
/// "Rostelecom home" still reaches it.
async fn blocked_on_one_network(app: &TestApp) {
    let tokens = fleet(app).await;
    for (server, network) in [("ir-1", "MTS mobile"), ("fi-1", "Rostelecom home")] {
        let set = put_verifier(app, server, json!({"enabled": true, "network": network})).await;
        assert_eq!(set.status(), 200);
    }
    all_report(app, &tokens, 300).await;
    post_rounds(app, &tokens["fi-1"], 310, probes("de-1-ep", true, 0, 1)).await;
    post_rounds(app, &tokens["ir-1"], 320, probes("de-1-ep", false, 0, 3)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_names_the_networks_that_see_it_and_those_that_still_reach_it() {
    let (hook, mut hooks) = webhook_receiver("/hook").await;
    let app = spawn_app_with(&[("MESHWATCH_WEBHOOK_URL", hook)]).await;
    blocked_on_one_network(&app).await;
    let de_1 = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(
        de_1["status"], "blocked",
        "one verifier's evidence is enough"
    );
    assert_eq!(de_1["in_rotation"], false);
    assert_eq!(de_1["blocked_by"], json!(["ir-1"]));
    assert_eq!(
        de_1["blocked_on"],
        json!([{"verifier": "ir-1", "network": "MTS mobile", "kind": "ip"}])
    );
    assert_eq!(
        de_1["still_reached_by"],
        json!([{"verifier": "fi-1", "network": "Rostelecom home"}])
    );

    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/servers/de-1").await;
    assert!(
        html.contains(
            "Address blocked on MTS mobile; still reachable from Rostelecom home: consider changing this server&#x27;s IP address."
        ) || html.contains(
            "Address blocked on MTS mobile; still reachable from Rostelecom home: consider changing this server's IP address."
        ),
        "{html}"
    );

    // The user card says where, and the Overview and Routes pages count
    // blocked servers per network.
    let (_, html) = app.page(&cookie, "/users/alice").await;
    assert!(
        html.contains("Blocked on MTS mobile; still reachable from Rostelecom home"),
        "{html}"
    );
    for page in ["/overview", "/routes"] {
        let (_, html) = app.page(&cookie, page).await;
        assert!(
            html.contains("Blocked servers by network")
                && html.contains("MTS mobile: 1 server blocked"),
            "{page}: {html}"
        );
    }

    // The message says it too, one fact a line.
    let message = tokio::time::timeout(std::time::Duration::from_secs(10), hooks.recv())
        .await
        .expect("a notification within 10 s")
        .expect("a body");
    let body = message["body"].as_str().expect("text");
    let lines: Vec<&str> = body.lines().collect();
    assert!(lines.contains(&"Blocked on: MTS mobile"), "{body}");
    assert!(
        lines.contains(&"Still reachable from: Rostelecom home"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_sets_a_verifier_with_its_network_and_saves_it_alone() {
    let app = spawn_app().await;
    fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/servers/ir-1").await;
    assert!(
        html.contains("Network of this verifier (optional)"),
        "{html}"
    );

    let on = app
        .form_post(
            &cookie,
            "set_verifier",
            &[("id", "ir-1"), ("enabled", "true"), ("network", "Beeline")],
        )
        .await;
    assert_eq!(
        (on.status().as_u16(), location(&on)),
        (302, "/servers/ir-1")
    );
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(
        (view["verifier"].clone(), view["verifier_network"].clone()),
        (json!(true), json!("Beeline"))
    );
    let (_, html) = app.page(&cookie, "/servers/ir-1").await;
    assert!(
        html.contains("value=\"Beeline\"") && html.contains("Save network"),
        "{html}"
    );

    // Stopping keeps the label for the next time.
    app.form_post(
        &cookie,
        "set_verifier",
        &[("id", "ir-1"), ("enabled", "false")],
    )
    .await;
    let view = get(&app, "/api/v1/servers/ir-1").await;
    assert_eq!(
        (view["verifier"].clone(), view["verifier_network"].clone()),
        (json!(false), json!("Beeline"))
    );

    let refused = app
        .form_post(
            &cookie,
            "set_verifier",
            &[
                ("id", "ir-1"),
                ("enabled", "true"),
                ("network", &"x".repeat(65)),
            ],
        )
        .await;
    let (_, html) = app
        .page(&with_flash(&cookie, &refused), "/servers/ir-1")
        .await;
    assert!(
        html.contains("role=\"alert\"") && html.contains("longer than 64 characters"),
        "{html}"
    );
    assert_eq!(
        get(&app, "/api/v1/servers/ir-1").await["verifier"],
        false,
        "nothing changed"
    );
}
