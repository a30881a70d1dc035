//! The SQLite backend: the embedded default, one panel process.
//!
//! SQLite is opened in WAL mode with `synchronous=FULL` (a 202 tells an
//! agent it may delete the report from its spool, so an acknowledged commit
//! must survive a power loss, not only a crash), a busy timeout and
//! foreign keys on. Writes go through a single-connection writer pool and
//! start with `BEGIN IMMEDIATE` (no lock upgrades, no SQLITE_BUSY mid-way);
//! reads use their own pool and never wait for the writer.

use super::schema;
use super::sealed_columns::SealedColumns;
use super::{database_file, StoreError};
use crate::crypto::sealing::SealingKey;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// A write transaction (see [`begin_write`]).
pub(super) type Tx = Transaction<'static, Sqlite>;

/// The database the statements are compiled for.
pub(super) type Db = Sqlite;

#[derive(Clone)]
pub struct Store {
    pub(super) writer: SqlitePool,
    pub(super) reader: SqlitePool,
    /// Seals `users.sub_token` on the way in and opens it on the way out.
    pub(super) sealed: Arc<SealedColumns>,
}

const READ_CONNECTIONS: u32 = 8;

impl Store {
    pub(super) async fn open(url: &str, sealing: SealingKey) -> Result<Self, StoreError> {
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
                schema::refuse_newer(&applied, &schema::MIGRATOR)?;
            }
            schema::MIGRATOR.run(&mut *conn).await?;
        }
        let sealed = Arc::new(SealedColumns::new(sealing));
        // Before the read pool opens: the scrub that follows the sealing
        // wants the database to itself.
        sealed.seal_clear_values(&writer).await?;
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
            sealed,
        })
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.reader).await?;
        Ok(())
    }

    /// Starts the one write transaction at a time (see [`begin_write`]).
    pub(super) async fn write(&self) -> Result<Tx, StoreError> {
        Ok(begin_write(&self.writer).await?)
    }

    /// A write only the evaluator may make: on SQLite the one panel is it.
    pub(super) async fn write_as_evaluator(&self) -> Result<Tx, StoreError> {
        self.write().await
    }

    /// Reports need no ordering across writers: there is one.
    pub(super) async fn order_reports(&self, _tx: &mut Tx) -> Result<(), StoreError> {
        Ok(())
    }

    /// A read transaction: SQLite's reads in one see one snapshot.
    pub(super) async fn read_snapshot(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        Ok(self.reader.begin().await?)
    }

    /// Closes both pools, flushing the WAL.
    pub(super) async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }
}

/// The statements' SQLite dialect (see the PostgreSQL backend's twin).
impl Store {
    /// A JSON array (as text) of `value` over the rows, in `order`; `[]`
    /// when there are none.
    pub(super) fn json_array_agg(value: &str, order: &str) -> String {
        format!("json_group_array({value} ORDER BY {order})")
    }

    /// A JSON array of the columns `columns` of one row.
    pub(super) fn json_tuple(columns: &str) -> String {
        format!("json_array({columns})")
    }

    /// How a claim skips rows another writer is claiming: SQLite has one.
    pub(super) const SKIP_LOCKED: &'static str = "";

    /// The number at `key` of the JSON object in `column` (NULL if none).
    pub(super) fn json_number(column: &str, key: &str) -> String {
        format!("json_extract({column}, '$.{key}')")
    }
}

/// Starts a write transaction taking SQLite's write lock now
/// (`IMMEDIATE`): a plain `BEGIN` would take it at the first write, and a
/// transaction that read before then could fail half-way with
/// SQLITE_BUSY.
pub(super) async fn begin_write(writer: &SqlitePool) -> Result<Tx, sqlx::Error> {
    writer.begin_with("BEGIN IMMEDIATE").await
}
