//! The live rules engine of the panel: the mesh, the evidence and the
//! current evaluation in memory, fed by agent reports (incrementally) and
//! by a once-a-second tick (so staleness takes effect without reports),
//! checkpointed to the store as changes.

use crate::per_fleet::PerFleet;
use crate::store::{PairRow, Store, StoreError, StoredReport};
use crate::telemetry::Metrics;
use meshwatch::agent_api::{AgentReport, ProbeReport, ReportAck};
use meshwatch::evidence::{to_ms, Evidence, ProbeOutcome};
use meshwatch::intake::newest_per_entry_point;
use meshwatch::mesh::Mesh;
use meshwatch::rules::{evaluate, Evaluation};
use meshwatch::settings::Settings;
use meshwatch::status::ServerStatus;
use meshwatch::verdict::Verdict;
use meshwatch::verdict::{VerdictChange, WitnessFault};
use meshwatch::views::{CountryOpinion, ServerSummary};
use meshwatch::{EntryPointId, ServerId, UserId};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use tokio::sync::broadcast;

struct State {
    mesh: Arc<Mesh>,
    evidence: Evidence,
    evaluation: Evaluation,
    settings: Settings,
    /// Pairs changed since the last checkpoint (witness, entry point).
    dirty: HashSet<(usize, usize)>,
    /// The last stored report whose effect is in `evidence`.
    applied_seq: i64,
    /// The conditions last recorded in the status history, per server.
    published: HashMap<ServerId, Vec<ServerStatus>>,
    /// Per server, the mark of its last stored report or status change
    /// (see [`Engine::written`]).
    written: HashMap<ServerId, u64>,
    /// The last mark handed out; marks only grow.
    written_seq: u64,
    /// A whole-fleet fault holds and the operator was told (once per
    /// incident; one holding at start-up was told before).
    witness_fault_told: bool,
}

impl State {
    fn mark_written(&mut self, server: &ServerId) {
        self.written_seq += 1;
        let mark = self.written_seq;
        self.written.insert(server.clone(), mark);
    }
}

fn verdict_in(state: &State, id: &ServerId) -> Option<(Arc<Mesh>, usize, Verdict)> {
    let i = state.mesh.server_index(id)?;
    Some((
        state.mesh.clone(),
        i,
        state.evaluation.verdicts()[i].clone(),
    ))
}

/// Every entry point's connection details, read for one mesh.
type Endpoints = Arc<HashMap<EntryPointId, crate::store::Endpoint>>;

/// A user with their routes, and their subscription token when known.
pub type KeptUser = Arc<(meshwatch::views::UserSummary, Option<String>)>;

/// A report waiting for the group commit, with whom to answer.
struct Queued {
    witness: String,
    report: AgentReport,
    received_ms: i64,
    reply: tokio::sync::oneshot::Sender<Result<ReportAck, StoreError>>,
}

/// A queued report resolved against the mesh, ready to store.
struct Ready {
    witness_id: ServerId,
    w: usize,
    resolved: Vec<(usize, ProbeOutcome)>,
    ack: ReportAck,
    queued: Queued,
}

fn queue(queued: &std::sync::Mutex<Vec<Queued>>) -> std::sync::MutexGuard<'_, Vec<Queued>> {
    // Pushes and takes are whole: a poisoned queue is usable.
    queued
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub struct Engine {
    /// Pages read it while an evaluation runs (a shared lock); reports,
    /// evaluations and fleet changes swap their results in.
    state: RwLock<State>,
    endpoints: PerFleet<(), Endpoints>,
    users: PerFleet<UserId, KeptUser>,
    servers: PerFleet<ServerId, Arc<ServerSummary>>,
    /// Serialises "store durably, then apply in memory" so that memory and
    /// a replay after a crash apply reports in the same order.
    ingest: Arc<tokio::sync::Mutex<()>>,
    /// Reports waiting for the next group commit (see [`Engine::ingest`]).
    queued: std::sync::Mutex<Vec<Queued>>,
    /// Recorded verdict changes, for live pages.
    changes: broadcast::Sender<VerdictChange>,
    metrics: Arc<Metrics>,
    /// Moves on every change of what agents are told to probe (the fleet
    /// or the probe settings), so an agent learns of a new entry point on
    /// its next report rather than at its next config refresh. It starts
    /// from the start-up time, so a restarted panel never repeats a value.
    fleet_version: AtomicU64,
}

