//! meshwatch domain: the fleet, the evidence, the rules and what they
//! decide.
//!
//! # Layout
//!
//! - [`fleet`], [`ids`], [`account`]: the fleet document and its
//!   validation, the typed ids, operators' token scopes.
//! - [`agent_api`], [`intake`], [`evidence`]: what agents report, how a
//!   report is read, and the evidence per (witness, entry point) pair.
//! - [`rules`], [`mesh`], [`verdict`], [`status`], [`network`]: the pure
//!   rules engine of docs/PRODUCT.md over the mesh, its verdicts and
//!   statuses, verifiers' networks.
//! - [`balance`]: which servers each user's subscription gets.
//! - [`settings`], [`maintenance`], [`actions`], [`connectors`],
//!   [`net_ranges`]: the operator's settings, maintenance windows,
//!   actions and their guards, connected panels' plans.
//!
//! It depends on no other crate of the workspace. The words and view
//! models are `meshwatch-views`; the agent, the app and the server build on
//! both. Compiled natively and to WASM, so it holds no I/O.

pub mod account;
pub mod actions;
pub mod agent_api;
pub mod balance;
pub mod connectors;
pub mod controls;
pub mod evidence;
pub mod fleet;
pub mod ids;
pub mod intake;
pub mod maintenance;
pub mod mesh;
pub mod net_ranges;
pub mod network;
#[cfg(feature = "openapi")]
mod openapi;
pub mod rules;
pub mod settings;
pub mod status;
pub mod verdict;
pub mod witness_sets;

pub use ids::{ConnectorId, EntryPointId, RouteId, ServerId, Slug, SlugError, UserId};
pub use status::ServerStatus;
