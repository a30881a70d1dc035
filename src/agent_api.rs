//! The agent API of docs/API.md, as types shared by the panel and the agent.

use crate::evidence::{Check, ProbeError, SelfCheck, Stage};
use crate::fleet::Protocol;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `GET /api/agent/v1/config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentConfig {
    /// Changes whenever the peers or probe settings change; every report's
    /// answer carries the current one (absent from older panels: 0).
    #[serde(default)]
    pub fleet_version: u64,
    pub report_interval_s: u32,
    pub probe_interval_s: u32,
    pub probe_timeout_s: u32,
    /// The entry points to probe: every other server's, or beyond
    /// `witness_set_threshold` those of the servers whose witness set this
    /// agent is in and of the ones it confirms (docs/API.md).
    pub peers: Vec<Peer>,
    /// Present for a verifier: the checks it runs besides the handshakes
    /// (PRODUCT.md §8). An addition to docs/API.md: older agents ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifier: Option<VerifierChecks>,
}

/// What a verifier's agent checks besides each entry point's handshake.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerifierChecks {
    /// The SNI a failed handshake is retried with, to the same address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_sni: Option<String>,
    /// Domestic `host:port` addresses its network is known to reach.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<String>,
    /// Run the transfer check on every `transfer_every`-th round (and on
    /// each round after a frozen one).
    pub transfer_every: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Peer {
    pub entry_point_id: String,
    pub server_id: String,
    pub protocol: Protocol,
    pub host: String,
    pub port: u16,
    pub sni: Option<String>,
    /// The ALPN protocols the entry point's app offers, where the entry
    /// point sets them (TUIC's `params.alpn`); absent, the agent offers the
    /// protocol's default. An addition to docs/API.md: older agents ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpn: Option<Vec<String>>,
    /// The entry point hides its handshake (Hysteria2's `obfs`): a plain
    /// QUIC handshake would fail against a healthy server, so agents do
    /// not probe it (no result is not a failure). An addition to docs/API.md.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub obfuscated: bool,
    /// The HTTPS path a verifier's transfer check fetches through this
    /// entry point's TLS (`params.transfer_path`, default `/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_path: Option<String>,
    /// Probed to confirm another witness's starting failure streak
    /// (indirect confirmation), not as a member of the server's set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub indirect: bool,
}

/// `POST /api/agent/v1/report` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

/// Per-core percentages summed on a very large machine, at most.
const MAX_CPU_PCT: f64 = 100.0 * 1024.0;

/// Each field optional: agents report what their platform offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// Bytes per second since the previous report (an extension of
    /// docs/API.md's fields, optional like all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_rx_rate_bps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_tx_rate_bps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load1: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uptime_s: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ProbeReport {
    pub entry_point_id: String,
    pub at: DateTime<Utc>,
    pub ok: bool,
    /// Any non-negative number (agents in other languages write `20.0`).
    #[serde(default)]
    pub latency_ms: Option<f64>,
    #[serde(default)]
    pub error: Option<ProbeError>,
    /// Which check (docs/API.md "Block kinds"); absent: the handshake.
    #[serde(default, skip_serializing_if = "Check::is_handshake")]
    pub check: Check,
    /// Where it failed, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    /// Transfers: the bytes received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// The 202 answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReportAck {
    pub accepted_probes: u32,
    pub skipped_probes: u32,
    /// The panel's current [`AgentConfig::fleet_version`]: when it differs
    /// from the agent's, the agent fetches its config again at once.
    #[serde(default)]
    pub fleet_version: u64,
}

impl Metrics {
    /// Leaves out numbers that cannot be measurements, so one odd reading
    /// does not cost the whole report.
    pub fn without_invalid(mut self) -> Self {
        for field in [
            &mut self.cpu_pct,
            &mut self.load1,
            &mut self.net_rx_rate_bps,
            &mut self.net_tx_rate_bps,
        ] {
            if field.is_some_and(|v| !v.is_finite() || v < 0.0) {
                *field = None;
            }
        }
        if self.cpu_pct.is_some_and(|v| v > MAX_CPU_PCT) {
            self.cpu_pct = None;
        }
        self
    }

    /// Numbers that cannot be measurements (negative or not finite).
    pub fn invalid_field(&self) -> Option<&'static str> {
        let bad = |v: Option<f64>| v.is_some_and(|v| !v.is_finite() || v < 0.0);
        if bad(self.cpu_pct) || self.cpu_pct.is_some_and(|v| v > MAX_CPU_PCT) {
            return Some("metrics.cpu_pct");
        }
        if bad(self.load1) {
            return Some("metrics.load1");
        }
        if bad(self.net_rx_rate_bps) {
            return Some("metrics.net_rx_rate_bps");
        }
        if bad(self.net_tx_rate_bps) {
            return Some("metrics.net_tx_rate_bps");
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_readings_are_left_out_valid_ones_kept() {
        let m = Metrics {
            cpu_pct: Some(f64::NAN),
            load1: Some(-1.0),
            net_rx_rate_bps: Some(f64::INFINITY),
            net_tx_rate_bps: Some(12.0),
            mem_total_bytes: Some(5),
            ..Metrics::default()
        }
        .without_invalid();
        assert_eq!(m.invalid_field(), None);
        assert_eq!(
            (
                m.cpu_pct,
                m.load1,
                m.net_rx_rate_bps,
                m.net_tx_rate_bps,
                m.mem_total_bytes
            ),
            (None, None, None, Some(12.0), Some(5))
        );
    }
}
