//! `users.sub_token`: the subscription token the user card shows as a link,
//! kept sealed (see [`crate::sealing`]) so that a copy of the database does
//! not hand out subscriptions. `/sub/{token}` never needs it: it finds users
//! by `sub_token_hash`.

use super::sqlite::begin_write;
use super::StoreError;
use crate::sealing::{self, SealingKey};
use meshwatch::UserId;
use sqlx::SqlitePool;
use std::sync::atomic::{AtomicBool, Ordering};

const UNOPENABLE: &str = "a stored subscription token does not open with this panel's key \
    (was the database restored without its key file, or MESHWATCH_SECRET_KEY changed?): \
    the user card shows no link until the token is given again; subscriptions keep working";

/// A user's stored token, sealed or (written by an earlier version) clear.
#[derive(sqlx::FromRow)]
struct StoredToken {
    id: UserId,
    sub_token: String,
}

/// The store's key for `users.sub_token`, and whether the log already said
/// that a value does not open with it.
pub(super) struct SubTokenSealing {
    key: SealingKey,
    said_unopenable: AtomicBool,
}

impl SubTokenSealing {
    pub(super) fn new(key: SealingKey) -> Self {
        Self {
            key,
            said_unopenable: AtomicBool::new(false),
        }
    }

    /// An action's HTTP call (`actions.http`, JSON: its URL, headers and
    /// body may hold credentials) as the row numbered `action` keeps it.
    pub(super) fn seal_action_call(&self, action: i64, call: &str) -> Result<String, StoreError> {
        Ok(self
            .key
            .seal_bound(action_bound(action).as_bytes(), call.as_bytes())?)
    }

    /// The call kept in `stored` (sealed, or clear from before calls were
    /// sealed); `None` when it does not open with this key.
    pub(super) fn open_action_call(&self, action: i64, stored: &str) -> Option<String> {
        if !sealing::is_sealed(stored) {
            return Some(stored.to_owned());
        }
        let opened = self
            .key
            .open_bound(action_bound(action).as_bytes(), stored)
            .ok()
            .and_then(|clear| String::from_utf8(clear).ok());
        if opened.is_none() && !self.said_unopenable.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                action,
                "a stored action's HTTP call does not open with this panel's key (restored \
                 without its key file?): it does not run until it is made again"
            );
        }
        opened
    }

    /// `token` as `users.sub_token` of `user` keeps it.
    pub(super) fn seal(&self, user: &UserId, token: &str) -> Result<String, StoreError> {
        Ok(self.key.seal(user, token)?)
    }

    /// The token kept in `stored`; `None` when it does not open (another
    /// key, after a restore without the key file). The card then reads as
    /// for a user whose token the panel never knew — never an error page —
    /// and the log says why, once.
    pub(super) fn open(&self, user: &UserId, stored: &str) -> Option<String> {
        match self.key.open(user, stored) {
            Ok(token) => Some(token),
            Err(error) => {
                if !self.said_unopenable.swap(true, Ordering::Relaxed) {
                    tracing::warn!(%user, %error, "{}", UNOPENABLE);
                }
                None
            }
        }
    }

    /// Seals, in one transaction, every `users.sub_token` still in clear
    /// (stored before tokens were sealed), then scrubs the clear copies off
    /// the disk. Says once how many sealed values this key cannot open.
    pub(super) async fn seal_clear_values(&self, writer: &SqlitePool) -> Result<(), StoreError> {
        let mut tx = begin_write(writer).await?;
        let rows = sqlx::query_as::<_, StoredToken>(
            "SELECT id, sub_token FROM users WHERE sub_token IS NOT NULL",
        )
        .fetch_all(&mut *tx)
        .await?;
        let (mut sealed, mut unopenable) = (0usize, 0usize);
        for StoredToken { id, sub_token } in rows {
            if sealing::is_sealed(&sub_token) {
                if self.key.open(&id, &sub_token).is_err() {
                    unopenable += 1;
                }
                continue;
            }
            sqlx::query("UPDATE users SET sub_token = $1 WHERE id = $2")
                .bind(self.seal(&id, &sub_token)?)
                .bind(&id)
                .execute(&mut *tx)
                .await?;
            sealed += 1;
        }
        tx.commit().await?;
        if sealed > 0 {
            tracing::info!(
                users = sealed,
                "sealed the subscription tokens an earlier version stored in clear"
            );
            // The tokens are sealed in the table whatever happens here: a
            // failed scrub (another process holds the database) is no reason
            // not to start.
            if let Err(error) = scrub(writer).await {
                tracing::warn!(
                    %error,
                    "cannot rewrite the database file: copies of the clear subscription \
                     tokens stay in its free space until SQLite reuses it (VACUUM removes them)"
                );
            }
        }
        if unopenable > 0 {
            self.said_unopenable.store(true, Ordering::Relaxed);
            tracing::warn!(users = unopenable, "{}", UNOPENABLE);
        }
        Ok(())
    }
}

/// Rewrites the database file from its live rows and empties the WAL: an
/// `UPDATE` leaves the value it replaced in the page's free space (and the
/// old page in the main file until a checkpoint), so without this the clear
/// tokens would stay readable on disk until SQLite happened to reuse that
/// space.
async fn scrub(writer: &SqlitePool) -> Result<(), StoreError> {
    sqlx::query("VACUUM").execute(writer).await?;
    let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(writer)
        .await?;
    if busy != 0 {
        tracing::warn!(
            "the database was busy: the clear subscription tokens just sealed stay in the \
             database file until its next checkpoint"
        );
    }
    Ok(())
}

/// What an action's sealed call is bound to: its row.
fn action_bound(action: i64) -> String {
    format!("action:{action}")
}
