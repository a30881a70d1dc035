//! The meshwatch agent: self-checks, mesh probes and reports that survive
//! panel outages. The `meshwatch-agent` binary is a thin shell around
//! [`runner::run`]; the demo fleet runs the same code as tasks.

pub mod backoff;
pub mod config;
pub mod host_metrics;
pub mod lab;
pub mod outbox;
pub mod panel_client;
pub mod probe;
pub mod report_parts;
pub mod runner;
pub mod self_check;
pub mod target_guard;

pub use config::{AgentSettings, ConfigError, ServiceCheck};
pub use runner::{run, AgentCounters};

/// Sent as `agent_version` and in the User-Agent header.
pub const AGENT_VERSION: &str = env!("CARGO_PKG_VERSION");
