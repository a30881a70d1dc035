//! Actions (docs/PRODUCT.md §6): runs are queued with the status changes that
//! start their incidents (see [`runs_for`]), and the [`Runner`] carries
//! each out once it is due — if its incident still stands, its server is
//! not in a maintenance window and actions are switched on. A failed run
//! is retried with backoff; a run is never queued twice for one incident.

mod execute;

use crate::engine::{Clock, ReadModel};
use crate::store::{Attempt, DueRun, Endpoint, NewActionRun, NewNotification, Store, StoreError};
use meshwatch::actions::{
    mass_gate, retry_after, Action, ActionEvent, EventFacts, HostPolicy, MassGate, OffReason,
    OverBudget, MAX_ATTEMPTS, RUN_TIMEOUT_SECS,
};
use meshwatch::status::ServerStatus;
use meshwatch::verdict::{BlockKind, VerdictChange};
use meshwatch_views::views::NotificationKind;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// How often due runs are looked for.
const POLL: Duration = Duration::from_secs(1);
/// Runs claimed at a time.
const CLAIM: i64 = 8;
/// How soon a run held by the mass block guard is looked at again.
const MASS_BLOCK_RECHECK: chrono::Duration = chrono::Duration::seconds(5);

/// The runs a batch of recorded changes calls for: one per action whose
/// event one of them starts (and, for a `blocked` action limited to block
/// kinds, whose server's blocks, `kinds_of`, are of one of them), due
/// `after_minutes` later.
pub fn runs_for(
    changes: &[VerdictChange],
    actions: &[Action],
    kinds_of: impl Fn(&meshwatch::ServerId) -> Vec<BlockKind>,
) -> Vec<NewActionRun> {
    changes
        .iter()
        .flat_map(|change| {
            let kinds = kinds_of(&change.server);
            actions
                .iter()
                .filter(move |a| a.on.starts_with(change) && a.runs_on(&kinds))
                .map(move |a| NewActionRun {
                    action_id: a.id,
                    action_name: a.name.clone(),
                    server_id: change.server.clone(),
                    event: a.on,
                    incident_at: change.at,
                    due_at: change.at + chrono::Duration::minutes(i64::from(a.after_minutes)),
                })
        })
        .collect()
}

/// Whether a batch of changes could start any incident (else the actions
/// are not even read).
pub fn may_start_incidents(changes: &[VerdictChange]) -> bool {
    changes
        .iter()
        .any(|c| ActionEvent::ALL.iter().any(|e| e.starts_with(c)))
}

/// Carries out due runs.
pub struct Runner {
    pub store: Store,
    pub read_model: Arc<ReadModel>,
    pub clock: Clock,
    /// What this host lets actions do: checked again before every run.
    pub policy: Arc<HostPolicy>,
    /// Where the operator is told that actions switched themselves off.
    pub targets: Arc<Vec<crate::outbound::notify::Target>>,
    /// Counts finished rounds (`meshwatch_action_rounds_total`).
    pub rounds: prometheus::IntCounter,
}

impl Runner {
    pub fn new(
        store: Store,
        read_model: Arc<ReadModel>,
        clock: Clock,
        policy: Arc<HostPolicy>,
        targets: Arc<Vec<crate::outbound::notify::Target>>,
        rounds: prometheus::IntCounter,
    ) -> Self {
        Self {
            store,
            read_model,
            clock,
            policy,
            targets,
            rounds,
        }
    }

    /// Runs due actions forever. The one panel of a SQLite database
    /// first records the runs it left running when it stopped as
    /// interrupted; replicas of a PostgreSQL database do so when a run's
    /// lease runs out (see [`Runner::pass`]).
    pub async fn run(self) {
        let runner = Arc::new(self);
        if runner.store.shared().is_none() {
            match runner
                .store
                .interrupt_lapsed_runs(runner.clock.now(), true)
                .await
            {
                Ok(0) => {}
                Ok(n) => tracing::warn!(
                    runs = n,
                    "action runs interrupted by the panel's stop: not started again by themselves"
                ),
                Err(err) => tracing::error!(error = %err, "cannot record interrupted action runs"),
            }
        }
        loop {
            if let Err(err) = runner.clone().pass().await {
                tracing::error!(error = %err, "action round failed");
            }
            runner.rounds.inc();
            tokio::time::sleep(POLL).await;
        }
    }

