//! Evidence: each server's last self-report and, per directed pair
//! (witness → entry point), the failure streak of its probes.
//!
//! Times are kept as Unix milliseconds: the mesh holds N² pairs and must
//! stay compact. Receipt times are the panel's clock, never the agent's.

use crate::mesh::Mesh;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The agent's local checks (docs/API.md `self_check`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SelfCheck {
    pub listener_ok: bool,
    pub service_ok: bool,
    #[serde(default)]
    pub detail: Option<String>,
}

impl SelfCheck {
    pub fn is_ok(&self) -> bool {
        self.listener_ok && self.service_ok
    }
}

/// Why a probe failed (docs/API.md error kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ProbeError {
    Timeout,
    Refused,
    Reset,
    TlsError,
    DnsError,
    /// A transfer stopped receiving bytes for [`FROZEN_AFTER_S`] after
    /// its handshake (PRODUCT.md §8 `throttled`).
    Frozen,
    Other,
}

/// How long a transfer may receive nothing before it counts as frozen.
pub const FROZEN_AFTER_S: u64 = 5;

/// Which check a probe result is (docs/API.md "Block kinds"); results
/// without one are handshakes, as they were before the checks existed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// TCP+TLS or QUIC handshake with the entry point's own SNI.
    #[default]
    Handshake,
    /// The same address with the verifier's control SNI, after the
    /// handshake failed once TCP had connected.
    ControlSni,
    /// A fetch of at least [`MIN_TRANSFER_BYTES`] through the entry
    /// point's TLS path.
    Transfer,
    /// One of the verifier's own domestic control addresses
    /// (`entry_point_id` is the `host:port`).
    Control,
}

impl Check {
    pub fn is_handshake(&self) -> bool {
        *self == Check::Handshake
    }
}

/// The fewest bytes a transfer check fetches: far past the 16–20 KB
/// after which a freezing censor stops a connection.
pub const MIN_TRANSFER_BYTES: u64 = 128 * 1024;

/// Where a check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Before TCP connected (timeout, refused, reset to the SYN).
    Tcp,
    /// TCP connected, the TLS handshake failed.
    Tls,
    /// The QUIC handshake got no answer or failed.
    Quic,
    /// The handshake succeeded, the transfer after it did not.
    Transfer,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Tcp => "tcp",
            Stage::Tls => "tls",
            Stage::Quic => "quic",
            Stage::Transfer => "transfer",
        }
    }

    pub fn from_name(raw: &str) -> Option<Self> {
        [Stage::Tcp, Stage::Tls, Stage::Quic, Stage::Transfer]
            .into_iter()
            .find(|s| s.as_str() == raw)
    }
}

/// One probe result, as the agent reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeOutcome {
    /// When the agent probed (its clock): orders results of one pair.
    pub at_ms: i64,
    pub ok: bool,
    pub error: Option<ProbeError>,
    pub check: Check,
    /// Where it failed, when the agent says.
    pub stage: Option<Stage>,
    /// Transfers: the bytes received.
    pub bytes: Option<u64>,
}

impl ProbeOutcome {
    /// A handshake result, as every result was before the checks existed.
    pub fn handshake(at_ms: i64, ok: bool, error: Option<ProbeError>) -> Self {
        Self {
            at_ms,
            ok,
            error,
            check: Check::Handshake,
            stage: None,
            bytes: None,
        }
    }
}

/// The state of one directed pair (witness → entry point).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairState {
    /// Consecutive failed probes; any success resets it to 0.
    pub streak: u32,
    /// Agent time of the first failure of the current streak, or
    /// [`PairState::NO_FAILURE`] (a sentinel rather than an `Option` keeps
    /// the pair states at 32 bytes each).
    pub first_failure_ms: i64,
    /// Agent time of the last applied result (older ones are ignored).
    pub last_at_ms: i64,
    /// Panel time at which the last result arrived; `i64::MIN` = never.
    pub received_ms: i64,
    pub last_error: Option<ProbeError>,
    /// Where the last failure failed, when the agent said (§8).
    pub last_stage: Option<Stage>,
    /// The last control-SNI retry of this pair since its last success:
    /// `Some(true)` when the same address answered the control SNI.
    pub sni_control: Option<bool>,
}

