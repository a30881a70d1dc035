//! The contract check of debug builds: every response to a route the
//! OpenAPI document names is checked against it — its status must be
//! documented for that operation, and a JSON body must match the
//! documented schema. A `/api/` route the document does not name fails
//! too, unless it answered 404 (no such endpoint).
//!
//! A departure is logged and kept, by the `Host` the request was sent to,
//! so that the test suites fail the test that provoked it
//! ([`take_violations`]). Release builds do not carry the check.

use super::schema_check;
use axum::body::{to_bytes, Body};
use axum::extract::Request;
use axum::http::header::{CONTENT_TYPE, HOST};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;
use std::sync::{Mutex, OnceLock};

/// Routes answered only in demo mode, for the browser tests: not part of
/// the contract.
const OUTSIDE_THE_CONTRACT: [&str; 1] = ["/api/v1/demo/faults"];

/// The largest body the check reads (a 20,000-user view is well below).
const MAX_CHECKED_BODY: usize = 256 << 20;

static VIOLATIONS: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// The departures seen on requests sent to `host` (`127.0.0.1:port`),
/// removed from the record.
pub fn take_violations(host: &str) -> Vec<String> {
    let mut all = VIOLATIONS.lock().unwrap_or_else(|e| e.into_inner());
    let (mine, others): (Vec<_>, Vec<_>) = all.drain(..).partition(|(h, _)| h == host);
    *all = others;
    mine.into_iter().map(|(_, message)| message).collect()
}

fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| serde_json::from_str(super::json()).unwrap_or(Value::Null))
}

/// The middleware.
pub async fn check(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let host = request
        .headers()
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let response = next.run(request).await;
    if OUTSIDE_THE_CONTRACT.contains(&path.as_str()) {
        return response;
    }
    let Some(operation) = operation(&method, &path) else {
        if path.starts_with("/api/") && response.status() != StatusCode::NOT_FOUND {
            record(
                &host,
                format!(
                    "{method} {path} answered {} but docs/openapi.json does not name it",
                    response.status()
                ),
            );
        }
        return response;
    };
    let status = response.status();
    let Some(documented) = operation
        .pointer(&format!("/responses/{}", status.as_u16()))
        .or_else(|| operation.pointer("/responses/default"))
    else {
        record(
            &host,
            format!(
                "{method} {path} answered {status}, a status docs/openapi.json does not give it"
            ),
        );
        return response;
    };
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    let Some(schema) = documented.pointer("/content/application~1json/schema") else {
        return response;
    };
    if !is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = match to_bytes(body, MAX_CHECKED_BODY).await {
        Ok(bytes) => bytes,
        Err(e) => {
            record(
                &host,
                format!("{method} {path}: the body could not be read: {e}"),
            );
            return Response::from_parts(parts, Body::empty());
        }
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value) => {
            let errors = schema_check::check(document(), schema, &value);
            if !errors.is_empty() {
                record(
                    &host,
                    format!(
                        "{method} {path} ({status}) departs from docs/openapi.json: {}",
                        errors.join("; ")
                    ),
                );
            }
        }
        Err(e) => record(
            &host,
            format!("{method} {path} ({status}) sent JSON that does not parse: {e}"),
        ),
    }
    Response::from_parts(parts, Body::from(bytes))
}

fn record(host: &str, message: String) {
    tracing::error!(%message, "API contract departure");
    VIOLATIONS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((host.to_owned(), message));
}

/// The documented operation for this method and concrete path: among the
/// templates that match, the one with the fewest placeholders
/// (`/actions/runs` before `/actions/{id}`).
fn operation(method: &Method, path: &str) -> Option<&'static Value> {
    let paths = document().get("paths")?.as_object()?;
    let method = method.as_str().to_ascii_lowercase();
    paths
        .iter()
        .filter(|(template, _)| matches(template, path))
        .filter_map(|(template, item)| Some((template.matches('{').count(), item.get(&method)?)))
        .min_by_key(|(placeholders, _)| *placeholders)
        .map(|(_, operation)| operation)
}

fn matches(template: &str, path: &str) -> bool {
    let mut parts = path.split('/');
    for expected in template.split('/') {
        match parts.next() {
            Some(part) if expected.starts_with('{') => {
                if part.is_empty() {
                    return false;
                }
            }
            Some(part) if part == expected => {}
            _ => return false,
        }
    }
    parts.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_finds_its_template_literal_parts_first() {
        assert!(matches("/api/v1/servers/{id}", "/api/v1/servers/de-1"));
        assert!(!matches(
            "/api/v1/servers/{id}",
            "/api/v1/servers/de-1/verifier"
        ));
        assert!(!matches("/api/v1/servers/{id}", "/api/v1/servers/"));
        let runs = operation(&Method::GET, "/api/v1/actions/runs").expect("documented");
        assert_eq!(runs["operationId"], "runs");
        assert!(operation(&Method::GET, "/api/v1/actions/7").is_none());
        assert!(operation(&Method::DELETE, "/api/v1/actions/7").is_some());
    }
}