/// A report's probe results resolved against the mesh.
fn resolve(mesh: &Mesh, probes: &[ProbeReport]) -> (Vec<(usize, ProbeOutcome)>, u32) {
    let mut skipped = 0;
    let resolved = probes
        .iter()
        .filter_map(|p| {
            let e = EntryPointId::parse(&p.entry_point_id)
                .ok()
                .and_then(|id| mesh.entry_point_index(&id));
            if e.is_none() {
                skipped += 1;
            }
            e.map(|e| {
                (
                    e,
                    ProbeOutcome {
                        at_ms: to_ms(p.at),
                        ok: p.ok,
                        error: if p.ok { None } else { p.error },
                    },
                )
            })
        })
        .collect();
    (resolved, skipped)
}

fn now_ms() -> i64 {
    to_ms(chrono::Utc::now())
}

impl Engine {
    /// Rebuilds the state from the store: checkpointed pairs, latest
    /// self-reports, then the reports stored after the checkpoint.
    pub async fn load(store: &Store, metrics: Arc<Metrics>) -> Result<Self, StoreError> {
        let (servers, routes) = store.mesh_spec().await?;
        let mesh = Mesh::new(servers, routes);
        let settings = store.settings().await?;
        let snapshot = store.evidence_snapshot().await?;
        let mut evidence = Evidence::new(&mesh);
        for (server, received_ms, check) in snapshot.reports {
            if let Some(s) = mesh.server_index(&server) {
                evidence.record_report(s, received_ms, check);
            }
        }
        for row in snapshot.pairs {
            let w = mesh.server_index(&row.witness_id);
            let e = mesh.entry_point_index(&row.entry_point_id);
            if let (Some(w), Some(e)) = (w, e) {
                evidence.restore_pair(w, e, row.state);
            }
        }
        let mut dirty = HashSet::new();
        let mut applied_seq = 0;
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
            let (resolved, _) = resolve(&mesh, &probes);
            for (e, probe) in newest_per_entry_point(resolved) {
                if evidence.apply_probe(w, e, probe, pending.received_ms, settings.stale_after_ms())
                {
                    dirty.insert((w, e));
                }
            }
        }
        let evaluation = evaluate(&mesh, &evidence, &settings, now_ms());
        let witness_fault_at_load = evaluation.witness_fault().is_some();
        let published = store.latest_conditions().await?;
        Ok(Self {
            state: RwLock::new(State {
                mesh: Arc::new(mesh),
                evidence,
                evaluation,
                settings,
                dirty,
                applied_seq,
                published,
                written: HashMap::new(),
                written_seq: 0,
                witness_fault_told: witness_fault_at_load,
            }),
            ingest: Arc::default(),
            queued: std::sync::Mutex::default(),
            endpoints: PerFleet::default(),
            users: PerFleet::default(),
            servers: PerFleet::default(),
            changes: broadcast::channel(1024).0,
            metrics,
            fleet_version: AtomicU64::new(u64::try_from(now_ms()).unwrap_or(1)),
        })
    }

    // A panic while holding the lock leaves consistent data (every
    // mutation is a whole assignment), so a poisoned lock is usable.
    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// See [`Engine::fleet_version`]'s field.
    pub fn fleet_version(&self) -> u64 {
        self.fleet_version.load(Ordering::Relaxed)
    }

    pub fn settings(&self) -> Settings {
        self.read().settings
    }

    pub fn mesh(&self) -> Arc<Mesh> {
        self.read().mesh.clone()
    }

    /// Every entry point's connection details (subscriptions, the user
    /// card's preview, notifications), read once per fleet change.
    pub async fn endpoints(&self, store: &Store) -> Result<Endpoints, StoreError> {
        let read = async { store.endpoints().await.map(|e| Some(Arc::new(e))) };
        let kept = self.endpoints.get_or_read(self.mesh(), (), read).await?;
        Ok(kept.unwrap_or_default())
    }

    /// A user with their routes and subscription token, read once per
    /// fleet change; `None` for an unknown user.
    pub async fn user(&self, store: &Store, id: &UserId) -> Result<Option<KeptUser>, StoreError> {
        let read = async { store.user(id).await.map(|u| u.map(Arc::new)) };
        self.users.get_or_read(self.mesh(), id.clone(), read).await
    }

    /// A server's fleet data (name, routes, entry points, verifier mark:
    /// every change to them reloads the fleet), read once per fleet change;
    /// `None` for an unknown server.
    pub async fn server(
        &self,
        store: &Store,
        id: &ServerId,
    ) -> Result<Option<Arc<ServerSummary>>, StoreError> {
        let read = async { store.server(id).await.map(|s| s.map(Arc::new)) };
        self.servers
            .get_or_read(self.mesh(), id.clone(), read)
            .await
    }

    /// The mesh matrix as of the last evaluation, with the mesh it indexes.
    pub fn matrix(&self) -> (Arc<Mesh>, Vec<meshwatch::verdict::MeshCell>, u32) {
        let state = self.read();
        let cells = state.evaluation.matrix(&state.mesh, &state.evidence);
        (state.mesh.clone(), cells, state.settings.failure_streak)
    }

    /// Works on the current verdicts in place (no copy of the fleet's
    /// verdicts for a page that needs a few of them).
    pub fn with_verdicts<R>(&self, f: impl FnOnce(&Mesh, &[Verdict]) -> R) -> R {
        let state = self.read();
        f(&state.mesh, state.evaluation.verdicts())
    }

    /// The current verdict of one server, with the mesh that indexes it.
    pub fn verdict(&self, id: &ServerId) -> Option<(Arc<Mesh>, usize, Verdict)> {
        verdict_in(&self.read(), id)
    }

    /// A mark that moves whenever the server's latest report or status
    /// history grows in the store. It moves after the write, so whatever is
    /// read from the store after taking it is at least that new.
    pub fn written(&self, id: &ServerId) -> u64 {
        self.read().written.get(id).copied().unwrap_or(0)
    }

    /// One server's verdict and what the fresh reliable witnesses that
    /// probe it say, by country (for its card only).
    pub fn server_card(&self, id: &ServerId) -> Option<(Arc<Mesh>, Verdict, Vec<CountryOpinion>)> {
        // One lock: the index must belong to the evaluation it reads.
        let state = self.read();
        let (mesh, i, verdict) = verdict_in(&state, id)?;
        let witness = |w: usize| (mesh.country_of(w), mesh.server(w).name.as_str());
        let reaching = state.evaluation.seeing_witnesses(&mesh, i).map(witness);
        let failing = verdict
            .quorum
            .failing_witnesses
            .iter()
            .filter_map(|id| mesh.server_index(id))
            .map(witness);
        let opinions = CountryOpinion::group(mesh.countries(), reaching, failing);
        Some((mesh, verdict, opinions))
    }

    /// Re-evaluates everything at the current time and returns the
    /// verdicts whose conditions differ from the last recorded ones.
    pub async fn tick(self: &Arc<Self>) -> Vec<VerdictChange> {
        // A report applied between the evaluation and its swap-in would be
        // lost with the old evaluation: reports wait (they are ordered by
        // this lock anyway). Pages do not: the evaluation itself, the long
        // part, holds the state only for reading, and off the async
        // workers, so the requests queued on one are not held up by it.
        let _order = self.ingest.lock().await;
        let engine = self.clone();
        let evaluated = tokio::task::spawn_blocking(move || {
            let state = engine.read();
            let timer = engine.metrics.evaluation_seconds.start_timer();
            let evaluation = evaluate(&state.mesh, &state.evidence, &state.settings, now_ms());
            timer.observe_duration();
            evaluation
        })
        .await;
        let evaluation = match evaluated {
            Ok(evaluation) => evaluation,
            Err(err) => {
                // Nothing was swapped in: the next tick tries again.
                tracing::error!(error = %err, "evaluation failed");
                return Vec::new();
            }
        };
        self.metrics.observe_verdicts(evaluation.verdicts());
        let mut state = self.write();
        state.evaluation = evaluation;
        let at = chrono::Utc::now();
        state
            .evaluation
            .verdicts()
            .iter()
            .filter_map(|v| {
                let previous = state.published.get(&v.server);
                (previous != Some(&v.conditions)).then(|| VerdictChange {
                    server: v.server.clone(),
                    status: v.status,
                    conditions: v.conditions.clone(),
                    previous: previous.cloned().unwrap_or_default(),
                    at,
                })
            })
            .collect()
    }

    /// Most witnesses can't reach most servers, as of the last evaluation.
    pub fn witness_fault(&self) -> Option<WitnessFault> {
        self.read().evaluation.witness_fault()
    }

    /// A whole-fleet fault the operator has not been told of yet (then it
    /// counts as told); `None` otherwise. Once it ends, the next one is a
    /// new incident.
    pub fn witness_fault_to_tell(&self) -> Option<WitnessFault> {
        let mut state = self.write();
        let fault = state.evaluation.witness_fault();
        let told = std::mem::replace(&mut state.witness_fault_told, fault.is_some());
        fault.filter(|_| !told)
    }

    /// The changes are in the status history: remember them and push them
    /// to live pages.
    pub fn mark_published(&self, changes: &[VerdictChange]) {
        let mut state = self.write();
        for c in changes {
            state
                .published
                .insert(c.server.clone(), c.conditions.clone());
            state.mark_written(&c.server);
        }
        drop(state);
        for c in changes {
            // No subscriber is fine: nobody has a page open.
            let _ = self.changes.send(c.clone());
        }
    }

    /// A stream of recorded verdict changes.
    pub fn subscribe(&self) -> broadcast::Receiver<VerdictChange> {
        self.changes.subscribe()
    }

    /// Stores a report durably, then applies it; the ack is sent after
    /// the commit. Reports that arrive while a commit runs wait and are
    /// committed together in one transaction (group commit), so the fsync
    /// that `synchronous=FULL` costs is shared by every report of a burst.
    pub async fn ingest(
        self: &Arc<Self>,
        store: &Store,
        witness: &str,
        report: AgentReport,
        received_ms: i64,
    ) -> Result<ReportAck, StoreError> {
        let (reply, mut answer) = tokio::sync::oneshot::channel();
        queue(&self.queued).push(Queued {
            witness: witness.to_owned(),
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
                order = self.ingest.clone().lock_owned() => {
                    let batch = std::mem::take(&mut *queue(&self.queued));
                    if batch.is_empty() {
                        // Ours was committed by the holder before us.
                        continue;
                    }
                    // A task of its own: a caller whose connection drops
                    // must not abandon the other callers' reports half-way.
                    let (engine, store) = (self.clone(), store.clone());
                    let _ = tokio::spawn(async move {
                        engine.commit_batch(&store, batch).await;
                        drop(order);
                    })
                    .await;
                }
            }
        }
    }

    /// Stores a batch of reports in one transaction, then applies the new
    /// ones in their stored order and answers each caller.
    async fn commit_batch(&self, store: &Store, batch: Vec<Queued>) {
        let mut ready = Vec::with_capacity(batch.len());
        {
            let state = self.read();
            for mut queued in batch {
                // Stored with its times on the panel's clock: a replay after
                // a crash then needs neither the receipt clock nor the agent's.
                meshwatch::intake::normalize(&mut queued.report, queued.received_ms);
                let witness_id = ServerId::parse(&queued.witness).ok();
                let w = witness_id
                    .as_ref()
                    .and_then(|id| state.mesh.server_index(id));
                let (Some(w), Some(witness_id)) = (w, witness_id) else {
                    // Its token was checked before the server left the fleet.
                    let message = format!("server {:?} is no longer in the fleet", queued.witness);
                    let _ = queued.reply.send(Err(StoreError::Rejected {
                        code: "unknown_server",
                        message,
                    }));
                    continue;
                };
                // Every known result is accepted; only the newest of each
                // pair then counts (here and when a stored report is replayed).
                let (known, skipped) = resolve(&state.mesh, &queued.report.probes);
                let ack = ReportAck {
                    accepted_probes: u32::try_from(known.len()).unwrap_or(u32::MAX),
                    skipped_probes: skipped,
                    fleet_version: self.fleet_version(),
                };
                ready.push(Ready {
                    witness_id,
                    w,
                    resolved: newest_per_entry_point(known),
                    ack,
                    queued,
                });
            }
        }
        let rows: Vec<_> = ready
            .iter()
            .map(|r| (&r.witness_id, &r.queued.report, r.queued.received_ms, r.ack))
            .collect();
        let stored = match store.store_reports(&rows).await {
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
        let mut state = self.write();
        for (r, stored) in ready.into_iter().zip(stored) {
            let seq = match stored {
                StoredReport::Duplicate(first) => {
                    let _ = r.queued.reply.send(Ok(ReportAck {
                        fleet_version: self.fleet_version(),
                        ..first
                    }));
                    continue;
                }
                StoredReport::New { seq } => seq,
            };
            self.metrics.reports_ingested.inc();
            self.metrics
                .probe_results_skipped
                .inc_by(u64::from(r.ack.skipped_probes));
            state.applied_seq = seq;
            state.mark_written(&r.witness_id);
            let State {
                mesh,
                evidence,
                evaluation,
                dirty,
                ..
            } = &mut *state;
            let (_, applied) = evaluation.apply_report(
                mesh,
                evidence,
                r.w,
                r.queued.received_ms,
                r.queued.report.self_check.clone(),
                &r.resolved,
            );
            self.metrics.probe_results_applied.inc_by(applied as u64);
            dirty.extend(r.resolved.iter().map(|(e, _)| (r.w, *e)));
            let _ = r.queued.reply.send(Ok(r.ack));
        }
    }

    /// Writes the pairs changed since the last checkpoint.
    pub async fn checkpoint(&self, store: &Store) -> Result<usize, StoreError> {
        let _order = self.ingest.lock().await;
        let (rows, applied_seq) = {
            let mut state = self.write();
            let dirty: Vec<(usize, usize)> = state.dirty.drain().collect();
            let rows: Vec<PairRow> = dirty
                .into_iter()
                .map(|(w, e)| PairRow {
                    witness_id: state.mesh.server(w).id.clone(),
                    entry_point_id: state.mesh.entry_point_id(e).clone(),
                    state: *state.evidence.pair(w, e),
                })
                .collect();
            (rows, state.applied_seq)
        };
        store.checkpoint(&rows, applied_seq).await?;
        Ok(rows.len())
    }

    /// The fleet changed: rebuild the mesh, keeping the evidence of
    /// everything that still exists.
    pub async fn reload_fleet(&self, store: &Store) -> Result<(), StoreError> {
        self.change_fleet(store, async { Ok(()) }).await
    }

    /// Runs `change` (a fleet write) and rebuilds the mesh, with reports and
    /// checkpoints held off for both: a report of a server being removed
    /// must not slip in between (nor a checkpoint write its pairs back).
    pub async fn change_fleet<T>(
        &self,
        store: &Store,
        change: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        // Ingest resolves entry points against the mesh before its await:
        // the mesh must not change under it.
        let _order = self.ingest.lock().await;
        let out = change.await?;
        self.rebuild_mesh(store).await?;
        Ok(out)
    }

    /// The mesh from the store (the caller holds the ingest order).
    async fn rebuild_mesh(&self, store: &Store) -> Result<(), StoreError> {
        let (servers, routes) = store.mesh_spec().await?;
        let mesh = Mesh::new(servers, routes);
        let mut state = self.write();
        let evidence = mesh.carry_over(&state.mesh, &state.evidence);
        let dirty = state
            .dirty
            .iter()
            .filter_map(|&(w, e)| {
                let nw = mesh.server_index(&state.mesh.server(w).id)?;
                let ne = mesh.entry_point_index(state.mesh.entry_point_id(e))?;
                Some((nw, ne))
            })
            .collect();
        state.evaluation = evaluate(&mesh, &evidence, &state.settings, now_ms());
        state.evidence = evidence;
        state.dirty = dirty;
        state.mesh = Arc::new(mesh);
        self.fleet_version.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Stores validated settings, then evaluates with them from now on.
    pub async fn apply_settings(&self, store: &Store, next: Settings) -> Result<(), StoreError> {
        // Like a tick's: an evaluation under the old settings must not be
        // swapped in after this one.
        let _order = self.ingest.lock().await;
        store.save_settings(&next).await?;
        let mut state = self.write();
        state.settings = next;
        state.evaluation = evaluate(&state.mesh, &state.evidence, &next, now_ms());
        self.fleet_version.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
