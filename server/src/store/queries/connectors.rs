//! Connected panels (docs/PRODUCT.md §7): the connectors, their last sync, and
//! the hosts meshwatch turned off in each (only those are turned back on).

use super::outbox::queue_in;
use super::{corrupt, ConnectorSync, Store, StoreError, StoredConnector, TurnedOffRecord};
use chrono::{DateTime, Utc};
use meshwatch::connectors::{
    CheckedConnector, ConnectorMode, ConnectorState, PanelKind, TurnedOff, MAX_CONNECTORS,
};
use meshwatch::{ConnectorId, ServerStatus};
use std::collections::HashMap;

#[derive(sqlx::FromRow)]
struct ConnectorRow {
    id: ConnectorId,
    kind: String,
    url: String,
    token: String,
    tag: Option<String>,
    mode: String,
    state: String,
    last_sync_at: Option<DateTime<Utc>>,
    last_error: Option<String>,
    failing_since: Option<DateTime<Utc>>,
    hosts: String,
    pending: String,
}

#[derive(sqlx::FromRow)]
struct TurnedOffRow {
    connector_id: ConnectorId,
    external_id: String,
    server_id: meshwatch::ServerId,
    entry_point_id: meshwatch::EntryPointId,
    status: String,
    since: DateTime<Utc>,
    confirmed: bool,
}

const SELECT_CONNECTORS: &str = "SELECT id, kind, url, token, tag, mode, state, last_sync_at, \
     last_error, failing_since, hosts, pending FROM connectors";

const SELECT_TURNED_OFF: &str = "SELECT connector_id, external_id, server_id, entry_point_id, \
     status, since, confirmed FROM connector_hosts_off";

impl Store {
    /// Every connector, by id, with what it turned off.
    pub async fn connectors(&self) -> Result<Vec<StoredConnector>, StoreError> {
        // One snapshot: a sync recorded between the reads would show a host
        // confirmed off beside the hosts as they were before it.
        let mut tx = self.read_snapshot().await?;
        let rows = sqlx::query_as::<_, ConnectorRow>(&format!("{SELECT_CONNECTORS} ORDER BY id"))
            .fetch_all(&mut *tx)
            .await?;
        let off = sqlx::query_as::<_, TurnedOffRow>(&format!(
            "{SELECT_TURNED_OFF} ORDER BY connector_id, since, external_id"
        ))
        .fetch_all(&mut *tx)
        .await?;
        rows.into_iter()
            .map(|row| {
                let id = row.id.clone();
                let mine = off.iter().filter(move |o| o.connector_id == id);
                self.stored_connector(row, mine)
            })
            .collect()
    }

    /// Every connector's id, in order.
    pub async fn connector_ids(&self) -> Result<Vec<ConnectorId>, StoreError> {
        Ok(sqlx::query_scalar("SELECT id FROM connectors ORDER BY id")
            .fetch_all(&self.reader)
            .await?)
    }

    /// One connector, with what it turned off.
    pub async fn connector(&self, id: &ConnectorId) -> Result<Option<StoredConnector>, StoreError> {
        // One snapshot, as in `connectors`.
        let mut tx = self.read_snapshot().await?;
        let Some(row) =
            sqlx::query_as::<_, ConnectorRow>(&format!("{SELECT_CONNECTORS} WHERE id = $1"))
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?
        else {
            return Ok(None);
        };
        let off = sqlx::query_as::<_, TurnedOffRow>(&format!(
            "{SELECT_TURNED_OFF} WHERE connector_id = $1 ORDER BY since, external_id"
        ))
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
        self.stored_connector(row, off.iter()).map(Some)
    }

