//! What the rules engine concludes about each server: the types that flow
//! unchanged into the API, the server functions and the UI.

use crate::evidence::SelfCheck;
use crate::fleet::Transport;
use crate::ids::{EntryPointId, ServerId};
use crate::maintenance::InMaintenance;
use crate::status::ServerStatus;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// R2's figures for one server: "k of n of your servers can't reach it".
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Quorum {
    /// k: fresh reliable witnesses that fail to reach the server.
    pub failing: u32,
    /// n: fresh reliable witnesses that probe the server.
    pub of: u32,
    pub failing_witnesses: Vec<ServerId>,
}

/// R1's figures: this server, as a witness, can't reach `failing` of the
/// `of` servers it probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WitnessFigure {
    pub failing: u32,
    pub of: u32,
}

/// A whole-fleet fault: most fresh witnesses are unreliable (they can't
/// reach most servers), so R2 has gone silent. That is correct — nothing
/// is removed — but the operator must hear that the problem is probably
/// the witnesses' network, not the servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessFault {
    /// Fresh witnesses whose evidence R1 discards.
    pub unreliable: u32,
    /// Fresh witnesses that probe anyone (verifiers aside).
    pub witnesses: u32,
}

/// R3's cause of an entry point mark: the check from one server to another
/// fails since a given time. Blames no one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairCause {
    pub from: ServerId,
    pub to: ServerId,
    pub since: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EntryPointVerdict {
    pub id: EntryPointId,
    pub available: bool,
    pub causes: Vec<PairCause>,
    /// Fresh verifiers with a sustained streak to this entry point while
    /// they still reach the server by another one (so R4 does not hold):
    /// the way a censor blocks one protocol — UDP/QUIC, say — on their
    /// network. Shown on the card; it marks and removes nothing (R3 leaves
    /// verifiers out). An addition to docs/API.md, absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verifier_failures: Vec<PairCause>,
}

/// The kind of block a verifier sees (PRODUCT.md §8): each needs its own fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// Every entry point fails at TCP/UDP: a new IP is the fix.
    Ip,
    /// The real SNI fails where the control SNI succeeds: a new SNI is.
    Sni,
    /// Every entry point of one transport fails while another reaches the
    /// server: serve the working transport first.
    Protocol,
    /// Handshakes succeed, transfers freeze after a few KB: an address in
    /// another provider's range, or a domestic relay.
    Throttled,
}

impl BlockKind {
    pub const ALL: [BlockKind; 4] = [
        BlockKind::Ip,
        BlockKind::Sni,
        BlockKind::Protocol,
        BlockKind::Throttled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Ip => "ip",
            BlockKind::Sni => "sni",
            BlockKind::Protocol => "protocol",
            BlockKind::Throttled => "throttled",
        }
    }

    pub fn from_name(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == raw)
    }

    /// Whether the server leaves rotation for it: a blocked protocol only
    /// orders that transport's entry points last.
    pub fn takes_out_of_rotation(self) -> bool {
        self != BlockKind::Protocol
    }

    /// Whether a new IP address is the fix (IP-rotation actions run only
    /// for these).
    pub fn new_address_helps(self) -> bool {
        matches!(self, BlockKind::Ip | BlockKind::Throttled)
    }
}

/// One verifier's block of a server, of one kind (§8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifierBlock {
    pub verifier: ServerId,
    pub kind: BlockKind,
    /// `protocol`: the transport whose entry points fail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// `throttled`: the bytes the frozen transfers received (the fewest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frozen_after_bytes: Option<u64>,
}

/// Everything the engine concludes about one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub server: ServerId,
    /// The top condition by R5 precedence.
    pub status: ServerStatus,
    /// Every condition that holds, in precedence order (`[Healthy]` when none).
    pub conditions: Vec<ServerStatus>,
    /// False when unavailable, unreachable or blocked (§3).
    pub in_rotation: bool,
    /// No report younger than `stale_after`.
    pub stale: bool,
    pub last_report_at: Option<DateTime<Utc>>,
    pub self_check: Option<SelfCheck>,
    pub quorum: Quorum,
    /// Set while R1 holds for this server as a witness.
    pub unreliable_witness: Option<WitnessFigure>,
    /// A verifier that reaches none of (at least 2) servers: its verdicts
    /// are suspended (R4's exception).
    pub suspended_verifier: bool,
    /// Verifiers that see this server blocked in a way that takes it out
    /// of rotation (R4, or §8's `sni` and `throttled`): the verifiers of
    /// `blocks` whose kind takes it out.
    pub blocked_by: Vec<ServerId>,
    /// Every verifier's block of this server, with its kind (§8), in
    /// verifier order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<VerifierBlock>,
    /// This server is a verifier that cannot reach its own network's
    /// control addresses: its network is in an allowlist or shutdown
    /// mode, and its verdicts are suspended (§8).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub controls_unreachable: bool,
    /// Fresh verifiers whose word counts and that reach it: with
    /// `blocked_by`, where it is blocked and where it is not (§6).
    #[serde(default)]
    pub still_reached_by: Vec<ServerId>,
    pub entry_points: Vec<EntryPointVerdict>,
    /// A maintenance window holding, or draining the server before it
    /// starts (§6); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintenance: Option<InMaintenance>,
}

