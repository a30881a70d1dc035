//! Actions (docs/PRODUCT.md §6) and their runs: a run is queued with the status
//! change that starts its incident (in the same transaction), claimed
//! with a lease when due, and its latest attempt recorded.

use super::{corrupt, Attempt, DueRun, NewActionRun, Store, StoreError, Tx};
use chrono::{DateTime, Utc};
use meshwatch::actions::{
    Action, ActionBudget, ActionEvent, ActionId, ActionKind, ActionRun, MassDecision, NewAction,
    OffReason, RunOutcome, MAX_ACTIONS,
};
use meshwatch::ServerId;
use std::sync::LazyLock;

#[derive(sqlx::FromRow)]
struct ActionRow {
    id: i64,
    name: String,
    event: String,
    after_minutes: i64,
    command: Option<String>,
    http: Option<String>,
    kinds: String,
}

/// What a call that does not open with this panel's key reads as: it
/// names no address, so it cannot run.
const UNOPENABLE_CALL: &str =
    r#"{"url":"http://sealed-with-another-key.invalid/","method":"POST","headers":{}}"#;

impl ActionRow {
    /// The action, its HTTP call opened with `open` (sealed at rest).
    fn into_action(self, open: impl Fn(i64, &str) -> Option<String>) -> Result<Action, StoreError> {
        let ActionRow {
            id,
            name,
            event: on,
            after_minutes,
            command,
            http,
            kinds,
        } = self;
        let kind = match (command, http) {
            (Some(argv), None) => ActionKind::Command(
                serde_json::from_str(&argv).map_err(|e| corrupt("action command", e))?,
            ),
            (None, Some(stored)) => {
                let call = open(id, &stored).unwrap_or_else(|| UNOPENABLE_CALL.to_owned());
                ActionKind::Http(
                    serde_json::from_str(&call).map_err(|e| corrupt("action call", e))?,
                )
            }
            _ => return Err(corrupt("action", "neither a command nor a call")),
        };
        Ok(Action {
            id: ActionId(id),
            name,
            on: event(&on)?,
            after_minutes: u32::try_from(after_minutes).map_err(|e| corrupt("after_minutes", e))?,
            kind,
            kinds: serde_json::from_str(&kinds).map_err(|e| corrupt("action kinds", e))?,
        })
    }
}

fn event(raw: &str) -> Result<ActionEvent, StoreError> {
    ActionEvent::from_wire(raw).ok_or_else(|| corrupt("action event", raw))
}

#[derive(sqlx::FromRow)]
struct DueRow {
    id: i64,
    action_id: i64,
    server_id: ServerId,
    event: String,
    incident_at: DateTime<Utc>,
    attempts: i64,
}

#[derive(sqlx::FromRow)]
struct RunRow {
    id: i64,
    action_id: i64,
    action_name: String,
    server_id: ServerId,
    event: String,
    state: String,
    attempts: i64,
    started_at: DateTime<Utc>,
    duration_ms: Option<i64>,
    exit_status: Option<i64>,
    http_status: Option<i64>,
    output: Option<String>,
}

impl TryFrom<RunRow> for ActionRun {
    type Error = StoreError;

    fn try_from(row: RunRow) -> Result<Self, StoreError> {
        let attempts = u32::try_from(row.attempts).map_err(|e| corrupt("attempts", e))?;
        let (outcome, retrying) = match row.state.as_str() {
            "ok" => (RunOutcome::Ok, false),
            "running" => (RunOutcome::Running, false),
            "failed" => (RunOutcome::Failed, false),
            "interrupted" => (RunOutcome::Interrupted, false),
            // Pending again after a failed attempt: it is retried.
            "pending" => (RunOutcome::Failed, true),
            other => return Err(corrupt("run state", other)),
        };
        Ok(ActionRun {
            id: row.id,
            action_id: ActionId(row.action_id),
            action: row.action_name,
            server_id: row.server_id,
            event: event(&row.event)?,
            started_at: row.started_at,
            outcome,
            exit_status: row.exit_status.and_then(|s| i32::try_from(s).ok()),
            http_status: row.http_status.and_then(|s| u16::try_from(s).ok()),
            output: row.output.unwrap_or_default(),
            duration_ms: row.duration_ms,
            attempts,
            retrying,
        })
    }
}

