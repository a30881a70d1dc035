//! meshwatch-server: the panel's HTTP server, as a library so integration
//! tests drive exactly what the binary serves.
//!
//! # Layout
//!
//! The modules follow a request's way through the panel, each group only
//! calling the ones below it (`tests/layers.rs` checks the two lowest):
//!
//! - [`http`]: what answers requests — the JSON APIs of docs/API.md
//!   (`http::api`, with its OpenAPI document), the live event stream, the
//!   subscription, the site's files, the status page, the mesh picture,
//!   the request-wide layers (security headers, the request deadline) and
//!   the router's state: the sub-states each layer owns (`engine::Core`,
//!   `auth::Access`, `outbound::Outbound`, `http::Surfaces`), which
//!   handlers extract alone.
//! - [`auth`]: who may ask — sign-in and its limits, sessions, the
//!   trusted proxies, agents' report limits, password hashing and tokens,
//!   and the sealing of secrets at rest.
//! - [`commands`]: one function per write, called alike by the panel's
//!   server functions and by the API.
//! - [`read`]: what pages read — each page's view model (`read::pages`),
//!   the card caches, the runs index, and the adapter that hands reads and
//!   commands to the Leptos app, translating only.
//! - [`engine`]: evidence in, verdicts out — the evaluator, the read
//!   model, the broadcaster, the clock and the replicas' following.
//! - [`outbound`]: what meshwatch does to the world — notifications and
//!   their delivery, the actions runner and the connected panels.
//! - [`store`]: the database, SQLite or PostgreSQL, and the key file
//!   beside it. It imports nothing but [`crypto`].
//! - [`crypto`]: token and password hashes, the `Secret` that never
//!   prints, and the sealing of secrets at rest; it imports nothing else.
//! - [`ops`]: running the panel — configuration, start-up, the CLI, the
//!   demo fleet, the database lock and telemetry.
//!
//! The rules themselves live in the domain crate (`meshwatch`), the wording
//! and view models in `meshwatch-views`, and the pages in `app`.
// The panel's view types (in islands mode) are deep.
#![recursion_limit = "256"]

pub mod auth;
pub mod commands;
pub mod crypto;
pub mod engine;
pub mod http;
pub mod ops;
pub mod outbound;
pub mod read;
pub mod store;
