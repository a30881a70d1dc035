//! The PostgreSQL backend: the database several panel replicas share.
//!
//! One pool per process; every write is a plain `BEGIN … COMMIT` at READ
//! COMMITTED, PostgreSQL's default. The schema comes from
//! `migrations/postgres/` and is refused when a newer meshwatch migrated it.
//! Subscription tokens are sealed with `MESHWATCH_SECRET_KEY`, which every
//! replica shares (there is no key file beside a PostgreSQL database).

use super::schema;
use super::sub_tokens::SubTokenSealing;
use super::StoreError;
use crate::sealing::SealingKey;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, Postgres, Transaction};
use std::str::FromStr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(super) type Tx = Transaction<'static, Postgres>;

#[derive(Clone)]
pub struct Store {
    /// The same pool as `reader`: the statements name the one they need,
    /// SQLite gives them two.
    pub(super) writer: PgPool,
    pub(super) reader: PgPool,
    pub(super) sub_tokens: Arc<SubTokenSealing>,
    /// The evaluator term this replica holds (see
    /// [`Store::take_evaluator_term`]); 0 while it does not evaluate.
    term: Arc<AtomicI64>,
    /// Where the replicas' LISTEN connection and the evaluator's lock
    /// connection go (connections of their own, outside the pool).
    options: Arc<PgConnectOptions>,
}

/// The channel every replica listens on (see [`Store::announce`]).
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
        Ok(Self {
            writer: pool.clone(),
            reader: pool,
            sub_tokens: Arc::new(SubTokenSealing::new(sealing)),
            term: Arc::default(),
            options: Arc::new(options),
        })
    }

    /// A connection of its own, outside the pool (the evaluator's lock,
    /// the LISTEN connection).
    pub async fn connect_alone(&self) -> Result<sqlx::PgConnection, StoreError> {
        use sqlx::ConnectOptions;
        Ok(self.options.connect().await?)
    }

    /// A listener on [`CHANNEL`], on a connection of its own.
    pub async fn listener(&self) -> Result<sqlx::postgres::PgListener, StoreError> {
        let mut listener = sqlx::postgres::PgListener::connect_with(&self.writer).await?;
        listener.listen(CHANNEL).await?;
        Ok(listener)
    }

    /// Tells every replica's listener `topic` (after the commit of the
    /// caller's transaction, if it is in one).
    pub async fn announce(&self, topic: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(topic)
            .execute(&self.writer)
            .await?;
        Ok(())
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
    pub(super) async fn order_reports(tx: &mut Tx) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_advisory_xact_lock($1), pg_notify($2, $3)")
            .bind(REPORT_ORDER_LOCK)
            .bind(CHANNEL)
            .bind(crate::engine::REPORTS_STORED)
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
