//! `meshwatch-server restore FILE`: puts a backup in the database's place.
//!
//! Only while no panel runs on the database (it takes the panel's lock,
//! see [`crate::ops::database_lock`], and holds it throughout, so no panel can
//! start half-way), and only a sound meshwatch database whose schema this
//! binary can open; an older one is fine (the panel migrates it at start).
//!
//! The backup is copied beside the database first (`<db>.restoring`,
//! fsynced) and renamed over it, so the database's name always holds a
//! whole database. The replaced database is kept, not deleted, as
//! `<db>.before-restore-<time>`, and its write-ahead log goes with it: left
//! beside the restored file, SQLite would replay the old log into it.

use super::backup::sync_directory_of;
use crate::crypto::sealing::SealingKey;
use crate::ops::config::Config;
use crate::ops::database_lock::{DatabaseLock, LockError};
use crate::store::key_file::{read_key_file, KeyError, KeySource};
use crate::store::schema::{self, SchemaFit, PANEL_VERSION};
use crate::store::{database_file, offline};
use meshwatch::UserId;
use std::ffi::OsString;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("{}", crate::ops::cli::POSTGRES_BACKUPS)]
    Postgres,
    #[error(
        "MESHWATCH_DATABASE_URL names an in-memory database: there is no file to restore into"
    )]
    InMemory,
    #[error("MESHWATCH_DATABASE_URL: {0}")]
    DatabaseUrl(sqlx::Error),
    #[error("the backup {} does not exist", .0.display())]
    NoBackup(PathBuf),
    #[error("{} is the configured database itself: restore a backup into it", .0.display())]
    SameFile(PathBuf),
    #[error(transparent)]
    InUse(#[from] LockError),
    #[error("{} is not a meshwatch database: {why}", .path.display())]
    NotMeshwatch { path: PathBuf, why: String },
    #[error(
        "{} is damaged (integrity check: {problems}); nothing was restored",
        .path.display()
    )]
    Damaged { path: PathBuf, problems: String },
    #[error(
        "backup is from a newer meshwatch (schema {found}), this is meshwatch {this_version} \
         (schema {supported}): restore it with that version, or restore a backup made by this one"
    )]
    Newer {
        found: i64,
        supported: i64,
        this_version: &'static str,
    },
    #[error(
        "{} records migration {version} as failed: the panel would not open it; restore \
         another backup",
        .path.display()
    )]
    FailedMigration { path: PathBuf, version: i64 },
    #[error(
        "{} has migration {version}, which this meshwatch does not know (a development \
         build's database?): the panel would not open it",
        .path.display()
    )]
    UnknownMigration { path: PathBuf, version: i64 },
    #[error("cannot {action} {shown}: {source}", shown = .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    pub database: PathBuf,
    /// Where the replaced database was kept (`None`: there was none).
    pub previous: Option<PathBuf>,
    /// The restored schema: this binary's, or an older one.
    pub schema: SchemaFit,
    /// One sealed subscription token of the backup (user id, value).
    pub sealed_token: Option<(String, String)>,
}

/// Whether the panel's key opens the subscription links of the backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyCheck {
    /// The backup holds no sealed link: any key will do.
    NothingSealed,
    Opens,
    /// No key file yet: the panel would make a new key, which cannot open
    /// the backup's links.
    NoKeyFile(PathBuf),
    /// The key (`MESHWATCH_SECRET_KEY` or the file) is another one.
    WrongKey(KeySource),
    /// The key could not be read (the message says why).
    Unreadable(String),
}

/// Restores `backup` into the configured database and prints what
/// happened.
pub async fn run(config: &Config, backup: &Path) -> Result<(), RestoreError> {
    if config.database_url.is_postgres() {
        return Err(RestoreError::Postgres);
    }
    let database = database_file(config.database_url.as_str())
        .map_err(RestoreError::DatabaseUrl)?
        .ok_or(RestoreError::InMemory)?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let restored = restore(&database, backup, &stamp).await?;
    println!(
        "Restored {} into {}.",
        backup.display(),
        restored.database.display()
    );
    match &restored.previous {
        Some(previous) => println!(
            "The database it replaced is kept as {} (delete it once the restored panel \
             is known good).",
            previous.display()
        ),
        None => println!("There was no database there before."),
    }
    println!("{}", schema_note(restored.schema));
    let key = key_check(config, restored.sealed_token.as_ref());
    if let Some(note) = key_note(&key) {
        println!("{note}");
    }
    println!("Start the panel.");
    Ok(())
}