impl Default for PairState {
    fn default() -> Self {
        Self::NEVER
    }
}

impl PairState {
    pub const NO_FAILURE: i64 = i64::MIN;

    /// A pair no result ever arrived for.
    const NEVER: PairState = PairState {
        streak: 0,
        first_failure_ms: Self::NO_FAILURE,
        last_at_ms: i64::MIN,
        received_ms: i64::MIN,
        last_error: None,
        last_stage: None,
        sni_control: None,
    };

    /// Agent time of the first failure of the current streak.
    pub fn first_failure(&self) -> Option<i64> {
        (self.first_failure_ms != Self::NO_FAILURE).then_some(self.first_failure_ms)
    }

    /// Applies one result; returns false (and changes nothing) when it is not
    /// newer than the last applied one, so retries never double-count.
    ///
    /// A result that follows a stale one (the previous result arrived more
    /// than `stale_after_ms` before this one) starts a new streak: stale
    /// evidence never counts, not even inside a streak.
    ///
    /// A failure received less than `knock_gap_ms` after the failure that
    /// last grew the streak is the same knock (§1b): it is taken as the
    /// pair's newest result but does not grow the streak, and the pair's
    /// receipt time stays the knock's, so that a burst of reports (a
    /// leaked agent token) can never build a streak.
    pub fn apply(&mut self, probe: ProbeOutcome, received_ms: i64, timing: StreakTiming) -> bool {
        if probe.at_ms <= self.last_at_ms {
            return false;
        }
        // `>=` matches `is_fresh`: the previous result is stale at this
        // result's receipt exactly when it would no longer count then.
        if self.received_ms != i64::MIN
            && received_ms.saturating_sub(self.received_ms) >= timing.stale_after_ms
        {
            self.streak = 0;
            self.first_failure_ms = Self::NO_FAILURE;
        }
        self.last_at_ms = probe.at_ms;
        if !probe.ok
            && self.streak > 0
            && received_ms.saturating_sub(self.received_ms) < timing.knock_gap_ms
        {
            self.last_error = Some(probe.error.unwrap_or(ProbeError::Other));
            self.last_stage = probe.stage;
            return true;
        }
        self.received_ms = received_ms;
        if probe.ok {
            self.streak = 0;
            self.first_failure_ms = Self::NO_FAILURE;
            self.last_error = None;
            self.last_stage = None;
            self.sni_control = None;
        } else {
            self.last_stage = probe.stage;
            if self.streak == 0 {
                self.first_failure_ms = probe.at_ms;
            }
            self.streak = self.streak.saturating_add(1);
            self.last_error = Some(probe.error.unwrap_or(ProbeError::Other));
        }
        true
    }

    /// The result counts: it arrived after `cutoff_ms` (now − stale_after).
    pub fn is_fresh(&self, cutoff_ms: i64) -> bool {
        self.received_ms > cutoff_ms
    }

    /// A fresh streak of at least `failure_streak` failures.
    pub fn is_sustained(&self, cutoff_ms: i64, failure_streak: u32) -> bool {
        self.is_fresh(cutoff_ms) && self.streak >= failure_streak
    }
}

/// How receipt times bound a pair's streak (§1b).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreakTiming {
    /// A result following one received this long before starts a new streak.
    pub stale_after_ms: i64,
    /// Failures received closer together than this are one knock.
    pub knock_gap_ms: i64,
}

/// A server's last self-report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub received_ms: i64,
    pub self_check: SelfCheck,
}

/// The transfer checks of one pair (§8): a streak of frozen transfers,
/// like a handshake's, and the bytes the last transfer received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TransferState {
    pub pair: PairState,
    pub bytes: u64,
}

/// All evidence about one mesh, indexed like the mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    reports: Vec<Option<Report>>,
    /// Per witness, the pairs it ever sent a result for, `(entry point,
    /// state)` ascending: beyond the witness-set threshold an agent probes
    /// a dozen servers, so a dense witnesses × entry points table would
    /// spend almost all its memory on pairs that never get a result. A
    /// pair absent here is [`PairState::default`].
    pairs: Vec<Vec<(u32, PairState)>>,
    /// Transfer checks, by (witness, entry point): only verifiers run
    /// them, so they are kept sparse.
    transfers: std::collections::BTreeMap<(usize, usize), TransferState>,
    /// Per server, its checks of its own control addresses as one pair:
    /// a round fails when no control answers (verifiers only).
    controls: Vec<PairState>,
}

