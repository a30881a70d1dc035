//! The columns kept sealed (see [`crate::crypto::sealing`]) so that a copy of the
//! database hands out nothing:
//! - `users.sub_token`, the subscription token the user card shows as a
//!   link. `/sub/{token}` never needs it: it finds users by
//!   `sub_token_hash`.
//! - `users.credential`, the proxy credential (UUID or password) every
//!   subscription hands out. With a lost key that user's subscription
//!   answers 503 until the credential is given again: an app keeps the
//!   configuration it has rather than receiving a broken one.
//! - `actions.http`, an action's HTTP call (URL, headers, body).

use super::sqlite::begin_write;
use super::StoreError;
use crate::crypto::sealing::{self, SealingKey};
use meshwatch::UserId;
use sqlx::SqlitePool;
use std::sync::atomic::{AtomicBool, Ordering};

const UNOPENABLE: &str = "a stored subscription token does not open with this panel's key \
    (was the database restored without its key file, or MESHWATCH_SECRET_KEY changed?): \
    the user card shows no link until the token is given again; subscriptions keep working";

const CREDENTIAL_UNOPENABLE: &str = "a user's stored proxy credential does not open with this \
    panel's key (was the database restored without its key file, or MESHWATCH_SECRET_KEY \
    changed?): that user's subscription answers 503 until the credential is given again \
    through PUT /api/v1/fleet";

/// A user's stored token or credential, sealed or (written by an earlier
/// version) clear.
#[derive(sqlx::FromRow)]
pub(super) struct StoredValue {
    id: UserId,
    value: String,
}

/// The store's key for its sealed columns, and whether the log already said
/// that a value does not open with it.
pub(super) struct SealedColumns {
    key: SealingKey,
    said_unopenable: AtomicBool,
    said_credential_unopenable: AtomicBool,
}

