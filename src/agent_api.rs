//! The agent API of API.md, as types shared by the panel and the agent.

use crate::evidence::{ProbeError, SelfCheck};
use crate::fleet::Protocol;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `GET /api/agent/v1/config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentConfig {
    pub report_interval_s: u32,
    pub probe_interval_s: u32,
    pub probe_timeout_s: u32,
    /// Every entry point of every other server.
    pub peers: Vec<Peer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Peer {
    pub entry_point_id: String,
    pub server_id: String,
    pub protocol: Protocol,
    pub host: String,
    pub port: u16,
    pub sni: Option<String>,
}

/// `POST /api/agent/v1/report` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentReport {
    /// UUID v4 chosen by the agent; retries reuse it.
    pub report_id: String,
    pub agent_version: String,
    pub sent_at: DateTime<Utc>,
    pub self_check: SelfCheck,
    #[serde(default)]
    pub metrics: Metrics,
    #[serde(default)]
    pub probes: Vec<ProbeReport>,
}

/// Each field optional: agents report what their platform offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_used_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_total_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_used_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_total_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_rx_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_tx_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load1: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uptime_s: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeReport {
    pub entry_point_id: String,
    pub at: DateTime<Utc>,
    pub ok: bool,
    #[serde(default)]
    pub latency_ms: Option<u32>,
    #[serde(default)]
    pub error: Option<ProbeError>,
}

/// The 202 answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportAck {
    pub accepted_probes: u32,
    pub skipped_probes: u32,
}

impl Metrics {
    /// Numbers that cannot be measurements (negative or not finite).
    pub fn invalid_field(&self) -> Option<&'static str> {
        let bad = |v: Option<f64>| v.is_some_and(|v| !v.is_finite() || v < 0.0);
        if bad(self.cpu_pct) || self.cpu_pct.is_some_and(|v| v > 100.0 * 1024.0) {
            return Some("metrics.cpu_pct");
        }
        if bad(self.load1) {
            return Some("metrics.load1");
        }
        None
    }
}