impl Evidence {
    pub fn new(mesh: &Mesh) -> Self {
        Self {
            reports: vec![None; mesh.server_count()],
            pairs: vec![Vec::new(); mesh.server_count()],
            transfers: Default::default(),
            controls: vec![PairState::default(); mesh.server_count()],
        }
    }

    pub fn record_report(&mut self, server: usize, received_ms: i64, self_check: SelfCheck) {
        self.reports[server] = Some(Report {
            received_ms,
            self_check,
        });
    }

    pub fn report(&self, server: usize) -> Option<&Report> {
        self.reports[server].as_ref()
    }

    /// Applies one probe of `witness` to `entry_point`; false when ignored
    /// as not newer than the last applied result (see [`PairState::apply`]).
    pub fn apply_probe(
        &mut self,
        witness: usize,
        entry_point: usize,
        probe: ProbeOutcome,
        received_ms: i64,
        timing: StreakTiming,
    ) -> bool {
        match probe.check {
            Check::Handshake => {
                self.pair_mut(witness, entry_point)
                    .apply(probe, received_ms, timing)
            }
            Check::ControlSni => {
                // Only a failing pair's retry says anything; a retry older
                // than the failure it follows is a previous round's.
                let pair = self.pair(witness, entry_point);
                if pair.streak == 0 || probe.at_ms < pair.last_at_ms {
                    return false;
                }
                self.pair_mut(witness, entry_point).sni_control = Some(probe.ok);
                true
            }
            // A transfer that failed otherwise than by freezing failed to
            // connect: the handshake check tells of that.
            Check::Transfer if !probe.ok && probe.error != Some(ProbeError::Frozen) => false,
            Check::Transfer => {
                let transfer = self.transfers.entry((witness, entry_point)).or_default();
                let applied = transfer.pair.apply(probe, received_ms, timing);
                if applied {
                    transfer.bytes = probe.bytes.unwrap_or(0);
                }
                applied
            }
            // Control results name no entry point: see `apply_control`.
            Check::Control => false,
        }
    }

    /// Applies one result of `witness`'s checks of its control addresses.
    pub fn apply_control(
        &mut self,
        witness: usize,
        probe: ProbeOutcome,
        received_ms: i64,
        timing: StreakTiming,
    ) -> bool {
        self.controls[witness].apply(probe, received_ms, timing)
    }

    /// The transfer checks of one pair, if any ran.
    pub fn transfer(&self, witness: usize, entry_point: usize) -> Option<&TransferState> {
        self.transfers.get(&(witness, entry_point))
    }

