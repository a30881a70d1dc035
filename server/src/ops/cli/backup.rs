//! `meshwatch-server backup FILE`: a consistent copy of the database,
//! taken while the panel runs and ingests (see
//! [`crate::store::offline::copy_live`]).
//!
//! The copy is written to `FILE.partial` and renamed once it is complete,
//! checked and on disk (fsync), so a backup cut short never has the final
//! name. It never replaces an existing file. The secret key that seals the
//! subscription links is not in the database: the output says where it is.

use crate::ops::config::Config;
use crate::store::key_file::{KeyError, KeySource};
use crate::store::schema::SchemaFit;
use crate::store::{database_file, offline, StoreError};
use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{}", crate::ops::cli::POSTGRES_BACKUPS)]
    Postgres,
    #[error("{} already exists: a backup never replaces a file (choose a new name)", .0.display())]
    Exists(PathBuf),
    #[error(
        "{} exists: left by an interrupted backup, or another backup is running; \
         remove it once none is",
        .0.display()
    )]
    Unfinished(PathBuf),
    #[error(
        "MESHWATCH_DATABASE_URL names an in-memory database: there is nothing on disk to back up"
    )]
    InMemory,
    #[error("the database {} does not exist (is MESHWATCH_DATABASE_URL the panel's?)", .0.display())]
    NoDatabase(PathBuf),
    #[error("{} is not valid UTF-8: choose a backup name SQLite can take", .0.display())]
    NotUtf8(PathBuf),
    #[error("cannot {action} {shown}: {source}", shown = .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the copy failed its integrity check ({0}); it was not kept")]
    Damaged(String),
    #[error("cannot copy the database: {0}")]
    Store(#[from] StoreError),
    #[error("MESHWATCH_DATABASE_URL: {0}")]
    DatabaseUrl(sqlx::Error),
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// A finished backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    pub file: PathBuf,
    pub bytes: u64,
    pub schema: SchemaFit,
}

/// Backs up the configured database into `file` and prints what was done
/// and where the secret key is.
pub async fn run(config: &Config, file: &Path) -> Result<(), BackupError> {
    if config.database_url.is_postgres() {
        return Err(BackupError::Postgres);
    }
    let database = database_file(config.database_url.as_str())
        .map_err(BackupError::DatabaseUrl)?
        .ok_or(BackupError::InMemory)?;
    let backup = back_up(&database, file).await?;
    println!(
        "Backed up {} ({}) to {} ({} bytes).",
        database.display(),
        backup.schema.describe(),
        backup.file.display(),
        backup.bytes
    );
    let key = KeySource::of(config.secret_key.as_ref(), config.database_url.as_str())?;
    println!("{}", key_reminder(&key));
    Ok(())
}

/// What to say about the key, which the backup does not hold.
pub fn key_reminder(key: &KeySource) -> String {
    let without = "a database restored without it shows no subscription links on the user \
                   cards, and its subscriptions answer 503 until the users' credentials are \
                   given again";
    match key {
        KeySource::Configured => format!(
            "The secret key is not in the backup: it is MESHWATCH_SECRET_KEY. Keep a copy of its \
             value with the backup, somewhere else than the backup itself; {without}."
        ),
        KeySource::File(path) => format!(
            "The secret key is not in the backup: back up {} too, separately; {without}.",
            std::path::absolute(path)
                .unwrap_or_else(|_| path.clone())
                .display()
        ),
        KeySource::PerProcess => "The in-memory database has no lasting key.".to_owned(),
    }
}

/// `FILE.partial`: where the copy is written before it is complete.
pub fn partial_of(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Copies the live `database` into the new file `file`.
pub async fn back_up(database: &Path, file: &Path) -> Result<Backup, BackupError> {
    if file.symlink_metadata().is_ok() {
        return Err(BackupError::Exists(file.to_path_buf()));
    }
    if !database.is_file() {
        return Err(BackupError::NoDatabase(database.to_path_buf()));
    }
    // Absolute: SQLite takes a name starting `file:` as a URI.
    let file = std::path::absolute(file).map_err(|source| BackupError::Io {
        action: "find",
        path: file.to_path_buf(),
        source,
    })?;
    let partial = partial_of(&file);
    let partial_name = partial
        .to_str()
        .ok_or_else(|| BackupError::NotUtf8(file.clone()))?
        .to_owned();
    // Made empty (VACUUM INTO fills an empty file) and private from the
    // start: the backup holds the hashes of every password and token.
    // `create_new` also keeps two backups from writing one file.
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)
    {
        Ok(_) => {}
        Err(err) if err.kind() == ErrorKind::AlreadyExists => {
            return Err(BackupError::Unfinished(partial))
        }
        Err(source) => {
            return Err(BackupError::Io {
                action: "create",
                path: partial,
                source,
            })
        }
    }
    let finished = finish(database, &file, &partial, &partial_name).await;
    if finished.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    finished
}

