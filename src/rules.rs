//! The rules engine: PRODUCT.md R1–R6 as a pure function of
//! (mesh, evidence, settings, now), plus an incremental path for one
//! witness's new report that gives exactly the same verdicts.
//!
//! R6 (self-healing) is structural: nothing here is stored between
//! evaluations except caches derived from the same evidence, so every
//! verdict is re-derived from what holds now.

use crate::evidence::{from_ms, Evidence, PairState, ProbeOutcome, SelfCheck};
use crate::mesh::Mesh;
use crate::settings::Settings;
use crate::status::ServerStatus;
use crate::verdict::{EntryPointVerdict, PairCause, Quorum, Verdict, WitnessFigure};
use std::collections::BTreeSet;

/// What one witness's fresh evidence says about one target server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// No fresh result for any of its entry points (or the witness is stale).
    NotProbed,
    /// At least one probed entry point has no sustained streak.
    Reaches,
    /// Every probed entry point has a sustained streak, but some entry
    /// points have no fresh result.
    Fails,
    /// Every entry point has a fresh sustained streak.
    FailsAll,
}

impl Reach {
    fn probed(self) -> bool {
        self != Reach::NotProbed
    }
    fn fails(self) -> bool {
        matches!(self, Reach::Fails | Reach::FailsAll)
    }
}

/// One server as a witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct WitnessStats {
    fresh: bool,
    /// Normal servers (not itself, not verifiers) it has fresh results for.
    probed: u32,
    /// Of those, the ones it fails to reach.
    failing: u32,
    /// R1 holds (never for verifiers).
    unreliable: bool,
    /// R4's exception holds (verifiers only).
    suspended: bool,
}

impl WitnessStats {
    /// Its evidence counts for R2 and R3.
    fn votes(&self, verifier: bool) -> bool {
        self.fresh && !verifier && !self.unreliable
    }
    /// Its evidence counts for R4.
    fn verifies(&self, verifier: bool) -> bool {
        self.fresh && verifier && !self.suspended
    }
}

/// A full evaluation, with the caches the incremental path updates.
#[derive(Debug, Clone)]
pub struct Evaluation {
    now_ms: i64,
    settings: Settings,
    n: usize,
    /// Row-major `reach[witness * n + target]`.
    reach: Vec<Reach>,
    witnesses: Vec<WitnessStats>,
    verdicts: Vec<Verdict>,
}

/// Evaluates every server. `now_ms` is the panel's clock.
pub fn evaluate(mesh: &Mesh, evidence: &Evidence, settings: &Settings, now_ms: i64) -> Evaluation {
    let n = mesh.server_count();
    let mut eval = Evaluation {
        now_ms,
        settings: *settings,
        n,
        reach: vec![Reach::NotProbed; n * n],
        witnesses: vec![WitnessStats::default(); n],
        verdicts: Vec::with_capacity(n),
    };
    for w in 0..n {
        eval.compute_row(mesh, evidence, w);
    }
    eval.verdicts = (0..n).map(|s| eval.verdict_of(mesh, evidence, s)).collect();
    eval
}

impl Evaluation {
    pub fn verdicts(&self) -> &[Verdict] {
        &self.verdicts
    }

    pub fn into_verdicts(self) -> Vec<Verdict> {
        self.verdicts
    }

    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    fn cutoff_ms(&self) -> i64 {
        self.now_ms.saturating_sub(self.settings.stale_after_ms())
    }

    fn is_fresh(&self, evidence: &Evidence, s: usize) -> bool {
        evidence
            .report(s)
            .is_some_and(|r| r.received_ms > self.cutoff_ms())
    }

