//! Live operator sessions, remembered for a few seconds: a page view and
//! the server functions it renders, and a live page's refetches, would
//! otherwise each ask SQLite who the cookie belongs to.
//!
//! Ending a session in this process (sign-out, a password change) forgets
//! it at once, and tells open event streams ([`SessionCache::ended`]). A
//! session ended by another process (`create-operator` resetting a
//! password) is trusted for at most [`RECHECK_AFTER`] more.

use crate::crypto::secrets::TokenHash;
use crate::engine::Clock;
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use meshwatch_views::views::OperatorView;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::broadcast;

pub const RECHECK_AFTER: Duration = Duration::from_secs(5);

/// More live sessions than this and the cache starts over (a bound, not an
/// LRU: operators are few, so reaching it means something odd).
const MAX_ENTRIES: usize = 10_000;

struct Known {
    operator: OperatorView,
    expires_at: DateTime<Utc>,
    checked: DateTime<Utc>,
}

/// A session that ended in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Signed out: the session with this token hash.
    One(String),
    /// A password change: the operator's other sessions (which ones is the
    /// store's to say, so every stream checks its own).
    Some,
}

pub struct SessionCache {
    known: Mutex<HashMap<String, Known>>,
    ended: broadcast::Sender<Ended>,
    /// Expiry and rechecks follow it.
    clock: Clock,
}

impl Default for SessionCache {
    fn default() -> Self {
        Self::new(Clock::System)
    }
}

impl SessionCache {
    pub fn new(clock: Clock) -> Self {
        Self {
            known: Mutex::default(),
            ended: broadcast::channel(64).0,
            clock,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Known>> {
        // Every update is a whole insert or remove: a poisoned map is usable.
        self.known
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The operator of a live session, from memory when it was checked
    /// within [`RECHECK_AFTER`] and has not expired, else from the store.
    pub async fn operator(
        &self,
        store: &Store,
        token: &TokenHash,
    ) -> Result<Option<OperatorView>, StoreError> {
        let now = self.clock.now();
        if let Some(known) = self.lock().get(token.as_str()) {
            let recheck = chrono::Duration::from_std(RECHECK_AFTER).unwrap_or_default();
            if now - known.checked < recheck && known.expires_at > now {
                return Ok(Some(known.operator.clone()));
            }
        }
        let found = store.session(token, now).await?;
        let mut known = self.lock();
        match &found {
            Some((operator, expires_at)) => {
                if known.len() >= MAX_ENTRIES {
                    known.clear();
                }
                known.insert(
                    token.as_str().to_owned(),
                    Known {
                        operator: operator.clone(),
                        expires_at: *expires_at,
                        checked: now,
                    },
                );
            }
            None => {
                known.remove(token.as_str());
            }
        }
        Ok(found.map(|(operator, _)| operator))
    }

    /// The session ended here (signed out).
    pub fn forget(&self, token: &TokenHash) {
        self.lock().remove(token.as_str());
        // Nobody listening is fine: no stream is open.
        let _ = self.ended.send(Ended::One(token.as_str().to_owned()));
    }

    /// Sessions ended in bulk (a password change ends an operator's others).
    pub fn forget_all(&self) {
        self.lock().clear();
        let _ = self.ended.send(Ended::Some);
    }

    /// Sessions ending in this process, for streams that must stop with
    /// their session.
    pub fn ended(&self) -> broadcast::Receiver<Ended> {
        self.ended.subscribe()
    }
}
