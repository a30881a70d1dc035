//! The JSON HTTP APIs of docs/API.md: their error body, extractor and handlers.

pub mod actions;
pub mod agent;
pub mod automation;
pub mod connectors;
pub mod error;
pub mod maintenance;
pub mod openapi;
pub mod views;

pub use error::{ApiError, ApiJson, ErrorBody};
