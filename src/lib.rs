//! meshwatch domain: fleet model, evidence, the pure rules engine,
//! balancing, and the view types shared by the server and the UI.
//!
//! This crate is compiled natively for the panel server and to WASM for the
//! browser, so it holds no I/O: everything the UI and the server agree on
//! lives here, defined once.

pub mod account;
pub mod actions;
pub mod agent_api;
pub mod balance;
pub mod chart;
pub mod connectors;
pub mod evidence;
pub mod fleet;
pub mod i18n;
pub mod ids;
pub mod intake;
pub mod maintenance;
pub mod markup;
pub mod mesh;
pub mod mesh_picture;
pub mod net_ranges;
pub mod network;
#[cfg(feature = "openapi")]
mod openapi;
pub mod rules;
pub mod server_list;
pub mod settings;
pub mod status;
pub mod status_page;
pub mod uptime;
pub mod verdict;
pub mod views;

pub use ids::{ConnectorId, EntryPointId, RouteId, ServerId, Slug, SlugError, UserId};
pub use status::ServerStatus;
