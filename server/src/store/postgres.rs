//! The PostgreSQL backend: the database several panel replicas share.
//!
//! One pool per process; every write is a plain `BEGIN … COMMIT` at READ
//! COMMITTED, PostgreSQL's default. The schema comes from
//! `migrations/postgres/` and is refused when a newer meshwatch migrated it.
//! Subscription tokens, proxy credentials and action calls are sealed with
//! `MESHWATCH_SECRET_KEY`, which every replica shares (there is no key file beside a PostgreSQL database).

use super::schema;
use super::sealed_columns::SealedColumns;
use super::StoreError;
use crate::crypto::sealing::SealingKey;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, Postgres, Transaction};
use std::str::FromStr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(super) type Tx = Transaction<'static, Postgres>;

/// The database the statements are compiled for.
pub(super) type Db = Postgres;

#[derive(Clone)]
pub struct Store {
    /// The same pool as `reader`: the statements name the one they need,
    /// SQLite gives them two.
    pub(super) writer: PgPool,
    pub(super) reader: PgPool,
    pub(super) sealed: Arc<SealedColumns>,
    /// The evaluator term this replica holds (see
    /// [`Store::take_evaluator_term`]); 0 while it does not evaluate.
    term: Arc<AtomicI64>,
    /// Where the replicas' LISTEN connection and the evaluator's lock
    /// connection go (connections of their own, outside the pool).
    options: Arc<PgConnectOptions>,
    /// This process among the replicas: its announcements carry it, so
    /// that its own listener skips them.
    origin: Arc<str>,
}

/// The channel every replica listens on (see [`Store::announce`]).
/// The listener's `application_name`: it is the connection that shows
/// `LISTEN` in `pg_stat_activity`, apart from the pool's.
pub const LISTENER_NAME: &str = "meshwatch listener";

pub const CHANNEL: &str = "meshwatch";

/// The advisory lock whose holder evaluates (an arbitrary constant:
/// "mw" and a 1).
pub const EVALUATOR_LOCK: i64 = 0x6d77_0001;

/// The advisory lock that makes report writers commit in sequence order.
const REPORT_ORDER_LOCK: i64 = 0x6d77_0002;

/// Connections per replica: pages, the API and ingest share them.
pub const POOL_CONNECTIONS: u32 = 16;

impl Store {
    pub(super) async fn open(url: &str, sealing: SealingKey) -> Result<Self, StoreError> {
        // A row lock waited for longer than SQLite's busy timeout fails
        // the statement, as there, instead of hanging the request.
        let options = PgConnectOptions::from_str(url)?
            .application_name("meshwatch")
            .options([("lock_timeout", "10s")]);
        let pool = PgPoolOptions::new()
            .max_connections(POOL_CONNECTIONS)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await?;
        {
            let mut conn = pool.acquire().await?;
            if let Some(applied) = schema::applied_postgres_migrations(&mut conn).await? {
                schema::refuse_newer(&applied, &schema::POSTGRES_MIGRATOR)?;
            }
            // Replicas starting together: sqlx takes an advisory lock, so
            // exactly one of them migrates and the others wait for it.
            schema::POSTGRES_MIGRATOR.run(&mut *conn).await?;
        }
        let sealed = Arc::new(SealedColumns::new(sealing));
        let mut tx = pool.begin().await?;
        sealed.seal_clear_users(&mut tx).await?;
        tx.commit().await?;
        Ok(Self {
            writer: pool.clone(),
            reader: pool,
            sealed,
            term: Arc::default(),
            options: Arc::new(options),
            origin: uuid::Uuid::new_v4().simple().to_string().into(),
        })
    }

    /// A connection of its own, outside the pool (the evaluator's lock,
    /// the LISTEN connection).
    pub async fn connect_alone(&self) -> Result<sqlx::PgConnection, StoreError> {
        use sqlx::ConnectOptions;
        Ok(self.options.connect().await?)
    }

    /// A listener on [`CHANNEL`], on a connection of its own outside the
    /// writer's pool: it holds that connection for good, and a pool slot
    /// taken for good is one a request waits for. (Its own one-connection
    /// pool is how sqlx reconnects a listener.)
    pub async fn listener(&self) -> Result<sqlx::postgres::PgListener, StoreError> {
        let own = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .max_lifetime(None)
            .idle_timeout(None)
            .connect_with((*self.options).clone().application_name(LISTENER_NAME))
            .await?;
        let mut listener = sqlx::postgres::PgListener::connect_with(&own).await?;
        listener.listen(CHANNEL).await?;
        Ok(listener)
    }

