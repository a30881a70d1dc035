//! The rules engine: docs/PRODUCT.md R1–R6 as a pure function of
//! (mesh, evidence, settings, now), plus an incremental path for one
//! witness's new report that gives exactly the same verdicts.
//!
//! R6 (self-healing) is structural: nothing here is stored between
//! evaluations except caches derived from the same evidence, so every
//! verdict is re-derived from what holds now.

use crate::evidence::{from_ms, Evidence, ProbeOutcome, SelfCheck, Stage};
use crate::fleet::Transport;
use crate::ids::ServerId;
use crate::mesh::Mesh;
use crate::settings::Settings;
use crate::status::ServerStatus;
use crate::verdict::{
    BlockKind, EntryPointVerdict, MassBlock, MeshCell, PairCause, Quorum, Verdict, VerifierBlock,
    WitnessFault, WitnessFigure,
};
use crate::witness_sets::WitnessSets;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

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

/// The witnesses that may vote on a server: the listed ones (its set and
/// confirmers, ascending), or the whole fleet without sets.
enum Candidates {
    Listed(std::vec::IntoIter<usize>),
    Everyone(std::ops::Range<usize>),
}

impl Iterator for Candidates {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            Candidates::Listed(listed) => listed.next(),
            Candidates::Everyone(all) => all.next(),
        }
    }
}

/// A target a witness has fresh results for: what they say, and whether
/// they vote by the sets the witness's row was last computed with
/// (results outside a witness's targets are kept and shown but count for
/// no rule). Targets it has no fresh result for are left out of its row,
/// so a row costs what the witness probes, not the fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Probed {
    target: u32,
    /// Never [`Reach::NotProbed`].
    reach: Reach,
    assigned: bool,
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
    /// R4's exception holds (verifiers only), or its controls fail.
    suspended: bool,
    /// A verifier whose control addresses fail, sustained (§8).
    controls_down: bool,
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
    /// All that other servers' verdicts take from these stats: its
    /// counts alone changing (a pair more or less failing) changes only
    /// its own verdict.
    fn standing(&self, verifier: bool) -> Standing {
        Standing {
            votes: self.votes(verifier),
            verifies: self.verifies(verifier),
        }
    }
}

/// Whether a witness's evidence counts, and for which rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Standing {
    votes: bool,
    verifies: bool,
}

/// A full evaluation, with the caches the incremental path updates.
#[derive(Debug, Clone)]
pub struct Evaluation {
    now_ms: i64,
    settings: Settings,
    n: usize,
    /// Per witness, the targets it has fresh results for, ascending.
    rows: Vec<Vec<Probed>>,
    /// Who watches whom now.
    sets: WitnessSets,
    witnesses: Vec<WitnessStats>,
    /// Per witness, its fresh sustained pairs `(entry point, since)`, sorted
    /// by entry point: the raw material of R3's causes (a small share of
    /// all pairs, so kept sparse).
    sustained: Vec<Vec<(usize, i64)>>,
    /// `mesh.server(s).verifier`, kept flat for the hot loops.
    verifier: Vec<bool>,
    /// The verifiers' indices (a few servers of the fleet).
    verifiers: Vec<usize>,
    /// The same evidence per target, kept up to date with each row so that
    /// one server's verdict is gathered from what concerns it alone, not
    /// from a scan of every witness (a witness changing its standing would
    /// otherwise cost N² per report):
    /// how many voting witnesses probe it (R2's "of"),
    voters: Vec<u32>,
    /// the witnesses, of any standing, that fail to reach it, ascending,
    failing_into: Vec<Vec<usize>>,
    /// and the fresh sustained pairs into its entry points, as
    /// `(witness, entry point, since)`, ascending;
    sustained_into: Vec<Vec<(usize, usize, i64)>>,
    /// and what each verifier with fresh results says of it, by verifier
    /// ascending (verifiers probe everyone: R4 would otherwise look each
    /// server up in every verifier's row).
    verified_into: Vec<Vec<(u32, Reach)>>,
    /// When each witness's evidence next goes stale, `(panel time,
    /// witness)`, soonest first: what [`Evaluation::advance`] revisits.
    /// Every result and report is stamped with its report's receipt, so
    /// one entry per report covers them all; an entry whose evidence was
    /// renewed since only costs a row refresh that changes nothing.
    expiries: BinaryHeap<Reverse<(i64, u32)>>,
    verdicts: Vec<Verdict>,
}

