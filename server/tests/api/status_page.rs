//! The public status page (docs/PRODUCT.md §6, docs/API.md "Operator features"):
//! off unless `MESHWATCH_STATUS_PAGE=1`; per route by its public name, its
//! state and 30 daily bars; and never a server name, address, entry point
//! or verifier, which would help a censor.

use crate::agent::{all_report, fleet, post_rounds, probes};
use crate::helpers::{spawn_app, spawn_app_with, TestApp, ADMIN_TOKEN};
use chrono::{Duration, SecondsFormat, Utc};
use serde_json::{json, Value};

async fn public(app: &TestApp, path: &str, language: &str) -> reqwest::Response {
    app.client
        .get(app.url(path))
        .header("accept-language", language)
        .send()
        .await
        .expect("sent")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_page_is_off_unless_switched_on() {
    let app = spawn_app().await;
    fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    for path in ["/status", "/status.json"] {
        assert_eq!(public(&app, path, "en").await.status(), 404, "{path}");
        let (status, _) = app.page(&cookie, path).await;
        assert_eq!(status, 404, "{path}, signed in");
    }
}

/// de-1 blocked on "MTS mobile" (its route Germany has a spare: de-2);
/// nl-1 in a window whose note names it (Netherlands has two more).
async fn a_fleet_with_something_to_hide(app: &TestApp) {
    let tokens = fleet(app).await;
    let set = app
        .client
        .put(app.url("/api/v1/servers/ir-1/verifier"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"enabled": true, "network": "MTS mobile"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(set.status(), 200);
    let now = Utc::now();
    let at = |t: chrono::DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Secs, true);
    let planned = app
        .client
        .post(app.url("/api/v1/maintenance"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"servers": ["nl-1"], "start": at(now - Duration::minutes(5)),
                      "end": at(now + Duration::hours(1)), "note": "nl-1 (NL-1) at 127.0.30.1: new disk"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(planned.status(), 201);
    all_report(app, &tokens, 300).await;
    post_rounds(app, &tokens["ir-1"], 320, probes("de-1-ep", false, 0, 3)).await;
    app.tick().await;
}

/// Everything that names a server, an address, an entry point or a
/// verifier in that fleet.
const SECRETS: [&str; 15] = [
    "de-1",
    "de-2",
    "nl-1",
    "fi-1",
    "ir-1",
    "DE-1",
    "DE-2",
    "NL-1",
    "FI-1",
    "IR-1",
    "127.0.30.1",
    "-ep",
    "MTS mobile",
    "new disk",
    "vless",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_route_is_shown_by_its_public_name_with_its_state_and_thirty_days() {
    let app = spawn_app_with(&[("MESHWATCH_STATUS_PAGE", "1".into())]).await;
    a_fleet_with_something_to_hide(&app).await;

    let response = public(&app, "/status.json", "en").await;
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .starts_with("application/json"));
    let body = response.text().await.expect("text");
    let status: Value = serde_json::from_str(&body).expect("json");
    let routes = status["routes"].as_array().expect("routes");
    let shown: Vec<(&str, &str)> = routes
        .iter()
        .map(|r| {
            (
                r["name"].as_str().expect("name"),
                r["state"].as_str().expect("state"),
            )
        })
        .collect();
    // What customers experience: every user is served in full, so a
    // blocked server with a spare and a planned absence never show.
    assert_eq!(
        shown,
        [("Germany", "operational"), ("Netherlands", "operational")]
    );
    for route in routes {
        let days = route["days"].as_array().expect("days");
        assert_eq!(days.len(), 30, "{route}");
        let today = Utc::now().date_naive().to_string();
        assert_eq!(days[29]["date"], today.as_str());
        assert_eq!(days[29]["state"], route["state"], "today includes now");
        assert_eq!(days[0]["state"], Value::Null, "nothing known a month ago");
    }
    assert_eq!(routes[1]["maintenance"].as_array().map(Vec::len), Some(1));

    let html = public(&app, "/status", "en").await;
    assert_eq!(html.status(), 200);
    let html = html.text().await.expect("text");
    assert!(
        html.contains("Service status") && html.contains("All routes are operational."),
        "{html}"
    );
    assert!(html.contains("Germany") && html.contains("Planned maintenance"));
    assert!(!html.contains("<script"), "no JavaScript");

    for secret in SECRETS {
        assert!(!body.contains(secret), "{secret} in the JSON: {body}");
        assert!(!html.contains(secret), "{secret} in the page: {html}");
    }

    // In the customer's language.
    let es = public(&app, "/status", "es-AR,es;q=0.9")
        .await
        .text()
        .await
        .expect("text");
    assert!(
        es.contains("lang=\"es\"")
            && es.contains("Estado del servicio")
            && es.contains("Operativo"),
        "{es}"
    );
    let ja = public(&app, "/status", "ja")
        .await
        .text()
        .await
        .expect("text");
    assert!(
        ja.contains("サービスの稼働状況") && ja.contains("メンテナンス"),
        "{ja}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_whose_every_server_is_in_a_window_reads_maintenance() {
    let app = spawn_app_with(&[("MESHWATCH_STATUS_PAGE", "1".into())]).await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    app.tick().await;
    let status: Value = public(&app, "/status.json", "en")
        .await
        .json()
        .await
        .expect("json");
    assert!(
        status["routes"]
            .as_array()
            .expect("routes")
            .iter()
            .all(|r| r["state"] == "operational"),
        "{status}"
    );
    let html = public(&app, "/status", "en")
        .await
        .text()
        .await
        .expect("text");
    assert!(html.contains("All routes are operational."), "{html}");

    let now = Utc::now();
    let at = |t: chrono::DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Secs, true);
    let planned = app
        .client
        .post(app.url("/api/v1/maintenance"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"routes": ["de"], "start": at(now), "end": at(now + Duration::hours(1))}))
        .send()
        .await
        .expect("sent");
    assert_eq!(planned.status(), 201);
    app.tick().await;
    // Served from memory: the change shows once the page is rebuilt, within
    // its few seconds.
    let germany = first_route_once(&app, "maintenance").await;
    assert_eq!(germany["name"], "Germany");
    assert_eq!(germany["state"], "maintenance", "{germany}");
    assert_eq!(germany["days"][29]["state"], "maintenance");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_serving_its_best_available_reads_partial_outage() {
    let app = spawn_app_with(&[("MESHWATCH_STATUS_PAGE", "1".into())]).await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    // Both servers of route `de` are down: it serves its best available.
    for (i, id) in ["de-1", "de-2"].iter().enumerate() {
        let mut down = crate::agent::report(&crate::agent::uuid(200 + i as u32), false, vec![]);
        down["self_check"]["service_ok"] = json!(false);
        let posted = crate::agent::post(&app, &tokens[*id], &down).await;
        assert_eq!(posted.status(), 202);
    }
    app.tick().await;
    let germany = first_route_once(&app, "partial_outage").await;
    assert_eq!(germany["name"], "Germany");
    assert_eq!(germany["state"], "partial_outage", "{germany}");
}

/// The first route of `/status.json` once it reads `state` (the page is
/// rebuilt from memory within its few seconds), or as it is after 15 s.
async fn first_route_once(app: &TestApp, state: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let status: Value = public(app, "/status.json", "en")
            .await
            .json()
            .await
            .expect("json");
        let route = status["routes"][0].clone();
        if route["state"] == state || std::time::Instant::now() > deadline {
            return route;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}