impl SealedColumns {
    pub(super) fn new(key: SealingKey) -> Self {
        Self {
            key,
            said_unopenable: AtomicBool::new(false),
            said_credential_unopenable: AtomicBool::new(false),
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

    /// `credential` as `users.credential` of `user` keeps it.
    pub(super) fn seal_credential(
        &self,
        user: &UserId,
        credential: &str,
    ) -> Result<String, StoreError> {
        Ok(self
            .key
            .seal_bound(credential_bound(user).as_bytes(), credential.as_bytes())?)
    }

    /// The credential kept in `stored` (sealed, or clear from before
    /// credentials were sealed); `None` when it does not open with this
    /// key, which the log says once.
    pub(super) fn open_credential(&self, user: &UserId, stored: &str) -> Option<String> {
        if !sealing::is_sealed(stored) {
            return Some(stored.to_owned());
        }
        let opened = self.credential_opens(user, stored);
        if opened.is_none()
            && !self
                .said_credential_unopenable
                .swap(true, Ordering::Relaxed)
        {
            tracing::warn!(%user, "{}", CREDENTIAL_UNOPENABLE);
        }
        opened
    }

    fn credential_opens(&self, user: &UserId, stored: &str) -> Option<String> {
        self.key
            .open_bound(credential_bound(user).as_bytes(), stored)
            .ok()
            .and_then(|clear| String::from_utf8(clear).ok())
    }

    /// A connector's token as `connectors.token` of `id` keeps it.
    pub(super) fn seal_connector_token(
        &self,
        id: &meshwatch::ConnectorId,
        token: &str,
    ) -> Result<String, StoreError> {
        Ok(self
            .key
            .seal_bound(connector_bound(id).as_bytes(), token.as_bytes())?)
    }

    /// The token kept in `stored`; `None` when it does not open with this
    /// key (the connector then fails its syncs and says why).
    pub(super) fn open_connector_token(
        &self,
        id: &meshwatch::ConnectorId,
        stored: &str,
    ) -> Option<String> {
        self.key
            .open_bound(connector_bound(id).as_bytes(), stored)
            .ok()
            .and_then(|clear| String::from_utf8(clear).ok())
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

    /// Seals, in one transaction, every `users.sub_token` and
    /// `users.credential` still in clear (stored before they were sealed).
    /// Says once how many sealed values this key cannot open. Returns
    /// whether it sealed anything. Replicas starting together may both
    /// run it: a row is sealed only while it still holds the clear value
    /// read.
    pub(super) async fn seal_clear_users<'c, DB>(
        &self,
        tx: &mut sqlx::Transaction<'c, DB>,
    ) -> Result<bool, StoreError>
    where
        DB: sqlx::Database,
        for<'e> &'e mut DB::Connection: sqlx::Executor<'e, Database = DB>,
        for<'q> DB::Arguments<'q>: sqlx::IntoArguments<'q, DB>,
        for<'r> StoredValue: sqlx::FromRow<'r, DB::Row>,
        String: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
        UserId: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    {
        let (mut sealed, mut tokens_unopenable, mut credentials_unopenable) = (0usize, 0, 0);
        for column in ["sub_token", "credential"] {
            let rows = sqlx::query_as::<_, StoredValue>(&format!(
                "SELECT id, {column} AS value FROM users WHERE {column} IS NOT NULL"
            ))
            .fetch_all(&mut **tx)
            .await?;
            let update = format!("UPDATE users SET {column} = $1 WHERE id = $2 AND {column} = $3");
            for StoredValue { id, value } in rows {
                let credential = column == "credential";
                if sealing::is_sealed(&value) {
                    match credential {
                        true if self.credential_opens(&id, &value).is_none() => {
                            credentials_unopenable += 1
                        }
                        false if self.key.open(&id, &value).is_err() => tokens_unopenable += 1,
                        _ => {}
                    }
                    continue;
                }
                let sealed_value = match credential {
                    true => self.seal_credential(&id, &value)?,
                    false => self.seal(&id, &value)?,
                };
                sqlx::query(&update)
                    .bind(sealed_value)
                    .bind(&id)
                    .bind(&value)
                    .execute(&mut **tx)
                    .await?;
                sealed += 1;
            }
        }
        if sealed > 0 {
            tracing::info!(
                values = sealed,
                "sealed the subscription tokens and proxy credentials an earlier version \
                 stored in clear"
            );
        }
        if tokens_unopenable > 0 {
            self.said_unopenable.store(true, Ordering::Relaxed);
            tracing::warn!(users = tokens_unopenable, "{}", UNOPENABLE);
        }
        if credentials_unopenable > 0 {
            self.said_credential_unopenable
                .store(true, Ordering::Relaxed);
            tracing::warn!(users = credentials_unopenable, "{}", CREDENTIAL_UNOPENABLE);
        }
        Ok(sealed > 0)
    }

    /// [`Self::seal_clear_users`] on SQLite, then the clear copies scrubbed
    /// off the disk.
    pub(super) async fn seal_clear_values(&self, writer: &SqlitePool) -> Result<(), StoreError> {
        let mut tx = begin_write(writer).await?;
        let sealed = self.seal_clear_users(&mut tx).await?;
        tx.commit().await?;
        // The values are sealed in the table whatever happens here: a failed
        // scrub (another process holds the database) is no reason not to
        // start.
        if sealed {
            if let Err(error) = scrub(writer).await {
                tracing::warn!(
                    %error,
                    "cannot rewrite the database file: copies of the clear values stay in its \
                     free space until SQLite reuses it (VACUUM removes them)"
                );
            }
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
            "the database was busy: the clear values just sealed stay in the database file \
             until its next checkpoint"
        );
    }
    Ok(())
}

/// What a user's sealed credential is bound to: its row and column (a
/// sealed token copied into the credential column does not open).
fn credential_bound(user: &UserId) -> String {
    format!("credential:{user}")
}

/// What a connector's sealed token is bound to: its row.
fn connector_bound(id: &meshwatch::ConnectorId) -> String {
    format!("connector:{id}")
}

/// What an action's sealed call is bound to: its row.
fn action_bound(action: i64) -> String {
    format!("action:{action}")
}
