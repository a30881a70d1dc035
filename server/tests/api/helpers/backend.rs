//! Which database the suite runs on. By default each panel gets its own
//! SQLite file; with `MESHWATCH_TEST_POSTGRES_URL` (set by
//! `scripts/with-postgres.sh`, the cluster's admin URL) each panel gets its
//! own PostgreSQL database on that cluster instead, and the same tests run
//! against the second backend.

use sqlx::{Connection, Executor, PgConnection};
use std::path::Path;

/// The key every PostgreSQL test panel seals with: there is no key file
/// beside a PostgreSQL database, replicas are configured with one key.
pub const POSTGRES_SECRET_KEY: &str =
    "5be2c0a9d4e17f3b6a8c2d9e0f1b3a5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f70";

/// The file in a test panel's directory naming its PostgreSQL database, so
/// that a restart (same directory) finds the same database again.
const DATABASE_FILE: &str = "postgres-database-url";

pub fn postgres_admin_url() -> Option<String> {
    std::env::var("MESHWATCH_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.trim().is_empty())
}

/// Whether this run is against PostgreSQL.
pub fn on_postgres() -> bool {
    postgres_admin_url().is_some()
}

/// Skips (returns true, with a note) a test about SQLite's own files: the
/// database file, its key file, its backups and upgrades.
pub fn sqlite_only(test: &str) -> bool {
    let skip = on_postgres();
    if skip {
        eprintln!("{test}: about the SQLite database file; skipped on PostgreSQL");
    }
    skip
}

/// The database of the panel whose directory is `dir`: made now (empty) on
/// the first start, the same one after a restart.
pub async fn postgres_database_of(dir: &Path, admin_url: &str) -> String {
    let file = dir.join(DATABASE_FILE);
    if let Ok(url) = std::fs::read_to_string(&file) {
        return url;
    }
    let name = format!("mw_{}", uuid::Uuid::new_v4().simple());
    let mut admin = PgConnection::connect(admin_url)
        .await
        .expect("the test cluster answers");
    admin
        .execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .expect("a test database");
    let _ = admin.close().await;
    let base = admin_url
        .rsplit_once('/')
        .map(|(base, _)| base)
        .expect("an admin URL with a database");
    let url = format!("{base}/{name}");
    std::fs::write(&file, &url).expect("the database's name is kept");
    url
}

/// On PostgreSQL, a test that fails on a request timing out first prints
/// what the cluster was doing (`pg_stat_activity`, `pg_locks`), through
/// `psql` with the `PGHOST`/`PGPORT`/`PGUSER` that
/// `scripts/with-postgres.sh` sets: a stall names its waiting statement.
pub fn dump_postgres_on_stall() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    if !on_postgres() {
        return;
    }
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let said = info.to_string();
            if said.contains("timed out") || said.contains("TimedOut") {
                for query in [
                    "SELECT pid, datname, state, wait_event_type, wait_event, \
                     now() - query_start AS running, left(query, 200) AS query \
                     FROM pg_stat_activity WHERE datname LIKE 'mw_%' ORDER BY query_start",
                    "SELECT l.pid, l.locktype, l.mode, l.granted, l.relation::regclass, \
                     a.datname FROM pg_locks l JOIN pg_stat_activity a USING (pid) \
                     WHERE a.datname LIKE 'mw_%' ORDER BY l.granted, l.pid",
                ] {
                    match std::process::Command::new("psql")
                        .args(["-X", "-d", "postgres", "-c", query])
                        .output()
                    {
                        Ok(out) => eprintln!(
                            "PostgreSQL at the stall:\n{}{}",
                            String::from_utf8_lossy(&out.stdout),
                            String::from_utf8_lossy(&out.stderr)
                        ),
                        Err(e) => eprintln!("PostgreSQL at the stall: psql: {e}"),
                    }
                }
            }
            previous(info);
        }));
    });
}
