//! Where the sealing key comes from: `MESHWATCH_SECRET_KEY`, else a key
//! file beside the database, made at the first start and read at every
//! later one. An in-memory database gets a random key: both live exactly
//! as long as the process.

use crate::crypto::sealing::{KeyFormatError, SealingKey};
use crate::crypto::secrets::Secret;
use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The key file's name, in the database's directory.
pub const KEY_FILE_NAME: &str = "meshwatch.key";

/// A key ready to seal with, and the file it was just written to when this
/// start made it (the operator must back that file up).
#[derive(Debug)]
pub struct LoadedKey {
    pub key: SealingKey,
    pub generated: Option<PathBuf>,
}

/// Why there is no key to start with. None of them shows key material.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("MESHWATCH_SECRET_KEY: {0}")]
    Configured(KeyFormatError),
    #[error("MESHWATCH_DATABASE_URL: {0}")]
    DatabaseUrl(sqlx::Error),
    #[error("cannot create the directory {path} for the key file: {source}")]
    Directory {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot read the key file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot create the key file {path}: {source}")]
    Create {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "the key file {path} does not hold a key (64 hex characters, or base64 of 32 bytes). \
         Restore it from the backup made with this database, or set MESHWATCH_SECRET_KEY to \
         that key: a new key cannot open the subscription links sealed with the old one"
    )]
    Malformed { path: String },
}

/// The key that seals the subscription tokens of the database at
/// `database_url`: the configured one, else the key file beside the
/// database (made now if there is none yet).
pub fn key_for_database(
    configured: Option<&Secret>,
    database_url: &str,
) -> Result<LoadedKey, KeyError> {
    if let Some(secret) = configured {
        return Ok(LoadedKey {
            key: SealingKey::parse(secret.expose()).map_err(KeyError::Configured)?,
            generated: None,
        });
    }
    match super::database_file(database_url).map_err(KeyError::DatabaseUrl)? {
        Some(database) => load_or_create(&database.with_file_name(KEY_FILE_NAME)),
        None => Ok(LoadedKey {
            key: SealingKey::random(),
            generated: None,
        }),
    }
}

/// Where the key of a database comes from, found without reading or
/// making anything (for `check-config`, `backup` and `restore`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `MESHWATCH_SECRET_KEY`.
    Configured,
    /// The key file beside the database (made at the first start).
    File(PathBuf),
    /// An in-memory database: a random key per run.
    PerProcess,
}

impl KeySource {
    pub fn of(configured: Option<&Secret>, database_url: &str) -> Result<Self, KeyError> {
        if configured.is_some() {
            return Ok(Self::Configured);
        }
        Ok(
            match super::database_file(database_url).map_err(KeyError::DatabaseUrl)? {
                Some(database) => Self::File(database.with_file_name(KEY_FILE_NAME)),
                None => Self::PerProcess,
            },
        )
    }
}

/// The key in the key file at `path`, read as a start reads it; `None`
/// when there is no such file yet (a start would make one). Never writes.
pub fn read_key_file(path: &Path) -> Result<Option<SealingKey>, KeyError> {
    let shown = path.display().to_string();
    match std::fs::metadata(path) {
        Ok(_) => read(path, &shown).map(Some),
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
        Err(source) => Err(KeyError::Read {
            path: shown,
            source,
        }),
    }
}

fn load_or_create(path: &Path) -> Result<LoadedKey, KeyError> {
    let shown = path.display().to_string();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| KeyError::Directory {
            path: dir.display().to_string(),
            source,
        })?;
    }
    // Creating first and reading on `AlreadyExists` (rather than checking
    // whether the file exists) leaves no window in which two starts could
    // both make a key.
    match create(path) {
        Ok(key) => Ok(LoadedKey {
            key,
            generated: Some(path.to_path_buf()),
        }),
        Err(err) if err.kind() == ErrorKind::AlreadyExists => Ok(LoadedKey {
            key: read(path, &shown)?,
            generated: None,
        }),
        Err(source) => Err(KeyError::Create {
            path: shown,
            source,
        }),
    }
}

/// Writes a fresh key to a file that does not exist yet. The file is born
/// with mode 0600 (less if the umask says so), so no other user can ever
/// read it, not even for a moment between creating and `chmod`.
fn create(path: &Path) -> std::io::Result<SealingKey> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    let bytes = crate::crypto::sealing::random_key_bytes();
    let written = file
        .write_all(format!("{}\n", hex::encode(bytes)).as_bytes())
        .and_then(|()| file.sync_all());
    if let Err(err) = written {
        // A partial key file would stop every later start.
        drop(file);
        let _ = std::fs::remove_file(path);
        return Err(err);
    }
    Ok(SealingKey::from_bytes(&bytes))
}