static CLAIM_DUE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "UPDATE action_runs SET lease_until = $3, state = 'running', started_at = $1
         WHERE id IN (
            SELECT id FROM action_runs
            -- A run is started at most once: one whose panel stopped
            -- mid-run is interrupted (see `interrupt_lapsed_runs`), never
            -- claimed again by itself.
            WHERE state = 'pending' AND due_at <= $1
              AND (lease_until IS NULL OR lease_until <= $1)
            ORDER BY due_at, id LIMIT $2 {skip_locked})
         RETURNING id, action_id, server_id, event, incident_at, attempts",
        skip_locked = Store::SKIP_LOCKED,
    )
});

/// Queues runs in the transaction that records their status changes;
/// one already queued for the same incident is left as it is.
pub async fn queue_runs_in(tx: &mut Tx, runs: &[NewActionRun]) -> Result<(), StoreError> {
    for run in runs {
        sqlx::query(
            "INSERT INTO action_runs (action_id, action_name, server_id, event, incident_at, due_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (action_id, server_id, incident_at) DO NOTHING",
        )
        .bind(run.action_id.0)
        .bind(&run.action_name)
        .bind(&run.server_id)
        .bind(run.event.as_str())
        .bind(run.incident_at)
        .bind(run.due_at)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

impl Store {
    /// Every action, by name.
    pub async fn actions(&self) -> Result<Vec<Action>, StoreError> {
        sqlx::query_as::<_, ActionRow>(
            "SELECT id, name, event, after_minutes, command, http, kinds FROM actions ORDER BY name",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| row.into_action(|id, stored| self.sealed.open_action_call(id, stored)))
        .collect()
    }

    /// Seals every action's HTTP call an earlier version stored in clear
    /// (its URL, headers and body may hold credentials). Returns how many.
    pub async fn seal_clear_action_calls(&self) -> Result<usize, StoreError> {
        let mut tx = self.write().await?;
        let rows: Vec<(i64, String)> =
            sqlx::query_as("SELECT id, http FROM actions WHERE http IS NOT NULL")
                .fetch_all(&mut *tx)
                .await?;
        let mut sealed = 0;
        for (id, http) in rows {
            if crate::crypto::sealing::is_sealed(&http) {
                continue;
            }
            sqlx::query("UPDATE actions SET http = $1 WHERE id = $2")
                .bind(self.sealed.seal_action_call(id, &http)?)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sealed += 1;
        }
        tx.commit().await?;
        Ok(sealed)
    }

    /// Stores a validated action; `Err(Conflict)` when its name is taken
    /// or [`MAX_ACTIONS`] are kept already.
    pub async fn create_action(
        &self,
        new: &NewAction,
        now: DateTime<Utc>,
    ) -> Result<Action, StoreError> {
        let (name, on, after_minutes, kind) =
            (new.name.as_str(), new.on, new.after_minutes, &new.kind);
        let (command, http) = match kind {
            ActionKind::Command(argv) => (
                Some(serde_json::to_string(argv).map_err(|e| corrupt("action command", e))?),
                None,
            ),
            ActionKind::Http(call) => (
                None,
                Some(serde_json::to_string(call).map_err(|e| corrupt("action call", e))?),
            ),
        };
        let mut tx = self.write().await?;
        let (kept, taken): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN name = $1 THEN 1 ELSE 0 END), 0) FROM actions",
        )
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
        if taken > 0 {
            return Err(StoreError::Conflict {
                code: "name_taken",
                message: format!("an action is named {name:?} already"),
            });
        }
        if usize::try_from(kept).unwrap_or(usize::MAX) >= MAX_ACTIONS {
            return Err(StoreError::Conflict {
                code: "too_many_actions",
                message: format!("{MAX_ACTIONS} actions are kept already: delete one first"),
            });
        }
        // The call is sealed bound to its row: the row comes first, with
        // an empty call, and the sealed one replaces it in the same
        // transaction (the clear call is never written).
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO actions (name, event, after_minutes, command, http, created_at, kinds)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(name)
        .bind(on.as_str())
        .bind(i64::from(after_minutes))
        .bind(command)
        .bind(http.as_ref().map(|_| ""))
        .bind(now)
        .bind(serde_json::to_string(&new.kinds).map_err(|e| corrupt("action kinds", e))?)
        .fetch_one(&mut *tx)
        .await?;
        if let Some(call) = &http {
            sqlx::query("UPDATE actions SET http = $1 WHERE id = $2")
                .bind(self.sealed.seal_action_call(id, call)?)
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(Action {
            id: ActionId(id),
            name: name.to_owned(),
            on,
            after_minutes,
            kind: kind.clone(),
            kinds: new.kinds.clone(),
        })
    }

    /// Deletes an action and its runs not yet started (those that ran
    /// stay in the servers' histories); false when there is none.
    pub async fn delete_action(&self, id: ActionId) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let done = sqlx::query("DELETE FROM actions WHERE id = $1")
            .bind(id.0)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        sqlx::query(
            "DELETE FROM action_runs WHERE action_id = $1 AND state = 'pending' AND attempts = 0",
        )
        .bind(id.0)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done)
    }

    /// Whether actions run at all (the global switch).
    pub async fn actions_enabled(&self) -> Result<bool, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT actions_enabled FROM settings WHERE id = 1")
                .fetch_one(&self.reader)
                .await?,
        )
    }

    /// The operator's switch (which clears why they switched themselves off).
    pub async fn set_actions_enabled(&self, enabled: bool) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE settings SET actions_enabled = $1, actions_off_reason = NULL WHERE id = 1",
        )
        .bind(enabled)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Runs whose panel stopped while they ran (their lease ran out, or
    /// `all`: the one panel of a SQLite database starts) are recorded as
    /// interrupted: they may have done half their work, so they are never
    /// started again by themselves. Returns how many.
    pub async fn interrupt_lapsed_runs(
        &self,
        now: DateTime<Utc>,
        all: bool,
    ) -> Result<u64, StoreError> {
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "UPDATE action_runs SET state = 'interrupted', lease_until = NULL
             WHERE state = 'running' AND ($2 OR lease_until <= $1)",
        )
        .bind(now)
        .bind(all)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(done)
    }

    /// The operator runs an interrupted run again (due now); false when
    /// there is no such interrupted run.
    pub async fn rerun(&self, id: i64, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "UPDATE action_runs SET state = 'pending', due_at = $2, lease_until = NULL
             WHERE id = $1 AND state = 'interrupted'",
        )
        .bind(id)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            > 0;
        tx.commit().await?;
        Ok(done)
    }

    /// How many runs other than `except` started since `since` across
    /// the fleet, and whether one of `action` for `server` started since
    /// `cooldown_since`: what the budget is judged on.
    pub async fn runs_started(
        &self,
        since: DateTime<Utc>,
        action: ActionId,
        server: &ServerId,
        cooldown_since: DateTime<Utc>,
        except: i64,
    ) -> Result<(u32, bool), StoreError> {
        let (fleet, same): (i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(CASE WHEN started_at >= $1 THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN action_id = $2 AND server_id = $3 AND started_at >= $4
                                      THEN 1 ELSE 0 END), 0)
             FROM action_runs
             WHERE id <> $5 AND started_at IS NOT NULL
               AND state IN ('running', 'ok', 'failed', 'interrupted')",
        )
        .bind(since)
        .bind(action.0)
        .bind(server)
        .bind(cooldown_since)
        .bind(except)
        .fetch_one(&self.writer)
        .await?;
        Ok((u32::try_from(fleet).unwrap_or(u32::MAX), same > 0))
    }

    pub async fn action_budget(&self) -> Result<ActionBudget, StoreError> {
        let (runs_per_hour, cooldown_s): (i64, i64) = sqlx::query_as(
            "SELECT action_runs_per_hour, action_cooldown_s FROM settings WHERE id = 1",
        )
        .fetch_one(&self.reader)
        .await?;
        Ok(ActionBudget {
            runs_per_hour: u32::try_from(runs_per_hour).map_err(|e| corrupt("budget", e))?,
            cooldown_s: u32::try_from(cooldown_s).map_err(|e| corrupt("cooldown", e))?,
        })
    }

    /// Replaces the budget (validated by the caller).
    pub async fn set_action_budget(&self, budget: &ActionBudget) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE settings SET action_runs_per_hour = $1, action_cooldown_s = $2 WHERE id = 1",
        )
        .bind(i64::from(budget.runs_per_hour))
        .bind(i64::from(budget.cooldown_s))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Why actions switched themselves off, if they did.
    pub async fn actions_off_reason(&self) -> Result<Option<OffReason>, StoreError> {
        Ok(self.actions_switch().await?.1)
    }

    /// The switch and why actions switched themselves off, read together:
    /// two reads could fall on either side of a switch-off and show it
    /// half done (off for a reason, yet on).
    pub async fn actions_switch(&self) -> Result<(bool, Option<OffReason>), StoreError> {
        let (enabled, raw): (bool, Option<String>) =
            sqlx::query_as("SELECT actions_enabled, actions_off_reason FROM settings WHERE id = 1")
                .fetch_one(&self.reader)
                .await?;
        let reason = raw
            .map(|r| OffReason::from_wire(&r).ok_or_else(|| corrupt("actions_off_reason", &r)))
            .transpose()?;
        Ok((enabled, reason))
    }

    /// Actions switch themselves off for `reason`, with the operator's
    /// messages queued in the same transaction; false (and nothing
    /// queued) when they were off already.
    pub async fn switch_actions_off_for(
        &self,
        reason: OffReason,
        messages: &[super::NewNotification],
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let switched = sqlx::query(
            "UPDATE settings SET actions_enabled = $1, actions_off_reason = $2
             WHERE id = 1 AND actions_enabled = $3",
        )
        .bind(false)
        .bind(reason.as_str())
        .bind(true)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            > 0;
        if switched {
            super::outbox::queue_in(&mut tx, messages).await?;
        }
        tx.commit().await?;
        Ok(switched)
    }

    /// The operator's decisions on mass blocks, by verifier.
    pub async fn mass_block_decisions(&self) -> Result<Vec<(ServerId, MassDecision)>, StoreError> {
        let rows: Vec<(ServerId, String)> =
            sqlx::query_as("SELECT verifier_id, decision FROM mass_block_decisions")
                .fetch_all(&self.reader)
                .await?;
        rows.into_iter()
            .map(|(verifier, raw)| {
                MassDecision::from_wire(&raw)
                    .map(|d| (verifier, d))
                    .ok_or_else(|| corrupt("mass block decision", &raw))
            })
            .collect()
    }

    /// The operator decides on the actions of `verifier`'s mass block.
    pub async fn decide_mass_block(
        &self,
        verifier: &ServerId,
        decision: MassDecision,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO mass_block_decisions (verifier_id, decision, decided_at) VALUES ($1, $2, $3)
             ON CONFLICT (verifier_id) DO UPDATE SET decision = excluded.decision,
                                                    decided_at = excluded.decided_at",
        )
        .bind(verifier)
        .bind(decision.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Drops the decisions of verifiers no longer under the guard: the
    /// next mass block of one asks again.
    pub async fn forget_mass_block_decisions(
        &self,
        guarded: &[ServerId],
    ) -> Result<(), StoreError> {
        let kept = self.mass_block_decisions().await?;
        let gone: Vec<&ServerId> = kept
            .iter()
            .map(|(v, _)| v)
            .filter(|v| !guarded.contains(v))
            .collect();
        if gone.is_empty() {
            return Ok(());
        }
        let mut tx = self.write().await?;
        for verifier in gone {
            sqlx::query("DELETE FROM mass_block_decisions WHERE verifier_id = $1")
                .bind(verifier)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A claimed run waits (for the operator's word): pending again, due
    /// at `until`.
    pub async fn hold_run(&self, id: i64, until: DateTime<Utc>) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE action_runs SET state = 'pending', lease_until = NULL, due_at = $2,
                started_at = CASE WHEN attempts = 0 THEN NULL ELSE started_at END
             WHERE id = $1",
        )
        .bind(id)
        .bind(until)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Claims up to `limit` due runs for `lease` (marked running).
    pub async fn claim_due_runs(
        &self,
        now: DateTime<Utc>,
        lease: chrono::Duration,
        limit: i64,
    ) -> Result<Vec<DueRun>, StoreError> {
        let mut rows = sqlx::query_as::<_, DueRow>(&CLAIM_DUE)
            .bind(now)
            .bind(limit)
            .bind(now + lease)
            .fetch_all(&self.writer)
            .await?;
        rows.sort_by_key(|r| r.id);
        rows.into_iter()
            .map(|r| {
                Ok(DueRun {
                    id: r.id,
                    action_id: ActionId(r.action_id),
                    server_id: r.server_id,
                    event: event(&r.event)?,
                    incident_at: r.incident_at,
                    attempts: u32::try_from(r.attempts).map_err(|e| corrupt("attempts", e))?,
                })
            })
            .collect()
    }

    /// Records one attempt of a claimed run.
    pub async fn record_attempt(&self, id: i64, attempt: &Attempt) -> Result<(), StoreError> {
        let state = match (attempt.ok, attempt.retry_at) {
            (true, _) => "ok",
            (false, Some(_)) => "pending",
            (false, None) => "failed",
        };
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE action_runs SET state = $1, attempts = attempts + 1, started_at = $2,
                duration_ms = $3, exit_status = $4, http_status = $5, output = $6,
                due_at = COALESCE($7, due_at), lease_until = NULL
             WHERE id = $8",
        )
        .bind(state)
        .bind(attempt.started_at)
        .bind(attempt.duration_ms)
        .bind(attempt.exit_status.map(i64::from))
        .bind(attempt.http_status.map(i64::from))
        .bind(&attempt.output)
        .bind(attempt.retry_at)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// A claimed run that will not run (its incident is over, its server
    /// is in maintenance, actions are off, the action is gone). One that
    /// failed before stays listed as failed, no longer retried.
    pub async fn skip_run(&self, id: i64) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE action_runs SET lease_until = NULL,
                state = CASE WHEN attempts > 0 THEN 'failed' ELSE 'skipped' END
             WHERE id = $1",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The servers with runs that started.
    pub async fn servers_with_runs(&self) -> Result<Vec<ServerId>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT server_id FROM action_runs
             WHERE started_at IS NOT NULL AND state <> 'skipped'",
        )
        .fetch_all(&self.reader)
        .await?)
    }

    /// Runs that started, newest first, of one server or of all; at most
    /// `limit`.
    pub async fn action_runs(
        &self,
        server: Option<&ServerId>,
        limit: i64,
    ) -> Result<Vec<ActionRun>, StoreError> {
        sqlx::query_as::<_, RunRow>(
            "SELECT id, action_id, action_name, server_id, event, state, attempts, started_at,
                    duration_ms, exit_status, http_status, output
             FROM action_runs
             WHERE started_at IS NOT NULL AND state <> 'skipped'
               AND ($1 IS NULL OR server_id = $1)
             ORDER BY id DESC LIMIT $2",
        )
        .bind(server)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(ActionRun::try_from)
        .collect()
    }
}
