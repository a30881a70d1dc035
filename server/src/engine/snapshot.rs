//! The verdict snapshot: one consistent picture of the fleet — the mesh,
//! the settings, the evaluation and the evidence it was made from — that
//! the evaluator swaps its results into and the read model serves.
//!
//! One lock over all of it: an index read from the mesh must belong to the
//! verdicts it indexes. The evaluator and the read model share it in
//! memory, so a report's effect is served the moment it is applied, with
//! no copy of the fleet's verdicts per report; the evaluator's own
//! bookkeeping (checkpoints, what was recorded) stays out of it.

use meshwatch::evidence::Evidence;
use meshwatch::mesh::Mesh;
use meshwatch::rules::Evaluation;
use meshwatch::settings::Settings;
use meshwatch::verdict::Verdict;
use meshwatch::ServerId;
use std::collections::HashMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub(super) struct Snapshot {
    pub(super) mesh: Arc<Mesh>,
    pub(super) evidence: Evidence,
    pub(super) evaluation: Evaluation,
    pub(super) settings: Settings,
    /// Moves on every change of what agents are told to probe (the fleet
    /// or the probe settings), so an agent learns of a new entry point on
    /// its next report rather than at its next config refresh. It starts
    /// from the start-up time, so a restarted panel never repeats a value.
    pub(super) fleet_version: u64,
    /// Per server, the mark of its last stored report or recorded status
    /// change (see [`Snapshot::written`]).
    written: HashMap<ServerId, u64>,
    /// The last mark handed out; marks only grow.
    written_seq: u64,
    /// Moves on with every write: what was derived from an older version
    /// may be out of date.
    version: u64,
}

impl Snapshot {
    pub(super) fn new(
        mesh: Arc<Mesh>,
        evidence: Evidence,
        evaluation: Evaluation,
        settings: Settings,
        fleet_version: u64,
    ) -> Self {
        Self {
            mesh,
            evidence,
            evaluation,
            settings,
            fleet_version,
            written: HashMap::new(),
            written_seq: 0,
            version: 0,
        }
    }

    /// The server's latest report or status history grew in the store.
    pub(super) fn mark_written(&mut self, server: &ServerId) {
        self.written_seq += 1;
        let mark = self.written_seq;
        self.written.insert(server.clone(), mark);
    }

    /// A mark that moves whenever the server's latest report or status
    /// history grows in the store. It moves after the write, so whatever is
    /// read from the store after taking it is at least that new.
    /// See `version`: equal versions are the same snapshot.
    pub(super) fn version(&self) -> u64 {
        self.version
    }

    pub(super) fn written(&self, server: &ServerId) -> u64 {
        self.written.get(server).copied().unwrap_or(0)
    }

    /// The version of what `server`'s agent is told to probe: the fleet
    /// version, moved by a digest of its targets when the fleet is
    /// watched by witness sets (a rotation or a confirmation asked of it
    /// changes its config alone).
    pub(super) fn config_version(&self, server: &ServerId) -> u64 {
        let digest = self
            .mesh
            .server_index(server)
            .map_or(0, |w| self.evaluation.sets().digest_of(w));
        if digest == 0 {
            self.fleet_version
        } else {
            // Kept below 2^53, so that JSON readers of any language read
            // it exactly: the fleet version is a time in ms (below 2^41).
            (self.fleet_version ^ (digest << 41)) & ((1 << 53) - 1)
        }
    }

    /// One server's index in the mesh and its current verdict.
    pub(super) fn verdict(&self, server: &ServerId) -> Option<(usize, &Verdict)> {
        let i = self.mesh.server_index(server)?;
        Some((i, &self.evaluation.verdicts()[i]))
    }
}

/// The snapshot as the evaluator and the read model hold it.
#[derive(Clone)]
pub struct SharedSnapshot(Arc<RwLock<Snapshot>>);

impl SharedSnapshot {
    pub(super) fn new(snapshot: Snapshot) -> Self {
        Self(Arc::new(RwLock::new(snapshot)))
    }

    // A panic while holding the lock leaves consistent data (every
    // mutation is a whole assignment), so a poisoned lock is usable.
    pub(super) fn read(&self) -> RwLockReadGuard<'_, Snapshot> {
        self.0
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, Snapshot> {
        let mut snapshot = self
            .0
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        snapshot.version += 1;
        snapshot
    }
}
