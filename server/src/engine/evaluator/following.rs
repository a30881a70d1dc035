//! Several replicas on one database. Every replica applies every stored
//! report, in sequence order, whichever replica stored it, so that each
//! serves current verdicts from memory; only the evaluating one records
//! status changes, checkpoints and notifies. The others follow the status
//! history it records (for their live pages), and take over from the
//! checkpoint plus the reports after it when it goes.

use super::{resolve, restore, Evaluator, Ledger};
use crate::engine::fault_alert::FaultAlert;
use crate::store::{FollowedReport, StoreError};
use meshwatch::rules::{evaluate, WitnessReport};
use meshwatch::verdict::VerdictChange;
use meshwatch::ServerId;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How many stored reports one read of a catch-up takes.
const FOLLOW_BATCH: i64 = 500;

/// How many recorded status changes one read of the history takes.
const HISTORY_BATCH: i64 = 1000;

impl Evaluator {
    /// Whether this replica evaluates now.
    pub fn evaluating(&self) -> bool {
        self.evaluating.load(Ordering::SeqCst)
    }

    /// Applies the reports other replicas stored since the last one this
    /// one applied (nothing to do on SQLite: there are no others).
    pub async fn catch_up(&self) -> Result<(), StoreError> {
        if self.store.shared().is_none() {
            return Ok(());
        }
        let _order = self.order.lock().await;
        self.catch_up_below(None).await
    }

    /// Applies the stored reports numbered after the last applied one and
    /// before `below` (the caller holds the order). Reports commit in
    /// sequence order, so what is read is never followed by a smaller
    /// number. One whose body a checkpoint already folded in means this
    /// replica fell behind the checkpoint: it reloads from it.
    pub(super) async fn catch_up_below(&self, below: Option<i64>) -> Result<(), StoreError> {
        loop {
            let after = self.ledger().applied_seq;
            let reports = self.store.reports_after(after, below, FOLLOW_BATCH).await?;
            let full = reports.len() as i64 == FOLLOW_BATCH;
            if reports.iter().any(|r| r.probes.is_none()) {
                tracing::warn!(after, "fell behind the checkpoint: reloading the evidence");
                return self.reload().await;
            }
            self.apply_followed(reports);
            if !full {
                return Ok(());
            }
        }
    }

    fn apply_followed(&self, reports: Vec<FollowedReport>) {
        let Some(last) = reports.last().map(|r| r.seq) else {
            return;
        };
        // The mesh does not change while the order is held: the reports
        // are resolved against it before the write lock, so pages keep
        // reading meanwhile.
        let mesh = self.snapshot.read().mesh.clone();
        let resolved: Vec<_> = reports
            .into_iter()
            .filter_map(|report| {
                let w = mesh.server_index(&report.server_id)?;
                let resolved = resolve(&mesh, report.probes.as_deref().unwrap_or_default());
                Some((report, w, resolved))
            })
            .collect();
        let batch = resolved
            .iter()
            .map(|(report, w, resolved)| Applied {
                server: &report.server_id,
                report: WitnessReport {
                    w: *w,
                    received_ms: report.received_ms,
                    self_check: report.self_check.clone(),
                    probes: &resolved.probes,
                    controls: resolved.controls,
                },
            })
            .collect();
        let mut state = self.snapshot.write();
        let mut ledger = self.ledger();
        ledger.applied_seq = last;
        self.apply_batch(&mut state, &mut ledger, batch);
    }

    /// Applies stored reports, in their order, to the evidence and the
    /// evaluation (each verdict they change is rebuilt once).
    pub(super) fn apply_batch(
        &self,
        state: &mut super::Snapshot,
        ledger: &mut Ledger,
        reports: Vec<Applied<'_>>,
    ) {
        if reports.is_empty() {
            return;
        }
        for applied in &reports {
            state.mark_written(applied.server);
            let w = applied.report.w;
            ledger
                .dirty
                .extend(applied.report.probes.iter().map(|(e, _)| (w, *e)));
        }
        let (_, applied) = state.evaluation.apply_reports(
            &state.mesh,
            &mut state.evidence,
            reports.into_iter().map(|applied| applied.report),
        );
        self.metrics.probe_results_applied.inc_by(applied as u64);
    }