/// What the schema means for the next start.
pub fn schema_note(fit: SchemaFit) -> String {
    match fit {
        SchemaFit::Older(version) => format!(
            "The backup has schema {version}, older than this binary's {}: the panel \
             migrates it when it starts.",
            schema::binary_schema()
        ),
        other => format!("The backup has {}.", other.describe()),
    }
}

/// What to tell the operator about the key, if anything.
pub fn key_note(key: &KeyCheck) -> Option<String> {
    let consequence = "the user cards would show no subscription links and every \
                       subscription would answer 503 until the users' credentials are given \
                       again";
    match key {
        KeyCheck::NothingSealed | KeyCheck::Opens => None,
        KeyCheck::NoKeyFile(path) => Some(format!(
            "Warning: there is no key file {}: copy there the meshwatch.key backed up with this \
             database (or set MESHWATCH_SECRET_KEY to its key) before starting the panel; \
             otherwise it makes a new key and {consequence}.",
            path.display()
        )),
        KeyCheck::WrongKey(KeySource::File(path)) => Some(format!(
            "Warning: the key file {} is not the key this backup's subscription links were \
             sealed with: put the meshwatch.key backed up with it there before starting the \
             panel; otherwise {consequence}.",
            path.display()
        )),
        KeyCheck::WrongKey(_) => Some(format!(
            "Warning: MESHWATCH_SECRET_KEY is not the key this backup's subscription links were \
             sealed with: set it to the key of the backed-up panel; otherwise {consequence}."
        )),
        KeyCheck::Unreadable(err) => Some(format!("Warning: {err}")),
    }
}

/// Whether the key the panel would start with opens `sealed` (a user id
/// and a stored `sub_token`). Reads the key file; never makes one.
pub fn key_check(config: &Config, sealed: Option<&(String, String)>) -> KeyCheck {
    let Some((user, stored)) = sealed else {
        return KeyCheck::NothingSealed;
    };
    let Ok(user) = UserId::parse(user) else {
        return KeyCheck::NothingSealed;
    };
    let source = match KeySource::of(config.secret_key.as_ref(), config.database_url.as_str()) {
        Ok(source) => source,
        Err(err) => return KeyCheck::Unreadable(err.to_string()),
    };
    let key: Result<Option<SealingKey>, KeyError> = match &source {
        KeySource::Configured => match config
            .secret_key
            .as_ref()
            .map(|k| SealingKey::parse(k.expose()))
        {
            Some(Ok(key)) => Ok(Some(key)),
            Some(Err(err)) => Err(KeyError::Configured(err)),
            None => Ok(None),
        },
        KeySource::File(path) => read_key_file(path),
        KeySource::PerProcess => Ok(None),
    };
    match key {
        Err(err) => KeyCheck::Unreadable(err.to_string()),
        Ok(None) => match source {
            KeySource::File(path) => KeyCheck::NoKeyFile(path),
            other => KeyCheck::WrongKey(other),
        },
        Ok(Some(key)) if key.open(&user, stored).is_ok() => KeyCheck::Opens,
        Ok(Some(_)) => KeyCheck::WrongKey(source),
    }
}