impl Verdict {
    pub fn has(&self, condition: ServerStatus) -> bool {
        self.conditions.contains(&condition)
    }

    /// The status the evidence alone gives: what a maintenance window
    /// shows on top of it is set aside.
    pub fn derived_status(&self) -> ServerStatus {
        self.conditions
            .iter()
            .copied()
            .find(|c| *c != ServerStatus::Maintenance)
            .unwrap_or(ServerStatus::Healthy)
    }

    /// The kinds of its blocks that take it out of rotation, each once
    /// (what a `blocked` action is told, §8).
    pub fn block_kinds(&self) -> Vec<BlockKind> {
        let mut kinds: Vec<BlockKind> = self
            .blocks
            .iter()
            .map(|b| b.kind)
            .filter(|k| k.takes_out_of_rotation())
            .collect();
        kinds.sort();
        kinds.dedup();
        kinds
    }

    /// A maintenance window holds for it now.
    pub fn in_maintenance(&self) -> bool {
        self.maintenance.is_some_and(|m| m.active)
    }
}

/// A server's status or conditions changed: recorded in the status
/// history and pushed to open panels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictChange {
    pub server: ServerId,
    pub status: ServerStatus,
    pub conditions: Vec<ServerStatus>,
    /// The conditions before the change (empty for a first record).
    pub previous: Vec<ServerStatus>,
    /// The conditions last recorded outside a maintenance window: what
    /// the operator was last told of (equal to `previous` unless that was
    /// in a window; empty when unknown).
    #[serde(default)]
    pub calm_previous: Vec<ServerStatus>,
    pub at: DateTime<Utc>,
}

impl VerdictChange {
    /// R4 started to hold with this change. Nothing is told while a
    /// maintenance window holds; leaving one, a block is told when it was
    /// not holding before the window (one message per incident).
    pub fn became_blocked(&self) -> bool {
        !self.conditions.contains(&ServerStatus::Maintenance)
            && self.conditions.contains(&ServerStatus::Blocked)
            && !self.calm_previous.contains(&ServerStatus::Blocked)
    }

    /// R4 stopped holding with this change, outside maintenance windows:
    /// a block told before a window that cleared during it is told as
    /// cleared when the window ends.
    pub fn block_cleared(&self) -> bool {
        !self.conditions.contains(&ServerStatus::Maintenance)
            && !self.conditions.contains(&ServerStatus::Blocked)
            && self.calm_previous.contains(&ServerStatus::Blocked)
    }
}

/// What one witness says about one server, as the mesh matrix shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MeshCell {
    /// The witness itself (the diagonal).
    Itself,
    /// No fresh result (or the witness is stale).
    NotProbed,
    /// Reaches it: no failures.
    Reaches,
    /// A failing streak that is not yet sustained (the longest, capped at 9).
    Failing(u8),
    /// Fails to reach it: every probed entry point has a sustained streak.
    Sustained,
    /// The witness is unreliable (R1) or a suspended verifier: discarded.
    Discarded,
}

impl MeshCell {
    /// One character per cell keeps a 300 × 300 matrix at 90 KB on the
    /// wire (it is serialised into the page for hydration).
    pub fn to_char(self) -> char {
        match self {
            MeshCell::Itself => ' ',
            MeshCell::NotProbed => '-',
            MeshCell::Reaches => 'o',
            MeshCell::Failing(n) => char::from(b'0' + n.clamp(1, 9)),
            MeshCell::Sustained => 'x',
            MeshCell::Discarded => 'd',
        }
    }

    pub fn from_char(c: char) -> Option<Self> {
        Some(match c {
            ' ' => MeshCell::Itself,
            '-' => MeshCell::NotProbed,
            'o' => MeshCell::Reaches,
            '1'..='9' => MeshCell::Failing(c as u8 - b'0'),
            'x' => MeshCell::Sustained,
            'd' => MeshCell::Discarded,
            _ => return None,
        })
    }
}

/// One verifier's blocks cover more than `unreliable_fraction` of the
/// servers it probes (at least two): a censor blocking a whole hosting
/// network, or a compromised verifier. The blocks are shown, but their
/// actions wait for the operator's confirmation (docs/PRODUCT.md §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MassBlock {
    pub verifier: ServerId,
    /// The servers it blocks (R4 holds by its evidence), in mesh order.
    pub blocked: Vec<ServerId>,
    /// The normal servers it has fresh results for.
    pub probed: u32,
}