    /// Tells every other replica's listener `topic`.
    pub async fn announce(&self, topic: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(self.payload(topic))
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// What an announcement of `topic` says: the topic and who says it.
    fn payload(&self, topic: &str) -> String {
        format!("{topic} {}", self.origin)
    }

    /// The topic of an announcement another replica made (`None` for this
    /// one's own).
    pub fn topic_of<'p>(&self, payload: &'p str) -> Option<&'p str> {
        match payload.split_once(' ') {
            Some((topic, origin)) if origin != &*self.origin => Some(topic),
            Some(_) => None,
            None => Some(payload),
        }
    }

    /// This replica took the evaluator's lock: it raises the term, which
    /// waits for the writes of the one before (they hold the term's row
    /// for share) and fences off any it would still try.
    pub async fn take_evaluator_term(&self, replica: &str) -> Result<i64, StoreError> {
        let term: i64 = sqlx::query_scalar(
            "UPDATE evaluator_lease SET term = term + 1, replica = $1, since = now()
             WHERE id = 1 RETURNING term",
        )
        .bind(replica)
        .fetch_one(&self.writer)
        .await?;
        self.term.store(term, Ordering::SeqCst);
        Ok(term)
    }

    /// Whether this replica holds the evaluator's term now.
    pub fn evaluates(&self) -> bool {
        self.term.load(Ordering::SeqCst) > 0
    }

    /// This replica no longer evaluates: its evaluator writes fail.
    pub fn drop_evaluator_term(&self) {
        self.term.store(0, Ordering::SeqCst);
    }

    /// The replica that took the evaluator's lock last, if any did.
    pub async fn evaluating_replica(&self) -> Result<Option<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT replica FROM evaluator_lease WHERE id = 1 AND term > 0")
                .fetch_optional(&self.reader)
                .await?,
        )
    }

    /// A write only the evaluator may make: it holds the term's row for
    /// share until the commit, and fails if another replica took the
    /// lock since this one did.
    pub(super) async fn write_as_evaluator(&self) -> Result<Tx, StoreError> {
        let mut tx = self.write().await?;
        let held: i64 =
            sqlx::query_scalar("SELECT term FROM evaluator_lease WHERE id = 1 FOR SHARE")
                .fetch_one(&mut *tx)
                .await?;
        let mine = self.term.load(Ordering::SeqCst);
        if mine == 0 || held != mine {
            return Err(StoreError::NotEvaluator);
        }
        Ok(tx)
    }

    /// Makes the reports of this transaction commit after every report
    /// numbered before them (replicas write reports concurrently, and a
    /// reader must never see a sequence number while a smaller one is
    /// still to come), and tells the replicas about them on commit.
    pub(super) async fn order_reports(&self, tx: &mut Tx) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_advisory_xact_lock($1), pg_notify($2, $3)")
            .bind(REPORT_ORDER_LOCK)
            .bind(CHANNEL)
            .bind(self.payload(super::topics::REPORTS_STORED))
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// A read transaction whose statements all see one snapshot.
    pub(super) async fn read_snapshot(&self) -> Result<Tx, StoreError> {
        let mut tx = self.reader.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        Ok(tx)
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.reader).await?;
        Ok(())
    }

    pub(super) async fn write(&self) -> Result<Tx, StoreError> {
        Ok(self.writer.begin().await?)
    }

    pub(super) async fn close(&self) {
        self.writer.close().await;
    }
}

/// A `login_windows` row: one counter of the shared sign-in limiter
/// (`kind` 0: none, the row is deleted when written back).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LimitRow {
    pub slot: i64,
    pub kind: i16,
    pub failures: i32,
    pub started: i64,
    pub next_allowed: i64,
}

/// A `login_known` row: an address an operator signed in from, and when.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct KnownRow {
    pub slot: i64,
    pub at: i64,
}