    fn stored_connector<'a>(
        &self,
        row: ConnectorRow,
        off: impl Iterator<Item = &'a TurnedOffRow>,
    ) -> Result<StoredConnector, StoreError> {
        let turned_off = off
            .map(|o| {
                Ok(TurnedOffRecord {
                    host: TurnedOff {
                        external_id: o.external_id.clone(),
                        server_id: o.server_id.clone(),
                        entry_point_id: o.entry_point_id.clone(),
                        status: ServerStatus::from_wire(&o.status)
                            .ok_or_else(|| corrupt("connector host status", &o.status))?,
                        since: o.since,
                    },
                    confirmed: o.confirmed,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(StoredConnector {
            token: self.sealed.open_connector_token(&row.id, &row.token),
            kind: PanelKind::parse(&row.kind)
                .ok_or_else(|| corrupt("connector kind", &row.kind))?,
            mode: ConnectorMode::parse(&row.mode)
                .ok_or_else(|| corrupt("connector mode", &row.mode))?,
            state: ConnectorState::parse(&row.state)
                .ok_or_else(|| corrupt("connector state", &row.state))?,
            hosts: serde_json::from_str(&row.hosts).map_err(|e| corrupt("connector hosts", e))?,
            pending: serde_json::from_str(&row.pending)
                .map_err(|e| corrupt("connector pending", e))?,
            id: row.id,
            url: row.url,
            tag: row.tag,
            last_sync_at: row.last_sync_at,
            last_error: row.last_error,
            failing_since: row.failing_since,
            turned_off,
        })
    }

    /// Creates or changes a connector (its token sealed). A connector being
    /// removed is not changed; one whose panel or kind changes while it has
    /// hosts turned off is refused (their ids belong to the old panel).
    /// Returns whether it was created.
    pub async fn put_connector(
        &self,
        id: &ConnectorId,
        connector: &CheckedConnector,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let existing: Option<(String, String, String)> =
            sqlx::query_as("SELECT kind, url, state FROM connectors WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let token = self.sealed.seal_connector_token(id, &connector.token)?;
        let created = match existing {
            Some((_, _, state)) if state == ConnectorState::Removing.as_str() => {
                return Err(StoreError::Conflict {
                    code: "connector_removing",
                    message: format!("{id} is being removed: wait until it is gone"),
                })
            }
            Some((kind, url, _)) => {
                let moved = kind != connector.kind.as_str() || url != connector.url;
                let off: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM connector_hosts_off WHERE connector_id = $1",
                )
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
                if moved && off > 0 {
                    return Err(StoreError::Conflict {
                        code: "connector_in_use",
                        message: format!(
                            "{id} has {off} hosts turned off in its panel: delete it first \
                             (that turns them back on), then add the new panel"
                        ),
                    });
                }
                sqlx::query(
                    "UPDATE connectors SET kind = $1, url = $2, token = $3, tag = $4, mode = $5
                     WHERE id = $6",
                )
                .bind(connector.kind.as_str())
                .bind(&connector.url)
                .bind(&token)
                .bind(&connector.tag)
                .bind(connector.mode.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?;
                false
            }
            None => {
                let kept: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM connectors")
                    .fetch_one(&mut *tx)
                    .await?;
                if usize::try_from(kept).unwrap_or(usize::MAX) >= MAX_CONNECTORS {
                    return Err(StoreError::Conflict {
                        code: "too_many_connectors",
                        message: format!("at most {MAX_CONNECTORS} connectors"),
                    });
                }
                sqlx::query(
                    "INSERT INTO connectors (id, kind, url, token, tag, mode, created_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(id)
                .bind(connector.kind.as_str())
                .bind(&connector.url)
                .bind(&token)
                .bind(&connector.tag)
                .bind(connector.mode.as_str())
                .bind(now)
                .execute(&mut *tx)
                .await?;
                true
            }
        };
        tx.commit().await?;
        Ok(created)
    }

    /// Switches a connector between applying and dry run; `false` when
    /// there is none, or it is being removed.
    pub async fn set_connector_mode(
        &self,
        id: &ConnectorId,
        mode: ConnectorMode,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE connectors SET mode = $1 WHERE id = $2 AND state <> $3")
            .bind(mode.as_str())
            .bind(id)
            .bind(ConnectorState::Removing.as_str())
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The connected panels that hide each server's hosts now: each
    /// connector's id and kind, and since when (the earliest of its hosts
    /// on that server), by connector id.
    pub async fn hidden_hosts(
        &self,
    ) -> Result<HashMap<meshwatch::ServerId, Vec<meshwatch::connectors::HiddenIn>>, StoreError>
    {
        let rows: Vec<(meshwatch::ServerId, ConnectorId, String, DateTime<Utc>)> = sqlx::query_as(
            "SELECT h.server_id, c.id, c.kind, MIN(h.since) FROM connector_hosts_off h
             JOIN connectors c ON c.id = h.connector_id
             WHERE h.confirmed = $1
             GROUP BY h.server_id, c.id, c.kind ORDER BY h.server_id, c.id",
        )
        .bind(true)
        .fetch_all(&self.reader)
        .await?;
        let mut hidden: HashMap<_, Vec<_>> = HashMap::new();
        for (server, connector, kind, since) in rows {
            hidden
                .entry(server)
                .or_default()
                .push(meshwatch::connectors::HiddenIn {
                    kind: PanelKind::parse(&kind)
                        .ok_or_else(|| corrupt("connector kind", &kind))?,
                    connector,
                    since,
                });
        }
        Ok(hidden)
    }

    /// How many connectors' syncs fail now (the Overview's count).
    pub async fn connectors_failing(&self) -> Result<u32, StoreError> {
        let n: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM connectors WHERE failing_since IS NOT NULL")
                .fetch_one(&self.reader)
                .await?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Marks a connector for removal; `false` when there is none.
    pub async fn remove_connector(&self, id: &ConnectorId) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE connectors SET state = $1 WHERE id = $2")
            .bind(ConnectorState::Removing.as_str())
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Deletes a removed connector once nothing it turned off is left.
    pub async fn forget_connector(&self, id: &ConnectorId) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM connector_hosts_off WHERE connector_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM connectors WHERE id = $1 AND state = $2")
            .bind(id)
            .bind(ConnectorState::Removing.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Records hosts about to be turned off, before the panel is asked.
    pub async fn intend_turn_off(
        &self,
        id: &ConnectorId,
        hosts: &[TurnedOff],
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        for host in hosts {
            sqlx::query(
                "INSERT INTO connector_hosts_off
                   (connector_id, external_id, server_id, entry_point_id, status, since, confirmed)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (connector_id, external_id) DO NOTHING",
            )
            .bind(id)
            .bind(&host.external_id)
            .bind(&host.server_id)
            .bind(&host.entry_point_id)
            .bind(host.status.as_str())
            .bind(host.since)
            .bind(false)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// What a sync saw, planned and did, and whether it failed, in one
    /// transaction: the hosts it shows and the hosts it holds off never
    /// disagree. A failure that starts an outage queues `messages` (one
    /// per channel) in it too: the operator is told once per outage.
    pub async fn record_connector_sync(
        &self,
        id: &ConnectorId,
        sync: &ConnectorSync,
        messages: &[super::NewNotification],
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        let failing_since: Option<Option<DateTime<Utc>>> =
            sqlx::query_scalar("SELECT failing_since FROM connectors WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some(failing_since) = failing_since else {
            return Ok(());
        };
        for external_id in &sync.forget {
            sqlx::query(
                "DELETE FROM connector_hosts_off WHERE connector_id = $1 AND external_id = $2",
            )
            .bind(id)
            .bind(external_id)
            .execute(&mut *tx)
            .await?;
        }
        for external_id in &sync.confirmed_off {
            sqlx::query(
                "UPDATE connector_hosts_off SET confirmed = $1
                 WHERE connector_id = $2 AND external_id = $3",
            )
            .bind(true)
            .bind(id)
            .bind(external_id)
            .execute(&mut *tx)
            .await?;
        }
        let hosts = serde_json::to_string(&sync.hosts).map_err(|e| corrupt("hosts", e))?;
        let pending = serde_json::to_string(&sync.pending).map_err(|e| corrupt("pending", e))?;
        let (state, failing_since) = match (&sync.error, failing_since) {
            (None, _) => (ConnectorState::Ok, None),
            (Some(_), Some(since)) => (ConnectorState::Error, Some(since)),
            (Some(_), None) => {
                queue_in(&mut tx, messages).await?;
                (ConnectorState::Error, Some(sync.at))
            }
        };
        // A connector being removed stays so; its sync still records.
        sqlx::query(
            "UPDATE connectors SET
               state = CASE WHEN state = $1 THEN state ELSE $2 END,
               last_sync_at = $3, last_error = $4, failing_since = $5,
               hosts = CASE WHEN $6 THEN $7 ELSE hosts END,
               pending = CASE WHEN $6 THEN $8 ELSE pending END
             WHERE id = $9",
        )
        .bind(ConnectorState::Removing.as_str())
        .bind(state.as_str())
        .bind(sync.at)
        .bind(&sync.error)
        .bind(failing_since)
        .bind(sync.read_hosts)
        .bind(hosts)
        .bind(pending)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