/// `<database><suffix>`, beside the database.
fn beside(database: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = database.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Puts `backup` in place of `database`; `stamp` names the kept copy of
/// the replaced one.
pub async fn restore(
    database: &Path,
    backup: &Path,
    stamp: &str,
) -> Result<Restored, RestoreError> {
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| RestoreError::Io {
            action,
            path,
            source,
        }
    };
    match std::fs::metadata(backup) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => {
            return Err(RestoreError::NotMeshwatch {
                path: backup.to_path_buf(),
                why: "not a file".to_owned(),
            })
        }
        Err(err) if err.kind() == ErrorKind::NotFound => {
            return Err(RestoreError::NoBackup(backup.to_path_buf()))
        }
        Err(source) => return Err(io("read", backup)(source)),
    }
    if let (Ok(a), Ok(b)) = (
        std::fs::canonicalize(backup),
        std::fs::canonicalize(database),
    ) {
        if a == b {
            return Err(RestoreError::SameFile(backup.to_path_buf()));
        }
    }
    // Held until the end: no panel starts on a half-restored database.
    let _lock = DatabaseLock::acquire(database)?;

    let (schema, sealed_token) = check_backup(backup).await?;

    let restoring = beside(database, ".restoring");
    // Only an interrupted restore leaves one, and none runs now (the lock).
    match std::fs::remove_file(&restoring) {
        Err(err) if err.kind() != ErrorKind::NotFound => return Err(io("remove", &restoring)(err)),
        _ => {}
    }
    std::fs::copy(backup, &restoring).map_err(io("copy the backup to", &restoring))?;
    std::fs::set_permissions(&restoring, std::fs::Permissions::from_mode(0o600))
        .map_err(io("make private", &restoring))?;
    std::fs::File::open(&restoring)
        .and_then(|f| f.sync_all())
        .map_err(io("sync", &restoring))?;

    let previous = if database.exists() {
        let kept = beside(database, &format!(".before-restore-{stamp}"));
        keep_previous(database, &kept).map_err(io("keep the replaced database as", &kept))?;
        Some(kept)
    } else {
        None
    };
    std::fs::rename(&restoring, database).map_err(io("rename the backup to", database))?;
    sync_directory_of(database).map_err(io("sync the directory of", database))?;
    Ok(Restored {
        database: database.to_path_buf(),
        previous,
        schema,
        sealed_token,
    })
}

/// Refuses what the panel could not open: not a database, damaged, not
/// meshwatch's, newer than this binary, or with a failed migration.
async fn check_backup(
    backup: &Path,
) -> Result<(SchemaFit, Option<(String, String)>), RestoreError> {
    let not_meshwatch = |why: String| RestoreError::NotMeshwatch {
        path: backup.to_path_buf(),
        why,
    };
    let examined = offline::examine(backup)
        .await
        .map_err(|e| not_meshwatch(e.to_string()))?;
    if !examined.is_intact() {
        return Err(RestoreError::Damaged {
            path: backup.to_path_buf(),
            problems: examined.integrity.join("; "),
        });
    }
    let applied = examined
        .applied
        .ok_or_else(|| not_meshwatch("it has no _sqlx_migrations table".to_owned()))?;
    if let Err(newer) = schema::refuse_newer(&applied, &schema::MIGRATOR) {
        return Err(RestoreError::Newer {
            found: newer.found,
            supported: newer.supported,
            this_version: PANEL_VERSION,
        });
    }
    if let Some(failed) = applied.iter().find(|a| !a.success) {
        return Err(RestoreError::FailedMigration {
            path: backup.to_path_buf(),
            version: failed.version,
        });
    }
    let known: Vec<i64> = schema::MIGRATOR.iter().map(|m| m.version).collect();
    if let Some(unknown) = applied.iter().find(|a| !known.contains(&a.version)) {
        return Err(RestoreError::UnknownMigration {
            path: backup.to_path_buf(),
            version: unknown.version,
        });
    }
    match SchemaFit::of(&applied) {
        SchemaFit::Empty => Err(not_meshwatch(
            "no migration was ever applied to it".to_owned(),
        )),
        fit => Ok((fit, examined.sealed_token)),
    }
}

