//! Status history: every change of a server's conditions, recorded
//! together with the notifications it calls for (see [`outbox`]) so that
//! a recorded "blocked" always has its email queued.

use super::{corrupt, outbox, NewNotification, RecordedChange, Store, StoreError, Tx};
use chrono::{DateTime, Utc};
use meshwatch::status::ServerStatus;
use meshwatch::verdict::VerdictChange;
use meshwatch::ServerId;
use std::collections::HashMap;

/// A `status_history` row as (when, status).
#[derive(sqlx::FromRow)]
struct StatusRow {
    at: DateTime<Utc>,
    status: String,
}

impl TryFrom<StatusRow> for (DateTime<Utc>, ServerStatus) {
    type Error = StoreError;

    fn try_from(row: StatusRow) -> Result<Self, StoreError> {
        let status = ServerStatus::from_wire(&row.status).ok_or_else(|| {
            StoreError::Database(sqlx::Error::Decode(
                format!("status {:?}", row.status).into(),
            ))
        })?;
        Ok((row.at, status))
    }
}

/// A `status_history` row with the server it is about.
#[derive(sqlx::FromRow)]
struct ChangeRow {
    server_id: ServerId,
    #[sqlx(flatten)]
    change: StatusRow,
}

impl TryFrom<ChangeRow> for (ServerId, DateTime<Utc>, ServerStatus) {
    type Error = StoreError;

    fn try_from(row: ChangeRow) -> Result<Self, StoreError> {
        let (at, status) = row.change.try_into()?;
        Ok((row.server_id, at, status))
    }
}

#[derive(sqlx::FromRow)]
struct ConditionsRow {
    server_id: ServerId,
    conditions: String,
}

impl TryFrom<ConditionsRow> for (ServerId, Vec<ServerStatus>) {
    type Error = StoreError;

    fn try_from(row: ConditionsRow) -> Result<Self, StoreError> {
        let conditions =
            serde_json::from_str(&row.conditions).map_err(|e| corrupt("conditions", e))?;
        Ok((row.server_id, conditions))
    }
}

/// A whole `status_history` row.
#[derive(sqlx::FromRow)]
struct RecordedRow {
    id: i64,
    #[sqlx(flatten)]
    server: ConditionsRow,
    #[sqlx(flatten)]
    change: StatusRow,
}

impl TryFrom<RecordedRow> for RecordedChange {
    type Error = StoreError;

    fn try_from(row: RecordedRow) -> Result<Self, StoreError> {
        let (at, status) = row.change.try_into()?;
        let (server, conditions) = row.server.try_into()?;
        Ok(RecordedChange {
            number: row.id,
            server,
            status,
            conditions,
            at,
        })
    }
}

fn conditions_json(conditions: &[ServerStatus]) -> String {
    serde_json::to_string(conditions).unwrap_or_else(|_| "[]".to_owned())
}