    /// One round: claims the due runs one by one and decides each (still
    /// called for, armed on this host, within the budget) before the next
    /// is claimed, so the budget counts every run started before it; the
    /// runs that go ahead are carried out side by side (a slow command
    /// does not hold the others up).
    pub async fn pass(self: Arc<Self>) -> Result<(), StoreError> {
        let interrupted = self
            .store
            .interrupt_lapsed_runs(self.clock.now(), false)
            .await?;
        if interrupted > 0 {
            tracing::warn!(runs = interrupted, "action runs whose panel stopped mid-run are interrupted: not started again by themselves");
        }
        // Longer than any run may take: a lease runs out only for a panel
        // that stopped mid-run.
        let lease = chrono::Duration::seconds(i64::try_from(RUN_TIMEOUT_SECS * 5).unwrap_or(300));
        // A decision holds while its verifier's guard does.
        self.store
            .forget_mass_block_decisions(&self.guarded_verifiers())
            .await?;
        let mut tasks = Vec::new();
        for _ in 0..CLAIM {
            let Some(run) = self
                .store
                .claim_due_runs(self.clock.now(), lease, 1)
                .await?
                .pop()
            else {
                break;
            };
            let Some((action, facts)) = self.still_called_for(&run).await? else {
                tracing::info!(run = run.id, server = %run.server_id, "action run skipped: no longer called for");
                self.store.skip_run(run.id).await?;
                continue;
            };
            match self.mass_gate(&run).await? {
                MassGate::Open => {}
                MassGate::Held => {
                    // Asked again a little later: the operator decides on
                    // the Overview, or the guard clears.
                    self.store
                        .hold_run(run.id, self.clock.now() + MASS_BLOCK_RECHECK)
                        .await?;
                    continue;
                }
                MassGate::Dismissed => {
                    self.refuse(
                        &run,
                        "not run: the operator dismissed the actions of this mass block".into(),
                    )
                    .await?;
                    continue;
                }
            }
            if let Some(why) = self.policy.disarmed(&action.kind) {
                // A command restored from another host's database, say: it
                // is recorded as not run, with why, and never tried again.
                tracing::warn!(action = %action.name, "action not run: {why}");
                self.refuse(&run, format!("not run: {why}")).await?;
                continue;
            }
            if let Err(over) = self.within_budget(&run).await? {
                tracing::error!(action = %action.name, server = %run.server_id, "action not run, actions switched off: over budget ({over})");
                // Off first: once the run says so, the switch is off.
                self.switch_off(over).await?;
                self.refuse(
                    &run,
                    format!("not run: over budget ({over}); actions switched themselves off"),
                )
                .await?;
                continue;
            }
            let runner = self.clone();
            tasks.push(tokio::spawn(async move {
                let id = run.id;
                if let Err(err) = runner.carry_out(run, action, facts).await {
                    tracing::error!(run = id, error = %err, "cannot record an action run");
                }
            }));
        }
        for task in tasks {
            let _ = task.await;
        }
        Ok(())
    }

    /// The verifiers under the mass block guard now.
    fn guarded_verifiers(&self) -> Vec<meshwatch::ServerId> {
        self.read_model
            .mass_blocks()
            .into_iter()
            .map(|m| m.verifier)
            .collect()
    }

    /// Whether a `blocked` run waits for the operator: the mass block
    /// guard holds for every verifier that sees its server blocked.
    async fn mass_gate(&self, run: &DueRun) -> Result<MassGate, StoreError> {
        if run.event != ActionEvent::Blocked {
            return Ok(MassGate::Open);
        }
        let guarded = self.guarded_verifiers();
        let Some((_, _, verdict)) = self.read_model.verdict(&run.server_id) else {
            return Ok(MassGate::Open);
        };
        let decisions = self.store.mass_block_decisions().await?;
        Ok(mass_gate(&verdict.blocked_by, &guarded, |v| {
            decisions.iter().find(|(d, _)| d == v).map(|(_, d)| *d)
        }))
    }

    /// Whether `run` may start within the budget: the runs started in the
    /// last hour across the fleet, and this action's last run for this
    /// server against the cooldown.
    async fn within_budget(&self, run: &DueRun) -> Result<Result<(), OverBudget>, StoreError> {
        let budget = self.store.action_budget().await?;
        let now = self.clock.now();
        let (started, recent) = self
            .store
            .runs_started(
                now - chrono::Duration::hours(1),
                run.action_id,
                &run.server_id,
                now - chrono::Duration::seconds(i64::from(budget.cooldown_s)),
                run.id,
            )
            .await?;
        Ok(budget.allows(started, recent))
    }

    /// Actions switch themselves off, and the operator is told on every
    /// channel (once: not again while they stay off).
    async fn switch_off(&self, over: OverBudget) -> Result<(), StoreError> {
        let lang = self.store.notify_lang().await?.unwrap_or_default();
        let now = self.clock.now();
        let notice = lang.actions_off_notice(over, now);
        let message = NewNotification {
            block_kinds: Vec::new(),
            kind: NotificationKind::ActionsOff,
            server_id: None,
            target: crate::store::Recipient::default(),
            subject: notice.subject,
            body: notice.body,
            created_at: now,
        };
        let messages: Vec<NewNotification> = self.targets.iter().map(|t| message.to(t)).collect();
        self.store
            .switch_actions_off_for(OffReason::Budget, &messages)
            .await?;
        Ok(())
    }

