//! One panel per database. A running panel holds an exclusive advisory
//! lock (`flock`) on `<database>.lock` for its whole life, so a second
//! panel on the same file refuses to start (SQLite would let both write,
//! and each would evaluate, notify and checkpoint on its own), and
//! `restore` refuses to replace a database under a running panel.
//!
//! The kernel drops the lock with the process however it ends (`kill -9`
//! included): a lock file left behind never blocks anything. Commands
//! that only read or add to the database alongside a running panel
//! (`create-operator`, `backup`) do not take it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The held lock; dropping it releases it.
#[derive(Debug)]
pub struct DatabaseLock {
    _file: File,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("the database {database} is in use by a running panel (stop it first)")]
    InUse { database: String },
    #[error("cannot lock the database with {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// `<database>.lock`, beside the database.
pub fn lock_file_of(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

impl DatabaseLock {
    /// Takes the lock of `database` (making its directory and lock file if
    /// needed), or says that a running panel holds it. Never waits.
    pub fn acquire(database: &Path) -> Result<Self, LockError> {
        let path = lock_file_of(database);
        let io = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file }),
            Err(TryLockError::WouldBlock) => Err(LockError::InUse {
                database: database.display().to_string(),
            }),
            Err(TryLockError::Error(source)) => Err(io(source)),
        }
    }

    /// Whether a running panel holds the lock of `database` right now.
    /// Makes no lock file and holds nothing past the check (a shared lock
    /// for an instant), so it never stands in a starting panel's way.
    pub fn is_held(database: &Path) -> std::io::Result<bool> {
        let file = match File::open(lock_file_of(database)) {
            Ok(file) => file,
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(false),
            Err(err) => return Err(err),
        };
        match file.try_lock_shared() {
            Ok(()) => Ok(false),
            Err(TryLockError::WouldBlock) => Ok(true),
            Err(TryLockError::Error(err)) => Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_told_the_database_is_in_use() {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = dir.path().join("data").join("meshwatch.db");
        let first = DatabaseLock::acquire(&database).expect("the first panel locks");
        assert!(dir.path().join("data").join("meshwatch.db.lock").exists());
        assert!(DatabaseLock::is_held(&database).expect("checked"));

        let second = DatabaseLock::acquire(&database).expect_err("the second is refused");
        assert_eq!(
            second.to_string(),
            format!(
                "the database {} is in use by a running panel (stop it first)",
                database.display()
            )
        );

        drop(first);
        assert!(!DatabaseLock::is_held(&database).expect("checked"));
        assert!(DatabaseLock::acquire(&database).is_ok(), "free again");
    }

    #[test]
    fn checking_a_database_never_locked_makes_no_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = dir.path().join("meshwatch.db");
        assert!(!DatabaseLock::is_held(&database).expect("checked"));
        assert!(!lock_file_of(&database).exists());
    }
}
