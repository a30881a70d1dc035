//! The JSON HTTP APIs of API.md: their error body, extractor and handlers.

pub mod automation;
pub mod error;

pub use error::{ApiError, ApiJson};
