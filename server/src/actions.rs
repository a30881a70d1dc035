//! Actions (PRODUCT.md §6): runs are queued with the status changes that
//! start their incidents (see [`runs_for`]), and the [`Runner`] carries
//! each out once it is due — if its incident still stands, its server is
//! not in a maintenance window and actions are switched on. A failed run
//! is retried with backoff; a run is never queued twice for one incident.

mod execute;

use crate::engine::{Clock, ReadModel};
use crate::store::{Attempt, DueRun, Endpoint, NewActionRun, Store, StoreError};
use meshwatch::actions::{
    retry_after, Action, ActionEvent, EventFacts, MAX_ATTEMPTS, RUN_TIMEOUT_SECS,
};
use meshwatch::status::ServerStatus;
use meshwatch::verdict::VerdictChange;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// How often due runs are looked for.
const POLL: Duration = Duration::from_secs(1);
/// Runs claimed at a time.
const CLAIM: i64 = 8;

/// The runs a batch of recorded changes calls for: one per action whose
/// event one of them starts, due `after_minutes` later.
pub fn runs_for(changes: &[VerdictChange], actions: &[Action]) -> Vec<NewActionRun> {
    changes
        .iter()
        .flat_map(|change| {
            actions
                .iter()
                .filter(|a| a.on.starts_with(change))
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
    pub http: reqwest::Client,
}

impl Runner {
    pub fn new(store: Store, read_model: Arc<ReadModel>, clock: Clock) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(RUN_TIMEOUT_SECS))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Self {
            store,
            read_model,
            clock,
            http,
        }
    }

    /// Runs due actions forever.
    pub async fn run(self) {
        let runner = Arc::new(self);
        loop {
            if let Err(err) = runner.clone().pass().await {
                tracing::error!(error = %err, "action round failed");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// One round: claims the due runs and carries each out (side by side:
    /// a slow command does not hold the others up).
    pub async fn pass(self: Arc<Self>) -> Result<(), StoreError> {
        // Longer than any run may take: a lease runs out only for a panel
        // that stopped mid-run.
        let lease = chrono::Duration::seconds(i64::try_from(RUN_TIMEOUT_SECS * 5).unwrap_or(300));
        let due = self
            .store
            .claim_due_runs(self.clock.now(), lease, CLAIM)
            .await?;
        let tasks: Vec<_> = due
            .into_iter()
            .map(|run| {
                let runner = self.clone();
                tokio::spawn(async move {
                    let id = run.id;
                    if let Err(err) = runner.carry_out(run).await {
                        tracing::error!(run = id, error = %err, "cannot record an action run");
                    }
                })
            })
            .collect();
        for task in tasks {
            let _ = task.await;
        }
        Ok(())
    }

    async fn carry_out(&self, run: DueRun) -> Result<(), StoreError> {
        let Some((action, facts)) = self.still_called_for(&run).await? else {
            tracing::info!(run = run.id, server = %run.server_id, "action run skipped: no longer called for");
            return self.store.skip_run(run.id).await;
        };
        let started_at = self.clock.now();
        let clock = std::time::Instant::now();
        let outcome = execute::attempt(&self.http, &action.kind, &facts).await;
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
        self.store
            .record_attempt(
                run.id,
                &Attempt {
                    started_at,
                    duration_ms: i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX),
                    exit_status: outcome.exit_status,
                    http_status: outcome.http_status,
                    output: outcome.output,
                    ok: outcome.ok,
                    retry_at,
                },
            )
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
        let endpoints = self.read_model.endpoints().await?;
        let server = mesh.server(index);
        let points: Vec<&Endpoint> = server
            .entry_points
            .iter()
            .filter_map(|e| endpoints.get(e))
            .collect();
        let addresses = crate::notify::addresses(&mesh, index, &endpoints);
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
        };
        Ok(Some((action, facts)))
    }
}
