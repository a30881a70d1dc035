//! The OpenAPI 3.1 document of docs/API.md, generated from the handlers'
//! `#[utoipa::path]` attributes and the API types' `ToSchema`, served at
//! `GET /api/v1/openapi.json` and checked in as docs/openapi.json.
//!
//! Two tests keep it true: `tests/api/openapi.rs` fails when the checked-in
//! file differs from what the code generates, and in debug builds
//! [`contract`] checks every API response the suites provoke against it:
//! a status or a field the document does not name fails the test that
//! saw it.

pub mod contract;
pub mod schema_check;

use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use std::sync::OnceLock;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr};
use utoipa::OpenApi as _;

/// The routes outside `/api` that docs/API.md also names.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "meshwatch",
        description = "The HTTP contract of meshwatch (docs/API.md): the agent API, the automation API, subscriptions and operations.",
        license(name = "MIT"),
    ),
    paths(
        serve,
        crate::http::subscription::serve,
        crate::http::status_page::html,
        crate::http::status_page::json,
        crate::http::health::healthz,
        crate::http::health::readyz,
        crate::http::metrics::serve
    ),
    tags(
        (name = "agent", description = "What each server's agent calls (one bearer token per server)"),
        (name = "fleet", description = "The fleet as one document"),
        (name = "servers", description = "Verdicts and verifiers"),
        (name = "users", description = "Users' servers after balancing"),
        (name = "settings"),
        (name = "notifications"),
        (name = "maintenance", description = "docs/PRODUCT.md §6"),
        (name = "actions", description = "docs/PRODUCT.md §6"),
        (name = "connectors", description = "Connected panels, docs/PRODUCT.md §7"),
        (name = "subscription", description = "What VPN apps fetch"),
        (name = "operations"),
    )
)]
struct Outside;

/// The whole document.
pub fn document() -> OpenApi {
    let mut doc = Outside::openapi();
    for part in [
        super::agent::Operations::openapi(),
        super::automation::Operations::openapi(),
        super::maintenance::Operations::openapi(),
        super::actions::Operations::openapi(),
        super::connectors::Operations::openapi(),
    ] {
        doc.merge(part);
    }
    add_security(&mut doc);
    add_common_responses(&mut doc);
    doc
}

/// The document as served and checked in: pretty JSON, built once.
pub fn json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        let mut text = document()
            .to_pretty_json()
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        text.push('\n');
        text
    })
}

/// `GET /api/v1/openapi.json`: the contract, for code generators and
/// people. Public: it holds no fleet data.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "operations",
    security(()),
    responses((status = 200, description = "This document", content_type = "application/json")))]
pub async fn serve() -> Response {
    ([(CONTENT_TYPE, "application/json")], json()).into_response()
}

/// The two bearer tokens: an operator's for `/api/v1`, a server's for
/// the agent API. An operation that names none takes the operator's.
fn add_security(doc: &mut OpenApi) {
    let components = doc.components.get_or_insert_with(Default::default);
    let bearer = |what: &str| {
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(what))
                .build(),
        )
    };
    components.add_security_scheme(
        "operator_token",
        bearer("An operator API token (MESHWATCH_ADMIN_TOKEN or one made in Settings), within its scope"),
    );
    components.add_security_scheme("agent_token", bearer("The agent token of one server"));
    for (path, item) in doc.paths.paths.iter_mut() {
        if !path.starts_with("/api/v1/") {
            continue;
        }
        for operation in operations(item) {
            operation.security.get_or_insert_with(|| {
                vec![SecurityRequirement::new(
                    "operator_token",
                    Vec::<String>::new(),
                )]
            });
        }
    }
}

/// The answers every operation may give whatever it does, written once
/// here rather than on each handler: the token checks, the body checks of
/// operations that take one, the request deadline and a store failure.
fn add_common_responses(doc: &mut OpenApi) {
    let error = |description: &str| {
        RefOr::T(
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorBody")))
                        .build(),
                )
                .build(),
        )
    };
    for (path, item) in doc.paths.paths.iter_mut() {
        let token = path.starts_with("/api/") && path != "/api/v1/openapi.json";
        for operation in operations(item) {
            let secured = token || operation.security.as_ref().is_some_and(|s| !s.is_empty());
            let mut common = vec![("500", "The panel failed; details are in its log")];
            if path != "/healthz" && path != "/readyz" {
                common.push((
                    "503",
                    "Not answered within the request deadline (`timeout`), or not ready",
                ));
            }
            if secured || path == "/metrics" {
                common.push(("401", "No valid token (`unauthorized`)"));
            }
            if path.starts_with("/api/v1/") && token {
                common.push((
                    "403",
                    "The token's scope does not allow it (`insufficient_scope`)",
                ));
            }
            if operation.request_body.is_some() {
                common.extend([
                    ("400", "The body is not JSON (`invalid_json`)"),
                    ("413", "The body is over its limit (`payload_too_large`)"),
                    (
                        "415",
                        "Not `application/json`, or an encoding other than gzip",
                    ),
                    ("422", "The body is JSON but not valid (the code says why)"),
                ]);
            }
            for (status, description) in common {
                operation
                    .responses
                    .responses
                    .entry(status.to_owned())
                    .or_insert_with(|| error(description));
            }
        }
    }
}

fn operations(
    item: &mut utoipa::openapi::PathItem,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [
        item.get.as_mut(),
        item.put.as_mut(),
        item.post.as_mut(),
        item.delete.as_mut(),
        item.patch.as_mut(),
    ]
    .into_iter()
    .flatten()
}
