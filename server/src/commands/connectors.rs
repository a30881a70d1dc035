//! What the automation API and the panel both do to connectors, written
//! once: save one (checked, its token sealed), switch its mode, remove it
//! (its hosts turned back on first), and show it (never its token).

use crate::store::{Store, StoreError, StoredConnector};
use chrono::{DateTime, Utc};
use meshwatch::connectors::{ConnectorMode, ConnectorSpec, ConnectorSpecError, ConnectorView};
use meshwatch::ConnectorId;
use std::time::Duration;
use tokio::sync::Notify;

/// How long a removal waits for the hosts to be turned back on before it
/// answers with the connector still `removing`.
pub const REMOVE_WAIT: Duration = Duration::from_secs(10);

/// Why a connector was not saved; nothing was stored.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("{0}")]
    Invalid(#[from] ConnectorSpecError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a removal came to.
pub enum Removal {
    /// Every host it turned off is back on, and it is gone.
    Gone,
    /// Its panel could not be reached in time: it stays `removing`, and
    /// the sync keeps trying.
    Removing(Box<ConnectorView>),
    NotFound,
}

/// A connector as the API and the panel show it: never its token.
pub fn view(c: StoredConnector) -> ConnectorView {
    ConnectorView {
        id: c.id,
        kind: c.kind,
        url: c.url,
        tag: c.tag,
        mode: c.mode,
        token: "(hidden)".to_owned(),
        state: c.state,
        last_sync_at: c.last_sync_at,
        last_error: c.last_error,
        hosts: c.hosts,
        pending: c.pending,
        turned_off: c
            .turned_off
            .into_iter()
            .filter(|r| r.confirmed)
            .map(|r| r.host)
            .collect(),
    }
}

/// Checks and stores a connector, then wakes the sync.
pub async fn save(
    store: &Store,
    nudge: &Notify,
    id: &ConnectorId,
    spec: &ConnectorSpec,
    now: DateTime<Utc>,
) -> Result<ConnectorView, SaveError> {
    let checked = spec.check()?;
    let created = store.put_connector(id, &checked, now).await?;
    tracing::info!(connector = %id, kind = checked.kind.as_str(), mode = checked.mode.as_str(), created, "connector saved");
    nudge.notify_one();
    let stored = store
        .connector(id)
        .await?
        .ok_or_else(|| StoreError::Conflict {
            code: "connector_removed",
            message: format!("{id} was removed meanwhile"),
        })?;
    Ok(view(stored))
}

/// Switches a connector between applying and dry run; `false` when there
/// is none (or it is being removed).
pub async fn set_mode(
    store: &Store,
    nudge: &Notify,
    id: &ConnectorId,
    mode: ConnectorMode,
) -> Result<bool, StoreError> {
    let changed = store.set_connector_mode(id, mode).await?;
    if changed {
        tracing::info!(connector = %id, mode = mode.as_str(), "connector mode switched");
        nudge.notify_one();
    }
    Ok(changed)
}

/// Marks the connector for removal and waits (up to [`REMOVE_WAIT`]) for
/// the evaluating panel to turn its hosts back on and forget it.
pub async fn remove(
    store: &Store,
    nudge: &Notify,
    id: &ConnectorId,
) -> Result<Removal, StoreError> {
    if !store.remove_connector(id).await? {
        return Ok(Removal::NotFound);
    }
    tracing::info!(connector = %id, "connector removed");
    nudge.notify_one();
    let deadline = tokio::time::Instant::now() + REMOVE_WAIT;
    loop {
        let Some(connector) = store.connector(id).await? else {
            return Ok(Removal::Gone);
        };
        if tokio::time::Instant::now() >= deadline {
            return Ok(Removal::Removing(Box::new(view(connector))));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
