//! Schema versions: the migrations this binary carries, the ones a
//! database has had applied, and how the two compare. A database that a
//! newer meshwatch has migrated is refused before anything is written to
//! it: its tables may mean things this binary does not know, and sqlx
//! would only say "migration … was previously applied but is missing".

use sqlx::migrate::Migrator;
use sqlx::SqliteConnection;

/// Every migration of `migrations/`, compiled into the binary.
pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations/sqlite");

/// Every migration of `migrations/postgres/`: the same schema on
/// PostgreSQL, reached in fewer steps (it started later).
pub static POSTGRES_MIGRATOR: Migrator = sqlx::migrate!("../migrations/postgres");

/// The meshwatch release this binary is.
pub const PANEL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The schema this binary migrates databases to: its latest migration.
pub fn binary_schema() -> i64 {
    latest(&known_versions())
}

fn known_versions() -> Vec<i64> {
    versions_of(&MIGRATOR)
}

fn versions_of(migrator: &Migrator) -> Vec<i64> {
    migrator.iter().map(|m| m.version).collect()
}

fn latest(known: &[i64]) -> i64 {
    known.iter().copied().max().unwrap_or(0)
}

/// One row of a database's `_sqlx_migrations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub version: i64,
    /// False when the migration started and failed (sqlx calls it dirty).
    pub success: bool,
}

/// A row of `_sqlx_migrations`, with `success` read as an integer: SQLite
/// has no boolean type.
#[derive(sqlx::FromRow)]
struct MigrationRow {
    version: i64,
    success: bool,
}

impl From<MigrationRow> for Applied {
    fn from(row: MigrationRow) -> Self {
        Applied {
            version: row.version,
            success: row.success,
        }
    }
}

/// A newer meshwatch migrated this database; this one must not touch it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "database schema {found} is from a newer meshwatch; this is meshwatch {this_version} \
     (schema {supported}). Install the newer version or restore a backup made by this one."
)]
pub struct NewerSchema {
    /// The newest migration recorded in the database.
    pub found: i64,
    /// This binary's latest migration.
    pub supported: i64,
    pub this_version: &'static str,
}

/// Refuses a database with a migration this binary does not know and that
/// is later than all it knows. An unknown *earlier* version is left to
/// sqlx (it reports it as missing): no release of meshwatch made it.
pub fn refuse_newer(applied: &[Applied], migrator: &Migrator) -> Result<(), NewerSchema> {
    refuse_newer_than(applied, &versions_of(migrator))
}

fn refuse_newer_than(applied: &[Applied], known: &[i64]) -> Result<(), NewerSchema> {
    let supported = latest(known);
    match applied
        .iter()
        .map(|a| a.version)
        .filter(|v| *v > supported && !known.contains(v))
        .max()
    {
        Some(found) => Err(NewerSchema {
            found,
            supported,
            this_version: PANEL_VERSION,
        }),
        None => Ok(()),
    }
}

/// How a database's schema compares with this binary's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaFit {
    /// No migration applied yet: the panel creates the schema at start.
    Empty,
    /// Exactly this binary's schema.
    Current(i64),
    /// An earlier schema: the panel migrates it forward at start.
    Older(i64),
    /// A newer meshwatch migrated it: this binary refuses to open it.
    Newer(i64),
}

impl SchemaFit {
    pub fn of(applied: &[Applied]) -> Self {
        Self::against(applied, &known_versions())
    }

    fn against(applied: &[Applied], known: &[i64]) -> Self {
        if let Err(newer) = refuse_newer_than(applied, known) {
            return Self::Newer(newer.found);
        }
        match applied
            .iter()
            .filter(|a| a.success)
            .map(|a| a.version)
            .max()
        {
            None => Self::Empty,
            Some(version) if version == latest(known) => Self::Current(version),
            Some(version) => Self::Older(version),
        }
    }

    /// The schema in words, for the command line.
    pub fn describe(self) -> String {
        let binary = binary_schema();
        match self {
            Self::Empty => format!("no schema yet (created at start: schema {binary})"),
            Self::Current(version) => format!("schema {version}, this binary's"),
            Self::Older(version) => {
                format!("schema {version}, older: migrated to {binary} at the next start")
            }
            Self::Newer(version) => format!(
                "schema {version}, from a newer meshwatch: this binary (meshwatch {PANEL_VERSION}, \
                 schema {binary}) refuses to open it"
            ),
        }
    }
}