    /// When each piece of `witness`'s evidence arrived (panel time, in no
    /// particular order, with repeats): its report, its pairs, its
    /// transfer checks and its control checks, everything whose freshness
    /// can lapse.
    pub fn receipts_of(&self, witness: usize) -> impl Iterator<Item = i64> + '_ {
        self.pairs_of(witness)
            .map(|(_, p)| p.received_ms)
            .chain(self.transfers_of(witness).map(|t| t.pair.received_ms))
            .chain([self.controls(witness).received_ms])
            .chain(self.report(witness).map(|r| r.received_ms))
    }

    /// `witness`'s transfer checks.
    pub fn transfers_of(&self, witness: usize) -> impl Iterator<Item = &TransferState> {
        self.transfers
            .range((witness, 0)..(witness + 1, 0))
            .map(|(_, t)| t)
    }

    /// Every pair's transfer checks, by (witness, entry point).
    pub fn transfers(&self) -> impl Iterator<Item = ((usize, usize), &TransferState)> {
        self.transfers.iter().map(|(k, v)| (*k, v))
    }

    pub fn restore_transfer(&mut self, witness: usize, entry_point: usize, state: TransferState) {
        self.transfers.insert((witness, entry_point), state);
    }

    /// `witness`'s checks of its control addresses.
    pub fn controls(&self, witness: usize) -> &PairState {
        &self.controls[witness]
    }

    pub fn restore_controls(&mut self, witness: usize, state: PairState) {
        self.controls[witness] = state;
    }

    pub fn pair(&self, witness: usize, entry_point: usize) -> &PairState {
        let row = &self.pairs[witness];
        match row.binary_search_by_key(&(entry_point as u32), |&(e, _)| e) {
            Ok(i) => &row[i].1,
            Err(_) => &PairState::NEVER,
        }
    }

    /// The pairs `witness` has state for, by entry point ascending (every
    /// other pair is [`PairState::default`]).
    pub fn pairs_of(&self, witness: usize) -> impl Iterator<Item = (usize, &PairState)> + '_ {
        self.pairs[witness].iter().map(|(e, p)| (*e as usize, p))
    }

    fn pair_mut(&mut self, witness: usize, entry_point: usize) -> &mut PairState {
        let row = &mut self.pairs[witness];
        let e = entry_point as u32;
        let i = match row.binary_search_by_key(&e, |&(e, _)| e) {
            Ok(i) => i,
            Err(i) => {
                row.insert(i, (e, PairState::default()));
                i
            }
        };
        &mut row[i].1
    }

    /// Overwrites many pairs at once, `(witness, entry point, state)` in
    /// any order (restoring persisted state at start-up, or carrying it
    /// into a new mesh): one sort per row rather than an insertion per
    /// pair. Of two states for one pair, the later wins.
    pub fn restore_pairs(&mut self, pairs: impl IntoIterator<Item = (usize, usize, PairState)>) {
        let mut touched = Vec::new();
        for (w, e, state) in pairs {
            if touched.last() != Some(&w) {
                touched.push(w);
            }
            self.pairs[w].push((e as u32, state));
        }
        touched.sort_unstable();
        touched.dedup();
        for w in touched {
            let row = &mut self.pairs[w];
            // Stable, so that the later of two states for a pair comes last.
            row.sort_by_key(|&(e, _)| e);
            let mut kept: Vec<(u32, PairState)> = Vec::with_capacity(row.len());
            for &(e, state) in row.iter() {
                match kept.last_mut() {
                    Some(last) if last.0 == e => *last = (e, state),
                    _ => kept.push((e, state)),
                }
            }
            kept.retain(|(_, state)| *state != PairState::NEVER);
            *row = kept;
        }
    }
}

