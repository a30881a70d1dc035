//! The notification outbox: messages queued (with the status changes that
//! call for them, see [`Store::record_changes`], or alone), delivered by
//! the delivery task, and listed with their delivery state.

use super::{Store, StoreError, Tx};
use crate::store::types::{
    Channels, Delivery, NewNotification, NotificationView, Outgoing, Recipient, TargetKind,
};
use chrono::{DateTime, Utc};
use meshwatch::ServerId;
use meshwatch_views::views::{DeliveryState, NotificationKind};
use std::collections::HashMap;
use std::sync::LazyLock;

/// A queued row as delivery needs it: the target from its two columns.
#[derive(sqlx::FromRow)]
struct OutgoingRow {
    id: i64,
    kind: NotificationKind,
    server_id: Option<ServerId>,
    target: TargetKind,
    recipient: String,
    subject: String,
    body: String,
    attempts: i64,
    block_kinds: String,
}

impl From<OutgoingRow> for Outgoing {
    fn from(row: OutgoingRow) -> Self {
        Outgoing {
            // Written by this panel from a list of kinds; one it cannot read
            // leaves the message without them rather than undelivered.
            block_kinds: serde_json::from_str(&row.block_kinds).unwrap_or_default(),
            id: row.id,
            kind: row.kind,
            server_id: row.server_id,
            target: Recipient {
                kind: row.target,
                address: row.recipient,
            },
            subject: row.subject,
            body: row.body,
            attempts: row.attempts,
        }
    }
}

/// The claim of due notifications, built once per backend: PostgreSQL
/// skips the rows another replica is claiming at this moment (`SKIP
/// LOCKED`); SQLite has one writer, and one panel per database.
static CLAIM_DUE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "UPDATE notification_outbox SET lease_until = $8 WHERE id IN (
            SELECT id FROM notification_outbox
            WHERE state = $1 AND (next_attempt_at IS NULL OR next_attempt_at <= $2)
              AND (lease_until IS NULL OR lease_until <= $2)
              AND (($3 AND target = $4) OR ($5 AND target = $6) OR ($9 AND target = $10))
            ORDER BY id LIMIT $7 {skip_locked})
         RETURNING id, kind, server_id, target, recipient, subject, body, attempts, block_kinds",
        skip_locked = Store::SKIP_LOCKED,
    )
});

impl Store {
    /// Queues notifications that concern no status change (test messages).
    pub async fn queue_notifications(
        &self,
        notifications: &[NewNotification],
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        queue_in(&mut tx, notifications).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The outbox, newest first; `to` holds the stored recipient, which
    /// `outbound::notify::label_targets` turns into the label people see.
    pub async fn notifications(&self) -> Result<Vec<NotificationView>, StoreError> {
        let rows = sqlx::query_as::<_, NotificationView>(
            "SELECT id, kind, server_id, target, recipient, subject, state, created_at, attempts,
                    last_error
             FROM notification_outbox ORDER BY id DESC LIMIT 500",
        )
        .fetch_all(&self.reader)
        .await?;
        Ok(rows)
    }

    /// Claims queued notifications due for a delivery attempt, oldest
    /// first, for `lease`: until it runs out no other claim (on this
    /// replica or another) returns them, so each is sent by one replica; a
    /// replica that dies mid-send lets the lease run out and the row is
    /// tried again. Only targets of a configured kind are claimed (email,
    /// webhook, Telegram), so undeliverable rows never crowd out
    /// deliverable ones.
    pub async fn claim_due_notifications(
        &self,
        now: DateTime<Utc>,
        lease: chrono::Duration,
        limit: i64,
        channels: Channels,
    ) -> Result<Vec<Outgoing>, StoreError> {
        let mut rows = sqlx::query_as::<_, OutgoingRow>(&CLAIM_DUE)
            .bind(DeliveryState::Queued)
            .bind(now)
            .bind(channels.email)
            .bind(TargetKind::Email)
            .bind(channels.webhook)
            .bind(TargetKind::Webhook)
            .bind(limit)
            .bind(now + lease)
            .bind(channels.telegram)
            .bind(TargetKind::Telegram)
            .fetch_all(&self.writer)
            .await?;
        // RETURNING keeps no order.
        rows.sort_by_key(|row| row.id);
        Ok(rows.into_iter().map(Outgoing::from).collect())
    }

    /// Records the outcome of one delivery attempt.
    pub async fn record_delivery(&self, id: i64, outcome: Delivery) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        let attempt = match outcome {
            Delivery::Sent => sqlx::query(
                "UPDATE notification_outbox SET state = $1, sent_at = $2, attempts = attempts + 1,
                    last_error = NULL, lease_until = NULL WHERE id = $3",
            )
            .bind(DeliveryState::Sent)
            .bind(Utc::now())
            .bind(id),
            Delivery::Retry { error, at } => sqlx::query(
                "UPDATE notification_outbox SET attempts = attempts + 1, next_attempt_at = $1,
                    last_error = $2, lease_until = NULL WHERE id = $3",
            )
            .bind(at)
            .bind(error)
            .bind(id),
            Delivery::Failed { error } => sqlx::query(
                "UPDATE notification_outbox SET state = $1, attempts = attempts + 1, last_error = $2,
                    lease_until = NULL WHERE id = $3",
            )
            .bind(DeliveryState::Failed)
            .bind(error)
            .bind(id),
        };
        attempt.execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(())
    }

