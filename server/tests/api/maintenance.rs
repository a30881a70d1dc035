//! Maintenance windows (docs/PRODUCT.md §6, docs/API.md "Operator features"): planned
//! through the API and the panel, a server drains before its window, shows
//! "maintenance" while it holds, tells nobody, and returns by itself.

use crate::agent::{all_report, fleet, get, post_rounds, probes};
use crate::helpers::{
    error_code, location, spawn_app, spawn_app_with_manual_clock, with_flash, TestApp, ADMIN_TOKEN,
};
use chrono::{DateTime, Duration, SecondsFormat, SubsecRound, Utc};
use serde_json::{json, Value};
use std::collections::HashMap;

const SUB: &str = "alice-subscription-token-0001";

async fn plan(app: &TestApp, body: Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/maintenance"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&body)
        .send()
        .await
        .expect("sent")
}

async fn cancel(app: &TestApp, id: &Value) -> reqwest::Response {
    app.client
        .delete(app.url(&format!("/api/v1/maintenance/{id}")))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent")
}

fn at(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The fleet of `agent::fleet`, alice with a subscription, every agent
/// reporting.
async fn reporting_fleet(app: &TestApp) -> HashMap<String, String> {
    let tokens = fleet(app).await;
    let user =
        json!({"users": [{"id": "alice", "name": "Alice", "routes": ["de"], "sub_token": SUB}]});
    assert_eq!(app.put_fleet(&user).await.status(), 200);
    all_report(app, &tokens, 100).await;
    tokens
}

/// The server alice's subscription serves on route de (one per user).
async fn alices_server(app: &TestApp) -> String {
    let alice = get(app, "/api/v1/users/alice").await;
    let served: Vec<&str> = alice["servers"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|s| s["in_subscription"] == true)
        .map(|s| s["server_id"].as_str().expect("id"))
        .collect();
    assert_eq!(served.len(), 1, "{alice}");
    served[0].to_owned()
}

async fn subscription(app: &TestApp) -> String {
    app.client
        .get(app.url(&format!("/sub/{SUB}?format=plain")))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("text")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_drains_before_its_window_shows_maintenance_and_returns_by_itself() {
    let app = spawn_app_with_manual_clock().await;
    reporting_fleet(&app).await;
    let served = alices_server(&app).await;
    let other = if served == "de-1" { "de-2" } else { "de-1" };
    assert!(subscription(&app)
        .await
        .contains(&format!("#{}", served.to_uppercase())));

    let start = Utc::now().trunc_subsecs(0) + Duration::minutes(30);
    let end = start + Duration::hours(2);
    let created = plan(
        &app,
        json!({"servers": [served], "routes": [], "start": at(start), "end": at(end),
               "weekly": false, "note": "kernel upgrade"}),
    )
    .await;
    assert_eq!(created.status(), 201);
    let window: Value = created.json().await.expect("json");
    let id = window["id"].clone();
    assert!(id.is_i64(), "{window}");
    assert_eq!(window["servers"], json!([served]));
    assert_eq!(window["note"], "kernel upgrade");
    assert_eq!(window["active"], false);

    // Drained before the window: out of rotation, its verdict as it is.
    let view = get(&app, &format!("/api/v1/servers/{served}")).await;
    assert_eq!(view["in_rotation"], false, "{view}");
    assert_eq!(view["status"], "healthy");
    assert_eq!(view["maintenance"], Value::Null);
    let sub = subscription(&app).await;
    assert!(
        sub.contains(&format!("#{}", other.to_uppercase()))
            && !sub.contains(&format!("#{}", served.to_uppercase())),
        "the apps move away first: {sub}"
    );

    // While it holds.
    app.advance(std::time::Duration::from_secs(31 * 60)).await;
    let view = get(&app, &format!("/api/v1/servers/{served}")).await;
    assert_eq!(view["status"], "maintenance", "{view}");
    assert_eq!(view["in_rotation"], false);
    assert_eq!(view["maintenance"]["id"], id);
    assert_eq!(
        view["maintenance"]["until"]
            .as_str()
            .map(|u| u.parse::<DateTime<Utc>>().ok()),
        Some(Some(end))
    );
    assert_eq!(get(&app, "/api/v1/maintenance").await[0]["active"], true);
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, &format!("/servers/{served}")).await;
    assert!(html.contains("In maintenance until"), "{html}");
    assert!(html.contains("kernel upgrade") && html.contains("Cancel window"));

    // It returns by itself when the window ends (silent by then, which
    // is not a verdict).
    app.advance(std::time::Duration::from_secs(2 * 3600)).await;
    let view = get(&app, &format!("/api/v1/servers/{served}")).await;
    assert_ne!(view["status"], "maintenance", "{view}");
    assert_eq!(view["in_rotation"], true);
    assert_eq!(view["maintenance"], Value::Null);
    assert_eq!(
        alices_server(&app).await,
        served,
        "back to the users it had"
    );

    // The history recorded the window, and the uptime counts it apart.
    let (_, html) = app.page(&cookie, &format!("/servers/{served}")).await;
    assert!(html.contains("in maintenance"), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_checked_and_nothing_is_stored_when_it_is_refused() {
    let app = spawn_app().await;
    fleet(&app).await;
    let now = Utc::now();
    let ok = |servers: Value, routes: Value| json!({"servers": servers, "routes": routes, "start": at(now), "end": at(now + Duration::hours(1))});
    let cases = [
        (ok(json!([]), json!([])), 422, "no_target"),
        (ok(json!(["de-9"]), json!([])), 422, "unknown_server"),
        (ok(json!([]), json!(["xx"])), 422, "unknown_route"),
        (
            json!({"servers": ["de-1"], "start": at(now), "end": at(now - Duration::hours(1))}),
            422,
            "ends_before_start",
        ),
        (
            json!({"servers": ["de-1"], "start": at(now - Duration::hours(3)), "end": at(now - Duration::hours(1))}),
            422,
            "ends_in_past",
        ),
        (
            json!({"servers": ["de-1"], "start": at(now), "end": at(now + Duration::days(40))}),
            422,
            "window_too_long",
        ),
        (
            json!({"servers": ["de-1"], "start": at(now), "end": at(now + Duration::days(8)), "weekly": true}),
            422,
            "window_too_long",
        ),
        (
            json!({"servers": ["de-1"], "start": at(now), "end": at(now + Duration::hours(1)), "note": "x".repeat(501)}),
            422,
            "note_too_long",
        ),
    ];
    for (body, status, code) in cases {
        let refused = plan(&app, body.clone()).await;
        assert_eq!(refused.status(), status, "{body}");
        assert_eq!(error_code(refused).await, code, "{body}");
    }
    for bad in [
        json!({"servers": ["de-1"], "start": "tomorrow", "end": at(now)}),
        json!({"servers": ["de-1"]}),
        json!({"servers": ["Not A Slug"], "start": at(now), "end": at(now + Duration::hours(1))}),
    ] {
        let refused = plan(&app, bad.clone()).await;
        assert!(
            refused.status().is_client_error(),
            "{bad}: {}",
            refused.status()
        );
        let body: Value = refused.json().await.expect("a JSON error");
        assert!(body["error"]["code"].is_string(), "{body}");
    }
    assert_eq!(get(&app, "/api/v1/maintenance").await, json!([]));
    assert_eq!(
        app.client
            .get(app.url("/api/v1/maintenance"))
            .send()
            .await
            .expect("sent")
            .status(),
        401
    );

    // A window on a route, listed, surviving a restart, then cancelled.
    let created = plan(&app, ok(json!([]), json!(["de"]))).await;
    assert_eq!(created.status(), 201);
    let id = created.json::<Value>().await.expect("json")["id"].clone();
    let app = app.restart().await;
    let listed = get(&app, "/api/v1/maintenance").await;
    assert_eq!(listed[0]["id"], id, "{listed}");
    assert_eq!(listed[0]["routes"], json!(["de"]));
    assert_eq!(listed[0]["active"], true);
    for server in ["de-1", "de-2"] {
        let view = get(&app, &format!("/api/v1/servers/{server}")).await;
        assert_eq!(view["status"], "maintenance", "{server}: {view}");
    }
    assert_eq!(
        get(&app, "/api/v1/servers/nl-1").await["maintenance"],
        Value::Null
    );
    assert_eq!(cancel(&app, &id).await.status(), 204);
    assert_eq!(cancel(&app, &id).await.status(), 404);
    assert_eq!(cancel(&app, &json!("nope")).await.status(), 404);
    assert_eq!(get(&app, "/api/v1/maintenance").await, json!([]));
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_ne!(view["status"], "maintenance", "cancelled: back at once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_notification_is_queued_while_a_window_holds() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    assert_eq!(app.set_verifier("ir-1", true).await.status(), 200);
    let now = Utc::now();
    let created = plan(
        &app,
        json!({"servers": ["de-1"], "start": at(now - Duration::minutes(5)), "end": at(now + Duration::hours(1))}),
    )
    .await;
    assert_eq!(created.status(), 201);
    let id = created.json::<Value>().await.expect("json")["id"].clone();
    all_report(&app, &tokens, 300).await;
    post_rounds(&app, &tokens["ir-1"], 320, probes("de-1-ep", false, 0, 3)).await;
    app.tick().await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "maintenance");
    assert_eq!(
        view["conditions"],
        json!(["maintenance", "blocked"]),
        "still derived"
    );
    assert_eq!(view["blocked_by"], json!(["ir-1"]));
    assert_eq!(get(&app, "/api/v1/notifications").await, json!([]));

    // Once the window is gone, a block that still holds is told.
    assert_eq!(cancel(&app, &id).await.status(), 204);
    app.tick().await;
    let sent = get(&app, "/api/v1/notifications").await;
    let kinds: Vec<&Value> = sent
        .as_array()
        .expect("list")
        .iter()
        .map(|n| &n["kind"])
        .collect();
    assert!(kinds.contains(&&json!("blocked")), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_plans_and_cancels_windows_for_a_server_and_a_route() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/servers/de-1").await;
    assert!(
        html.contains("Schedule maintenance") && html.contains("No maintenance planned."),
        "{html}"
    );

    let now = Utc::now();
    let form_time = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M").to_string();
    let (start, end) = (
        form_time(now - Duration::minutes(1)),
        form_time(now + Duration::hours(2)),
    );
    let planned = app
        .form_post(
            &cookie,
            "plan_maintenance",
            &[
                ("server", "de-1"),
                ("start", &start),
                ("end", &end),
                ("note", "disk swap"),
            ],
        )
        .await;
    assert_eq!(
        (planned.status().as_u16(), location(&planned)),
        (302, "/servers/de-1")
    );
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "maintenance", "{view}");
    let (_, html) = app.page(&cookie, "/servers/de-1").await;
    assert!(
        html.contains("disk swap") && html.contains("In maintenance until"),
        "{html}"
    );

    // A refused plan says why on the card; nothing is stored.
    let refused = app
        .form_post(
            &cookie,
            "plan_maintenance",
            &[("server", "de-1"), ("start", &end), ("end", &start)],
        )
        .await;
    assert_eq!(location(&refused), "/servers/de-1");
    let (_, html) = app
        .page(&with_flash(&cookie, &refused), "/servers/de-1")
        .await;
    assert!(html.contains("the end must be after the start"), "{html}");
    // In Swedish the refusal reads by its code, in Swedish.
    let sv = format!("{cookie}; meshwatch_lang=sv");
    let refused = app
        .form_post(
            &sv,
            "plan_maintenance",
            &[("server", "de-1"), ("start", &end), ("end", &start)],
        )
        .await;
    let (_, html) = app.page(&with_flash(&sv, &refused), "/servers/de-1").await;
    assert!(
        html.contains("Fönstret slutar innan det börjar.")
            && !html.contains("the end must be after the start"),
        "{html}"
    );
    assert_eq!(
        get(&app, "/api/v1/maintenance")
            .await
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    // The route's other server too: the Routes page warns that the route
    // serves its best available one.
    let planned = app
        .form_post(
            &cookie,
            "plan_maintenance",
            &[
                ("route", "de"),
                ("start", &start),
                ("end", &end),
                ("weekly", "on"),
            ],
        )
        .await;
    assert_eq!(location(&planned), "/routes");
    let (_, html) = app.page(&cookie, "/routes").await;
    assert!(
        html.contains("Every server of this route is in maintenance"),
        "{html}"
    );
    assert!(html.contains("every week"), "{html}");
    let alice = get(&app, "/api/v1/users/alice").await;
    assert_eq!(
        alice["servers"]
            .as_array()
            .expect("rows")
            .iter()
            .filter(|s| s["in_subscription"] == true)
            .count(),
        1,
        "never emptied: {alice}"
    );

    // Cancelled from the card.
    let windows = get(&app, "/api/v1/maintenance").await;
    for w in windows.as_array().expect("list") {
        let id = w["id"].to_string();
        let done = app
            .form_post(
                &cookie,
                "cancel_maintenance",
                &[("id", &id), ("server", "de-1")],
            )
            .await;
        assert_eq!(location(&done), "/servers/de-1");
    }
    assert_eq!(get(&app, "/api/v1/maintenance").await, json!([]));
    assert_eq!(get(&app, "/api/v1/servers/de-1").await["status"], "healthy");
}
