//! The evaluator: the one writer of the verdict snapshot. It applies agent
//! reports in their stored order (incrementally), re-evaluates on every
//! tick so staleness takes effect without reports, records the changes and
//! checkpoints changed pairs, and takes fleet and settings changes. It
//! serves no reads: pages, the APIs and subscriptions read the
//! [`ReadModel`](super::ReadModel).

mod dirty;
mod following;
mod ingest;

use super::clock::Clock;
use super::fault_alert::FaultAlert;
use super::snapshot::{SharedSnapshot, Snapshot};
use crate::ops::telemetry::Metrics;
use crate::store::topics::{FLEET_CHANGED, SETTINGS_CHANGED};
use crate::store::{ControlRow, NewNotification, PairRow, Store, StoreError};
use dirty::DirtyPairs;
use ingest::{resolve, Queued};
use meshwatch::agent_api::ProbeReport;
use meshwatch::evidence::{Evidence, PairState, TransferState};
use meshwatch::mesh::Mesh;
use meshwatch::rules::evaluate;
use meshwatch::settings::Settings;
use meshwatch::status::ServerStatus;
use meshwatch::verdict::{VerdictChange, WitnessFault};
use meshwatch::ServerId;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

/// Pair rows per checkpoint transaction: the writer is free between them.
const PAIRS_PER_TRANSACTION: usize = 20_000;

/// What the evaluator has written down, or still must; none of it is
/// served. Locked after the snapshot when both are held.
struct Ledger {
    /// Pairs changed since the last checkpoint.
    dirty: DirtyPairs,
    /// The last stored report whose effect is in the evidence.
    applied_seq: i64,
    /// The conditions last recorded in the status history, per server.
    recorded: HashMap<ServerId, Vec<ServerStatus>>,
    /// ... and the last recorded outside a maintenance window: what the
    /// operator was last told of (a block that cleared during a window is
    /// told as cleared when it ends).
    calm: HashMap<ServerId, Vec<ServerStatus>>,
    /// Whether the operator was told of the whole-fleet fault (once per
    /// fault, a flapping one included; one holding at start-up was told
    /// before).
    witness_fault: FaultAlert,
    /// The number of the last status change in the history that this
    /// replica knows of (a replica that does not evaluate tells its live
    /// pages of the ones after it).
    last_change: i64,
}

pub struct Evaluator {
    /// Pages read it while an evaluation runs (a shared lock); reports,
    /// evaluations and fleet changes swap their results in.
    snapshot: SharedSnapshot,
    ledger: Mutex<Ledger>,
    store: Store,
    clock: Clock,
    metrics: Arc<Metrics>,
    /// Serialises "store durably, then apply in memory" so that memory and
    /// a replay after a crash apply reports in the same order; ticks,
    /// checkpoints and fleet and settings changes take their turn in it.
    order: Arc<tokio::sync::Mutex<()>>,
    /// Reports waiting for the next group commit (see [`Evaluator::ingest`]).
    queued: Mutex<Vec<Queued>>,
    /// Held by a checkpoint while it writes, and by fleet changes.
    checkpointing: tokio::sync::Mutex<()>,
    /// Whether this replica evaluates: records the changes, checkpoints,
    /// notifies. On SQLite (one panel per database) it always does; on
    /// PostgreSQL the holder of the evaluator's lock does (see
    /// [`super::Replication`]), and the others follow the reports and the
    /// status history it leaves in the database.
    evaluating: AtomicBool,
}

/// A changed pair as a checkpoint copies it.
struct Dirty {
    w: usize,
    e: usize,
    state: PairState,
    transfer: Option<TransferState>,
}

/// What the store holds of the evidence: the mesh, the pairs and
/// self-reports of the checkpoint plus the reports stored after it.
struct Restored {
    mesh: Mesh,
    evidence: Evidence,
    applied_seq: i64,
    /// The pairs the reports after the checkpoint changed.
    dirty: DirtyPairs,
}

/// The fleet as stored, with its maintenance windows.
async fn load_mesh(store: &Store) -> Result<Mesh, StoreError> {
    let (servers, routes) = store.mesh_spec().await?;
    let windows = store.maintenance_windows().await?;
    Ok(Mesh::new(servers, routes).with_maintenance(windows))
}