    /// Recomputes what witness `w` says about everyone, and its R1/R4 stats.
    fn compute_row(&mut self, mesh: &Mesh, evidence: &Evidence, w: usize) {
        let fresh = self.is_fresh(evidence, w);
        let cutoff = self.cutoff_ms();
        let streak = self.settings.failure_streak;
        let (mut probed, mut failing) = (0u32, 0u32);
        for s in 0..self.n {
            let reach = if !fresh || s == w {
                Reach::NotProbed
            } else {
                let eps = mesh.entry_points_of(s);
                let total = eps.len();
                let (mut fresh_results, mut sustained) = (0usize, 0usize);
                for e in eps {
                    let pair = evidence.pair(w, e);
                    if pair.is_fresh(cutoff) {
                        fresh_results += 1;
                        if pair.streak >= streak {
                            sustained += 1;
                        }
                    }
                }
                match (fresh_results, sustained) {
                    (0, _) => Reach::NotProbed,
                    (f, s) if s < f => Reach::Reaches,
                    (f, _) if f == total => Reach::FailsAll,
                    _ => Reach::Fails,
                }
            };
            self.reach[w * self.n + s] = reach;
            // A failure towards a verifier means nothing (R4), so verifiers
            // are not counted as targets.
            if reach.probed() && !mesh.server(s).verifier {
                probed += 1;
                if reach.fails() {
                    failing += 1;
                }
            }
        }
        let verifier = mesh.server(w).verifier;
        self.witnesses[w] = WitnessStats {
            fresh,
            probed,
            failing,
            unreliable: fresh && !verifier && failing >= self.settings.unreliable_threshold(probed),
            suspended: fresh && verifier && probed >= 2 && failing == probed,
        };
    }

    fn reach(&self, w: usize, s: usize) -> Reach {
        self.reach[w * self.n + s]
    }

    /// Derives the verdict of server `s` from the cached rows.
    fn verdict_of(&self, mesh: &Mesh, evidence: &Evidence, s: usize) -> Verdict {
        let server = mesh.server(s);
        let report = evidence.report(s);
        let fresh = self.is_fresh(evidence, s);
        let cutoff = self.cutoff_ms();
        let stats = self.witnesses[s];

        // R2, judged by normal servers about normal servers only.
        let mut quorum = Quorum::default();
        if !server.verifier {
            for w in (0..self.n).filter(|&w| w != s) {
                let reach = self.reach(w, s);
                if !reach.probed() || !self.witnesses[w].votes(mesh.server(w).verifier) {
                    continue;
                }
                quorum.of += 1;
                if reach.fails() {
                    quorum.failing += 1;
                    quorum.failing_witnesses.push(mesh.server(w).id.clone());
                } else {
                    quorum.seeing_witnesses.push(mesh.server(w).id.clone());
                }
            }
        }
        let unreachable = quorum.failing >= self.settings.quorum;

        // R4: a fresh, trusted verifier has sustained streaks to every
        // entry point of this (normal) server.
        let blocked_by = if server.verifier {
            Vec::new()
        } else {
            (0..self.n)
                .filter(|&v| v != s)
                .filter(|&v| self.witnesses[v].verifies(mesh.server(v).verifier))
                .filter(|&v| self.reach(v, s) == Reach::FailsAll)
                .map(|v| mesh.server(v).id.clone())
                .collect()
        };

        // R3: sustained streaks from reliable normal witnesses, per entry
        // point, each naming both servers.
        let entry_points: Vec<EntryPointVerdict> = mesh
            .entry_points_of(s)
            .map(|e| {
                let causes: Vec<PairCause> = if server.verifier {
                    Vec::new()
                } else {
                    (0..self.n)
                        .filter(|&w| w != s && self.witnesses[w].votes(mesh.server(w).verifier))
                        .filter_map(|w| {
                            let pair = evidence.pair(w, e);
                            pair.is_sustained(cutoff, self.settings.failure_streak)
                                .then(|| PairCause {
                                    from: mesh.server(w).id.clone(),
                                    to: server.id.clone(),
                                    since: from_ms(
                                        pair.first_failure_ms.unwrap_or(pair.last_at_ms),
                                    ),
                                })
                        })
                        .collect()
                };
                EntryPointVerdict {
                    id: mesh.entry_point_id(e).clone(),
                    available: causes.is_empty(),
                    causes,
                }
            })
            .collect();
        let pair_marked = !unreachable && entry_points.iter().any(|e| !e.available);

        let mut conditions = BTreeSet::new();
        if fresh && report.is_some_and(|r| !r.self_check.is_ok()) {
            conditions.insert(ServerStatus::Unavailable);
        }
        if unreachable {
            conditions.insert(ServerStatus::Unreachable);
        }
        if !blocked_by.is_empty() {
            conditions.insert(ServerStatus::Blocked);
        }
        if !fresh {
            conditions.insert(ServerStatus::NoData);
        }
        if pair_marked {
            conditions.insert(ServerStatus::EntryPointsUnavailable);
        }
        if conditions.is_empty() {
            conditions.insert(ServerStatus::Healthy);
        }
        let conditions: Vec<ServerStatus> = conditions.into_iter().collect();
        let status = conditions[0];

        Verdict {
            server: server.id.clone(),
            status,
            in_rotation: !status.takes_out_of_rotation(),
            conditions,
            stale: !fresh,
            last_report_at: report.map(|r| from_ms(r.received_ms)),
            self_check: report.map(|r| r.self_check.clone()),
            quorum,
            unreliable_witness: stats.unreliable.then_some(WitnessFigure {
                failing: stats.failing,
                of: stats.probed,
            }),
            suspended_verifier: stats.suspended,
            blocked_by,
            entry_points,
        }
    }

