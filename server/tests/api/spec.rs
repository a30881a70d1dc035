//! docs/API.md stays true: every endpoint it names is routed, with the
//! method it names. A route renamed or dropped in the code, or added to
//! the document only, fails here.

use crate::helpers::{spawn_app, ADMIN_TOKEN};

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "DELETE", "PATCH"];

/// Every `METHOD /path` in a code span of docs/API.md (a span may break
/// across lines), with `{…}` placeholders and queries as written.
fn documented_endpoints() -> Vec<(String, String)> {
    let text = include_str!("../../../docs/API.md");
    let mut endpoints = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let words: Vec<&str> = span.split_whitespace().collect();
        if let [method, path, ..] = words.as_slice() {
            if METHODS.contains(method) && path.starts_with('/') {
                let path = path.split('?').next().unwrap_or(path).to_owned();
                let endpoint = ((*method).to_owned(), path);
                if !endpoints.contains(&endpoint) {
                    endpoints.push(endpoint);
                }
            }
        }
    }
    endpoints
}

#[test]
fn the_document_names_the_endpoints_it_should() {
    let endpoints = documented_endpoints();
    for expected in [
        ("PUT", "/api/v1/fleet"),
        ("POST", "/api/agent/v1/report"),
        ("DELETE", "/api/v1/connectors/{id}"),
        ("POST", "/api/v1/connectors/{id}/import"),
    ] {
        assert!(
            endpoints
                .iter()
                .any(|(m, p)| (m.as_str(), p.as_str()) == expected),
            "{expected:?} not found in {endpoints:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_docs_api_md_names_is_routed() {
    let app = spawn_app().await;
    for (method, path) in documented_endpoints() {
        // A placeholder becomes an id that names nothing: the route
        // answers (404 for the object, 422, 401…), never "no route".
        let concrete: String = path
            .split('/')
            .map(|part| {
                if part.starts_with('{') {
                    "nothing-here"
                } else {
                    part
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
        let response = app
            .client
            .request(method.clone(), app.url(&concrete))
            .bearer_auth(ADMIN_TOKEN)
            .json(&serde_json::json!({}))
            .send()
            .await
            .expect("sent");
        let status = response.status().as_u16();
        let html = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/html"));
        let body = response.text().await.unwrap_or_default();
        assert_ne!(status, 405, "{method} {path}: the method is not routed");
        assert!(
            !body.contains("no such API endpoint"),
            "{method} {path}: not routed"
        );
        let page = concrete == "/status";
        assert!(
            !html || page,
            "{method} {path}: answered by the pages' fallback ({status})"
        );
    }
}