/// The migrations recorded in the database behind `conn`, oldest first;
/// `None` when it has no `_sqlx_migrations` table (a new database, or not
/// one of meshwatch's).
pub async fn applied_migrations(
    conn: &mut SqliteConnection,
) -> Result<Option<Vec<Applied>>, sqlx::Error> {
    let tables: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_one(&mut *conn)
    .await?;
    if tables == 0 {
        return Ok(None);
    }
    let rows = sqlx::query_as::<_, MigrationRow>(
        "SELECT version, success FROM _sqlx_migrations ORDER BY version",
    )
    .fetch_all(&mut *conn)
    .await?;
    Ok(Some(rows.into_iter().map(Applied::from).collect()))
}

/// [`applied_migrations`] on PostgreSQL.
pub async fn applied_postgres_migrations(
    conn: &mut sqlx::PgConnection,
) -> Result<Option<Vec<Applied>>, sqlx::Error> {
    let exists: bool = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(&mut *conn)
        .await?;
    if !exists {
        return Ok(None);
    }
    let rows = sqlx::query_as::<_, MigrationRow>(
        "SELECT version, success FROM _sqlx_migrations ORDER BY version",
    )
    .fetch_all(&mut *conn)
    .await?;
    Ok(Some(rows.into_iter().map(Applied::from).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [i64; 3] = [20261202000001, 20261202000002, 20261203000006];

    fn applied(versions: &[i64]) -> Vec<Applied> {
        versions
            .iter()
            .map(|&version| Applied {
                version,
                success: true,
            })
            .collect()
    }

    #[test]
    fn the_binary_schema_is_its_latest_migration() {
        let versions = known_versions();
        assert!(!versions.is_empty(), "migrations are compiled in");
        assert_eq!(binary_schema(), *versions.iter().max().expect("some"));
        assert_eq!(
            SchemaFit::of(&applied(&versions)),
            SchemaFit::Current(binary_schema())
        );
    }

    #[test]
    fn a_database_of_this_schema_or_an_earlier_one_opens() {
        assert_eq!(refuse_newer_than(&applied(&KNOWN), &KNOWN), Ok(()));
        assert_eq!(refuse_newer_than(&applied(&KNOWN[..1]), &KNOWN), Ok(()));
        assert_eq!(refuse_newer_than(&[], &KNOWN), Ok(()));
    }

    #[test]
    fn a_migration_beyond_the_latest_is_refused_naming_both_schemas() {
        let mut versions = KNOWN.to_vec();
        versions.extend([99999999999999, 20270101000001]);
        let refused = refuse_newer_than(&applied(&versions), &KNOWN).expect_err("newer");
        assert_eq!(refused.found, 99999999999999, "the newest one is named");
        assert_eq!(refused.supported, 20261203000006);
        let message = refused.to_string();
        for part in [
            "database schema 99999999999999 is from a newer meshwatch",
            &format!("this is meshwatch {PANEL_VERSION} (schema 20261203000006)"),
            "Install the newer version or restore a backup made by this one.",
        ] {
            assert!(message.contains(part), "{message}");
        }
    }

    #[test]
    fn a_failed_newer_migration_is_still_a_newer_schema() {
        let mut rows = applied(&KNOWN);
        rows.push(Applied {
            version: 20270101000001,
            success: false,
        });
        assert!(refuse_newer_than(&rows, &KNOWN).is_err());
    }

    #[test]
    fn an_unknown_earlier_migration_is_left_to_the_migrator() {
        let rows = applied(&[20261202000001, 20261202000099]);
        assert_eq!(refuse_newer_than(&rows, &KNOWN), Ok(()));
    }

    #[test]
    fn the_fit_says_what_a_start_would_do() {
        assert_eq!(SchemaFit::against(&[], &KNOWN), SchemaFit::Empty);
        assert_eq!(
            SchemaFit::against(&applied(&KNOWN[..2]), &KNOWN),
            SchemaFit::Older(20261202000002)
        );
        assert_eq!(
            SchemaFit::against(&applied(&KNOWN), &KNOWN),
            SchemaFit::Current(20261203000006)
        );
        assert_eq!(
            SchemaFit::against(&applied(&[20261202000001, 99999999999999]), &KNOWN),
            SchemaFit::Newer(99999999999999)
        );
        let mut failed = applied(&KNOWN[..1]);
        failed.push(Applied {
            version: KNOWN[1],
            success: false,
        });
        assert_eq!(
            SchemaFit::against(&failed, &KNOWN),
            SchemaFit::Older(KNOWN[0]),
            "a failed migration is not the schema"
        );
    }
}
