//! meshwatch domain: fleet model, shared view types and (later) the pure rules engine.
//!
//! This crate is compiled natively for the panel server and to WASM for the
//! browser, so it holds no I/O: everything the UI and the server agree on
//! lives here, defined once.

pub mod fleet;
pub mod ids;
pub mod status;
pub mod views;

pub use ids::{EntryPointId, RouteId, ServerId, Slug, SlugError, UserId};
pub use status::ServerStatus;