    /// The incremental path for one report of witness `w`, received at
    /// `received_ms` (the panel's clock): records it in `evidence`, applies
    /// its probe results (in `at` order per pair; older ones are ignored),
    /// and updates only what it can change. Returns the indices of the
    /// rebuilt verdicts and how many probe results were applied.
    pub fn apply_report(
        &mut self,
        mesh: &Mesh,
        evidence: &mut Evidence,
        w: usize,
        received_ms: i64,
        self_check: SelfCheck,
        probes: &[(usize, ProbeOutcome)],
    ) -> (Vec<usize>, usize) {
        evidence.record_report(w, received_ms, self_check);
        let cutoff = self.cutoff_ms();
        let streak = self.settings.failure_streak;
        // What a pair contributes to R3 causes: sustained or not, and since when.
        let cause = |p: &PairState| p.is_sustained(cutoff, streak).then_some(p.first_failure_ms);
        let mut ordered: Vec<&(usize, ProbeOutcome)> = probes.iter().collect();
        ordered.sort_by_key(|(e, p)| (*e, p.at_ms));
        let mut touched = Vec::new();
        let mut applied = 0;
        for &&(e, probe) in &ordered {
            let before = cause(evidence.pair(w, e));
            if evidence.apply_probe(w, e, probe, received_ms) {
                applied += 1;
                if cause(evidence.pair(w, e)) != before {
                    touched.push(e);
                }
            }
        }
        (self.update_witness(mesh, evidence, w, &touched), applied)
    }

    /// Witness `w`'s evidence has changed (only the pairs `touched` changed
    /// their R3 contribution): recompute `w`'s row and rebuild the verdicts
    /// that can depend on it.
    fn update_witness(
        &mut self,
        mesh: &Mesh,
        evidence: &Evidence,
        w: usize,
        touched: &[usize],
    ) -> Vec<usize> {
        let old_row: Vec<Reach> = self.reach[w * self.n..(w + 1) * self.n].to_vec();
        let old_stats = self.witnesses[w];
        self.compute_row(mesh, evidence, w);
        let trust_changed = old_stats != self.witnesses[w];

        let mut affected = vec![false; self.n];
        affected[w] = true;
        // Per-entry-point causes can change while the row summary does not.
        for &e in touched {
            affected[mesh.owner_of(e)] = true;
        }
        for s in 0..self.n {
            let now_reach = self.reach(w, s);
            if old_row[s] != now_reach
                || (trust_changed && (old_row[s].probed() || now_reach.probed()))
            {
                affected[s] = true;
            }
        }
        let affected: Vec<usize> = (0..self.n).filter(|&s| affected[s]).collect();
        for &s in &affected {
            self.verdicts[s] = self.verdict_of(mesh, evidence, s);
        }
        affected
    }
}

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod world;
