//! Status history and the notification outbox, written together so that a
//! recorded "blocked" always has its email queued.

use super::{corrupt, Store, StoreError};
use crate::notify::Target;
use chrono::{DateTime, Utc};
use meshwatch::status::ServerStatus;
use meshwatch::verdict::VerdictChange;
use meshwatch::views::NotificationKind;
use serde::Serialize;
use sqlx::Row;
use std::collections::HashMap;

/// A notification to queue.
#[derive(Debug, Clone)]
pub struct NewNotification {
    pub kind: NotificationKind,
    /// `None` for a test message.
    pub server_id: Option<String>,
    /// Stored as its kind and label: a webhook's URL never reaches the
    /// database.
    pub target: Target,
    pub subject: String,
    pub body: String,
}

/// A queued notification to deliver.
pub struct Outgoing {
    pub id: i64,
    pub kind: NotificationKind,
    pub server_id: Option<String>,
    pub target: Target,
    pub subject: String,
    pub body: String,
    pub attempts: i64,
}

/// The outcome of one delivery attempt.
pub enum Delivery {
    Sent,
    Retry { error: String, at: DateTime<Utc> },
    Failed { error: String },
}

/// A row of `GET /api/v1/notifications`.
#[derive(Debug, Clone, Serialize)]
pub struct NotificationView {
    pub id: i64,
    pub kind: String,
    pub server_id: Option<String>,
    /// The target's label: an email address, `webhook (host)`, or empty.
    pub to: String,
    pub subject: String,
    pub state: String,
    pub created_at: DateTime<Utc>,
    pub attempts: i64,
    pub last_error: Option<String>,
}

fn conditions_json(conditions: &[ServerStatus]) -> String {
    serde_json::to_string(conditions).unwrap_or_else(|_| "[]".to_owned())
}

impl Store {
    /// The last recorded conditions of every server.
    pub async fn latest_conditions(
        &self,
    ) -> Result<HashMap<String, Vec<ServerStatus>>, StoreError> {
        let rows = sqlx::query(
            "SELECT h.server_id, h.conditions FROM status_history h
             WHERE h.id = (SELECT MAX(id) FROM status_history WHERE server_id = h.server_id)",
        )
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter()
            .map(|row| {
                let raw: String = row.try_get("conditions")?;
                let conditions =
                    serde_json::from_str(&raw).map_err(|e| corrupt("conditions", e))?;
                Ok((row.try_get("server_id")?, conditions))
            })
            .collect()
    }

    /// Records verdict changes and queues their notifications, atomically.
    pub async fn record_changes(
        &self,
        changes: &[VerdictChange],
        notifications: &[NewNotification],
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        for c in changes {
            sqlx::query("INSERT INTO status_history (server_id, status, conditions, at) VALUES (?, ?, ?, ?)")
                .bind(c.server.as_str())
                .bind(c.status.as_str())
                .bind(conditions_json(&c.conditions))
                .bind(c.at)
                .execute(&mut *tx)
                .await?;
        }
        for n in notifications {
            sqlx::query(
                "INSERT INTO notification_outbox (kind, server_id, target, recipient, subject, body, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(n.kind.as_str())
            .bind(&n.server_id)
            .bind(n.target.column())
            .bind(n.target.label())
            .bind(&n.subject)
            .bind(&n.body)
            .bind(Utc::now())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Queues notifications that concern no status change (test messages).
    pub async fn queue_notifications(
        &self,
        notifications: &[NewNotification],
    ) -> Result<(), StoreError> {
        self.record_changes(&[], notifications).await
    }

    /// The outbox, newest first.
    pub async fn notifications(&self) -> Result<Vec<NotificationView>, StoreError> {
        sqlx::query(
            "SELECT id, kind, server_id, recipient, subject, state, created_at, attempts, last_error
             FROM notification_outbox ORDER BY id DESC LIMIT 500",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            Ok(NotificationView {
                id: row.try_get("id")?,
                kind: row.try_get("kind")?,
                server_id: row.try_get("server_id")?,
                to: row.try_get("recipient")?,
                subject: row.try_get("subject")?,
                state: row.try_get("state")?,
                created_at: row.try_get("created_at")?,
                attempts: row.try_get("attempts")?,
                last_error: row.try_get("last_error")?,
            })
        })
        .collect()
    }