/// Rebuilds the evidence from the store: checkpointed pairs, latest
/// self-reports, then the reports stored after the checkpoint.
async fn restore(store: &Store, settings: &Settings) -> Result<Restored, StoreError> {
    let mesh = load_mesh(store).await?;
    let snapshot = store.evidence_snapshot().await?;
    let mut evidence = Evidence::new(&mesh);
    for (server, received_ms, check) in snapshot.reports {
        if let Some(s) = mesh.server_index(&server) {
            evidence.record_report(s, received_ms, check);
        }
    }
    let mut pairs = Vec::with_capacity(snapshot.pairs.len());
    for row in snapshot.pairs {
        let w = mesh.server_index(&row.witness_id);
        let e = mesh.entry_point_index(&row.entry_point_id);
        if let (Some(w), Some(e)) = (w, e) {
            pairs.push((w, e, row.state));
            if let Some(transfer) = row.transfer {
                evidence.restore_transfer(w, e, transfer);
            }
        }
    }
    evidence.restore_pairs(pairs);
    for row in snapshot.controls {
        if let Some(w) = mesh.server_index(&row.verifier_id) {
            evidence.restore_controls(w, row.state);
        }
    }
    let mut applied_seq = snapshot.checkpoint_seq;
    let mut dirty = DirtyPairs::of(&mesh);
    for pending in snapshot.pending {
        applied_seq = pending.seq;
        let Some(w) = mesh.server_index(&pending.server_id) else {
            continue;
        };
        let probes: Vec<ProbeReport> = match serde_json::from_str(&pending.probes) {
            Ok(p) => p,
            Err(err) => {
                tracing::error!(seq = pending.seq, error = %err, "unreadable stored report skipped");
                continue;
            }
        };
        let resolved = resolve(&mesh, &probes);
        let timing = settings.streak_timing();
        for (e, probe) in resolved.probes {
            if evidence.apply_probe(w, e, probe, pending.received_ms, timing) {
                dirty.insert(w, e);
            }
        }
        if let Some(controls) = resolved.controls {
            evidence.apply_control(w, controls, pending.received_ms, timing);
        }
    }
    Ok(Restored {
        mesh,
        evidence,
        applied_seq,
        dirty,
    })
}

impl Evaluator {
    /// Rebuilds the state from the store: checkpointed pairs, latest
    /// self-reports, then the reports stored after the checkpoint.
    pub async fn load(
        store: Store,
        metrics: Arc<Metrics>,
        clock: Clock,
    ) -> Result<Self, StoreError> {
        let settings = store.settings().await?;
        // Before the conditions: a change recorded in between is then
        // told again (harmless), never missed.
        let last_change = store.last_change_number().await?;
        let restored = restore(&store, &settings).await?;
        let evaluation = evaluate(
            &restored.mesh,
            &restored.evidence,
            &settings,
            clock.now_ms(),
        );
        let ledger = Ledger {
            dirty: restored.dirty,
            applied_seq: restored.applied_seq,
            recorded: store.latest_conditions().await?,
            calm: store.latest_calm_conditions().await?,
            witness_fault: FaultAlert::at_start(evaluation.witness_fault().is_some()),
            last_change,
        };
        let fleet_version = u64::try_from(clock.now_ms()).unwrap_or(1);
        Ok(Self {
            snapshot: SharedSnapshot::new(Snapshot::new(
                Arc::new(restored.mesh),
                restored.evidence,
                evaluation,
                settings,
                fleet_version,
            )),
            ledger: Mutex::new(ledger),
            evaluating: AtomicBool::new(store.shared().is_none()),
            store,
            clock,
            metrics,
            order: Arc::default(),
            queued: Mutex::default(),
            checkpointing: tokio::sync::Mutex::default(),
        })
    }

