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
}

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
            .connect_with(options)
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
        })
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

    pub(super) fn json_tuple(columns: &str) -> String {
        format!("json_build_array({columns})")
    }

    pub(super) fn json_number(column: &str, key: &str) -> String {
        format!("({column}::jsonb ->> '{key}')::float8")
    }
}