impl Store {
    /// The last recorded conditions of every server.
    pub async fn latest_conditions(
        &self,
    ) -> Result<HashMap<ServerId, Vec<ServerStatus>>, StoreError> {
        sqlx::query_as::<_, ConditionsRow>(
            "SELECT h.server_id, h.conditions FROM status_history h
             WHERE h.id = (SELECT MAX(id) FROM status_history WHERE server_id = h.server_id)",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(TryInto::try_into)
        .collect()
    }

    /// The conditions `server` recorded after `since`, oldest first.
    pub async fn conditions_since(
        &self,
        server: &ServerId,
        since: DateTime<Utc>,
    ) -> Result<Vec<Vec<ServerStatus>>, StoreError> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT conditions FROM status_history WHERE server_id = $1 AND at > $2 ORDER BY id",
        )
        .bind(server)
        .bind(since)
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|raw| serde_json::from_str(raw).map_err(|e| corrupt("conditions", e)))
            .collect()
    }

    /// The last conditions of every server recorded outside a
    /// maintenance window.
    pub async fn latest_calm_conditions(
        &self,
    ) -> Result<HashMap<ServerId, Vec<ServerStatus>>, StoreError> {
        sqlx::query_as::<_, ConditionsRow>(
            "SELECT h.server_id, h.conditions FROM status_history h
             WHERE h.id = (SELECT MAX(id) FROM status_history
                           WHERE server_id = h.server_id
                             AND conditions NOT LIKE '%\"maintenance\"%')",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(TryInto::try_into)
        .collect()
    }

    /// Records verdict changes and queues their notifications, atomically.
    pub async fn record_changes(
        &self,
        changes: &[VerdictChange],
        notifications: &[NewNotification],
        runs: &[super::NewActionRun],
    ) -> Result<(), StoreError> {
        let mut tx = self.write_as_evaluator().await?;
        for change in changes {
            insert_change(&mut tx, change).await?;
        }
        outbox::queue_in(&mut tx, notifications).await?;
        super::actions::queue_runs_in(&mut tx, runs).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The status changes recorded after the one numbered `after`, oldest
    /// first, at most `limit`, each with its number: what a replica that
    /// does not evaluate tells its live pages.
    pub async fn changes_after(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<RecordedChange>, StoreError> {
        sqlx::query_as::<_, RecordedRow>(
            "SELECT id, server_id, status, conditions, at FROM status_history
             WHERE id > $1 ORDER BY id LIMIT $2",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(TryInto::try_into)
        .collect()
    }

    /// The number of the last recorded status change (0 if none).
    pub async fn last_change_number(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar::<_, Option<i64>>("SELECT MAX(id) FROM status_history")
                .fetch_one(&self.reader)
                .await?
                .unwrap_or(0),
        )
    }

    /// Status changes of one server since `since`, oldest first, led by the
    /// last change before it (the status at the window's start).
    pub async fn status_changes_since(
        &self,
        server: &ServerId,
        since: DateTime<Utc>,
    ) -> Result<Vec<(DateTime<Utc>, ServerStatus)>, StoreError> {
        sqlx::query_as::<_, StatusRow>(
            "SELECT at, status FROM status_history WHERE server_id = $1 AND (at >= $2 OR id =
                (SELECT MAX(id) FROM status_history WHERE server_id = $1 AND at < $2))
             ORDER BY id",
        )
        .bind(server)
        .bind(since)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(TryInto::try_into)
        .collect()
    }

    /// Status changes of every server since `since`, each server's led by
    /// its last change before it, oldest first (by server, then time).
    pub async fn fleet_changes_since(
        &self,
        since: DateTime<Utc>,
    ) -> Result<Vec<(ServerId, DateTime<Utc>, ServerStatus)>, StoreError> {
        sqlx::query_as::<_, ChangeRow>(
            "SELECT h.server_id, h.at, h.status FROM status_history h
             WHERE h.at >= $1 OR h.id IN
                (SELECT MAX(id) FROM status_history WHERE at < $1 GROUP BY server_id)
             ORDER BY h.server_id, h.id",
        )
        .bind(since)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(TryInto::try_into)
        .collect()
    }

    /// The latest status changes of the whole fleet, newest first.
    pub async fn latest_changes(
        &self,
        limit: i64,
    ) -> Result<Vec<(ServerId, DateTime<Utc>, ServerStatus)>, StoreError> {
        sqlx::query_as::<_, ChangeRow>(
            "SELECT server_id, at, status FROM status_history ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(TryInto::try_into)
        .collect()
    }

    /// Status changes of one server, newest first.
    pub async fn status_history(
        &self,
        server: &ServerId,
        limit: i64,
    ) -> Result<Vec<(DateTime<Utc>, ServerStatus)>, StoreError> {
        sqlx::query_as::<_, StatusRow>(
            "SELECT at, status FROM status_history WHERE server_id = $1 ORDER BY id DESC LIMIT $2",
        )
        .bind(server)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(TryInto::try_into)
        .collect()
    }
}

async fn insert_change(tx: &mut Tx, change: &VerdictChange) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO status_history (server_id, status, conditions, at) VALUES ($1, $2, $3, $4)",
    )
    .bind(&change.server)
    .bind(change.status.as_str())
    .bind(conditions_json(&change.conditions))
    .bind(change.at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Drops the history older than `before_ms` of servers that left the
/// fleet (it is kept for the retention window, like everything else);
/// returns how many rows went.
pub(super) async fn prune_in(tx: &mut Tx, before_ms: i64) -> Result<u64, StoreError> {
    let cutoff = meshwatch::evidence::from_ms(before_ms);
    Ok(sqlx::query(
        "DELETE FROM status_history WHERE at < $1
            AND server_id NOT IN (SELECT id FROM servers)",
    )
    .bind(cutoff)
    .execute(&mut **tx)
    .await?
    .rows_affected())
}
