//! The meshwatch agent: self-checks, mesh probes and reports that survive
//! panel outages. The `meshwatch-agent` binary is a thin shell around
//! [`runner::run`]; the demo fleet runs the same code as tasks.
//!
//! # Layout
//!
//! - [`runner`]: the loop — fetch the config, self-check, probe, report.
//! - [`config`]: the agent's settings file and environment.
//! - [`self_check`] and [`host_metrics`]: is the listener alive, is the
//!   VPN service running, and the host's metrics.
//! - [`probe`] and [`target_guard`]: probing every peer's entry points the
//!   way a user's app would, and only addresses a probe may reach.
//! - [`panel_client`], [`report_parts`], [`outbox`], [`backoff`]: talking
//!   to the panel — reports split under the size limit, kept on disk
//!   through a panel outage, retried with backoff.
//! - [`lab`]: loopback listeners and cut paths, for the demo and tests.
//!
//! It depends on the domain crate (`meshwatch`) only.

pub mod backoff;
pub mod checks;
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
