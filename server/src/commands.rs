//! One function per write: the panel's server functions and the API call
//! the same one, so a write's checks, its effects (the evaluator told,
//! the sync nudged) and its log line are written once. Handlers only
//! translate their input and the outcome.

pub mod actions;
pub mod connectors;
pub mod fleet;
pub mod maintenance;
pub mod servers;
pub mod settings;