/// What R2, R4 and R3 gathered about one server before its verdict is assembled.
struct Gathered {
    quorum: Quorum,
    /// The verifiers' blocks, of every kind (§8).
    blocks: Vec<VerifierBlock>,
    /// Verifiers whose word counts that reach it.
    still_reached_by: Vec<ServerId>,
    /// Per entry point of the server, in mesh order.
    causes: Vec<Vec<PairCause>>,
    /// Per entry point: verifiers failing it but reaching the server.
    verifier_failures: Vec<Vec<PairCause>>,
}

/// Evaluates every server. `now_ms` is the panel's clock.
///
/// Each witness's row first (what it says about everyone, R1/R4 stats), in
/// witness order so that memory is read sequentially; then each server's
/// verdict from what the rows say about it.
pub fn evaluate(mesh: &Mesh, evidence: &Evidence, settings: &Settings, now_ms: i64) -> Evaluation {
    let n = mesh.server_count();
    let mut eval = Evaluation {
        now_ms,
        settings: *settings,
        n,
        rows: vec![Vec::new(); n],
        sets: WitnessSets::derive(mesh, evidence, settings, now_ms),
        witnesses: vec![WitnessStats::default(); n],
        sustained: vec![Vec::new(); n],
        verifier: mesh.servers().iter().map(|s| s.verifier).collect(),
        verifiers: (0..mesh.server_count())
            .filter(|&s| mesh.server(s).verifier)
            .collect(),
        voters: vec![0; n],
        failing_into: vec![Vec::new(); n],
        sustained_into: vec![Vec::new(); n],
        verified_into: vec![Vec::new(); n],
        expiries: BinaryHeap::new(),
        verdicts: Vec::with_capacity(n),
    };
    let stale_after = settings.stale_after_ms();
    for w in 0..n {
        let mut times: Vec<i64> = Vec::new();
        for expiry in evidence
            .receipts_of(w)
            .map(|r| r.saturating_add(stale_after))
        {
            // The results of one report come together: a few times per witness.
            if expiry > now_ms && times.last() != Some(&expiry) {
                times.push(expiry);
            }
        }
        times.sort_unstable();
        times.dedup();
        eval.expiries
            .extend(times.into_iter().map(|t| Reverse((t, w as u32))));
    }
    // Every verdict is built below.
    let mut affected = vec![false; n];
    for w in 0..n {
        eval.refresh_row(mesh, evidence, w, &mut affected);
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

    /// Who watches whom as of this evaluation.
    pub fn sets(&self) -> &WitnessSets {
        &self.sets
    }

    /// The mesh matrix, witness rows × target columns (row-major): what
    /// each witness's current evidence says about each server.
    pub fn matrix(&self, mesh: &Mesh, evidence: &Evidence) -> Vec<MeshCell> {
        let mut cells = Vec::with_capacity(self.n * self.n);
        for w in 0..self.n {
            for s in 0..self.n {
                cells.push(self.cell(mesh, evidence, w, s));
            }
        }
        cells
    }

    /// What witness `w`'s current evidence says about server `s`.
    pub fn cell(&self, mesh: &Mesh, evidence: &Evidence, w: usize, s: usize) -> MeshCell {
        let stats = self.witnesses[w];
        if w == s {
            MeshCell::Itself
        } else if !stats.fresh || !self.reach(w, s).probed() {
            MeshCell::NotProbed
        } else if stats.unreliable || stats.suspended {
            MeshCell::Discarded
        } else if self.reach(w, s).fails() {
            MeshCell::Sustained
        } else {
            let cutoff = self.cutoff_ms();
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
        }
    }

    /// The fresh reliable witnesses that probe server `s` and still reach
    /// it — the other side of R2's picture. Computed on demand (for one
    /// server card) rather than stored in every verdict, which would cost
    /// N² ids per evaluation. Their indices, in mesh order; none when `s`
    /// is a verifier. Beyond the threshold only `s`'s set and its
    /// confirmers can vote on it, so only they are asked, not the fleet.
    pub fn seeing_witnesses<'a>(
        &'a self,
        mesh: &'a Mesh,
        s: usize,
    ) -> impl Iterator<Item = usize> + 'a {
        let candidates = match self.sets.set_of(s) {
            _ if mesh.server(s).verifier => Candidates::Listed(Vec::new().into_iter()),
            Some(set) => {
                let mut listed: Vec<usize> = set
                    .iter()
                    .chain(self.sets.confirmers_of(s))
                    .map(|&w| w as usize)
                    .collect();
                listed.sort_unstable();
                listed.dedup();
                Candidates::Listed(listed.into_iter())
            }
            None => Candidates::Everyone(0..self.n),
        };
        candidates
            .filter(move |&w| {
                w != s && self.witnesses[w].votes(mesh.server(w).verifier) && self.votes_on(w, s)
            })
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

    /// The verifiers whose blocks cover more than `unreliable_fraction` of
    /// the servers they probe (at least two blocks): see [`MassBlock`].
    pub fn mass_blocks(&self, mesh: &Mesh) -> Vec<MassBlock> {
        self.verifiers
            .iter()
            .filter_map(|&v| {
                let id = &mesh.server(v).id;
                let blocked: Vec<ServerId> = self
                    .verdicts
                    .iter()
                    .filter(|verdict| verdict.blocked_by.contains(id))
                    .map(|verdict| verdict.server.clone())
                    .collect();
                let probed = self.witnesses[v].probed;
                let share = self.settings.unreliable_fraction * f64::from(probed);
                (blocked.len() >= 2 && blocked.len() as f64 > share).then(|| MassBlock {
                    verifier: id.clone(),
                    blocked,
                    probed,
                })
            })
            .collect()
    }

    fn cutoff_ms(&self) -> i64 {
        self.now_ms.saturating_sub(self.settings.stale_after_ms())
    }

    fn is_fresh(&self, evidence: &Evidence, s: usize) -> bool {
        evidence
            .report(s)
            .is_some_and(|r| r.received_ms > self.cutoff_ms())
    }

    /// Recomputes what witness `w` says about everyone it has results
    /// for, and its R1/R4 stats.
    fn compute_row(&mut self, mesh: &Mesh, evidence: &Evidence, w: usize) {
        let fresh = self.is_fresh(evidence, w);
        let cutoff = self.cutoff_ms();
        let streak = self.settings.failure_streak;
        let (mut probed, mut failing) = (0u32, 0u32);
        let mut sustained_pairs = Vec::new();
        let mut row = Vec::new();
        // Both ascend by target: the witness's own targets are walked
        // alongside its pairs.
        let mut targets = self.sets.targets_of(w).map(|t| t.iter().peekable());
        // A server's entry points are consecutive in the mesh, so the
        // witness's pairs, by entry point, come grouped by target.
        let mut pairs = evidence.pairs_of(w).peekable();
        while let Some(&(first, _)) = pairs.peek().filter(|_| fresh) {
            let s = mesh.owner_of(first);
            let (mut fresh_results, mut sustained) = (0usize, 0usize);
            while let Some((e, pair)) = pairs.next_if(|&(e, _)| mesh.owner_of(e) == s) {
                if s != w && pair.is_fresh(cutoff) {
                    fresh_results += 1;
                    if pair.streak >= streak {
                        sustained += 1;
                        sustained_pairs.push((e, pair.first_failure().unwrap_or(pair.last_at_ms)));
                    }
                }
            }
            let reach = match (fresh_results, sustained) {
                (0, _) => continue,
                (f, s) if s < f => Reach::Reaches,
                _ => Reach::Fails,
            };
            let assigned = match targets.as_mut() {
                Some(targets) => {
                    while targets.next_if(|&&(t, _)| (t as usize) < s).is_some() {}
                    targets.peek().is_some_and(|&&(t, _)| t as usize == s)
                }
                None => self.sets.assigned(w, s),
            };
            row.push(Probed {
                target: s as u32,
                reach,
                assigned,
            });
            if assigned && self.counts_as_target(evidence, s) {
                probed += 1;
                if reach.fails() {
                    failing += 1;
                }
            }
        }
        self.rows[w] = row;
        self.sustained[w] = sustained_pairs;
        let controls_down =
            fresh && self.verifier[w] && evidence.controls(w).is_sustained(cutoff, streak);
        self.witnesses[w] = self.stats(w, fresh, probed, failing, controls_down);
    }

    /// Whether witnesses' failures towards `s` count in their R1 figures:
    /// a failure towards a verifier means nothing (R4), and failing to
    /// reach a silent server says nothing about the witness (R1).
    fn counts_as_target(&self, evidence: &Evidence, s: usize) -> bool {
        !self.verifier[s] && self.is_fresh(evidence, s)
    }

    /// A witness's R1/R4 standing from its figures.
    fn stats(
        &self,
        w: usize,
        fresh: bool,
        probed: u32,
        failing: u32,
        controls_down: bool,
    ) -> WitnessStats {
        let verifier = self.verifier[w];
        WitnessStats {
            fresh,
            probed,
            failing,
            unreliable: fresh && !verifier && failing >= self.settings.unreliable_threshold(probed),
            suspended: fresh && verifier && ((probed >= 2 && failing == probed) || controls_down),
            controls_down,
        }
    }

    /// Server `t` became fresh or stale (its report arrived): every
    /// witness that probes it counts it, or no longer does, in its R1
    /// figures. A witness whose standing changes with that has its whole
    /// row refreshed; otherwise only its figures (its own verdict) change.
    fn retarget(&mut self, mesh: &Mesh, evidence: &Evidence, t: usize, affected: &mut [bool]) {
        if self.verifier[t] {
            return;
        }
        let counted = self.is_fresh(evidence, t);
        for x in (0..self.n).filter(|&x| x != t) {
            let reach = self.reach(x, t);
            if !reach.probed() || !self.votes_on(x, t) {
                continue;
            }
            let old = self.witnesses[x];
            let (probed, failing) = if counted {
                (old.probed + 1, old.failing + u32::from(reach.fails()))
            } else {
                (
                    old.probed.saturating_sub(1),
                    old.failing.saturating_sub(u32::from(reach.fails())),
                )
            };
            let new = self.stats(x, old.fresh, probed, failing, old.controls_down);
            let verifier = self.verifier[x];
            if new.standing(verifier) == old.standing(verifier) {
                self.witnesses[x] = new;
                affected[x] = true;
            } else {
                self.refresh_row(mesh, evidence, x, affected);
            }
        }
    }

    /// What the kinds of §8 read of pair (`w`, `e`) beyond its streak: how
    /// a failing handshake failed, and the transfer checks (fresh, streak
    /// up to the sustained one, bytes).
    fn kind_inputs(&self, evidence: &Evidence, w: usize, e: usize) -> KindInputs {
        let pair = evidence.pair(w, e);
        let streak = self.settings.failure_streak;
        KindInputs {
            failure: (pair.streak > 0).then_some((pair.last_stage, pair.sni_control)),
            transfer: evidence.transfer(w, e).map(|t| {
                (
                    t.pair.is_fresh(self.cutoff_ms()),
                    t.pair.streak.min(streak),
                    t.bytes,
                )
            }),
        }
    }

    fn probed(&self, w: usize, s: usize) -> Option<Probed> {
        let row = &self.rows[w];
        row.binary_search_by_key(&(s as u32), |p| p.target)
            .ok()
            .map(|i| row[i])
    }

    fn reach(&self, w: usize, s: usize) -> Reach {
        self.probed(w, s).map_or(Reach::NotProbed, |p| p.reach)
    }

    /// Whether `w`'s results about `s` count, by the sets its row was
    /// last computed with (never when it has none).
    fn votes_on(&self, w: usize, s: usize) -> bool {
        self.probed(w, s).is_some_and(|p| p.assigned)
    }

    /// Takes the sets as they are now: a witness began or stopped
    /// reporting (`reporting_changed`: every set is chosen again), or new
    /// results about the `touched` servers started or ended a streak (an
    /// indirect confirmation starts or ends). Every witness whose targets
    /// moved has its row recomputed with them.
    fn follow_sets(
        &mut self,
        mesh: &Mesh,
        evidence: &Evidence,
        reporting_changed: bool,
        touched: &[usize],
        affected: &mut [bool],
    ) {
        if self.sets.is_full() {
            return;
        }
        let moved: Vec<usize> = if reporting_changed {
            let sets = WitnessSets::derive(mesh, evidence, &self.settings, self.now_ms);
            let moved = (0..self.n)
                .filter(|&w| sets.targets_of(w) != self.sets.targets_of(w))
                .collect();
            self.sets = sets;
            moved
        } else {
            self.sets
                .refresh(mesh, evidence, &self.settings, self.now_ms, touched)
        };
        for w in moved {
            self.refresh_row(mesh, evidence, w, affected);
        }
    }

    /// Recomputes witness `w`'s row and keeps the per-target caches in
    /// step with it; marks in `affected` every server whose verdict the
    /// change can alter.
    fn refresh_row(&mut self, mesh: &Mesh, evidence: &Evidence, w: usize, affected: &mut [bool]) {
        let was_standing = self.witnesses[w].standing(self.verifier[w]);
        let old_row = std::mem::take(&mut self.rows[w]);
        let old_sustained = std::mem::take(&mut self.sustained[w]);
        self.compute_row(mesh, evidence, w);
        let standing = self.witnesses[w].standing(self.verifier[w]);
        affected[w] = true;
        let row = std::mem::take(&mut self.rows[w]);
        // Both rows ascend by target: walk them side by side.
        let (mut i, mut j) = (0, 0);
        while i < old_row.len() || j < row.len() {
            let (was, now) = match (old_row.get(i), row.get(j)) {
                (Some(a), Some(b)) if a.target == b.target => (Some(*a), Some(*b)),
                (Some(a), Some(b)) if a.target < b.target => (Some(*a), None),
                (Some(a), None) => (Some(*a), None),
                (_, b) => (None, b.copied()),
            };
            i += usize::from(was.is_some());
            j += usize::from(now.is_some());
            if was == now && was_standing == standing {
                continue;
            }
            let s = was.or(now).map_or(0, |p| p.target as usize);
            let votes = |p: Option<Probed>, standing: Standing| {
                standing.votes && p.is_some_and(|p| p.assigned)
            };
            match (votes(was, was_standing), votes(now, standing)) {
                (false, true) => self.voters[s] += 1,
                (true, false) => self.voters[s] -= 1,
                _ => {}
            }
            let fails = |p: Option<Probed>| p.is_some_and(|p| p.reach.fails());
            let reach = |p: Option<Probed>| p.map_or(Reach::NotProbed, |p| p.reach);
            if self.verifier[w] && reach(was) != reach(now) {
                let verified = &mut self.verified_into[s];
                let at = verified.binary_search_by_key(&(w as u32), |&(v, _)| v);
                match (at, reach(now)) {
                    (Ok(i), Reach::NotProbed) => {
                        verified.remove(i);
                    }
                    (Ok(i), now) => verified[i].1 = now,
                    (Err(i), now) => verified.insert(i, (w as u32, now)),
                }
            }
            if fails(was) != fails(now) {
                let failing = &mut self.failing_into[s];
                match failing.binary_search(&w) {
                    Ok(i) if !fails(now) => {
                        failing.remove(i);
                    }
                    Err(i) if fails(now) => failing.insert(i, w),
                    _ => {}
                }
            }
            // A sustained pair is fresh, so its target is probed: a standing
            // change reaches every cause of `w` through this too.
            affected[s] = true;
        }
        self.rows[w] = row;
        let sustained = std::mem::take(&mut self.sustained[w]);
        if old_sustained != sustained {
            let has = |list: &[(usize, i64)], pair: &(usize, i64)| {
                list.binary_search_by_key(&pair.0, |&(e, _)| e)
                    .is_ok_and(|i| list[i] == *pair)
            };
            for &(e, _) in old_sustained.iter().filter(|p| !has(&sustained, p)) {
                let s = mesh.owner_of(e);
                let into = &mut self.sustained_into[s];
                if let Ok(i) = into.binary_search_by_key(&(w, e), |&(w, e, _)| (w, e)) {
                    into.remove(i);
                }
                affected[s] = true;
            }
            for &(e, since) in sustained.iter().filter(|p| !has(&old_sustained, p)) {
                let s = mesh.owner_of(e);
                let into = &mut self.sustained_into[s];
                let i = into
                    .binary_search_by_key(&(w, e), |&(w, e, _)| (w, e))
                    .unwrap_or_else(|i| i);
                into.insert(i, (w, e, since));
                affected[s] = true;
            }
        }
        self.sustained[w] = sustained;
    }

    /// Gathers R2, R4 (with §8's kinds) and R3 for one server from the
    /// per-target caches.
    fn gather(&self, mesh: &Mesh, evidence: &Evidence, s: usize) -> Gathered {
        let eps = mesh.entry_points_of(s);
        let mut g = Gathered {
            quorum: Quorum::default(),
            blocks: Vec::new(),
            still_reached_by: Vec::new(),
            causes: vec![Vec::new(); eps.len()],
            verifier_failures: vec![Vec::new(); eps.len()],
        };
        // A failure towards a verifier means nothing (R4).
        if self.verifier[s] {
            return g;
        }
        g.quorum.of = self.voters[s];
        for &w in &self.failing_into[s] {
            let standing = self.witnesses[w].standing(self.verifier[w]);
            let id = &mesh.server(w).id;
            if standing.votes && self.votes_on(w, s) {
                g.quorum.failing += 1;
                g.quorum.failing_witnesses.push(id.clone());
            }
        }
        for &(v, reach) in &self.verified_into[s] {
            let v = v as usize;
            if !self.witnesses[v].standing(true).verifies {
                continue;
            }
            let block = match reach {
                Reach::NotProbed => None,
                Reach::Fails => Some(self.unreached_block(mesh, evidence, v, s)),
                Reach::Reaches => self.reached_block(mesh, evidence, v, s),
            };
            let takes_out = block
                .as_ref()
                .is_some_and(|b| b.kind.takes_out_of_rotation());
            if reach == Reach::Reaches && !takes_out {
                g.still_reached_by.push(mesh.server(v).id.clone());
            }
            g.blocks.extend(block);
        }
        let cause = |w: usize, since: i64| PairCause {
            from: mesh.server(w).id.clone(),
            to: mesh.server(s).id.clone(),
            since: from_ms(since),
        };
        for &(w, e, since) in &self.sustained_into[s] {
            let standing = self.witnesses[w].standing(self.verifier[w]);
            if standing.votes && self.votes_on(w, s) {
                g.causes[e - eps.start].push(cause(w, since));
            } else if standing.verifies && self.reach(w, s) == Reach::Reaches {
                g.verifier_failures[e - eps.start].push(cause(w, since));
            }
        }
        g
    }

    /// §8 for a verifier that reaches none of `s`'s entry points: `sni`
    /// when each failed at TLS and the same address answered the control
    /// SNI, `ip` otherwise (also for results that name no stage, which is
    /// what a block meant before the kinds).
    fn unreached_block(
        &self,
        mesh: &Mesh,
        evidence: &Evidence,
        v: usize,
        s: usize,
    ) -> VerifierBlock {
        let cutoff = self.cutoff_ms();
        let sni_filtered = mesh
            .entry_points_of(s)
            .map(|e| evidence.pair(v, e))
            .filter(|p| p.is_fresh(cutoff))
            .all(|p| p.last_stage == Some(Stage::Tls) && p.sni_control == Some(true));
        VerifierBlock {
            verifier: mesh.server(v).id.clone(),
            kind: if sni_filtered {
                BlockKind::Sni
            } else {
                BlockKind::Ip
            },
            transport: None,
            frozen_after_bytes: None,
        }
    }

    /// §8 for a verifier that still completes a handshake with `s`:
    /// `throttled` when every transfer it checks freezes, sustained;
    /// `protocol` when every entry point of one transport fails while
    /// another transport reaches `s`; `None` otherwise.
    fn reached_block(
        &self,
        mesh: &Mesh,
        evidence: &Evidence,
        v: usize,
        s: usize,
    ) -> Option<VerifierBlock> {
        let (cutoff, streak) = (self.cutoff_ms(), self.settings.failure_streak);
        let block = |kind, transport, frozen_after_bytes| VerifierBlock {
            verifier: mesh.server(v).id.clone(),
            kind,
            transport,
            frozen_after_bytes,
        };
        let transfers: Vec<_> = mesh
            .entry_points_of(s)
            .filter_map(|e| evidence.transfer(v, e))
            .filter(|t| t.pair.is_fresh(cutoff))
            .collect();
        if !transfers.is_empty() && transfers.iter().all(|t| t.pair.streak >= streak) {
            let bytes = transfers.iter().map(|t| t.bytes).min();
            return Some(block(BlockKind::Throttled, None, bytes));
        }
        // Per transport: fresh results, and sustained failures among them.
        let mut tally = [(Transport::Tcp, 0u32, 0u32), (Transport::Quic, 0, 0)];
        for e in mesh.entry_points_of(s) {
            let pair = evidence.pair(v, e);
            if !pair.is_fresh(cutoff) {
                continue;
            }
            let t = tally
                .iter_mut()
                .find(|(t, _, _)| *t == mesh.transport_of(e))
                .expect("every transport is tallied");
            t.1 += 1;
            t.2 += u32::from(pair.streak >= streak);
        }
        // The verifier reaches `s`, so some transport has a fresh result
        // that does not fail: the one that fails wholesale is blocked.
        tally
            .iter()
            .find(|(_, fresh, failing)| *fresh > 0 && failing == fresh)
            .map(|(t, _, _)| block(BlockKind::Protocol, Some(*t), None))
    }

    fn verdict_of(&self, mesh: &Mesh, evidence: &Evidence, s: usize) -> Verdict {
        self.assemble(mesh, evidence, s, self.gather(mesh, evidence, s))
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
            blocks,
            still_reached_by,
            mut causes,
            verifier_failures,
        } = g;
        let unreachable = quorum.failing >= self.settings.quorum;
        // R4 needs a living server: its own report fresh and OK and, when
        // voting witnesses probe it, one of them still reaching it. A
        // crash or an outage is never a block (do no harm).
        let alive = fresh
            && report.is_some_and(|r| r.self_check.is_ok())
            && (quorum.of == 0 || quorum.failing < quorum.of);
        let blocks = if alive { blocks } else { Vec::new() };
        let blocked_by: Vec<ServerId> = blocks
            .iter()
            .filter(|b| b.kind.takes_out_of_rotation())
            .map(|b| b.verifier.clone())
            .collect();
        // R3 marks blame no one; a blocked protocol's entry points are
        // ordered last too, with the verifier's cause, but are no R3 mark.
        let pair_marked = !unreachable && causes.iter().any(|c| !c.is_empty());
        for block in blocks.iter().filter(|b| b.kind == BlockKind::Protocol) {
            for (k, e) in mesh.entry_points_of(s).enumerate() {
                if Some(mesh.transport_of(e)) != block.transport {
                    continue;
                }
                if let Some(failure) = verifier_failures[k]
                    .iter()
                    .find(|c| c.from == block.verifier)
                {
                    causes[k].push(failure.clone());
                }
            }
        }
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
        // Maintenance shows above every verdict, which is still listed
        // beneath it; the server drains before the window holds (§6).
        let maintenance = mesh.maintenance_at(s, from_ms(self.now_ms));
        if maintenance.is_some_and(|m| m.active) {
            conditions.insert(ServerStatus::Maintenance);
        }
        if conditions.is_empty() {
            conditions.insert(ServerStatus::Healthy);
        }
        let conditions: Vec<ServerStatus> = conditions.into_iter().collect();
        let status = conditions[0];
        let in_rotation =
            !conditions.iter().any(|c| c.takes_out_of_rotation()) && maintenance.is_none();

        Verdict {
            server: server.id.clone(),
            status,
            in_rotation,
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
            controls_unreachable: stats.controls_down,
            blocked_by,
            blocks,
            still_reached_by,
            entry_points,
            maintenance,
        }
    }

    /// The evaluation at a later `now_ms` (the once-a-second tick): only
    /// what time alone changes is revisited — evidence going stale, sets
    /// whose turn to rotate came, maintenance windows opening or closing —
    /// so its cost follows the fleet's changes, not its size. Equal to
    /// [`evaluate`] at `now_ms`; a clock gone back evaluates everything.
    /// Returns the indices of the rebuilt verdicts.
    pub fn advance(&mut self, mesh: &Mesh, evidence: &Evidence, now_ms: i64) -> Vec<usize> {
        if now_ms < self.now_ms {
            *self = evaluate(mesh, evidence, &self.settings, now_ms);
            return (0..self.n).collect();
        }
        let since_ms = std::mem::replace(&mut self.now_ms, now_ms);
        let mut affected = vec![false; self.n];
        let (mut reporting_changed, mut touched) = (false, Vec::new());
        let mut expired = Vec::new();
        while let Some(&Reverse((at, w))) = self.expiries.peek() {
            if at > now_ms {
                break;
            }
            self.expiries.pop();
            expired.push(w as usize);
        }
        expired.sort_unstable();
        expired.dedup();
        // Most entries are of reports whose evidence a later report renewed.
        expired.retain(|&w| self.goes_stale(evidence, w, since_ms, now_ms));
        // Rows are recomputed whole, with every freshness as of `now_ms`:
        // the expired witnesses' own, and those of the witnesses whose
        // figures count a server that went silent (`retarget`'s one-at-a-
        // time arithmetic would count twice a row recomputed after time moved).
        let mut rows = expired.clone();
        for &t in &expired {
            if self.witnesses[t].fresh == self.is_fresh(evidence, t) {
                continue;
            }
            reporting_changed = true;
            if !self.verifier[t] {
                rows.extend((0..self.n).filter(|&x| x != t && self.votes_on(x, t)));
            }
        }
        rows.sort_unstable();
        rows.dedup();
        for &w in &expired {
            // A verifier's transfers and control-SNI retries going stale
            // change §8's kinds without changing its row.
            if self.verifier[w] {
                for p in &self.rows[w] {
                    affected[p.target as usize] = true;
                }
            }
            // Its sets' confirmations may end with its streaks.
            touched.extend(
                self.sets
                    .targets_of(w)
                    .into_iter()
                    .flatten()
                    .filter(|(_, indirect)| !indirect)
                    .map(|&(s, _)| s as usize),
            );
        }
        for w in rows {
            self.refresh_row(mesh, evidence, w, &mut affected);
        }
        touched.sort_unstable();
        touched.dedup();
        self.follow_sets(mesh, evidence, reporting_changed, &touched, &mut affected);
        // Windows open and close with time alone.
        for s in (0..self.n).filter(|&s| mesh.windows_of(s).next().is_some()) {
            affected[s] = true;
        }
        let affected: Vec<usize> = (0..self.n).filter(|&s| affected[s]).collect();
        for &s in &affected {
            self.verdicts[s] = self.verdict_of(mesh, evidence, s);
        }
        affected
    }

    /// Whether some of witness `w`'s evidence is fresh at `from_ms` and
    /// stale at `to_ms`.
    fn goes_stale(&self, evidence: &Evidence, w: usize, from_ms: i64, to_ms: i64) -> bool {
        let stale_after = self.settings.stale_after_ms();
        let crosses = |received: i64| {
            received > from_ms.saturating_sub(stale_after)
                && received <= to_ms.saturating_sub(stale_after)
        };
        evidence.receipts_of(w).any(crosses)
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
        let report = WitnessReport {
            w,
            received_ms,
            self_check,
            probes,
            controls: None,
        };
        self.apply_reports(mesh, evidence, [report])
    }

    /// [`Evaluation::apply_report`] for several reports in order, each
    /// verdict they can change rebuilt once at the end: a burst of
    /// witnesses that each change their standing (a fleet starting, a
    /// network coming back) rebuilds every verdict once, not once per report.
    pub fn apply_reports<'a>(
        &mut self,
        mesh: &Mesh,
        evidence: &mut Evidence,
        reports: impl IntoIterator<Item = WitnessReport<'a>>,
    ) -> (Vec<usize>, usize) {
        let timing = self.settings.streak_timing();
        let mut affected = vec![false; self.n];
        let mut applied = 0;
        let (mut reporting_changed, mut touched) = (false, vec![false; self.n]);
        for report in reports {
            let w = report.w;
            let was_fresh = self.is_fresh(evidence, w);
            evidence.record_report(w, report.received_ms, report.self_check);
            let mut ordered: Vec<&(usize, ProbeOutcome)> = report.probes.iter().collect();
            ordered.sort_by_key(|(e, p)| (*e, p.check, p.at_ms));
            let verifier = self.verifier[w];
            for &(e, probe) in ordered {
                // Only a set's own witnesses start its confirmations.
                let s = mesh.owner_of(e);
                touched[s] = touched[s] || self.sets.in_set(w, s);
                // What §8's kinds read of a verifier's pair, beyond what its
                // row's reach and sustained lists tell the verdicts.
                let before = verifier.then(|| self.kind_inputs(evidence, w, e));
                if evidence.apply_probe(w, e, probe, report.received_ms, timing) {
                    applied += 1;
                    if before.is_some_and(|b| b != self.kind_inputs(evidence, w, e)) {
                        affected[mesh.owner_of(e)] = true;
                    }
                }
            }
            if let Some(controls) = report.controls {
                applied +=
                    usize::from(evidence.apply_control(w, controls, report.received_ms, timing));
            }
            let expiry = report
                .received_ms
                .saturating_add(self.settings.stale_after_ms());
            self.expiries.push(Reverse((expiry, w as u32)));
            self.refresh_row(mesh, evidence, w, &mut affected);
            if self.is_fresh(evidence, w) != was_fresh {
                self.retarget(mesh, evidence, w, &mut affected);
                reporting_changed = true;
            }
        }
        let touched: Vec<usize> = (0..self.n).filter(|&s| touched[s]).collect();
        self.follow_sets(mesh, evidence, reporting_changed, &touched, &mut affected);
        let affected: Vec<usize> = (0..self.n).filter(|&s| affected[s]).collect();
        for &s in &affected {
            self.verdicts[s] = self.verdict_of(mesh, evidence, s);
        }
        (affected, applied)
    }
}

/// One witness's report for the incremental path: its index in the mesh,
/// when the panel received it, its self-check, its probe results
/// resolved to entry point indices and its control checks folded into
/// one (see [`crate::intake::fold_controls`]).
pub struct WitnessReport<'a> {
    pub w: usize,
    pub received_ms: i64,
    pub self_check: SelfCheck,
    pub probes: &'a [(usize, ProbeOutcome)],
    pub controls: Option<ProbeOutcome>,
}

/// See [`Evaluation::kind_inputs`].
#[derive(PartialEq, Eq)]
struct KindInputs {
    failure: Option<(Option<Stage>, Option<bool>)>,
    transfer: Option<(bool, u32, u64)>,
}

#[cfg(test)]
mod kinds_tests;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod sets_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod world;