/// Fills `partial`, checks it, makes it durable and gives it its name.
async fn finish(
    database: &Path,
    file: &Path,
    partial: &Path,
    partial_name: &str,
) -> Result<Backup, BackupError> {
    offline::copy_live(database, partial_name).await?;
    let examined = offline::examine(partial).await?;
    if !examined.is_intact() {
        return Err(BackupError::Damaged(examined.integrity.join("; ")));
    }
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| BackupError::Io {
            action,
            path,
            source,
        }
    };
    // The copy may so far sit in the OS's cache only: it goes to disk
    // before it takes its final name, so the name never points at less.
    std::fs::File::open(partial)
        .and_then(|f| f.sync_all())
        .map_err(io("sync", partial))?;
    if file.symlink_metadata().is_ok() {
        return Err(BackupError::Exists(file.to_path_buf()));
    }
    std::fs::rename(partial, file).map_err(io("rename to", file))?;
    sync_directory_of(file).map_err(io("sync the directory of", file))?;
    let bytes = std::fs::metadata(file).map_err(io("read", file))?.len();
    Ok(Backup {
        file: file.to_path_buf(),
        bytes,
        schema: SchemaFit::of(&examined.applied.unwrap_or_default()),
    })
}

/// Makes a rename in `path`'s directory durable.
pub(crate) fn sync_directory_of(path: &Path) -> std::io::Result<()> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::File::open(dir)?.sync_all(),
        None => std::fs::File::open(".")?.sync_all(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::sealing::SealingKey;
    use crate::store::schema::binary_schema;
    use crate::store::Store;
    use std::os::unix::fs::PermissionsExt;

    async fn database_in(dir: &Path) -> PathBuf {
        let path = dir.join("meshwatch.db");
        let store = Store::open(
            &format!("sqlite://{}", path.display()),
            SealingKey::random(),
        )
        .await
        .expect("store");
        store
            .upsert_operator("ops", "a-hash")
            .await
            .expect("an operator");
        store.close().await;
        path
    }

    #[tokio::test]
    async fn a_backup_is_a_private_checked_copy_under_its_final_name() {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = database_in(dir.path()).await;
        let file = dir.path().join("backup.db");
        let backup = back_up(&database, &file).await.expect("backed up");
        assert_eq!(backup.schema, SchemaFit::Current(binary_schema()));
        assert!(backup.bytes > 0);
        assert!(!partial_of(&file).exists(), "no partial file left");
        let mode = std::fs::metadata(&file)
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "only the owner may read it");
        let examined = offline::examine(&file).await.expect("a database");
        assert!(examined.is_intact());
    }

    #[tokio::test]
    async fn an_existing_file_is_never_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = database_in(dir.path()).await;
        let file = dir.path().join("backup.db");
        std::fs::write(&file, "yesterday's backup").expect("written");
        let refused = back_up(&database, &file).await.expect_err("refused");
        assert!(matches!(refused, BackupError::Exists(_)), "{refused}");
        assert!(refused.to_string().contains("already exists"));
        assert_eq!(
            std::fs::read_to_string(&file).expect("kept"),
            "yesterday's backup"
        );
    }

    #[tokio::test]
    async fn a_partial_file_of_another_backup_is_left_alone() {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = database_in(dir.path()).await;
        let file = dir.path().join("backup.db");
        std::fs::write(partial_of(&file), "being written").expect("written");
        let refused = back_up(&database, &file).await.expect_err("refused");
        assert!(matches!(refused, BackupError::Unfinished(_)), "{refused}");
        assert!(partial_of(&file).exists(), "not removed");
        assert!(!file.exists());
    }

    #[tokio::test]
    async fn a_missing_database_is_said_so() {
        let dir = tempfile::tempdir().expect("temp dir");
        let refused = back_up(&dir.path().join("none.db"), &dir.path().join("b.db"))
            .await
            .expect_err("refused");
        assert!(matches!(refused, BackupError::NoDatabase(_)), "{refused}");
        assert!(!partial_of(&dir.path().join("b.db")).exists());
    }

    #[test]
    fn the_reminder_names_the_key_file() {
        let path = PathBuf::from("/var/lib/meshwatch/meshwatch.key");
        let reminder = key_reminder(&KeySource::File(path));
        assert!(reminder.contains("back up /var/lib/meshwatch/meshwatch.key too"));
        assert!(key_reminder(&KeySource::Configured).contains("MESHWATCH_SECRET_KEY"));
    }
}
