//! Agent reports into the evaluator: stored durably first (many per
//! transaction), then applied in their stored order, so that memory and a
//! replay after a crash agree.

use super::following::Applied;
use super::Evaluator;
use crate::store::{StoreError, StoredReport};
use meshwatch::agent_api::{AgentReport, ProbeReport, ReportAck};
use meshwatch::evidence::{to_ms, Check, ProbeOutcome};
use meshwatch::intake::{fold_controls, newest_per_entry_point};
use meshwatch::mesh::Mesh;
use meshwatch::rules::WitnessReport;
use meshwatch::{EntryPointId, ServerId};
use std::sync::{Arc, Mutex, MutexGuard};

/// A report waiting for the group commit, with whom to answer.
pub(super) struct Queued {
    witness: ServerId,
    report: AgentReport,
    received_ms: i64,
    reply: tokio::sync::oneshot::Sender<Result<ReportAck, StoreError>>,
}

/// A queued report resolved against the mesh, ready to store.
struct Ready {
    w: usize,
    resolved: Resolved,
    ack: ReportAck,
    queued: Queued,
}

fn queue(queued: &Mutex<Vec<Queued>>) -> MutexGuard<'_, Vec<Queued>> {
    // Pushes and takes are whole: a poisoned queue is usable.
    queued
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A report's results resolved against the mesh.
pub(super) struct Resolved {
    /// The newest result per entry point and check (see
    /// [`newest_per_entry_point`]).
    pub(super) probes: Vec<(usize, ProbeOutcome)>,
    /// Its checks of the verifier's own control addresses, as one.
    pub(super) controls: Option<ProbeOutcome>,
    /// Results taken: every one naming an entry point of the mesh, and
    /// every control check.
    pub(super) accepted: u32,
    /// Results naming no entry point of the mesh.
    pub(super) skipped: u32,
}

/// A report's probe results resolved against the mesh.
pub(super) fn resolve(mesh: &Mesh, probes: &[ProbeReport]) -> Resolved {
    let mut skipped = 0;
    let mut controls = Vec::new();
    let mut known = Vec::with_capacity(probes.len());
    for p in probes {
        let outcome = ProbeOutcome {
            at_ms: to_ms(p.at),
            ok: p.ok,
            error: if p.ok { None } else { p.error },
            check: p.check,
            stage: if p.ok { None } else { p.stage },
            bytes: p.bytes,
        };
        if p.check == Check::Control {
            controls.push(outcome);
            continue;
        }
        match EntryPointId::parse(&p.entry_point_id)
            .ok()
            .and_then(|id| mesh.entry_point_index(&id))
        {
            Some(e) => known.push((e, outcome)),
            None => skipped += 1,
        }
    }
    Resolved {
        accepted: u32::try_from(known.len() + controls.len()).unwrap_or(u32::MAX),
        probes: newest_per_entry_point(known),
        controls: fold_controls(&controls),
        skipped,
    }
}

impl Evaluator {
    /// Stores a report durably, then applies it; the ack is sent after
    /// the commit. Reports that arrive while a commit runs wait and are
    /// committed together in one transaction (group commit), so the fsync
    /// that `synchronous=FULL` costs is shared by every report of a burst.
    /// `received_ms` is the receipt time on the evaluator's clock.
    pub async fn ingest(
        self: &Arc<Self>,
        witness: &ServerId,
        report: AgentReport,
        received_ms: i64,
    ) -> Result<ReportAck, StoreError> {
        let (reply, mut answer) = tokio::sync::oneshot::channel();
        queue(&self.queued).push(Queued {
            witness: witness.clone(),
            report,
            received_ms,
            reply,
        });
        loop {
            tokio::select! {
                biased;
                answer = &mut answer => {
                    return answer.unwrap_or(Err(StoreError::Database(sqlx::Error::WorkerCrashed)));
                }
                order = self.order.clone().lock_owned() => {
                    let batch = std::mem::take(&mut *queue(&self.queued));
                    if batch.is_empty() {
                        // Ours was committed by the holder before us.
                        continue;
                    }
                    // A task of its own: a caller whose connection drops
                    // must not abandon the other callers' reports half-way.
                    let evaluator = self.clone();
                    let _ = tokio::spawn(async move {
                        evaluator.commit_batch(batch).await;
                        drop(order);
                    })
                    .await;
                }
            }
        }
    }

