//! The evaluator's heartbeat. Once a second it re-evaluates (so staleness
//! takes effect without reports), tells the operator of a whole-fleet
//! fault, records the verdict changes — status history and the
//! notifications they call for, in one transaction — and only then
//! publishes them to live pages. Every [`CHECKPOINT_EVERY`] it checkpoints
//! changed pairs and prunes old metrics.
//!
//! On a replica that does not evaluate (see [`super::Replication`]) a tick
//! catches up on the reports the others stored, re-evaluates for its own
//! pages and tells them of the changes the evaluator recorded.
//!
//! A [`Ticks`] handle runs a tick at once and waits for it: tests that
//! advance a manual clock then see its effect without waiting a second.

use super::{Broadcaster, Clock, Evaluator, ReadModel, CHANGES_RECORDED};
use crate::outbound::notify::Target;
use crate::store::{Store, StoreError};
use meshwatch::verdict::VerdictChange;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long metrics samples (for charts) and report ids are kept.
const RETENTION: chrono::Duration = chrono::Duration::days(7);

/// How often pair state is checkpointed to the store.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(30);

/// Asks the ticker for a tick now; answered once it is done.
type TickRequest = oneshot::Sender<()>;

/// Runs ticks on demand (see [`Ticks::tick`]).
#[derive(Clone)]
pub struct Ticks {
    requests: mpsc::Sender<TickRequest>,
}

impl Ticks {
    /// Runs a tick now, and returns once its changes are recorded and
    /// published (at once if the ticker has stopped).
    pub async fn tick(&self) {
        let (done, ticked) = oneshot::channel();
        if self.requests.send(done).await.is_ok() {
            let _ = ticked.await;
        }
    }
}

pub struct Ticker {
    pub evaluator: Arc<Evaluator>,
    /// Where the notifications find the entry points they name.
    pub read_model: Arc<ReadModel>,
    pub broadcaster: Broadcaster,
    pub store: Store,
    pub clock: Clock,
    /// Where notifications go.
    pub targets: Vec<Target>,
}

impl Ticker {
    /// Ticks until the task is dropped: once a second, and whenever `Ticks` asks.
    pub fn start(self) -> (tokio::task::JoinHandle<()>, Ticks) {
        let (requests, asked) = mpsc::channel(8);
        let both = async move {
            // One task (stopping it stops both), two loops: a long
            // checkpoint does not hold the ticks up.
            tokio::join!(self.run(asked), self.housekeep());
        };
        (tokio::spawn(both), Ticks { requests })
    }

    /// Checkpoints and prunes every [`CHECKPOINT_EVERY`], while this
    /// replica evaluates.
    async fn housekeep(&self) {
        let mut every = tokio::time::interval(CHECKPOINT_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick of an interval is at once: none right at start.
        every.tick().await;
        loop {
            every.tick().await;
            if self.evaluator.evaluating() {
                self.housekeeping().await;
            }
        }
    }

    async fn run(&self, mut asked: mpsc::Receiver<TickRequest>) {
        let mut every_second = tokio::time::interval(Duration::from_secs(1));
        every_second.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut can_ask = true;
        loop {
            let request = tokio::select! {
                _ = every_second.tick() => None,
                request = asked.recv(), if can_ask => {
                    can_ask = request.is_some();
                    match request {
                        Some(request) => Some(request),
                        None => continue,
                    }
                }
            };
            self.tick().await;
            if let Some(done) = request {
                let _ = done.send(());
            }
        }
    }

    async fn tick(&self) {
        // Reports other replicas stored (in case a notification was lost).
        if let Err(err) = self.evaluator.catch_up().await {
            tracing::error!(error = %err, "cannot apply the reports other replicas stored");
        }
        let changes = self.evaluator.tick().await;
        if !self.evaluator.evaluating() {
            // Another replica records; this one tells its own live pages.
            match self.evaluator.follow_history().await {
                Ok(recorded) => self.broadcaster.publish(&recorded),
                Err(err) => tracing::error!(error = %err, "cannot read the status history"),
            }
            return;
        }
        if let Some(fault) = self.evaluator.witness_fault_to_tell() {
            let queued = async {
                let lang = self.store.notify_lang().await?.unwrap_or_default();
                let messages = crate::outbound::notify::witness_fault(
                    fault,
                    self.clock.now(),
                    lang,
                    &self.targets,
                );
                self.store.queue_notifications(&messages).await
            };
            match queued.await {
                Ok(()) => {
                    self.evaluator.witness_fault_told();
                    tracing::warn!(
                    unreliable = fault.unreliable,
                    witnesses = fault.witnesses,
                    "most witnesses can't reach most servers: the witnesses' network is probably down"
                    )
                }
                // Not told: the next tick tries again.
                Err(err) => {
                    tracing::error!(error = %err, "cannot queue the whole-fleet fault notification")
                }
            }
        }
        if !changes.is_empty() {
            match self.record(&changes).await {
                Ok(()) => {
                    self.broadcaster.publish(&changes);
                    if let Err(err) = self.store.announce(CHANGES_RECORDED).await {
                        tracing::warn!(error = %err, "cannot tell the other replicas of the changes");
                    }
                }
                // Not recorded: the next tick finds the same changes and retries.
                Err(err) => {
                    tracing::error!(error = %err, "cannot record status changes; will retry")
                }
            }
        }
    }

    /// Status history rows and, for blocks starting or clearing, the
    /// notifications (in the operator's panel language, else English), and
    /// the action runs the changes call for — in one transaction.
    async fn record(&self, changes: &[VerdictChange]) -> Result<(), StoreError> {
        let wants_mail = changes
            .iter()
            .any(|c| c.became_blocked() || c.block_cleared());
        let notifications = if wants_mail {
            let endpoints = self.read_model.endpoints().await?;
            let lang = self.store.notify_lang().await?.unwrap_or_default();
            self.read_model.with_verdicts(|mesh, verdicts| {
                crate::outbound::notify::for_changes(
                    changes,
                    mesh,
                    verdicts,
                    &endpoints,
                    lang,
                    &self.targets,
                )
            })
        } else {
            Vec::new()
        };
        let runs = if crate::outbound::actions::may_start_incidents(changes) {
            let actions = self.store.actions().await?;
            self.read_model.with_verdicts(|mesh, verdicts| {
                crate::outbound::actions::runs_for(changes, &actions, |server| {
                    mesh.server_index(server)
                        .map(|i| verdicts[i].block_kinds())
                        .unwrap_or_default()
                })
            })
        } else {
            Vec::new()
        };
        self.evaluator.record(changes, &notifications, &runs).await
    }

    /// The periodic checkpoint of changed pairs, and pruning.
    async fn housekeeping(&self) {
        if let Err(err) = self.evaluator.checkpoint().await {
            tracing::error!(error = %err, "pair-state checkpoint failed; will retry");
        }
        let horizon = self.clock.now() - RETENTION;
        if let Err(err) = self.store.prune(horizon.timestamp_millis()).await {
            tracing::error!(error = %err, "pruning old metrics failed; will retry");
        }
    }
}
