//! Database files read or copied outside a running store, for the command
//! line: the schema a file holds (`--version`, `check-config`), a
//! consistent copy of the live database (`backup`) and what a backup file
//! holds (`restore`). Nothing here migrates, creates or writes to the
//! database it reads.

use super::schema::{self, Applied};
use super::StoreError;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection};
use std::path::Path;
use std::time::Duration;

/// How long to wait for the panel's writer (a copy needs a read lock only
/// for an instant in WAL mode, but a checkpoint may hold it briefly).
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A read-only connection to an existing database file, which may be in
/// use by a running panel (WAL: its writes go on meanwhile).
async fn open_live(path: &Path) -> Result<SqliteConnection, sqlx::Error> {
    SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .busy_timeout(BUSY_TIMEOUT)
        .connect()
        .await
}

/// The migrations applied to the database file at `path` (`None`: it has
/// no migrations table).
pub async fn schema_of(path: &Path) -> Result<Option<Vec<Applied>>, StoreError> {
    let mut conn = open_live(path).await?;
    let applied = schema::applied_migrations(&mut conn).await;
    let _ = conn.close().await;
    Ok(applied?)
}

/// Writes a consistent snapshot of the live database at `database` into
/// the file `into` (which must not exist, or be empty) with `VACUUM INTO`:
/// one read transaction, so every commit before it is in the copy and none
/// after it, while the panel goes on writing. The name is bound as a
/// parameter (`INTO` takes any expression), never spliced into the SQL.
pub async fn copy_live(database: &Path, into: &str) -> Result<(), StoreError> {
    let mut conn = open_live(database).await?;
    let copied = sqlx::query("VACUUM INTO ?")
        .bind(into)
        .execute(&mut conn)
        .await;
    let _ = conn.close().await;
    copied?;
    Ok(())
}

/// What a database file holds, read as an immutable file (a backup may sit
/// on read-only media, and no `-wal` or `-shm` file is made beside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Examined {
    /// `PRAGMA integrity_check`: `["ok"]` when the file is sound, else the
    /// first problems it found.
    pub integrity: Vec<String>,
    /// Its `_sqlx_migrations`; `None` when it has none (not meshwatch's).
    pub applied: Option<Vec<Applied>>,
    /// One sealed subscription token (user id, stored value), to tell
    /// whether the panel's key opens what the file holds.
    pub sealed_token: Option<(String, String)>,
}

impl Examined {
    pub fn is_intact(&self) -> bool {
        self.integrity == ["ok"]
    }
}

/// Reads `path` as a database without changing it. A file that is not an
/// SQLite database fails here (`file is not a database`).
pub async fn examine(path: &Path) -> Result<Examined, StoreError> {
    let mut conn = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .immutable(true)
        .connect()
        .await?;
    let examined = async {
        let integrity: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check(20)")
            .fetch_all(&mut conn)
            .await?;
        let applied = schema::applied_migrations(&mut conn).await?;
        // Databases from before migration 4 have no `sub_token` column.
        let has_sub_token: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pragma_table_info('users') WHERE name = 'sub_token'",
        )
        .fetch_one(&mut conn)
        .await?;
        let sealed_token = if has_sub_token > 0 {
            sqlx::query_as::<_, (String, String)>(
                "SELECT id, sub_token FROM users WHERE sub_token LIKE 'v1:%' LIMIT 1",
            )
            .fetch_optional(&mut conn)
            .await?
        } else {
            None
        };
        Ok::<_, sqlx::Error>(Examined {
            integrity,
            applied,
            sealed_token,
        })
    }
    .await;
    let _ = conn.close().await;
    Ok(examined?)
}
