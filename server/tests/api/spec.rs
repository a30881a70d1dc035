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

/// docs/openapi.json is what the code generates: a type, field, route or
/// status changed in the code without the document fails here. To accept
/// a change, regenerate it: `MESHWATCH_BLESS=1 cargo nextest run -p
/// server --test api spec::` (then read the diff).
#[test]
fn the_checked_in_openapi_document_is_the_generated_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json");
    let generated = meshwatch_server::http::api::openapi::json();
    if std::env::var_os("MESHWATCH_BLESS").is_some() {
        std::fs::write(path, generated).expect("docs/openapi.json written");
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/openapi.json differs from what the code generates; regenerate it with MESHWATCH_BLESS=1 (see this test's doc)"
    );
}

/// The OpenAPI document and docs/API.md name the same operations.
#[test]
fn the_openapi_document_names_every_endpoint_docs_api_md_names() {
    let document: serde_json::Value =
        serde_json::from_str(meshwatch_server::http::api::openapi::json()).expect("JSON");
    assert_eq!(document["openapi"], "3.1.0");
    let mut in_openapi: Vec<(String, String)> = document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .into_iter()
                .flat_map(|ops| ops.keys())
                .filter(|m| METHODS.contains(&m.to_ascii_uppercase().as_str()))
                .map(move |m| (m.to_ascii_uppercase(), path.clone()))
        })
        .collect();
    let mut in_api_md = documented_endpoints();
    in_openapi.sort();
    in_api_md.sort();
    assert_eq!(in_openapi, in_api_md);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_is_served_without_a_token() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/api/v1/openapi.json"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().ok(),
        Some("application/json")
    );
    assert_eq!(
        response.text().await.expect("body"),
        meshwatch_server::http::api::openapi::json()
    );
}

/// The contract check of debug builds finds a departure: an answer with
/// a status the document does not give that operation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_contract_check_names_an_undocumented_status() {
    let app = spawn_app().await;
    // 405 is no documented answer of GET-only /api/v1/servers.
    let response = app
        .client
        .patch(app.url("/api/v1/servers"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 405);
    let found = app.take_contract_violations();
    assert!(
        found.iter().any(|v| v.contains("PATCH /api/v1/servers")),
        "{found:?}"
    );
}