fn read(path: &Path, shown: &str) -> Result<SealingKey, KeyError> {
    let unreadable = |source: std::io::Error| KeyError::Read {
        path: shown.to_owned(),
        source,
    };
    let mode = std::fs::metadata(path)
        .map_err(unreadable)?
        .permissions()
        .mode()
        & 0o777;
    if mode & 0o077 != 0 {
        tracing::warn!(
            "the key file {shown} has mode {mode:o}: other users may read it; `chmod 600 {shown}`"
        );
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    std::str::from_utf8(&bytes)
        .map_err(|_| KeyFormatError)
        .and_then(SealingKey::parse)
        .map_err(|_| KeyError::Malformed {
            path: shown.to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshwatch::UserId;
    use std::os::unix::fs::PermissionsExt;

    fn database_in(dir: &tempfile::TempDir) -> String {
        format!("sqlite://{}/data/meshwatch.db", dir.path().display())
    }

    fn alice() -> UserId {
        UserId::parse("alice").expect("a user id")
    }

    #[test]
    fn the_first_start_makes_a_private_key_file_and_later_starts_read_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let first = key_for_database(None, &database_in(&dir)).expect("made");
        let path = dir.path().join("data").join(KEY_FILE_NAME);
        assert_eq!(first.generated.as_deref(), Some(path.as_path()));
        let mode = std::fs::metadata(&path)
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);

        let later = key_for_database(None, &database_in(&dir)).expect("read");
        assert!(later.generated.is_none(), "made only once");
        let sealed = first.key.seal(&alice(), "a-token-0001").expect("seals");
        assert_eq!(
            later.key.open(&alice(), &sealed).as_deref(),
            Ok("a-token-0001"),
            "the same key"
        );
    }

    #[test]
    fn a_malformed_key_file_stops_the_start_and_is_left_alone() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("data")).expect("dir");
        let path = dir.path().join("data").join(KEY_FILE_NAME);
        std::fs::write(&path, "not a key\n").expect("written");
        let err = key_for_database(None, &database_in(&dir)).expect_err("refused");
        assert!(matches!(err, KeyError::Malformed { .. }), "{err}");
        assert!(err.to_string().contains(&path.display().to_string()));
        assert!(
            !err.to_string().contains("not a key\n"),
            "never echoes the file"
        );
        assert_eq!(
            std::fs::read_to_string(&path).expect("still there"),
            "not a key\n"
        );
    }

    #[test]
    fn a_key_file_others_may_read_still_works() {
        let dir = tempfile::tempdir().expect("temp dir");
        let made = key_for_database(None, &database_in(&dir)).expect("made");
        let path = made.generated.expect("a new file");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(key_for_database(None, &database_in(&dir)).is_ok());
    }

    #[test]
    fn a_configured_key_wins_and_makes_no_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let configured = Secret::new(hex::encode([9u8; 32]));
        let loaded = key_for_database(Some(&configured), &database_in(&dir)).expect("key");
        assert!(loaded.generated.is_none());
        assert!(!dir.path().join("data").exists());
        let again = key_for_database(Some(&configured), &database_in(&dir)).expect("key");
        let sealed = loaded.key.seal(&alice(), "a-token-0001").expect("seals");
        assert!(again.key.open(&alice(), &sealed).is_ok());
    }

    #[test]
    fn the_key_source_is_found_without_making_a_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("data").join(KEY_FILE_NAME);
        assert_eq!(
            KeySource::of(None, &database_in(&dir)).expect("source"),
            KeySource::File(path.clone())
        );
        assert!(read_key_file(&path).expect("no file yet").is_none());
        assert!(!path.exists(), "nothing made");

        let made = key_for_database(None, &database_in(&dir)).expect("made");
        let read = read_key_file(&path).expect("read").expect("a key");
        let sealed = made.key.seal(&alice(), "a-token-0001").expect("seals");
        assert!(read.open(&alice(), &sealed).is_ok(), "the same key");

        std::fs::write(&path, "not a key\n").expect("written");
        assert!(matches!(
            read_key_file(&path),
            Err(KeyError::Malformed { .. })
        ));

        let configured = Secret::new(hex::encode([9u8; 32]));
        assert_eq!(
            KeySource::of(Some(&configured), &database_in(&dir)).expect("source"),
            KeySource::Configured
        );
        assert_eq!(
            KeySource::of(None, "sqlite::memory:").expect("source"),
            KeySource::PerProcess
        );
    }

    #[test]
    fn an_in_memory_database_gets_a_key_of_its_own_and_no_file() {
        for url in [
            "sqlite::memory:",
            "sqlite://:memory:",
            "sqlite://x.db?mode=memory",
        ] {
            let loaded = key_for_database(None, url).expect("key");
            assert!(loaded.generated.is_none(), "{url}");
        }
    }
}
