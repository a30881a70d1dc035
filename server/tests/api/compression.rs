//! Response compression (server/src/http/compression.rs): pages and JSON
//! are gzipped for a client that accepts it, the live event stream and
//! subscriptions never are, and a client that does not ask gets them plain.

use crate::agent::fleet;
use crate::helpers::{spawn_app, TestApp, ADMIN_TOKEN};
use serde_json::json;
use std::io::Read;

const SUB: &str = "alice-compression-token-0001";

async fn fetch(app: &TestApp, path: &str, cookie: Option<&str>, gzip: bool) -> reqwest::Response {
    let mut request = app.client.get(app.url(path)).bearer_auth(ADMIN_TOKEN);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    if gzip {
        request = request.header("accept-encoding", "gzip");
    }
    request.send().await.expect("sent")
}

fn encoding(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get("content-encoding")
        .map(|v| v.to_str().expect("ascii").to_owned())
}

fn gunzip(bytes: &[u8]) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut text)
        .expect("a gzip stream");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_and_json_are_gzipped_for_a_client_that_asks() {
    let app = spawn_app().await;
    fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;

    let page = fetch(&app, "/servers/de-1", Some(&cookie), true).await;
    assert_eq!(page.status(), 200);
    assert_eq!(encoding(&page).as_deref(), Some("gzip"));
    assert!(page.headers()["vary"]
        .to_str()
        .expect("vary")
        .contains("accept-encoding"));
    let html = gunzip(&page.bytes().await.expect("body"));
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("de-1"),
        "{html}"
    );

    let plain = fetch(&app, "/servers/de-1", Some(&cookie), false).await;
    assert_eq!(encoding(&plain), None, "not asked, not compressed");

    let list = fetch(&app, "/api/v1/servers", None, true).await;
    assert_eq!(encoding(&list).as_deref(), Some("gzip"));
    let servers: serde_json::Value =
        serde_json::from_str(&gunzip(&list.bytes().await.expect("body"))).expect("JSON");
    assert_eq!(servers.as_array().expect("servers").len(), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_and_subscriptions_are_never_compressed() {
    let app = spawn_app().await;
    fleet(&app).await;
    let user =
        json!({"users": [{"id": "alice", "name": "Alice", "routes": ["de"], "sub_token": SUB}]});
    assert_eq!(app.put_fleet(&user).await.status(), 200);
    let cookie = app.signed_in("ops", "a long password").await;

    let events = fetch(&app, "/events", Some(&cookie), true).await;
    assert_eq!(events.status(), 200);
    assert_eq!(encoding(&events), None, "events flow as they happen");
    drop(events);

    for query in ["", "?format=plain", "?format=singbox", "?format=clash"] {
        let sub = fetch(&app, &format!("/sub/{SUB}{query}"), None, true).await;
        assert_eq!(sub.status(), 200);
        assert_eq!(encoding(&sub), None, "/sub{query}");
    }
}