    async fn carry_out(
        &self,
        run: DueRun,
        action: Action,
        facts: EventFacts,
    ) -> Result<(), StoreError> {
        let started_at = self.clock.now();
        let started = std::time::Instant::now();
        let outcome = execute::attempt(&action.kind, &facts, &self.policy).await;
        let attempts = run.attempts + 1;
        let retry_at = (!outcome.ok && attempts < MAX_ATTEMPTS)
            .then(|| self.clock.now() + retry_after(attempts));
        tracing::info!(
            run = run.id,
            action = %action.name,
            server = %run.server_id,
            event = run.event.as_str(),
            ok = outcome.ok,
            attempts,
            "action ran"
        );
        let took = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        self.record(&run, outcome, (started_at, took), retry_at)
            .await
    }

    /// Records an attempt of `run` that started at `started_at` and took
    /// `took_ms` (one not made: `outcome` says why); `retry_at` is when the
    /// next follows, if one does.
    async fn record(
        &self,
        run: &DueRun,
        outcome: execute::Outcome,
        (started_at, took_ms): (chrono::DateTime<chrono::Utc>, i64),
        retry_at: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<(), StoreError> {
        self.store
            .record_attempt(
                run.id,
                &Attempt {
                    started_at,
                    duration_ms: took_ms,
                    exit_status: outcome.exit_status,
                    http_status: outcome.http_status,
                    output: outcome.output,
                    ok: outcome.ok,
                    retry_at,
                },
            )
            .await
    }

    /// An attempt not made: now, taking no time, never retried.
    async fn refuse(&self, run: &DueRun, why: String) -> Result<(), StoreError> {
        let now = (self.clock.now(), 0);
        self.record(run, execute::Outcome::refused(why), now, None)
            .await
    }

    /// The action and what it is told, while the run is still called for:
    /// actions on, the action kept, the server in the fleet and out of any
    /// maintenance window, and its incident standing.
    async fn still_called_for(
        &self,
        run: &DueRun,
    ) -> Result<Option<(Action, EventFacts)>, StoreError> {
        if !self.store.actions_enabled().await? {
            return Ok(None);
        }
        let Some(action) = self
            .store
            .actions()
            .await?
            .into_iter()
            .find(|a| a.id == run.action_id)
        else {
            return Ok(None);
        };
        let Some((mesh, index, verdict)) = self.read_model.verdict(&run.server_id) else {
            return Ok(None);
        };
        let derived: Vec<ServerStatus> = verdict
            .conditions
            .iter()
            .copied()
            .filter(|c| *c != ServerStatus::Maintenance)
            .collect();
        if verdict.maintenance.is_some_and(|m| m.active) || !run.event.still_holds(&derived) {
            return Ok(None);
        }
        // A block of another kind now (an IP block that became SNI
        // filtering) no longer calls for an action limited to kinds.
        let kinds = if run.event == ActionEvent::Blocked {
            verdict.block_kinds()
        } else {
            Vec::new()
        };
        if !action.runs_on(&kinds) {
            return Ok(None);
        }
        // One continuous holding: a verdict that cleared since the
        // incident started and came back is another incident.
        let recorded = self
            .store
            .conditions_since(&run.server_id, run.incident_at)
            .await?;
        if !run
            .event
            .held_throughout(recorded.iter().map(Vec::as_slice))
        {
            return Ok(None);
        }
        let endpoints = self.read_model.endpoints().await?;
        let server = mesh.server(index);
        let points: Vec<&Endpoint> = server
            .entry_points
            .iter()
            .filter_map(|e| endpoints.get(&e.id))
            .collect();
        let addresses = crate::outbound::notify::addresses(&mesh, index, &endpoints);
        // The server as a fleet document holds it: a script that moved it
        // PUTs it back with its new host.
        let document = json!({
            "id": server.id,
            "name": server.name,
            "country": server.country,
            "routes": server.routes,
            "entry_points": points.iter().map(|e| json!({
                "id": e.id, "protocol": e.protocol, "host": e.host, "port": e.port,
                "sni": e.sni, "params": e.params,
            })).collect::<Vec<_>>(),
        });
        let facts = EventFacts {
            event: run.event,
            server_id: server.id.clone(),
            server_name: server.name.clone(),
            addresses,
            since: run.incident_at,
            action: action.name.clone(),
            server: document,
            kinds,
        };
        Ok(Some((action, facts)))
    }
}