/// Keeps the database being replaced as `kept`, with its write-ahead log
/// (commits a killed panel left there), so that it stays whole and opens;
/// the shared-memory index is rebuilt from the log and goes. The database
/// keeps its name until the restored file is renamed over it: a restore
/// cut short leaves a database there, never none.
fn keep_previous(database: &Path, kept: &Path) -> std::io::Result<()> {
    if kept.symlink_metadata().is_ok() {
        return Err(std::io::Error::from(ErrorKind::AlreadyExists));
    }
    if std::fs::hard_link(database, kept).is_err() {
        // Some file systems have no hard links: a copy does as well.
        std::fs::copy(database, kept)?;
    }
    let wal = beside(database, "-wal");
    if wal.exists() {
        std::fs::rename(&wal, beside(kept, "-wal"))?;
    }
    match std::fs::remove_file(beside(database, "-shm")) {
        Err(err) if err.kind() != ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::sealing::SealingKey;
    use crate::store::Store;
    use sqlx::migrate::Migrator;
    use std::borrow::Cow;

    const STAMP: &str = "20261204T100000Z";

    fn url(path: &Path) -> String {
        format!("sqlite://{}", path.display())
    }

    /// A meshwatch database with one operator named `operator`.
    async fn make_database(path: &Path, operator: &str) {
        let store = Store::open(&url(path), SealingKey::random())
            .await
            .expect("store");
        store
            .upsert_operator(operator, "a-hash")
            .await
            .expect("an operator");
        store.close().await;
    }

    /// A backup as `meshwatch-server backup` writes it: one file.
    async fn make_backup(path: &Path, operator: &str) {
        let source = path.with_extension("source.db");
        make_database(&source, operator).await;
        crate::ops::cli::backup::back_up(&source, path)
            .await
            .expect("backed up");
    }

    async fn operators(path: &Path) -> Vec<String> {
        let pool = sqlx::SqlitePool::connect(&url(path)).await.expect("opens");
        let names = sqlx::query_scalar("SELECT username FROM operators ORDER BY username")
            .fetch_all(&pool)
            .await
            .expect("operators");
        pool.close().await;
        names
    }

    async fn add_migration_row(path: &Path, version: i64, success: bool) {
        let pool = sqlx::SqlitePool::connect(&url(path)).await.expect("opens");
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
             VALUES (?, 'from elsewhere', ?, x'00', 0)",
        )
        .bind(version)
        .bind(success)
        .execute(&pool)
        .await
        .expect("a migration row");
        pool.close().await;
    }

    struct Paths {
        _dir: tempfile::TempDir,
        database: PathBuf,
        backup: PathBuf,
    }

    /// A live database of operator "current" and a backup of operator
    /// "backed-up".
    async fn paths() -> Paths {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = dir.path().join("data").join("meshwatch.db");
        let backup = dir.path().join("backup.db");
        make_database(&database, "current").await;
        make_backup(&backup, "backed-up").await;
        Paths {
            _dir: dir,
            database,
            backup,
        }
    }

    #[tokio::test]
    async fn a_backup_replaces_the_database_and_the_old_one_is_kept_whole() {
        let p = paths().await;
        // What a killed panel leaves: a log and an index beside the file.
        std::fs::write(beside(&p.database, "-wal"), b"").expect("wal");
        std::fs::write(beside(&p.database, "-shm"), b"").expect("shm");

        let restored = restore(&p.database, &p.backup, STAMP)
            .await
            .expect("restored");
        let kept = beside(&p.database, &format!(".before-restore-{STAMP}"));
        assert_eq!(restored.previous.as_deref(), Some(kept.as_path()));
        assert_eq!(restored.schema, SchemaFit::Current(schema::binary_schema()));
        assert!(!beside(&p.database, "-wal").exists(), "no stale log");
        assert!(!beside(&p.database, "-shm").exists());
        assert!(
            beside(&kept, "-wal").exists(),
            "the old log went with the old file"
        );
        assert!(!beside(&p.database, ".restoring").exists());
        assert!(p.backup.exists(), "the backup is left as it was");
        std::fs::remove_file(beside(&kept, "-wal")).expect("empty log removed");
        assert_eq!(operators(&p.database).await, ["backed-up"]);
        assert_eq!(operators(&kept).await, ["current"]);
    }

    #[tokio::test]
    async fn a_running_panel_keeps_its_database() {
        let p = paths().await;
        let panel = DatabaseLock::acquire(&p.database).expect("the panel's lock");
        let refused = restore(&p.database, &p.backup, STAMP)
            .await
            .expect_err("refused");
        assert_eq!(
            refused.to_string(),
            format!(
                "the database {} is in use by a running panel (stop it first)",
                p.database.display()
            )
        );
        drop(panel);
        assert_eq!(operators(&p.database).await, ["current"], "untouched");
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_database_is_refused() {
        let p = paths().await;
        std::fs::write(
            &p.backup,
            "this is not SQLite, just text long enough to be read",
        )
        .expect("written");
        let refused = restore(&p.database, &p.backup, STAMP)
            .await
            .expect_err("refused");
        assert!(
            matches!(refused, RestoreError::NotMeshwatch { .. }),
            "{refused}"
        );
        assert_eq!(operators(&p.database).await, ["current"]);
    }

    #[tokio::test]
    async fn another_programs_database_is_refused() {
        let p = paths().await;
        std::fs::remove_file(&p.backup).expect("removed");
        let pool = sqlx::SqlitePool::connect(&format!("{}?mode=rwc", url(&p.backup)))
            .await
            .expect("created");
        sqlx::query("CREATE TABLE notes (body TEXT)")
            .execute(&pool)
            .await
            .expect("a table");
        pool.close().await;
        let refused = restore(&p.database, &p.backup, STAMP)
            .await
            .expect_err("refused");
        assert!(
            refused.to_string().contains("not a meshwatch database"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn a_backup_from_a_newer_meshwatch_is_refused_naming_both_schemas() {
        let p = paths().await;
        add_migration_row(&p.backup, 99999999999999, true).await;
        let refused = restore(&p.database, &p.backup, STAMP)
            .await
            .expect_err("refused");
        assert_eq!(
            refused.to_string(),
            format!(
                "backup is from a newer meshwatch (schema 99999999999999), this is meshwatch \
                 {PANEL_VERSION} (schema {}): restore it with that version, or restore a backup \
                 made by this one",
                schema::binary_schema()
            )
        );
        assert_eq!(operators(&p.database).await, ["current"]);
    }

    #[tokio::test]
    async fn a_backup_with_a_failed_migration_is_refused() {
        let p = paths().await;
        let pool = sqlx::SqlitePool::connect(&url(&p.backup))
            .await
            .expect("opens");
        sqlx::query("UPDATE _sqlx_migrations SET success = 0 WHERE version = (SELECT MAX(version) FROM _sqlx_migrations)")
            .execute(&pool)
            .await
            .expect("marked failed");
        pool.close().await;
        let refused = restore(&p.database, &p.backup, STAMP)
            .await
            .expect_err("refused");
        assert!(
            matches!(refused, RestoreError::FailedMigration { .. }),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn a_missing_backup_or_the_database_itself_is_refused() {
        let p = paths().await;
        let missing = p.backup.with_file_name("none.db");
        assert!(matches!(
            restore(&p.database, &missing, STAMP).await,
            Err(RestoreError::NoBackup(_))
        ));
        assert!(matches!(
            restore(&p.database, &p.database, STAMP).await,
            Err(RestoreError::SameFile(_))
        ));
    }

    #[tokio::test]
    async fn an_older_backup_is_restored_for_the_panel_to_migrate() {
        let p = paths().await;
        std::fs::remove_file(&p.backup).expect("removed");
        let first_three = Migrator {
            migrations: Cow::Owned(schema::MIGRATOR.migrations[..3].to_vec()),
            ..Migrator::DEFAULT
        };
        let pool = sqlx::SqlitePool::connect(&format!("{}?mode=rwc", url(&p.backup)))
            .await
            .expect("created");
        first_three.run(&pool).await.expect("three migrations");
        pool.close().await;
        let restored = restore(&p.database, &p.backup, STAMP)
            .await
            .expect("restored");
        let third = schema::MIGRATOR.migrations[2].version;
        assert_eq!(restored.schema, SchemaFit::Older(third));
        assert!(schema_note(restored.schema).contains("migrates it when it starts"));
    }

    #[tokio::test]
    async fn a_restore_into_a_new_place_keeps_nothing() {
        let p = paths().await;
        let fresh = p.database.with_file_name("fresh").join("meshwatch.db");
        let restored = restore(&fresh, &p.backup, STAMP).await.expect("restored");
        assert_eq!(restored.previous, None);
        assert_eq!(operators(&fresh).await, ["backed-up"]);
    }

    #[test]
    fn the_key_notes_say_what_to_copy_where() {
        let path = PathBuf::from("/var/lib/meshwatch/meshwatch.key");
        let note = key_note(&KeyCheck::NoKeyFile(path.clone())).expect("a warning");
        assert!(
            note.contains("no key file /var/lib/meshwatch/meshwatch.key"),
            "{note}"
        );
        let note = key_note(&KeyCheck::WrongKey(KeySource::File(path))).expect("a warning");
        assert!(note.contains("is not the key"), "{note}");
        assert!(key_note(&KeyCheck::Opens).is_none());
        assert!(key_note(&KeyCheck::NothingSealed).is_none());
    }
}