    /// How many notifications are in each state.
    pub async fn outbox_counts(&self) -> Result<HashMap<DeliveryState, i64>, StoreError> {
        Ok(sqlx::query_as::<_, (DeliveryState, i64)>(
            "SELECT state, COUNT(*) AS n FROM notification_outbox GROUP BY state",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .collect())
    }
}

/// Queues `notifications` inside the caller's transaction.
pub(super) async fn queue_in(
    tx: &mut Tx,
    notifications: &[NewNotification],
) -> Result<(), StoreError> {
    for n in notifications {
        sqlx::query(
            "INSERT INTO notification_outbox
                (kind, server_id, target, recipient, subject, body, created_at, block_kinds)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(n.kind)
        .bind(&n.server_id)
        .bind(n.target.kind)
        .bind(&n.target.address)
        .bind(&n.subject)
        .bind(&n.body)
        .bind(n.created_at)
        .bind(serde_json::to_string(&n.block_kinds).map_err(|e| super::corrupt("block kinds", e))?)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::{Connection, SqliteConnection};

    /// The names the outbox columns hold today (their CHECK constraints):
    /// existing databases keep working only while they stay byte for byte.
    const KINDS: [(NotificationKind, &str); 6] = [
        (NotificationKind::Blocked, "blocked"),
        (NotificationKind::Cleared, "cleared"),
        (NotificationKind::Test, "test"),
        (NotificationKind::WitnessNetwork, "witness_network"),
        (NotificationKind::ActionsOff, "actions_off"),
        (NotificationKind::ConnectorFailed, "connector_failed"),
    ];
    const STATES: [(DeliveryState, &str); 3] = [
        (DeliveryState::Queued, "queued"),
        (DeliveryState::Sent, "sent"),
        (DeliveryState::Failed, "failed"),
    ];
    const TARGETS: [(TargetKind, &str); 4] = [
        (TargetKind::Nowhere, "none"),
        (TargetKind::Email, "email"),
        (TargetKind::Webhook, "webhook"),
        (TargetKind::Telegram, "telegram"),
    ];

    /// A fresh database with every migration applied.
    async fn database() -> SqliteConnection {
        let mut conn = SqliteConnection::connect("sqlite::memory:")
            .await
            .expect("opens");
        crate::store::schema::MIGRATOR
            .run(&mut conn)
            .await
            .expect("migrates");
        conn
    }

    /// Queues one outbox row through the typed columns and reads back the
    /// text they hold: (kind, state, target).
    async fn stored(
        conn: &mut SqliteConnection,
        kind: NotificationKind,
        state: DeliveryState,
        target: TargetKind,
    ) -> (String, String, String) {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO notification_outbox (kind, state, target, recipient, subject, body, created_at)
             VALUES ($1, $2, $3, '', 'subject', 'body', '2026-12-01T10:00:00+00:00') RETURNING id",
        )
        .bind(kind)
        .bind(state)
        .bind(target)
        .fetch_one(&mut *conn)
        .await
        .expect("the table's CHECK constraints accept the value");
        sqlx::query_as("SELECT kind, state, target FROM notification_outbox WHERE id = $1")
            .bind(id)
            .fetch_one(&mut *conn)
            .await
            .expect("reads back")
    }

    /// Reads a row written as text (as older releases did) as the enums.
    async fn read(
        conn: &mut SqliteConnection,
        kind: &str,
        state: &str,
        target: &str,
    ) -> (NotificationKind, DeliveryState, TargetKind) {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO notification_outbox (kind, state, target, recipient, subject, body, created_at)
             VALUES ($1, $2, $3, '', 'subject', 'body', '2026-12-01T10:00:00+00:00') RETURNING id",
        )
        .bind(kind)
        .bind(state)
        .bind(target)
        .fetch_one(&mut *conn)
        .await
        .expect("writes");
        sqlx::query_as("SELECT kind, state, target FROM notification_outbox WHERE id = $1")
            .bind(id)
            .fetch_one(&mut *conn)
            .await
            .expect("decodes")
    }

    #[test]
    fn every_variant_has_its_name_listed() {
        assert_eq!(KINDS.map(|(k, _)| k), NotificationKind::ALL);
        assert_eq!(STATES.map(|(s, _)| s), DeliveryState::ALL);
        assert_eq!(TARGETS.map(|(t, _)| t), TargetKind::ALL);
    }

    #[tokio::test]
    async fn every_notification_kind_is_stored_by_its_name_of_today() {
        let mut conn = database().await;
        for (kind, name) in KINDS {
            let (stored_kind, _, _) =
                stored(&mut conn, kind, DeliveryState::Queued, TargetKind::Email).await;
            assert_eq!(stored_kind, name);
            assert_eq!(kind.as_str(), name, "the API and the webhook say the same");
            let (read_kind, _, _) = read(&mut conn, name, "queued", "email").await;
            assert_eq!(read_kind, kind);
        }
    }

    #[tokio::test]
    async fn every_delivery_state_is_stored_by_its_name_of_today() {
        let mut conn = database().await;
        for (state, name) in STATES {
            let (_, stored_state, _) = stored(
                &mut conn,
                NotificationKind::Blocked,
                state,
                TargetKind::Email,
            )
            .await;
            assert_eq!(stored_state, name);
            assert_eq!(state.as_str(), name, "the API and /metrics say the same");
            let (_, read_state, _) = read(&mut conn, "blocked", name, "email").await;
            assert_eq!(read_state, state);
        }
    }

    #[tokio::test]
    async fn every_target_kind_is_stored_by_its_name_of_today() {
        let mut conn = database().await;
        for (target, name) in TARGETS {
            let (_, _, stored_target) = stored(
                &mut conn,
                NotificationKind::Test,
                DeliveryState::Queued,
                target,
            )
            .await;
            assert_eq!(stored_target, name);
            let (_, _, read_target) = read(&mut conn, "test", "queued", name).await;
            assert_eq!(read_target, target);
        }
    }

    #[tokio::test]
    async fn a_name_of_no_variant_does_not_decode() {
        let mut conn = database().await;
        let kind = sqlx::query_scalar::<_, NotificationKind>("SELECT 'Blocked'")
            .fetch_one(&mut conn)
            .await;
        assert!(kind.is_err(), "{kind:?}");
        let target = sqlx::query_scalar::<_, TargetKind>("SELECT 'fax'")
            .fetch_one(&mut conn)
            .await;
        assert!(target.is_err(), "{target:?}");
    }

    #[test]
    fn the_api_names_kind_and_state_as_stored() {
        let created_at = DateTime::parse_from_rfc3339("2026-12-01T10:00:00+00:00")
            .expect("a date")
            .with_timezone(&Utc);
        let view = NotificationView {
            id: 7,
            kind: NotificationKind::WitnessNetwork,
            server_id: None,
            to: "ops@example.com".into(),
            target: TargetKind::Email,
            subject: "subject".into(),
            state: DeliveryState::Failed,
            created_at,
            attempts: 3,
            last_error: Some("refused".into()),
        };
        let json = serde_json::to_value(&view).expect("serializes");
        assert_eq!(json["kind"], "witness_network");
        assert_eq!(json["state"], "failed");
        assert!(json.get("target").is_none(), "the label says it: {json}");
    }
}
