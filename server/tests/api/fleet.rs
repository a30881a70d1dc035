use crate::helpers::{error_code, spawn_app, TestApp, ADMIN_TOKEN};
use serde_json::{json, Value};

fn fleet() -> Value {
    json!({
        "routes": [{"id": "de", "name": "Germany", "servers_per_user": 2},
                   {"id": "nl", "name": "Netherlands"}],
        "servers": [
            {"id": "de-1", "name": "Frankfurt 1", "country": "DE", "routes": ["de"], "verifier": false,
             "entry_points": [{"id": "de-1-vless", "protocol": "vless", "host": "203.0.113.10",
                               "port": 443, "sni": "www.example.com", "params": {}}]},
            {"id": "nl-1", "name": "Amsterdam 1", "country": "NL", "routes": ["nl"],
             "agent_token": "given-agent-token-nl-1-0000",
             "entry_points": [{"id": "nl-1-trojan", "protocol": "trojan", "host": "198.51.100.7", "port": 8443}]}
        ],
        "users": [{"id": "alice", "name": "Alice", "routes": ["de", "nl"]},
                  {"id": "bob", "name": "Bob", "routes": ["nl"], "sub_token": "given-sub-token-bob-000000"}]
    })
}

/// What the store holds, to prove a rejected write changed nothing.
async fn snapshot(app: &TestApp) -> String {
    let store = app.store().await;
    format!(
        "{:?}{:?}",
        store.servers().await.expect("servers"),
        store.users().await.expect("users")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_is_stored_and_only_generated_tokens_are_returned() {
    let app = spawn_app().await;
    let response = app.put_fleet(&fleet()).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    let agent_tokens = body["agent_tokens"].as_object().expect("agent_tokens");
    let sub_tokens = body["sub_tokens"].as_object().expect("sub_tokens");
    assert_eq!(agent_tokens.keys().collect::<Vec<_>>(), ["de-1"]);
    assert_eq!(sub_tokens.keys().collect::<Vec<_>>(), ["alice"]);
    assert!(agent_tokens["de-1"].as_str().expect("token").len() >= 32);

    let store = app.store().await;
    let servers = store.servers().await.expect("servers");
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[0].id.as_str(), "de-1");
    assert_eq!(servers[0].entry_points[0].port, 443);
    assert_eq!(servers[1].routes[0].as_str(), "nl");
    let users = store.users().await.expect("users");
    assert_eq!(users[0].routes.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upserting_again_updates_in_place_and_keeps_tokens() {
    let app = spawn_app().await;
    app.put_fleet(&fleet()).await;
    let mut changed = fleet();
    changed["servers"][0]["name"] = json!("Frankfurt One");
    changed["servers"][0]["entry_points"][0]["port"] = json!(8443);
    let response = app.put_fleet(&changed).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(
        body,
        json!({"agent_tokens": {}, "sub_tokens": {}}),
        "existing tokens are not regenerated"
    );
    let servers = app.store().await.servers().await.expect("servers");
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[0].name, "Frankfurt One");
    assert_eq!(servers[0].entry_points[0].port, 8443);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removed_entry_points_of_a_server_are_deleted() {
    let app = spawn_app().await;
    let mut two = fleet();
    two["servers"][0]["entry_points"]
        .as_array_mut()
        .expect("array")
        .push(json!({"id": "de-1-ss", "protocol": "ss", "host": "203.0.113.10", "port": 8388}));
    app.put_fleet(&two).await;
    app.put_fleet(&fleet()).await;
    let servers = app.store().await.servers().await.expect("servers");
    assert_eq!(servers[0].entry_points.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_documents_get_the_error_body_and_change_nothing() {
    let app = spawn_app().await;
    assert_eq!(app.put_fleet(&fleet()).await.status(), 200);
    let before = snapshot(&app).await;

    let mut cases: Vec<(&str, Value, u16, &str)> = Vec::new();
    let mut v = fleet();
    v["servers"][0]["routes"] = json!(["fr"]);
    cases.push(("unknown route", v, 422, "unknown_route"));
    let mut v = fleet();
    v["users"][0]["routes"] = json!(["atlantis"]);
    cases.push(("unknown user route", v, 422, "unknown_route"));
    let mut v = fleet();
    v["servers"][1]["id"] = json!("de-1");
    cases.push(("duplicate server id", v, 422, "duplicate_id"));
    let mut v = fleet();
    v["users"][1]["id"] = json!("alice");
    cases.push(("duplicate user id", v, 422, "duplicate_id"));
    let mut v = fleet();
    v["servers"][1]["entry_points"][0]["id"] = json!("de-1-vless");
    cases.push(("duplicate entry point id", v, 422, "duplicate_id"));
    let mut v = fleet();
    v["servers"][0]["entry_points"][0]["port"] = json!(70000);
    cases.push(("port too large", v, 422, "invalid_port"));
    let mut v = fleet();
    v["servers"][0]["entry_points"][0]["port"] = json!(0);
    cases.push(("port zero", v, 422, "invalid_port"));
    let mut v = fleet();
    v["servers"][0]["id"] = json!("Frankfurt 1");
    cases.push(("bad server slug", v, 422, "invalid_id"));
    let mut v = fleet();
    v["routes"][0]["id"] = json!("-de");
    cases.push(("bad route slug", v, 422, "invalid_id"));
    let mut v = fleet();
    v["servers"][0]["flavour"] = json!("vanilla");
    cases.push(("unknown field", v, 422, "invalid_document"));
    let mut v = fleet();
    v["servers"][0]["entry_points"][0]["port"] = json!("443");
    cases.push(("wrong type", v, 422, "invalid_document"));
    let mut v = fleet();
    v["servers"][0]["name"] = json!("renamed, but the document is bad");
    v["servers"][1]["entry_points"][0]["port"] = json!(-1);
    cases.push((
        "a good part does not land with a bad one",
        v,
        422,
        "invalid_port",
    ));

    for (what, body, status, code) in cases {
        let response = app.put_fleet(&body).await;
        assert_eq!(response.status(), status, "{what}");
        assert_eq!(error_code(response).await, code, "{what}");
        assert_eq!(
            snapshot(&app).await,
            before,
            "{what} must not write anything"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_point_of_another_server_conflicts_and_nothing_is_written() {
    let app = spawn_app().await;
    app.put_fleet(&fleet()).await;
    let before = snapshot(&app).await;
    let steal = json!({"servers": [
        {"id": "de-9", "name": "New", "country": "DE", "routes": ["de"], "entry_points": []},
        {"id": "nl-2", "name": "Thief", "country": "NL", "routes": ["nl"],
         "entry_points": [{"id": "de-1-vless", "protocol": "vless", "host": "192.0.2.1", "port": 443}]}
    ]});
    let response = app.put_fleet(&steal).await;
    assert_eq!(response.status(), 409);
    assert_eq!(error_code(response).await, "entry_point_conflict");
    assert_eq!(
        snapshot(&app).await,
        before,
        "de-9 must not have been written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_or_oversized_bodies_are_rejected() {
    let app = spawn_app().await;
    let send = |body: Vec<u8>, content_type: &'static str| {
        app.client
            .put(app.url("/api/v1/fleet"))
            .bearer_auth(ADMIN_TOKEN)
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let malformed = send(b"{\"routes\": [".to_vec(), "application/json")
        .await
        .expect("sent");
    assert_eq!(malformed.status(), 400);
    assert_eq!(error_code(malformed).await, "malformed_json");

    let not_json = send(b"routes=1".to_vec(), "text/plain")
        .await
        .expect("sent");
    assert_eq!(not_json.status(), 415);
    assert_eq!(error_code(not_json).await, "unsupported_media_type");

    // The fleet document has its own limit (64 MiB); every other body 1 MiB.
    let padded = |pad: usize| {
        let mut body = b"{\"routes\": [], \"servers\": [], \"users\": [], \"pad\": \"".to_vec();
        body.extend(std::iter::repeat_n(b'x', pad));
        body.extend(b"\"}");
        body
    };
    let oversized = send(padded(64 << 20), "application/json")
        .await
        .expect("sent");
    assert_eq!(oversized.status(), 413);
    assert_eq!(error_code(oversized).await, "payload_too_large");
    let settings = app
        .client
        .put(app.url("/api/v1/settings"))
        .bearer_auth(ADMIN_TOKEN)
        .header("content-type", "application/json")
        .body(padded(1 << 20))
        .send()
        .await
        .expect("sent");
    assert_eq!(settings.status(), 413, "other routes keep 1 MiB");
    assert_eq!(error_code(settings).await, "payload_too_large");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_of_twenty_thousand_users_is_one_document_over_a_mebibyte() {
    let app = spawn_app().await;
    let users: Vec<Value> = (0..20_000)
        .map(|i| json!({"id": format!("user-{i:05}"), "name": format!("User number {i}"), "routes": ["de"]}))
        .collect();
    let mut document = fleet();
    document["users"] = Value::Array(users);
    let size = serde_json::to_vec(&document).expect("json").len();
    assert!(size > 1 << 20, "{size} bytes: over the other routes' limit");
    let response = app.put_fleet(&document).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(
        body["sub_tokens"].as_object().expect("sub_tokens").len(),
        20_000,
        "a token for each user"
    );
    let listed = app
        .client
        .get(app.url("/api/v1/users/user-19999"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(listed.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fleet_api_needs_an_operator_token_not_an_agent_token() {
    let app = spawn_app().await;
    let response = app.put_fleet(&fleet()).await;
    let body: Value = response.json().await.expect("json");
    let agent_token = body["agent_tokens"]["de-1"]
        .as_str()
        .expect("token")
        .to_owned();

    let anonymous = app
        .client
        .put(app.url("/api/v1/fleet"))
        .json(&fleet())
        .send()
        .await
        .expect("sent");
    assert_eq!(anonymous.status(), 401);
    assert_eq!(error_code(anonymous).await, "unauthorized");

    for token in [
        agent_token.as_str(),
        "given-agent-token-nl-1-0000",
        "not-a-token",
    ] {
        let response = app
            .client
            .put(app.url("/api/v1/fleet"))
            .bearer_auth(token)
            .json(&fleet())
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), 401, "{token}");
        assert_eq!(error_code(response).await, "unauthorized");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_lists_the_provisioned_fleet() {
    let app = spawn_app().await;
    app.put_fleet(&fleet()).await;
    let cookie = app.signed_in("ops", "a long password").await;
    for (page, expected) in [
        ("/", "Amsterdam 1"),
        ("/", "No data from server"),
        ("/users", "Alice"),
    ] {
        let html = app
            .client
            .get(app.url(page))
            .header("cookie", &cookie)
            .send()
            .await
            .expect("sent")
            .text()
            .await
            .expect("html");
        assert!(html.contains(expected), "{page} should list {expected}");
    }
}

/// New users are written many rows to a statement; one whose subscription
/// token is another user's still gets the conflict that names it, and
/// nothing of the document is stored — also when it sits among hundreds
/// of valid new users, in the second statement of a batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_token_clash_names_the_user_and_stores_nothing_of_the_batch() {
    let app = spawn_app().await;
    assert_eq!(app.put_fleet(&fleet()).await.status(), 200);
    let before = snapshot(&app).await;
    let mut users: Vec<Value> = (0..700)
        .map(|n| json!({"id": format!("u-{n}"), "name": format!("User {n}"), "routes": ["nl"]}))
        .collect();
    users[612]["sub_token"] = json!("given-sub-token-bob-000000");
    let response = app
        .put_fleet(&json!({"routes": [], "servers": [], "users": users}))
        .await;
    assert_eq!(response.status(), 409);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "token_conflict");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("\"u-612\"")),
        "{body}"
    );
    assert_eq!(snapshot(&app).await, before);
}
