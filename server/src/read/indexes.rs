//! Which servers have action runs to list (docs/PRODUCT.md §6), and which
//! connected panels hide each server's hosts: most servers never had
//! either, and their cards skip the queries. Each set is read for all
//! servers at once, at most every [`MAX_AGE`]; this replica's connector
//! syncs renew the second at once.

use crate::read::recent::Recent;
use crate::store::{Store, StoreError};
use meshwatch::connectors::HiddenIn;
use meshwatch::ServerId;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// How old a set may be.
pub const MAX_AGE: Duration = Duration::from_secs(1);

/// The servers with action runs.
pub struct RunsIndex(Recent<HashSet<ServerId>>);

impl Default for RunsIndex {
    fn default() -> Self {
        Self(Recent::new(MAX_AGE))
    }
}

impl RunsIndex {
    /// Whether `server` has runs to list, as of at most [`MAX_AGE`] ago.
    pub async fn has_runs(&self, store: &Store, server: &ServerId) -> Result<bool, StoreError> {
        let set = self
            .0
            .get(|| async { Ok(store.servers_with_runs().await?.into_iter().collect()) })
            .await?;
        Ok(set.contains(server))
    }
}

/// The connected panels that hide each server's hosts.
pub struct HiddenIndex(Recent<HashMap<ServerId, Vec<HiddenIn>>>);

impl Default for HiddenIndex {
    fn default() -> Self {
        Self(Recent::new(MAX_AGE))
    }
}

impl HiddenIndex {
    /// The panels hiding `server`'s hosts now, as of at most [`MAX_AGE`]
    /// ago or this replica's last sync.
    pub async fn hidden_in(
        &self,
        store: &Store,
        server: &ServerId,
    ) -> Result<Vec<HiddenIn>, StoreError> {
        let all = self.0.get(|| store.hidden_hosts()).await?;
        Ok(all.get(server).cloned().unwrap_or_default())
    }

    /// A sync changed which hosts are off: the next card reads again.
    pub fn forget(&self) {
        self.0.forget();
    }
}