    /// Stores a batch of reports in one transaction, then applies the new
    /// ones in their stored order and answers each caller.
    async fn commit_batch(&self, batch: Vec<Queued>) {
        let mut ready = Vec::with_capacity(batch.len());
        {
            let state = self.snapshot.read();
            for mut queued in batch {
                // Stored with its times on the panel's clock: a replay after
                // a crash then needs neither the receipt clock nor the agent's.
                meshwatch::intake::normalize(&mut queued.report, queued.received_ms);
                let Some(w) = state.mesh.server_index(&queued.witness) else {
                    // Its token was checked before the server left the fleet.
                    let message = format!(
                        "server {:?} is no longer in the fleet",
                        queued.witness.as_str()
                    );
                    let _ = queued.reply.send(Err(StoreError::Rejected {
                        code: "unknown_server",
                        message,
                    }));
                    continue;
                };
                // Every known result is accepted; only the newest of each
                // pair then counts (here and when a stored report is replayed).
                let resolved = resolve(&state.mesh, &queued.report.probes);
                let ack = ReportAck {
                    accepted_probes: resolved.accepted,
                    skipped_probes: resolved.skipped,
                    fleet_version: state.fleet_version,
                };
                ready.push(Ready {
                    w,
                    resolved,
                    ack,
                    queued,
                });
            }
        }
        let rows: Vec<_> = ready
            .iter()
            .map(|r| {
                (
                    &r.queued.witness,
                    &r.queued.report,
                    r.queued.received_ms,
                    r.ack,
                )
            })
            .collect();
        let stored = match self.store.store_reports(&rows).await {
            Ok(stored) => stored,
            Err(err) => {
                let message = err.to_string();
                let mut first = Some(err);
                for r in ready {
                    let err = first.take().unwrap_or_else(|| {
                        StoreError::Database(sqlx::Error::Protocol(message.clone()))
                    });
                    let _ = r.queued.reply.send(Err(err));
                }
                return;
            }
        };
        // Other replicas' reports numbered before these go first (reports
        // commit in sequence order: they are all stored by now).
        let first = stored.iter().find_map(|s| match s {
            StoredReport::New { seq } => Some(*seq),
            StoredReport::Duplicate(_) => None,
        });
        if let (Some(first), Some(_)) = (first, self.store.shared()) {
            if first > self.ledger().applied_seq + 1 {
                if let Err(err) = self.catch_up_below(Some(first)).await {
                    // Stored all the same: the next catch-up applies them.
                    tracing::error!(error = %err, "cannot apply the reports stored before these");
                }
            }
        }
        let mut answers = Vec::with_capacity(ready.len());
        let mut new = Vec::with_capacity(ready.len());
        for (r, stored) in ready.into_iter().zip(stored) {
            let Ready {
                w,
                resolved,
                ack,
                queued,
            } = r;
            let witness = queued.witness.clone();
            let answer = match stored {
                // Its first answer, with today's fleet version (filled in below).
                StoredReport::Duplicate(first) => first,
                StoredReport::New { seq } => {
                    self.metrics.reports_ingested.inc();
                    self.metrics
                        .probe_results_skipped
                        .inc_by(u64::from(ack.skipped_probes));
                    new.push((
                        seq,
                        w,
                        resolved,
                        queued.witness,
                        queued.received_ms,
                        queued.report.self_check,
                    ));
                    ack
                }
            };
            answers.push((queued.reply, answer, witness));
        }
        let versions: Vec<u64> = {
            let mut state = self.snapshot.write();
            let mut ledger = self.ledger();
            // Applied already when a catch-up had to reload from the store.
            let applied_seq = ledger.applied_seq;
            let batch = new
                .iter()
                .filter(|(seq, ..)| *seq > applied_seq)
                .map(
                    |(_, w, resolved, witness, received_ms, self_check)| Applied {
                        server: witness,
                        report: WitnessReport {
                            w: *w,
                            received_ms: *received_ms,
                            self_check: self_check.clone(),
                            probes: &resolved.probes,
                            controls: resolved.controls,
                        },
                    },
                )
                .collect();
            if let Some((seq, ..)) = new.last() {
                ledger.applied_seq = ledger.applied_seq.max(*seq);
            }
            self.apply_batch(&mut state, &mut ledger, batch);
            // Each agent's own config version: the report may have moved
            // its targets (a streak that asks it to confirm).
            answers
                .iter()
                .map(|(_, _, witness)| state.config_version(witness))
                .collect()
        };
        for ((reply, ack, _), fleet_version) in answers.into_iter().zip(versions) {
            let _ = reply.send(Ok(ReportAck {
                fleet_version,
                ..ack
            }));
        }
    }
}