    /// Rebuilds the evidence from the checkpoint plus the reports after it
    /// (the caller holds the order).
    async fn reload(&self) -> Result<(), StoreError> {
        let settings = self.store.settings().await?;
        let restored = restore(&self.store, &settings).await?;
        let evaluation = evaluate(
            &restored.mesh,
            &restored.evidence,
            &settings,
            self.clock.now_ms(),
        );
        let mut state = self.snapshot.write();
        let mut ledger = self.ledger();
        for server in restored.mesh.servers() {
            state.mark_written(&server.id);
        }
        state.mesh = Arc::new(restored.mesh);
        state.evidence = restored.evidence;
        state.evaluation = evaluation;
        state.settings = settings;
        state.fleet_version += 1;
        ledger.applied_seq = restored.applied_seq;
        ledger.dirty = restored.dirty;
        Ok(())
    }

    /// This replica took the evaluator's lock (and its term): it rebuilds
    /// its state from the checkpoint plus the reports after it, takes the
    /// recorded conditions as they are in the history, and evaluates from
    /// now on.
    pub async fn promote(&self) -> Result<(), StoreError> {
        let _order = self.order.lock().await;
        let last_change = self.store.last_change_number().await?;
        self.reload().await?;
        let recorded = self.store.latest_conditions().await?;
        let calm = self.store.latest_calm_conditions().await?;
        let state = self.snapshot.read();
        let mut ledger = self.ledger();
        ledger.recorded = recorded;
        ledger.calm = calm;
        ledger.last_change = last_change;
        // Like a start: a fault holding now was told by the one before.
        ledger.witness_fault = FaultAlert::at_start(state.evaluation.witness_fault().is_some());
        self.evaluating.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// This replica lost the evaluator's lock: it follows from now on.
    pub async fn demote(&self) {
        self.evaluating.store(false, Ordering::SeqCst);
        if let Some(shared) = self.store.shared() {
            shared.drop_evaluator_term();
        }
        // The changes it recorded itself are not to be told again.
        match self.store.last_change_number().await {
            Ok(last) => self.ledger().last_change = last,
            Err(err) => tracing::warn!(error = %err, "cannot read the status history's end"),
        }
    }

    /// The status changes the evaluating replica recorded since the last
    /// ones this replica learnt of, as changes to publish to its live
    /// pages; they count as recorded here too.
    pub async fn follow_history(&self) -> Result<Vec<VerdictChange>, StoreError> {
        let mut published = Vec::new();
        loop {
            let after = self.ledger().last_change;
            let recorded = self.store.changes_after(after, HISTORY_BATCH).await?;
            let full = recorded.len() as i64 == HISTORY_BATCH;
            let mut state = self.snapshot.write();
            let mut ledger = self.ledger();
            for change in recorded {
                ledger.last_change = change.number;
                let previous = ledger
                    .recorded
                    .insert(change.server.clone(), change.conditions.clone())
                    .unwrap_or_default();
                state.mark_written(&change.server);
                // Only live pages read it: nothing is told from here.
                published.push(VerdictChange {
                    server: change.server,
                    status: change.status,
                    conditions: change.conditions,
                    calm_previous: previous.clone(),
                    previous,
                    at: change.at,
                });
            }
            if !full {
                return Ok(published);
            }
        }
    }

    /// A replica changed the fleet: rebuild the mesh from the store.
    pub async fn follow_fleet(&self) -> Result<(), StoreError> {
        let _checkpointing = self.checkpointing.lock().await;
        let _order = self.order.lock().await;
        self.rebuild_mesh().await
    }

    /// A replica changed the settings: evaluate with the stored ones.
    pub async fn follow_settings(&self) -> Result<(), StoreError> {
        let _order = self.order.lock().await;
        let settings = self.store.settings().await?;
        self.use_settings(settings);
        Ok(())
    }
}

/// One stored report, resolved against the mesh, as it is applied.
pub(super) struct Applied<'a> {
    pub(super) server: &'a ServerId,
    pub(super) report: WitnessReport<'a>,
}