/// Unix milliseconds of a timestamp.
pub fn to_ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// The timestamp of Unix milliseconds (clamped to chrono's range).
pub fn from_ms(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STALE: StreakTiming = StreakTiming {
        stale_after_ms: 180_000,
        knock_gap_ms: 0,
    };
    const GAP: i64 = 15_000;
    const KNOCKS: StreakTiming = StreakTiming {
        stale_after_ms: 180_000,
        knock_gap_ms: GAP,
    };

    fn fail(at_ms: i64) -> ProbeOutcome {
        ProbeOutcome::handshake(at_ms, false, Some(ProbeError::Timeout))
    }

    #[test]
    fn a_success_resets_the_streak() {
        let mut p = PairState::default();
        assert!(p.apply(fail(1), 10, STALE));
        assert!(p.apply(fail(2), 10, STALE));
        assert_eq!((p.streak, p.first_failure()), (2, Some(1)));
        assert!(p.apply(ProbeOutcome::handshake(3, true, None), 11, STALE));
        assert_eq!((p.streak, p.first_failure(), p.last_error), (0, None, None));
    }

    #[test]
    fn a_result_after_a_stale_one_starts_a_new_streak() {
        let mut p = PairState::default();
        for k in 0..3 {
            assert!(p.apply(fail(k * 30_000), k * 30_000, STALE));
        }
        assert_eq!(p.streak, 3);
        // The witness fell silent for longer than stale_after.
        let back = 60_000 + STALE.stale_after_ms;
        assert!(p.apply(fail(back), back, STALE));
        assert_eq!(
            (p.streak, p.first_failure()),
            (1, Some(back)),
            "one failed knock after silence means nothing; its since is the new time"
        );
    }

    #[test]
    fn a_result_within_stale_after_continues_the_streak() {
        let mut p = PairState::default();
        assert!(p.apply(fail(0), 0, STALE));
        let last = STALE.stale_after_ms - 1;
        assert!(p.apply(fail(last), last, STALE));
        assert_eq!((p.streak, p.first_failure()), (2, Some(0)));
    }

    #[test]
    fn a_pair_state_stays_compact() {
        assert!(std::mem::size_of::<PairState>() <= 32);
    }

    #[test]
    fn results_not_newer_than_the_last_applied_are_ignored() {
        let mut p = PairState::default();
        assert!(p.apply(fail(5), 10, STALE));
        assert!(
            !p.apply(fail(5), 11, STALE),
            "the same result again (a retried report)"
        );
        assert!(!p.apply(fail(4), 11, STALE), "an older result");
        assert_eq!(p.streak, 1);
        assert_eq!(p.received_ms, 10);
    }

    #[test]
    fn failures_received_within_the_knock_gap_are_one_knock() {
        let mut p = PairState::default();
        // Three reports in one burst: one knock.
        for k in 0..3 {
            assert!(p.apply(fail(k), 1_000 + k, KNOCKS));
        }
        assert_eq!((p.streak, p.received_ms, p.last_at_ms), (1, 1_000, 2));
        // Still within the gap of the knock, however many come.
        assert!(p.apply(fail(3), 1_000 + GAP - 1, KNOCKS));
        assert_eq!(p.streak, 1);
        // A gap later it is a second knock, then a third.
        assert!(p.apply(fail(4), 1_000 + GAP, KNOCKS));
        assert!(p.apply(fail(5), 1_000 + 2 * GAP, KNOCKS));
        assert_eq!((p.streak, p.first_failure()), (3, Some(0)));
    }

    #[test]
    fn a_success_within_the_knock_gap_still_resets_and_the_next_failure_counts() {
        let mut p = PairState::default();
        assert!(p.apply(fail(1), 1_000, KNOCKS));
        let ok = ProbeOutcome::handshake(2, true, None);
        assert!(p.apply(ok, 1_001, KNOCKS));
        assert_eq!(p.streak, 0);
        assert!(p.apply(fail(3), 1_002, KNOCKS));
        assert_eq!(p.streak, 1, "the first failure after a success is a knock");
    }

    #[test]
    fn only_pairs_with_results_are_kept_and_a_restore_takes_any_order() {
        let world =
            crate::rules::world::world_with(&[("a", "DE", false, 2), ("b", "NL", false, 3)]);
        let mut evidence = Evidence::new(&world.mesh);
        let failed = |at| {
            let mut p = PairState::default();
            p.apply(fail(at), at, STALE);
            p
        };
        // Any order; the later of two states of one pair wins; a default
        // state is no state.
        evidence.restore_pairs([
            (0, 4, failed(4)),
            (0, 2, failed(2)),
            (1, 0, failed(9)),
            (0, 4, failed(7)),
            (0, 3, PairState::default()),
        ]);
        let kept: Vec<(usize, i64)> = evidence
            .pairs_of(0)
            .map(|(e, p)| (e, p.last_at_ms))
            .collect();
        assert_eq!(kept, vec![(2, 2), (4, 7)]);
        assert_eq!(evidence.pair(0, 3), &PairState::default());
        assert_eq!(evidence.pairs_of(1).count(), 1);
        // A control-SNI retry of a pair with no failure adds nothing.
        let retry = ProbeOutcome {
            check: Check::ControlSni,
            ..ProbeOutcome::handshake(10, true, None)
        };
        assert!(!evidence.apply_probe(1, 3, retry, 10, STALE));
        assert_eq!(evidence.pairs_of(1).count(), 1);
        // Restoring a default state removes the pair.
        evidence.restore_pairs([(0, 2, PairState::default())]);
        assert_eq!(
            evidence.pairs_of(0).map(|(e, _)| e).collect::<Vec<_>>(),
            vec![4]
        );
    }

    #[test]
    fn freshness_is_judged_by_receipt_time() {
        let mut p = PairState::default();
        assert!(!p.is_fresh(0), "never probed is never fresh");
        p.apply(fail(1_000_000), 500, STALE);
        assert!(p.is_fresh(499));
        assert!(!p.is_fresh(500));
    }
}