    /// Queued notifications due for a delivery attempt, oldest first.
    /// Only targets of a configured kind are returned (email, webhook), so
    /// undeliverable rows never crowd out deliverable ones.
    pub async fn due_notifications(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        email: bool,
        webhook: bool,
    ) -> Result<Vec<Outgoing>, StoreError> {
        sqlx::query(
            "SELECT id, kind, server_id, target, recipient, subject, body, attempts
             FROM notification_outbox
             WHERE state = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
               AND ((? AND target = 'email') OR (? AND target = 'webhook'))
             ORDER BY id LIMIT ?",
        )
        .bind(now)
        .bind(email)
        .bind(webhook)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            let kind: String = row.try_get("kind")?;
            let column: String = row.try_get("target")?;
            Ok(Outgoing {
                id: row.try_get("id")?,
                kind: NotificationKind::from_wire(&kind)
                    .ok_or_else(|| corrupt("notification kind", &kind))?,
                server_id: row.try_get("server_id")?,
                target: Target::from_columns(&column, row.try_get("recipient")?)
                    .ok_or_else(|| corrupt("notification target", &column))?,
                subject: row.try_get("subject")?,
                body: row.try_get("body")?,
                attempts: row.try_get("attempts")?,
            })
        })
        .collect()
    }

    /// Records the outcome of one delivery attempt.
    pub async fn record_delivery(&self, id: i64, outcome: Delivery) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        let now = Utc::now();
        match outcome {
            Delivery::Sent => {
                sqlx::query(
                    "UPDATE notification_outbox SET state = 'sent', sent_at = ?, attempts = attempts + 1,
                        last_error = NULL WHERE id = ?",
                )
                .bind(now)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            }
            Delivery::Retry { error, at } => {
                sqlx::query(
                    "UPDATE notification_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?
                     WHERE id = ?",
                )
                .bind(at)
                .bind(error)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            }
            Delivery::Failed { error } => {
                sqlx::query(
                    "UPDATE notification_outbox SET state = 'failed', attempts = attempts + 1, last_error = ?
                     WHERE id = ?",
                )
                .bind(error)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// How many notifications are in each state.
    pub async fn outbox_counts(&self) -> Result<HashMap<String, i64>, StoreError> {
        sqlx::query("SELECT state, COUNT(*) AS n FROM notification_outbox GROUP BY state")
            .fetch_all(&self.reader)
            .await?
            .into_iter()
            .map(|row| Ok((row.try_get("state")?, row.try_get("n")?)))
            .collect()
    }

    /// Status changes of one server since `since`, oldest first, led by the
    /// last change before it (the status at the window's start).
    pub async fn status_changes_since(
        &self,
        server_id: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<(DateTime<Utc>, ServerStatus)>, StoreError> {
        sqlx::query(
            "SELECT at, status FROM status_history WHERE server_id = ?1 AND (at >= ?2 OR id =
                (SELECT MAX(id) FROM status_history WHERE server_id = ?1 AND at < ?2))
             ORDER BY id",
        )
        .bind(server_id)
        .bind(since)
        .fetch_all(&self.reader)
        .await?
        .iter()
        .map(status_change)
        .collect()
    }

    /// The latest status changes of the whole fleet, newest first.
    pub async fn latest_changes(
        &self,
        limit: i64,
    ) -> Result<Vec<(String, DateTime<Utc>, ServerStatus)>, StoreError> {
        sqlx::query("SELECT server_id, at, status FROM status_history ORDER BY id DESC LIMIT ?")
            .bind(limit)
            .fetch_all(&self.reader)
            .await?
            .iter()
            .map(|row| {
                let (at, status) = status_change(row)?;
                Ok((row.try_get("server_id")?, at, status))
            })
            .collect()
    }

    /// Status changes of one server, newest first.
    pub async fn status_history(
        &self,
        server_id: &str,
        limit: i64,
    ) -> Result<Vec<(DateTime<Utc>, ServerStatus)>, StoreError> {
        sqlx::query(
            "SELECT at, status FROM status_history WHERE server_id = ? ORDER BY id DESC LIMIT ?",
        )
        .bind(server_id)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?
        .iter()
        .map(status_change)
        .collect()
    }
}

/// One `status_history` row as (when, status).
fn status_change(
    row: &sqlx::sqlite::SqliteRow,
) -> Result<(DateTime<Utc>, ServerStatus), StoreError> {
    let raw: String = row.try_get("status")?;
    let status = ServerStatus::from_wire(&raw).ok_or_else(|| {
        StoreError::Database(sqlx::Error::Decode(format!("status {raw:?}").into()))
    })?;
    Ok((row.try_get("at")?, status))
}
