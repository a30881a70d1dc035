//! Which servers have action runs to list (docs/PRODUCT.md §6). Most servers
//! never had one: their cards skip the query for runs. The set is read
//! again at most every [`MAX_AGE`], so a new run shows within it.

use crate::store::{Store, StoreError};
use meshwatch::ServerId;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How old the set may be.
pub const MAX_AGE: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct RunsIndex {
    read: Mutex<Option<(Instant, Arc<HashSet<ServerId>>)>>,
}

impl RunsIndex {
    /// Whether `server` has runs to list, as of at most [`MAX_AGE`] ago.
    pub async fn has_runs(&self, store: &Store, server: &ServerId) -> Result<bool, StoreError> {
        let fresh = self
            .read
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .as_ref()
            .filter(|(at, _)| at.elapsed() < MAX_AGE)
            .map(|(_, set)| set.clone());
        let set = match fresh {
            Some(set) => set,
            None => {
                let set: Arc<HashSet<ServerId>> =
                    Arc::new(store.servers_with_runs().await?.into_iter().collect());
                *self
                    .read
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) =
                    Some((Instant::now(), set.clone()));
                set
            }
        };
        Ok(set.contains(server))
    }
}