/// The shared sign-in limiter's counters.
impl Store {
    /// Runs `op` on the counters `windows` (every one present, `kind` 0
    /// when there is none) and the remembered addresses `known` (those
    /// there are), locked against every other replica, and writes back
    /// what `op` left.
    pub async fn with_login_counters<R>(
        &self,
        windows: &[i64],
        known: &[i64],
        op: impl FnOnce(&mut [LimitRow], &mut Vec<KnownRow>) -> R,
    ) -> Result<R, StoreError> {
        // One order for every transaction: two attempts locking the same
        // rows never wait for each other in a circle.
        let mut windows = windows.to_vec();
        windows.sort_unstable();
        windows.dedup();
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO login_windows (slot) SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING",
        )
        .bind(&windows)
        .execute(&mut *tx)
        .await?;
        let mut rows: Vec<LimitRow> = sqlx::query_as(
            "SELECT slot, kind, failures, started, next_allowed FROM login_windows
             WHERE slot = ANY($1) ORDER BY slot FOR UPDATE",
        )
        .bind(&windows)
        .fetch_all(&mut *tx)
        .await?;
        let mut remembered: Vec<KnownRow> =
            sqlx::query_as("SELECT slot, at FROM login_known WHERE slot = ANY($1)")
                .bind(known)
                .fetch_all(&mut *tx)
                .await?;
        let out = op(&mut rows, &mut remembered);
        for row in &rows {
            if row.kind == 0 {
                sqlx::query("DELETE FROM login_windows WHERE slot = $1")
                    .bind(row.slot)
                    .execute(&mut *tx)
                    .await?;
            } else {
                sqlx::query(
                    "UPDATE login_windows SET kind = $2, failures = $3, started = $4, next_allowed = $5
                     WHERE slot = $1",
                )
                .bind(row.slot)
                .bind(row.kind)
                .bind(row.failures)
                .bind(row.started)
                .bind(row.next_allowed)
                .execute(&mut *tx)
                .await?;
            }
        }
        for row in &remembered {
            sqlx::query(
                "INSERT INTO login_known (slot, at) VALUES ($1, $2)
                 ON CONFLICT (slot) DO UPDATE SET at = excluded.at",
            )
            .bind(row.slot)
            .bind(row.at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(out)
    }

    /// Drops counters whose window started before `windows_before` and
    /// addresses remembered before `known_before`; past `max_windows`
    /// counters, keeps only the full ones (`full`: the limit per kind),
    /// and past it still, none; past `max_known` addresses, none. Returns
    /// how many rows went.
    pub async fn sweep_login_counters(
        &self,
        windows_before: i64,
        known_before: i64,
        (max_windows, max_known): (i64, i64),
        full: &[(i16, i32)],
    ) -> Result<u64, StoreError> {
        let mut tx = self.write().await?;
        let mut gone = sqlx::query("DELETE FROM login_windows WHERE started < $1")
            .bind(windows_before)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        gone += sqlx::query("DELETE FROM login_known WHERE at < $1")
            .bind(known_before)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM login_windows")
            .fetch_one(&mut *tx)
            .await?;
        if count >= max_windows {
            let (kinds, limits): (Vec<i16>, Vec<i32>) = full.iter().copied().unzip();
            gone += sqlx::query(
                "DELETE FROM login_windows w USING unnest($1::smallint[], $2::integer[]) AS l(kind, lim)
                 WHERE w.kind = l.kind AND w.failures < l.lim",
            )
            .bind(&kinds)
            .bind(&limits)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM login_windows")
                .fetch_one(&mut *tx)
                .await?;
            if left >= max_windows {
                gone += sqlx::query("DELETE FROM login_windows")
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
            }
        }
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM login_known")
            .fetch_one(&mut *tx)
            .await?;
        if count >= max_known {
            gone += sqlx::query("DELETE FROM login_known")
                .execute(&mut *tx)
                .await?
                .rows_affected();
        }
        tx.commit().await?;
        Ok(gone)
    }
}

/// The statements' PostgreSQL dialect (see the SQLite backend's twin).
impl Store {
    pub(super) fn json_array_agg(value: &str, order: &str) -> String {
        format!("COALESCE(json_agg({value} ORDER BY {order}), '[]'::json)::text")
    }

    pub(super) const SKIP_LOCKED: &'static str = "FOR UPDATE SKIP LOCKED";

    pub(super) fn json_tuple(columns: &str) -> String {
        format!("json_build_array({columns})")
    }

    pub(super) fn json_number(column: &str, key: &str) -> String {
        format!("({column}::jsonb ->> '{key}')::float8")
    }
}