    /// What the evaluator publishes, for the read model to serve.
    pub fn snapshot(&self) -> SharedSnapshot {
        self.snapshot.clone()
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        // Every mutation is a whole assignment: a poisoned ledger is usable.
        self.ledger
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Brings the evaluation to the current time and returns the verdicts
    /// whose conditions differ from the last recorded ones.
    pub async fn tick(&self) -> Vec<VerdictChange> {
        // Reports wait (they are ordered by this lock anyway). Pages wait
        // only while time's changes are applied: what went stale, the sets
        // whose turn to rotate came and the maintenance windows, a cost
        // that follows the fleet's changes, not its size.
        let _order = self.order.lock().await;
        let (snapshot, metrics, clock) = (
            self.snapshot.clone(),
            self.metrics.clone(),
            self.clock.clone(),
        );
        let advanced = tokio::task::spawn_blocking(move || {
            let mut state = snapshot.write();
            let state = &mut *state;
            let timer = metrics.evaluation_seconds.start_timer();
            state
                .evaluation
                .advance(&state.mesh, &state.evidence, clock.now_ms());
            timer.observe_duration();
        })
        .await;
        if let Err(err) = advanced {
            // The caches the advance left half-updated are rebuilt whole.
            tracing::error!(error = %err, "evaluation failed");
            let mut state = self.snapshot.write();
            let state = &mut *state;
            state.evaluation = evaluate(
                &state.mesh,
                &state.evidence,
                &state.settings,
                self.clock.now_ms(),
            );
        }
        let state = self.snapshot.read();
        self.metrics.observe_verdicts(state.evaluation.verdicts());
        let at = self.clock.now();
        let ledger = self.ledger();
        state
            .evaluation
            .verdicts()
            .iter()
            .filter_map(|v| {
                let previous = ledger.recorded.get(&v.server);
                (previous != Some(&v.conditions)).then(|| VerdictChange {
                    server: v.server.clone(),
                    status: v.status,
                    conditions: v.conditions.clone(),
                    previous: previous.cloned().unwrap_or_default(),
                    calm_previous: ledger.calm.get(&v.server).cloned().unwrap_or_default(),
                    at,
                })
            })
            .collect()
    }

    /// A whole-fleet fault the operator has not been told of yet; `None`
    /// otherwise. It counts as told once [`Evaluator::witness_fault_told`]
    /// says its message is queued.
    pub fn witness_fault_to_tell(&self) -> Option<WitnessFault> {
        let state = self.snapshot.read();
        let fault = state.evaluation.witness_fault();
        let due = self
            .ledger()
            .witness_fault
            .due(fault.is_some(), self.clock.now_ms());
        fault.filter(|_| due)
    }

    /// The whole-fleet fault's message is queued.
    pub fn witness_fault_told(&self) {
        self.ledger().witness_fault.told();
    }

    /// Writes the changes to the status history, with the notifications
    /// and the action runs they call for, in one transaction; then they count as recorded. Not
    /// recorded, the next tick finds the same changes again.
    pub async fn record(
        &self,
        changes: &[VerdictChange],
        notifications: &[NewNotification],
        runs: &[crate::store::NewActionRun],
    ) -> Result<(), StoreError> {
        self.store
            .record_changes(changes, notifications, runs)
            .await?;
        let mut state = self.snapshot.write();
        let mut ledger = self.ledger();
        for c in changes {
            ledger
                .recorded
                .insert(c.server.clone(), c.conditions.clone());
            if !c.conditions.contains(&ServerStatus::Maintenance) {
                ledger.calm.insert(c.server.clone(), c.conditions.clone());
            }
            state.mark_written(&c.server);
        }
        Ok(())
    }

    /// Writes the pairs changed since the last checkpoint, then moves the
    /// checkpoint past the reports they include. The pairs go in
    /// transactions of their own, so that reports are stored in between
    /// rather than wait for the whole checkpoint; a crash half-way leaves
    /// some pairs newer than the checkpoint's report number, and replaying
    /// the reports after it changes nothing in them (an older or repeated
    /// probe result is not applied).
    pub async fn checkpoint(&self) -> Result<usize, StoreError> {
        // Held while the rows are written (fleet changes wait, so the
        // indices taken stay the mesh's); the order only while the pairs
        // are copied: reports are stored and applied during the writes.
        let _checkpointing = self.checkpointing.lock().await;
        let order = self.order.lock().await;
        let (pairs, controls, mesh, applied_seq) = {
            let state = self.snapshot.read();
            let mut ledger = self.ledger();
            let pairs: Vec<Dirty> = ledger
                .dirty
                .take()
                .into_iter()
                .map(|(w, e)| Dirty {
                    w,
                    e,
                    state: *state.evidence.pair(w, e),
                    transfer: state.evidence.transfer(w, e).copied(),
                })
                .collect();
            // A few rows (verifiers only): written whole each time.
            let controls: Vec<ControlRow> = (0..state.mesh.server_count())
                .filter(|&w| *state.evidence.controls(w) != PairState::default())
                .map(|w| ControlRow {
                    verifier_id: state.mesh.server(w).id.clone(),
                    state: *state.evidence.controls(w),
                })
                .collect();
            (pairs, controls, state.mesh.clone(), ledger.applied_seq)
        };
        drop(order);
        for (k, chunk) in pairs.chunks(PAIRS_PER_TRANSACTION).enumerate() {
            // The rows of one transaction at a time: a fleet's worth of
            // ids would cost more memory than its evidence.
            let rows: Vec<PairRow> = chunk
                .iter()
                .map(|d| PairRow {
                    witness_id: mesh.server(d.w).id.clone(),
                    entry_point_id: mesh.entry_point_id(d.e).clone(),
                    state: d.state,
                    transfer: d.transfer,
                })
                .collect();
            if let Err(err) = self.store.write_pairs(&rows).await {
                self.keep_unwritten(&mesh, &pairs[k * PAIRS_PER_TRANSACTION..]);
                return Err(err);
            }
        }
        if let Err(err) = self.store.move_checkpoint(applied_seq, &controls).await {
            self.keep_unwritten(&mesh, &pairs);
            return Err(err);
        }
        Ok(pairs.len())
    }

    /// A checkpoint failed before these pairs were written: a later one
    /// must not move past them. `mesh` is the one they index (a reload may
    /// have replaced it since).
    fn keep_unwritten(&self, mesh: &Arc<Mesh>, pairs: &[Dirty]) {
        let state = self.snapshot.read();
        let mut ledger = self.ledger();
        let pairs = pairs.iter().map(|d| (d.w, d.e));
        if Arc::ptr_eq(mesh, &state.mesh) {
            ledger.dirty.extend(pairs);
        } else {
            ledger.dirty.extend(pairs.filter_map(|(w, e)| {
                let w = state.mesh.server_index(&mesh.server(w).id)?;
                let e = state.mesh.entry_point_index(mesh.entry_point_id(e))?;
                Some((w, e))
            }));
        }
    }

    /// The fleet changed: rebuild the mesh, keeping the evidence of
    /// everything that still exists.
    pub async fn reload_fleet(&self) -> Result<(), StoreError> {
        self.change_fleet(async { Ok(()) }).await
    }

    /// Runs `change` (a fleet write) and rebuilds the mesh, with reports and
    /// checkpoints held off for both: a report of a server being removed
    /// must not slip in between (nor a checkpoint write its pairs back).
    pub async fn change_fleet<T>(
        &self,
        change: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        // A checkpoint running must not write the pairs of a server this
        // removes after it is gone.
        let _checkpointing = self.checkpointing.lock().await;
        // Ingest resolves entry points against the mesh before its await:
        // the mesh must not change under it.
        let _order = self.order.lock().await;
        let out = change.await?;
        self.rebuild_mesh().await?;
        self.announce(FLEET_CHANGED).await;
        Ok(out)
    }

    /// The mesh from the store (the caller holds the checkpoint lock and
    /// the order).
    async fn rebuild_mesh(&self) -> Result<(), StoreError> {
        let mesh = load_mesh(&self.store).await?;
        // Built under the shared lock, so pages keep reading meanwhile:
        // the order (and, for the dirty pairs, the checkpoint lock) that
        // the caller holds keeps everything read here as it is.
        let (evidence, evaluation, dirty) = {
            let state = self.snapshot.read();
            let evidence = mesh.carry_over(&state.mesh, &state.evidence);
            let evaluation = evaluate(&mesh, &evidence, &state.settings, self.clock.now_ms());
            let dirty = self.ledger().dirty.carried_to(&state.mesh, &mesh);
            (evidence, evaluation, dirty)
        };
        let mut state = self.snapshot.write();
        state.evaluation = evaluation;
        state.evidence = evidence;
        self.ledger().dirty = dirty;
        state.mesh = Arc::new(mesh);
        state.fleet_version += 1;
        Ok(())
    }

    /// Stores validated settings, then evaluates with them from now on.
    pub async fn apply_settings(&self, next: Settings) -> Result<(), StoreError> {
        // Like a tick's: an evaluation under the old settings must not be
        // swapped in after this one.
        let _order = self.order.lock().await;
        self.store.save_settings(&next).await?;
        self.use_settings(next);
        self.announce(SETTINGS_CHANGED).await;
        Ok(())
    }

    /// Evaluates with `settings` from now on (the caller holds the order,
    /// so the evidence cannot change between the evaluation and its swap:
    /// pages keep reading meanwhile).
    fn use_settings(&self, settings: Settings) {
        let evaluation = {
            let state = self.snapshot.read();
            evaluate(&state.mesh, &state.evidence, &settings, self.clock.now_ms())
        };
        let mut state = self.snapshot.write();
        state.evaluation = evaluation;
        state.settings = settings;
        state.fleet_version += 1;
    }

    /// Tells the other replicas (if any) what changed; one that misses it
    /// finds out at its listener's reconnection.
    async fn announce(&self, topic: &str) {
        if let Err(err) = self.store.announce(topic).await {
            tracing::warn!(topic, error = %err, "cannot tell the other replicas");
        }
    }
}
