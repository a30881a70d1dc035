//! The store: every SQL statement of meshwatch lives under this module, so a
//! PostgreSQL store can follow by re-implementing it alone.
//!
//! SQLite is opened in WAL mode with `synchronous=FULL` (a 202 tells an
//! agent it may delete the report from its spool, so an acknowledged commit
//! must survive a power loss, not only a crash), a busy timeout and
//! foreign keys on. Writes go through a single-connection writer pool and
//! start with `BEGIN IMMEDIATE` (no lock upgrades, no SQLITE_BUSY mid-way);
//! reads use their own pool and never wait for the writer.
//!
//! One module per table or aggregate. Statements use `$N` placeholders,
//! `ON CONFLICT` and `RETURNING`, which PostgreSQL reads alike; what only
//! SQLite says stays where it is named: the connection set-up and
//! `begin_write` here, `json_extract` in `metrics`, `json_group_array` in
//! `fleet`, `VACUUM` and pragmas in `sub_tokens`, [`offline`] and
//! [`schema`]. Rows are read through `sqlx::FromRow` structs: a public type
//! whose fields are its columns derives it; any other row is a private
//! struct that decodes (JSON, names, ranges) in one `TryFrom`.

mod auth;
mod fleet;
mod history;
mod metrics;
pub mod offline;
mod outbox;
mod reports;
pub mod schema;
mod settings;
mod sub_tokens;

pub use fleet::{Endpoint, GeneratedTokens};
pub use outbox::{Delivery, NewNotification, NotificationView, Outgoing};
pub use reports::{EvidenceSnapshot, PairRow, PendingReport, ReceivedReport, StoredReport};

use crate::sealing::{SealingError, SealingKey};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use sub_tokens::SubTokenSealing;

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot create the database directory {path}: {source}")]
    Directory {
        path: String,
        source: std::io::Error,
    },
    /// The request conflicts with what is stored; nothing was written.
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    /// The request is invalid against what is stored; nothing was written.
    #[error("{message}")]
    Rejected { code: &'static str, message: String },
    #[error("cannot seal a subscription token: {0}")]
    Sealing(#[from] SealingError),
    /// A newer meshwatch migrated the database; nothing was written.
    #[error(transparent)]
    NewerSchema(#[from] schema::NewerSchema),
}

#[derive(Clone)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
    /// Seals `users.sub_token` on the way in and opens it on the way out.
    sub_tokens: Arc<SubTokenSealing>,
}

const READ_CONNECTIONS: u32 = 8;

impl Store {
    /// Opens (creating if needed) the database at `url`, applies pending
    /// migrations and seals subscription tokens still stored in clear;
    /// `sealing` seals and opens them from then on (see
    /// [`crate::sealing::key_for_database`]).
    pub async fn open(url: &str, sealing: SealingKey) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let file = database_file(url)?;
        let in_memory = file.is_none();
        if let Some(dir) = file
            .as_deref()
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
        {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Directory {
                path: dir.display().to_string(),
                source,
            })?;
        }
        // SQLite connections are in-process: a ping before each use (sqlx's
        // default, meant for network databases) only costs a thread hop.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        {
            let mut conn = writer.acquire().await?;
            // Before migrating: sqlx would refuse a newer database too, but
            // only as "migration … is missing"; this names both releases.
            if let Some(applied) = schema::applied_migrations(&mut conn).await? {
                schema::refuse_newer(&applied)?;
            }
            schema::MIGRATOR.run(&mut *conn).await?;
        }
        let sub_tokens = Arc::new(SubTokenSealing::new(sealing));
        // Before the read pool opens: the scrub that follows the sealing
        // wants the database to itself.
        sub_tokens.seal_clear_values(&writer).await?;
        // An in-memory database exists once per connection: share the writer.
        let reader = if in_memory {
            writer.clone()
        } else {
            SqlitePoolOptions::new()
                .max_connections(READ_CONNECTIONS)
                .test_before_acquire(false)
                .connect_with(options.read_only(true))
                .await?
        };
        Ok(Self {
            writer,
            reader,
            sub_tokens,
        })
    }

    /// The database answers a query (for `/readyz`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.reader).await?;
        Ok(())
    }

    /// Starts the one write transaction at a time (see [`begin_write`]).
    async fn write(&self) -> Result<Tx, StoreError> {
        Ok(begin_write(&self.writer).await?)
    }

    /// Closes both pools, flushing the WAL.
    pub async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }
}

/// The database file behind a `sqlite:` URL; `None` for an in-memory
/// database (it has no file, nor a directory to keep anything beside it).
pub fn database_file(url: &str) -> Result<Option<PathBuf>, sqlx::Error> {
    let options = SqliteConnectOptions::from_str(url)?;
    let file = options.get_filename();
    // sqlx names `:memory:` databases `file:sqlx-in-memory-N`, and
    // `?mode=memory` keeps the name: the URL tells, the file name may not.
    let in_memory = file.as_os_str().is_empty()
        || file == Path::new(":memory:")
        || url.contains(":memory:")
        || url.contains("mode=memory");
    Ok((!in_memory).then(|| file.to_path_buf()))
}

/// A stored value that does not decode: the database was changed behind
/// the store's back.
fn corrupt(what: &str, err: impl std::fmt::Display) -> StoreError {
    StoreError::Database(sqlx::Error::Decode(
        format!("stored {what} is invalid: {err}").into(),
    ))
}

/// A write transaction (see [`begin_write`]).
type Tx = Transaction<'static, Sqlite>;

/// Starts a write transaction taking SQLite's write lock now
/// (`IMMEDIATE`): a plain `BEGIN` would take it at the first write, and a
/// transaction that read before then could fail half-way with
/// SQLITE_BUSY. PostgreSQL's plain `BEGIN` needs no such thing.
async fn begin_write(writer: &SqlitePool) -> Result<Tx, sqlx::Error> {
    writer.begin_with("BEGIN IMMEDIATE").await
}

/// A count column (probes, streaks) as the `u32` the domain holds.
fn count(what: &str, stored: i64) -> Result<u32, StoreError> {
    u32::try_from(stored).map_err(|e| corrupt(what, e))
}

#[cfg(test)]
mod tests {
    use meshwatch::{ServerId, UserId};
    use sqlx::{Connection, SqliteConnection};

    #[tokio::test]
    async fn an_id_is_stored_as_its_slug_and_reads_back_only_when_one() {
        let mut conn = SqliteConnection::connect("sqlite::memory:")
            .await
            .expect("opens");
        let id = ServerId::parse("de-1").expect("a server id");
        let (text, back): (String, ServerId) = sqlx::query_as("SELECT $1, $1")
            .bind(&id)
            .fetch_one(&mut conn)
            .await
            .expect("round trip");
        assert_eq!((text.as_str(), back), ("de-1", id));
        let edited = sqlx::query_scalar::<_, UserId>("SELECT 'Alice Smith'")
            .fetch_one(&mut conn)
            .await;
        assert!(edited.is_err(), "{edited:?}");
    }
}
