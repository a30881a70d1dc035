//! The six server status kinds of docs/API.md, ordered by the precedence of docs/PRODUCT.md R5.

use serde::{Deserialize, Serialize};

/// One dot per server. The declaration order is the precedence of R5: when
/// several conditions hold, the smallest (`Ord`) one is the server's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ServerStatus {
    /// In an operator's maintenance window (blue): above every verdict,
    /// which is still derived and listed beneath it (§6).
    Maintenance,
    /// A fresh report says the listener or the VPN service is down (red).
    Unavailable,
    /// A quorum of reliable witnesses cannot reach it (red).
    Unreachable,
    /// A verifier cannot reach any of its entry points (red).
    Blocked,
    /// No fresh report: the agent is silent (grey).
    NoData,
    /// Some entry points fail from some witness, blaming no one (amber).
    EntryPointsUnavailable,
    /// Nothing wrong (green).
    Healthy,
}

/// How a status is drawn: the dot's colour family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Red,
    Grey,
    Amber,
    Green,
    /// Maintenance: planned, not a fault.
    Blue,
}

impl ServerStatus {
    pub const ALL: [ServerStatus; 7] = [
        ServerStatus::Maintenance,
        ServerStatus::Unavailable,
        ServerStatus::Unreachable,
        ServerStatus::Blocked,
        ServerStatus::NoData,
        ServerStatus::EntryPointsUnavailable,
        ServerStatus::Healthy,
    ];

    /// The API's wire name (`"no_data"`, …), for metrics labels and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerStatus::Maintenance => "maintenance",
            ServerStatus::Unavailable => "unavailable",
            ServerStatus::Unreachable => "unreachable",
            ServerStatus::Blocked => "blocked",
            ServerStatus::NoData => "no_data",
            ServerStatus::EntryPointsUnavailable => "entry_points_unavailable",
            ServerStatus::Healthy => "healthy",
        }
    }

    /// Parses the wire name back (the store keeps statuses as text).
    pub fn from_wire(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Out of rotation by a verdict (docs/PRODUCT.md §3): unavailable,
    /// unreachable, blocked. Silence (no data) is not a verdict and keeps
    /// the server in. Maintenance takes a server out by the operator's
    /// plan, not by a verdict: the window decides that (see
    /// [`crate::maintenance`]), and a planned absence is neither down time
    /// nor a server leaving rotation on its own.
    pub fn takes_out_of_rotation(self) -> bool {
        matches!(
            self,
            ServerStatus::Unavailable | ServerStatus::Unreachable | ServerStatus::Blocked
        )
    }

    pub fn tone(self) -> Tone {
        match self {
            ServerStatus::Unavailable | ServerStatus::Unreachable | ServerStatus::Blocked => {
                Tone::Red
            }
            ServerStatus::NoData => Tone::Grey,
            ServerStatus::Maintenance => Tone::Blue,
            ServerStatus::EntryPointsUnavailable => Tone::Amber,
            ServerStatus::Healthy => Tone::Green,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_follows_r5() {
        let mut shuffled = vec![
            ServerStatus::Healthy,
            ServerStatus::Maintenance,
            ServerStatus::NoData,
            ServerStatus::Unavailable,
            ServerStatus::EntryPointsUnavailable,
            ServerStatus::Blocked,
            ServerStatus::Unreachable,
        ];
        shuffled.sort();
        assert_eq!(shuffled, ServerStatus::ALL.to_vec());
    }

    #[test]
    fn wire_names_are_exactly_the_api_kinds() {
        for status in ServerStatus::ALL {
            let json = serde_json::to_string(&status).expect("serializes");
            assert_eq!(json, format!("\"{}\"", status.as_str()));
            assert_eq!(ServerStatus::from_wire(status.as_str()), Some(status));
        }
        assert_eq!(ServerStatus::from_wire("down"), None);
    }

    #[test]
    fn silence_is_not_a_verdict() {
        assert!(!ServerStatus::NoData.takes_out_of_rotation());
        assert!(!ServerStatus::EntryPointsUnavailable.takes_out_of_rotation());
        assert!(ServerStatus::Blocked.takes_out_of_rotation());
        assert!(!ServerStatus::Maintenance.takes_out_of_rotation());
    }
}
