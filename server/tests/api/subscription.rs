//! `GET /sub/{token}`: what VPN apps receive, after the rotation rules.

use crate::agent::{all_report, fleet, get, post, report, uuid};
use crate::helpers::{error_code, spawn_app, spawn_app_with_manual_clock, TestApp, ADMIN_TOKEN};
use base64::Engine as _;
use serde_json::{json, Value};
use std::collections::HashMap;

const SUB: &str = "alice-subscription-token-0001";
const CREDENTIAL: &str = "4f1c2a9e-0000-4000-8000-000000000001";

async fn with_subscription(app: &TestApp) -> HashMap<String, String> {
    let tokens = fleet(app).await;
    let user = json!({"users": [{"id": "alice", "name": "Alice", "routes": ["de"], "sub_token": SUB, "credential": CREDENTIAL}]});
    assert_eq!(app.put_fleet(&user).await.status(), 200);
    tokens
}

async fn fetch(app: &TestApp, query: &str, user_agent: &str) -> reqwest::Response {
    app.client
        .get(app.url(&format!("/sub/{SUB}{query}")))
        .header("user-agent", user_agent)
        .send()
        .await
        .expect("sent")
}

async fn plain_links(app: &TestApp) -> Vec<String> {
    let body = fetch(app, "?format=plain", "test")
        .await
        .text()
        .await
        .expect("text");
    body.lines().map(str::to_owned).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_body_is_base64_share_links_with_app_headers() {
    let app = spawn_app().await;
    let tokens = with_subscription(&app).await;
    all_report(&app, &tokens, 100).await;
    let response = fetch(&app, "", "v2rayNG/1.8.5").await;
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["profile-update-interval"], "1");
    assert_eq!(
        headers["subscription-userinfo"],
        "upload=0; download=0; total=0; expire=0"
    );
    let body = response.text().await.expect("text");
    let decoded = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(body.trim())
            .expect("base64"),
    )
    .expect("utf8");
    let links: Vec<&str> = decoded.lines().collect();
    assert_eq!(links.len(), 1, "servers_per_user = 1 on route de");
    assert!(
        links[0].starts_with(&format!("vless://{CREDENTIAL}@127.0.30.1:443?")),
        "{}",
        links[0]
    );
    assert!(
        links[0].contains("#DE-"),
        "named after the server: {}",
        links[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unavailable_server_is_replaced_in_the_subscription_and_returns_when_healed() {
    let app = spawn_app().await;
    let tokens = with_subscription(&app).await;
    all_report(&app, &tokens, 100).await;
    let before = plain_links(&app).await;
    let served = if before[0].contains("#DE-1") {
        "de-1"
    } else {
        "de-2"
    };
    let other = if served == "de-1" { "de-2" } else { "de-1" };
    post(&app, &tokens[served], &report(&uuid(1), false, vec![])).await;
    let during = plain_links(&app).await;
    assert_eq!(during.len(), 1);
    assert!(
        during[0].contains(&format!("#{}", other.to_uppercase())),
        "{during:?}"
    );
    post(&app, &tokens[served], &report(&uuid(2), true, vec![])).await;
    assert_eq!(
        plain_links(&app).await,
        before,
        "a healed server returns to the users it had"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_server_of_a_route_is_out_the_best_available_is_served() {
    let app = spawn_app().await;
    let tokens = with_subscription(&app).await;
    all_report(&app, &tokens, 100).await;
    post(&app, &tokens["de-1"], &report(&uuid(1), false, vec![])).await;
    post(&app, &tokens["de-2"], &report(&uuid(2), false, vec![])).await;
    assert_eq!(plain_links(&app).await.len(), 1, "never an empty route");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silence_alone_keeps_a_server_in_the_subscription() {
    let app = spawn_app_with_manual_clock().await;
    let tokens = with_subscription(&app).await;
    all_report(&app, &tokens, 100).await;
    let before = plain_links(&app).await;
    let shorten = app
        .client
        .put(app.url("/api/v1/settings"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"stale_after_s": 1}))
        .send()
        .await
        .expect("sent");
    assert_eq!(shorten.status(), 200);
    // The evaluator tick, not a report, must notice the silence.
    app.advance(std::time::Duration::from_secs(2)).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "no_data");
    assert_eq!(view["stale"], true);
    assert_eq!(plain_links(&app).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apps_get_their_own_format() {
    let app = spawn_app().await;
    let tokens = with_subscription(&app).await;
    all_report(&app, &tokens, 100).await;

    let singbox: Value = fetch(&app, "?format=singbox", "test")
        .await
        .json()
        .await
        .expect("json");
    let outbounds = singbox["outbounds"].as_array().expect("outbounds");
    assert_eq!(outbounds[0]["type"], "selector");
    assert_eq!(outbounds[1]["type"], "vless");
    assert_eq!(outbounds[1]["uuid"], CREDENTIAL);
    assert_eq!(outbounds[1]["server_port"], 443);

    let by_agent = fetch(&app, "", "SFA/1.9.0 (sing-box 1.9.0)").await;
    assert_eq!(by_agent.headers()["content-type"], "application/json");

    let clash = fetch(&app, "", "clash-verge/v1.3.8").await;
    assert!(clash.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .starts_with("text/yaml"));
    let yaml = clash.text().await.expect("text");
    assert!(
        yaml.contains("proxies:")
            && yaml.contains("type: vless")
            && yaml.contains("MATCH,meshwatch"),
        "{yaml}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_tokens_and_formats_are_refused() {
    let app = spawn_app().await;
    with_subscription(&app).await;
    let unknown = app
        .client
        .get(app.url("/sub/not-a-token"))
        .send()
        .await
        .expect("sent");
    assert_eq!(unknown.status(), 404);
    assert_eq!(error_code(unknown).await, "not_found");
    let bad_format = fetch(&app, "?format=xml", "test").await;
    assert_eq!(bad_format.status(), 400);
    assert_eq!(error_code(bad_format).await, "unknown_format");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_entry_point_is_served_at_its_new_address_at_once() {
    let app = spawn_app().await;
    let tokens = with_subscription(&app).await;
    all_report(&app, &tokens, 100).await;
    let before = plain_links(&app).await;
    assert!(before[0].contains("@127.0.30.1:443"), "{before:?}");

    // Every German server moves (the user gets one of them).
    let moved: Vec<Value> = ["de-1", "de-2"]
        .iter()
        .map(|id| {
            json!({"id": id, "name": format!("{} moved", id.to_uppercase()), "country": "DE", "routes": ["de"],
                   "entry_points": [{"id": format!("{id}-ep"), "protocol": "vless", "host": "127.0.30.9", "port": 8443}]})
        })
        .collect();
    assert_eq!(
        app.put_fleet(&json!({"servers": moved})).await.status(),
        200
    );
    let after = plain_links(&app).await;
    assert!(after[0].contains("@127.0.30.9:8443"), "{after:?}");
    assert!(after[0].contains("moved"), "the new name too: {after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_token_credential_or_route_is_served_at_once() {
    let app = spawn_app().await;
    let tokens = with_subscription(&app).await;
    all_report(&app, &tokens, 100).await;
    // Served once: the panel now keeps who holds the token.
    let before = plain_links(&app).await;
    assert!(
        before[0].starts_with(&format!("vless://{CREDENTIAL}@")),
        "{before:?}"
    );

    const NEW_SUB: &str = "alice-subscription-token-0002";
    const NEW_CREDENTIAL: &str = "4f1c2a9e-0000-4000-8000-000000000002";
    let user = json!({"users": [{"id": "alice", "name": "Alice", "routes": ["nl"],
                                  "sub_token": NEW_SUB, "credential": NEW_CREDENTIAL}]});
    assert_eq!(app.put_fleet(&user).await.status(), 200);

    let old = fetch(&app, "?format=plain", "test").await;
    assert_eq!(old.status(), 404, "the old token is gone at once");
    let new = app
        .client
        .get(app.url(&format!("/sub/{NEW_SUB}?format=plain")))
        .send()
        .await
        .expect("sent");
    assert_eq!(new.status(), 200);
    let links = new.text().await.expect("text");
    let on_the_new_route = ["NL-1", "FI-1", "IR-1"].iter().any(|n| links.contains(n));
    assert!(
        links.starts_with(&format!("vless://{NEW_CREDENTIAL}@"))
            && on_the_new_route
            && !links.contains("DE-"),
        "the new credential, on the new route: {links}"
    );
}
