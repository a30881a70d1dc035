//! The rules engine: PRODUCT.md R1–R6 as a pure function of
//! (mesh, evidence, settings, now), plus an incremental path for one
//! witness's new report that gives exactly the same verdicts.
//!
//! R6 (self-healing) is structural: nothing here is stored between
//! evaluations except caches derived from the same evidence, so every
//! verdict is re-derived from what holds now.

use crate::evidence::{from_ms, Evidence, PairState, ProbeOutcome, SelfCheck};
use crate::ids::ServerId;
use crate::mesh::Mesh;
use crate::settings::Settings;
use crate::status::ServerStatus;
use crate::verdict::{
    EntryPointVerdict, MeshCell, PairCause, Quorum, Verdict, WitnessFault, WitnessFigure,
};
use std::collections::BTreeSet;

/// What one witness's fresh evidence says about one target server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// No fresh result for any of its entry points (or the witness is stale).
    NotProbed,
    /// At least one probed entry point has no sustained streak.
    Reaches,
    /// Every entry point it probes (at least one) has a fresh sustained
    /// streak. Entry points it has no fresh result for do not count: a
    /// protocol the agent cannot probe must never make a verdict impossible.
    Fails,
}

impl Reach {
    fn probed(self) -> bool {
        self != Reach::NotProbed
    }
    fn fails(self) -> bool {
        self == Reach::Fails
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
    /// Per witness, its fresh sustained pairs `(entry point, since)`, sorted
    /// by entry point: the raw material of R3's causes (a small share of
    /// all pairs, so kept sparse).
    sustained: Vec<Vec<(usize, i64)>>,
    /// `mesh.server(s).verifier`, kept flat for the hot loops.
    verifier: Vec<bool>,
    verdicts: Vec<Verdict>,
}

/// What R2, R4 and R3 gathered about one server before its verdict is assembled.
struct Gathered {
    quorum: Quorum,
    blocked_by: Vec<ServerId>,
    /// Per entry point of the server, in mesh order.
    causes: Vec<Vec<PairCause>>,
    /// Per entry point: verifiers failing it but reaching the server.
    verifier_failures: Vec<Vec<PairCause>>,
}

/// Evaluates every server. `now_ms` is the panel's clock.
///
/// Two passes, both in witness order so that memory is read sequentially:
/// first each witness's row (what it says about everyone, R1/R4 stats),
/// then the votes, blocks and pair causes of the trusted witnesses are
/// gathered per target.
pub fn evaluate(mesh: &Mesh, evidence: &Evidence, settings: &Settings, now_ms: i64) -> Evaluation {
    let n = mesh.server_count();
    let mut eval = Evaluation {
        now_ms,
        settings: *settings,
        n,
        reach: vec![Reach::NotProbed; n * n],
        witnesses: vec![WitnessStats::default(); n],
        sustained: vec![Vec::new(); n],
        verifier: mesh.servers().iter().map(|s| s.verifier).collect(),
        verdicts: Vec::with_capacity(n),
    };
    for w in 0..n {
        eval.compute_row(mesh, evidence, w);
    }
    let mut gathered: Vec<Gathered> = (0..n)
        .map(|s| Gathered {
            quorum: Quorum::default(),
            blocked_by: Vec::new(),
            causes: vec![Vec::new(); mesh.entry_points_of(s).len()],
            verifier_failures: vec![Vec::new(); mesh.entry_points_of(s).len()],
        })
        .collect();
    for w in 0..n {
        let stats = eval.witnesses[w];
        let votes = stats.votes(eval.verifier[w]);
        let verifies = stats.verifies(eval.verifier[w]);
        if !votes && !verifies {
            continue;
        }
        let id = &mesh.server(w).id;
        let row = &eval.reach[w * n..(w + 1) * n];
        for (s, &reach) in row.iter().enumerate() {
            if s == w || eval.verifier[s] || !reach.probed() {
                continue;
            }
            let g = &mut gathered[s];
            if votes {
                g.quorum.of += 1;
                if reach.fails() {
                    g.quorum.failing += 1;
                    g.quorum.failing_witnesses.push(id.clone());
                }
            } else if reach.fails() {
                g.blocked_by.push(id.clone());
            }
        }
        for &(e, since) in &eval.sustained[w] {
            let s = mesh.owner_of(e);
            if eval.verifier[s] {
                continue;
            }
            let first = mesh.entry_points_of(s).start;
            let cause = || PairCause {
                from: id.clone(),
                to: mesh.server(s).id.clone(),
                since: from_ms(since),
            };
            if votes {
                gathered[s].causes[e - first].push(cause());
            } else if row[s] == Reach::Reaches {
                gathered[s].verifier_failures[e - first].push(cause());
            }
        }
    }
    eval.verdicts = gathered
        .into_iter()
        .enumerate()
        .map(|(s, g)| eval.assemble(mesh, evidence, s, g))
        .collect();
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

    /// The mesh matrix, witness rows × target columns (row-major): what
    /// each witness's current evidence says about each server.
    pub fn matrix(&self, mesh: &Mesh, evidence: &Evidence) -> Vec<MeshCell> {
        let cutoff = self.cutoff_ms();
        let mut cells = Vec::with_capacity(self.n * self.n);
        for w in 0..self.n {
            let stats = self.witnesses[w];
            for s in 0..self.n {
                cells.push(if w == s {
                    MeshCell::Itself
                } else if !stats.fresh || !self.reach(w, s).probed() {
                    MeshCell::NotProbed
                } else if stats.unreliable || stats.suspended {
                    MeshCell::Discarded
                } else if self.reach(w, s).fails() {
                    MeshCell::Sustained
                } else {
                    let longest = mesh
                        .entry_points_of(s)
                        .map(|e| evidence.pair(w, e))
                        .filter(|p| p.is_fresh(cutoff))
                        .map(|p| p.streak)
                        .max()
                        .unwrap_or(0);
                    match longest {
                        0 => MeshCell::Reaches,
                        n => MeshCell::Failing(u8::try_from(n.min(9)).unwrap_or(9)),
                    }
                });
            }
        }
        cells
    }

    /// The fresh reliable witnesses that probe server `s` and still reach
    /// it — the other side of R2's picture. Computed on demand (for one
    /// server card) rather than stored in every verdict, which would cost
    /// N² ids per evaluation. Their indices, in mesh order; none when `s`
    /// is a verifier.
    pub fn seeing_witnesses<'a>(
        &'a self,
        mesh: &'a Mesh,
        s: usize,
    ) -> impl Iterator<Item = usize> + 'a {
        let witnesses = if mesh.server(s).verifier { 0 } else { self.n };
        (0..witnesses)
            .filter(move |&w| w != s && self.witnesses[w].votes(mesh.server(w).verifier))
            .filter(move |&w| self.reach(w, s) == Reach::Reaches)
    }

    /// Whether most fresh witnesses are unreliable (at least two witnesses,
    /// more than half of them): the network the witnesses share, or half
    /// the fleet, is down. Computed from the cached witness stats.
    pub fn witness_fault(&self) -> Option<WitnessFault> {
        let (mut witnesses, mut unreliable) = (0u32, 0u32);
        for (w, stats) in self.witnesses.iter().enumerate() {
            if stats.fresh && !self.verifier[w] && stats.probed > 0 {
                witnesses += 1;
                unreliable += u32::from(stats.unreliable);
            }
        }
        (witnesses >= 2 && unreliable * 2 > witnesses).then_some(WitnessFault {
            unreliable,
            witnesses,
        })
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
        let mut sustained_pairs = Vec::new();
        for s in 0..self.n {
            let reach = if !fresh || s == w {
                Reach::NotProbed
            } else {
                let eps = mesh.entry_points_of(s);
                let (mut fresh_results, mut sustained) = (0usize, 0usize);
                for e in eps {
                    let pair = evidence.pair(w, e);
                    if pair.is_fresh(cutoff) {
                        fresh_results += 1;
                        if pair.streak >= streak {
                            sustained += 1;
                            sustained_pairs
                                .push((e, pair.first_failure().unwrap_or(pair.last_at_ms)));
                        }
                    }
                }
                match (fresh_results, sustained) {
                    (0, _) => Reach::NotProbed,
                    (f, s) if s < f => Reach::Reaches,
                    _ => Reach::Fails,
                }
            };
            self.reach[w * self.n + s] = reach;
            // A failure towards a verifier means nothing (R4), so verifiers
            // are not counted as targets.
            if reach.probed() && !self.verifier[s] {
                probed += 1;
                if reach.fails() {
                    failing += 1;
                }
            }
        }
        self.sustained[w] = sustained_pairs;
        let verifier = self.verifier[w];
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

    /// Gathers R2, R4 and R3 for one server from the cached rows (the
    /// incremental path; `evaluate` gathers for all servers at once).
    fn gather(&self, mesh: &Mesh, s: usize) -> Gathered {
        let eps = mesh.entry_points_of(s);
        let mut g = Gathered {
            quorum: Quorum::default(),
            blocked_by: Vec::new(),
            causes: vec![Vec::new(); eps.len()],
            verifier_failures: vec![Vec::new(); eps.len()],
        };
        if self.verifier[s] {
            return g;
        }
        for w in (0..self.n).filter(|&w| w != s) {
            let stats = self.witnesses[w];
            let reach = self.reach(w, s);
            let id = &mesh.server(w).id;
            if stats.votes(self.verifier[w]) {
                if reach.probed() {
                    g.quorum.of += 1;
                    if reach.fails() {
                        g.quorum.failing += 1;
                        g.quorum.failing_witnesses.push(id.clone());
                    }
                }
                for (i, e) in eps.clone().enumerate() {
                    let row = &self.sustained[w];
                    if let Ok(k) = row.binary_search_by_key(&e, |&(pe, _)| pe) {
                        g.causes[i].push(PairCause {
                            from: id.clone(),
                            to: mesh.server(s).id.clone(),
                            since: from_ms(row[k].1),
                        });
                    }
                }
            } else if stats.verifies(self.verifier[w]) {
                if reach.fails() {
                    g.blocked_by.push(id.clone());
                } else if reach == Reach::Reaches {
                    let row = &self.sustained[w];
                    for (i, e) in eps.clone().enumerate() {
                        if let Ok(k) = row.binary_search_by_key(&e, |&(pe, _)| pe) {
                            g.verifier_failures[i].push(PairCause {
                                from: id.clone(),
                                to: mesh.server(s).id.clone(),
                                since: from_ms(row[k].1),
                            });
                        }
                    }
                }
            }
        }
        g
    }

    fn verdict_of(&self, mesh: &Mesh, evidence: &Evidence, s: usize) -> Verdict {
        self.assemble(mesh, evidence, s, self.gather(mesh, s))
    }

    /// R5: the verdict of server `s` from its own report and what the
    /// trusted witnesses said about it.
    fn assemble(&self, mesh: &Mesh, evidence: &Evidence, s: usize, g: Gathered) -> Verdict {
        let server = mesh.server(s);
        let report = evidence.report(s);
        let fresh = self.is_fresh(evidence, s);
        let stats = self.witnesses[s];
        let Gathered {
            quorum,
            blocked_by,
            causes,
            verifier_failures,
        } = g;
        let unreachable = quorum.failing >= self.settings.quorum;
        let entry_points: Vec<EntryPointVerdict> = mesh
            .entry_points_of(s)
            .zip(causes)
            .zip(verifier_failures)
            .map(|((e, causes), verifier_failures)| EntryPointVerdict {
                id: mesh.entry_point_id(e).clone(),
                available: causes.is_empty(),
                causes,
                verifier_failures,
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
            if evidence.apply_probe(w, e, probe, received_ms, self.settings.stale_after_ms()) {
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
