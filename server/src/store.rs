//! The store: every SQL statement of meshwatch lives under this module, so a
//! PostgreSQL store can follow by re-implementing it alone.
//!
//! SQLite is opened in WAL mode with `synchronous=NORMAL`, a busy timeout and
//! foreign keys on. Writes go through a single-connection writer pool and
//! start with `BEGIN IMMEDIATE` (no lock upgrades, no SQLITE_BUSY mid-way);
//! reads use their own pool and never wait for the writer.

mod auth;
mod fleet;
mod history;
mod ingest;
mod settings;

pub use fleet::{Endpoint, GeneratedTokens};
pub use history::{Delivery, NewNotification, NotificationView, Outgoing};
pub use ingest::{EvidenceSnapshot, PairRow, PendingReport, ReceivedReport, StoredReport};

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

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
}

#[derive(Clone)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
}

const READ_CONNECTIONS: u32 = 8;

impl Store {
    /// Opens (creating if needed) the database at `url` and applies pending
    /// migrations.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let file = options.get_filename().to_path_buf();
        let in_memory = file.as_os_str().is_empty() || file == Path::new(":memory:");
        if let Some(dir) = file
            .parent()
            .filter(|d| !in_memory && !d.as_os_str().is_empty())
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
        sqlx::migrate!("../migrations").run(&writer).await?;
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
        Ok(Self { writer, reader })
    }

    /// The database answers a query (for `/readyz`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.reader).await?;
        Ok(())
    }

    /// Starts the one write transaction at a time, taking the write lock now.
    async fn write(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Closes both pools, flushing the WAL.
    pub async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }
}

/// A stored value that does not decode: the database was changed behind
/// the store's back.
fn corrupt(what: &str, err: impl std::fmt::Display) -> StoreError {
    StoreError::Database(sqlx::Error::Decode(
        format!("stored {what} is invalid: {err}").into(),
    ))
}

/// Whether an error is a violated UNIQUE constraint.
fn is_unique_violation(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.is_unique_violation())
}
