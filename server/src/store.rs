//! The store: every SQL statement of meshwatch lives under this module.
//!
//! Two backends share one API and one set of statements: SQLite (the
//! embedded default, see [`sqlite`]) and PostgreSQL (for several panel
//! replicas, see [`postgres`]). The statements under `store/queries/` are
//! compiled once per backend (the two `#[path]` modules below), each time
//! against that backend's own pool and transaction types, so neither pays
//! for the other (no `sqlx::Any`). The few statements that differ come from
//! each backend's `dialect`.

mod database_url;
pub mod key_file;
pub mod offline;
pub mod postgres;
pub mod schema;
mod sealed_columns;
mod sqlite;
mod types;

pub use database_url::DatabaseUrl;

/// What a replica announces to the others on the database's channel
/// (PostgreSQL `NOTIFY`) after a write, so that they reload it.
pub mod topics {
    /// What a replica announces when it changed the fleet (servers, entry
    /// points, routes, users, verifier marks).
    pub const FLEET_CHANGED: &str = "fleet";
    /// ... the settings.
    pub const SETTINGS_CHANGED: &str = "settings";
    /// ... the status history (the evaluator, after recording changes).
    pub const CHANGES_RECORDED: &str = "changes";
    /// ... stored reports (every replica, on the commit of its reports).
    pub const REPORTS_STORED: &str = "reports";
}

pub use types::{
    Attempt, Channels, ConnectorSync, ControlRow, Delivery, DueRun, Endpoint, EvidenceSnapshot,
    FollowedReport, GeneratedTokens, NewActionRun, NewNotification, NotificationView,
    OperatorCredentials, Outgoing, PairRow, PendingReport, ReceivedReport, Recipient,
    RecordedChange, StoredConnector, StoredReport, TargetKind, TurnedOffRecord,
};

use crate::crypto::sealing::{SealingError, SealingKey};
use crate::crypto::secrets::TokenHash;
use chrono::{DateTime, Utc};
use meshwatch::agent_api::{AgentReport, Metrics, ReportAck};
use meshwatch::fleet::Fleet;
use meshwatch::mesh::{MeshRoute, MeshServer};
use meshwatch::settings::Settings;
use meshwatch::status::ServerStatus;
use meshwatch::verdict::VerdictChange;
use meshwatch::{EntryPointId, RouteId, ServerId, UserId};
use meshwatch_views::chart::MetricCharts;
use meshwatch_views::i18n::Lang;
use meshwatch_views::views::{
    ApiTokenView, DeliveryState, OperatorView, ServerSummary, UserSummary,
};
use sqlx::sqlite::SqliteConnectOptions;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The statements, on SQLite.
// Loading the same files twice is the point: one text, two backends.
#[allow(clippy::duplicate_mod)]
#[path = "store/queries"]
mod on_sqlite {
    use super::sqlite::{Db, Store, Tx};
    use super::types::*;
    use super::{corrupt, count, StoreError};

    mod actions;
    mod auth;
    mod connectors;
    mod fleet;
    mod history;
    mod maintenance;
    mod metrics;
    mod outbox;
    mod reports;
    mod settings;
}

/// The same statements, on PostgreSQL.
#[allow(clippy::duplicate_mod)]
#[path = "store/queries"]
mod on_postgres {
    use super::postgres::{Db, Store, Tx};
    use super::types::*;
    use super::{corrupt, count, StoreError};

    mod actions;
    mod auth;
    mod connectors;
    mod fleet;
    mod history;
    mod maintenance;
    mod metrics;
    mod outbox;
    mod reports;
    mod settings;
}

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// `MESHWATCH_DATABASE_URL` names no backend.
    #[error("{0}")]
    Url(String),
    #[error("cannot create the database directory {path}: {source}")]
    Directory {
        path: String,
        source: std::io::Error,
    },
    /// The request conflicts with what is stored; nothing was written.
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    /// The request is invalid against what is stored; nothing was written.
    #[error("{message}")]
    Rejected { code: &'static str, message: String },
    #[error("cannot seal a subscription token: {0}")]
    Sealing(#[from] SealingError),
    /// Another replica evaluates now: this one's evaluator write was
    /// refused.
    #[error("another replica took over evaluating")]
    NotEvaluator,
    /// A newer meshwatch migrated the database; nothing was written.
    #[error(transparent)]
    NewerSchema(#[from] schema::NewerSchema),
}

/// The store of one panel: a handle on its database (cheap to clone).
#[derive(Clone)]
pub enum Store {
    Sqlite(sqlite::Store),
    Postgres(postgres::Store),
}

impl Store {
    /// Opens the database at `url` (creating a SQLite file if needed),
    /// applies pending migrations and seals subscription tokens and
    /// actions' HTTP calls still stored in clear; `sealing` seals and opens them from then on (see
    /// [`key_file::key_for_database`]).
    pub async fn open(url: &str, sealing: SealingKey) -> Result<Self, StoreError> {
        Self::open_url(&DatabaseUrl::parse(url).map_err(StoreError::Url)?, sealing).await
    }

    pub async fn open_url(url: &DatabaseUrl, sealing: SealingKey) -> Result<Self, StoreError> {
        let store = match url {
            DatabaseUrl::Sqlite(url) => Self::Sqlite(sqlite::Store::open(url, sealing).await?),
            DatabaseUrl::Postgres(url) => {
                Self::Postgres(postgres::Store::open(url, sealing).await?)
            }
        };
        // Actions' HTTP calls an earlier version stored in clear.
        let sealed = store.seal_clear_action_calls().await?;
        if sealed > 0 {
            tracing::info!(
                actions = sealed,
                "sealed the HTTP calls of actions an earlier version stored in clear"
            );
        }
        Ok(store)
    }

    /// The database answers a query (for `/readyz`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self {
            Self::Sqlite(s) => s.ping().await,
            Self::Postgres(s) => s.ping().await,
        }
    }

    /// The shared database of several replicas, if this is one.
    /// Whether this panel evaluates: a SQLite panel always does; among
    /// PostgreSQL replicas, the one holding the evaluator's term. Only it
    /// writes to connected panels.
    pub fn evaluates(&self) -> bool {
        match self {
            Self::Sqlite(_) => true,
            Self::Postgres(s) => s.evaluates(),
        }
    }

    pub fn shared(&self) -> Option<&postgres::Store> {
        match self {
            Self::Sqlite(_) => None,
            Self::Postgres(s) => Some(s),
        }
    }

    /// Tells the other replicas (if any) that `topic` changed.
    pub async fn announce(&self, topic: &str) -> Result<(), StoreError> {
        match self {
            Self::Sqlite(_) => Ok(()),
            Self::Postgres(s) => s.announce(topic).await,
        }
    }

    /// Closes the pools (on SQLite, flushing the WAL).
    pub async fn close(&self) {
        match self {
            Self::Sqlite(s) => s.close().await,
            Self::Postgres(s) => s.close().await,
        }
    }
}

/// One public method per statement set, answered by the backend in use.
macro_rules! delegate {
    ($(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        impl Store {
            $(
                pub async fn $name(&self $(, $arg: $ty)*) -> $ret {
                    match self {
                        Self::Sqlite(s) => s.$name($($arg),*).await,
                        Self::Postgres(s) => s.$name($($arg),*).await,
                    }
                }
            )*
        }
    };
}

delegate! {
    fn upsert_operator(&self, username: &str, password_hash: &str) -> Result<bool, StoreError>;
    fn operator_credentials(&self, username: &str) -> Result<Option<OperatorCredentials>, StoreError>;
    fn create_session(&self, operator_id: i64, token: &TokenHash, expires_at: DateTime<Utc>) -> Result<(), StoreError>;
    fn session(&self, token: &TokenHash, now: DateTime<Utc>) -> Result<Option<(OperatorView, DateTime<Utc>)>, StoreError>;
    fn delete_session(&self, token: &TokenHash) -> Result<(), StoreError>;
    fn upsert_api_token(&self, name: &str, token: &TokenHash, scope: meshwatch::account::TokenScope) -> Result<(), StoreError>;
    fn api_token_count(&self) -> Result<i64, StoreError>;
    fn api_token_scope(&self, token: &TokenHash) -> Result<Option<meshwatch::account::TokenScope>, StoreError>;
    fn change_password(&self, operator_id: i64, password_hash: &str, keep: &TokenHash) -> Result<Vec<String>, StoreError>;
    fn api_tokens(&self) -> Result<Vec<ApiTokenView>, StoreError>;
    fn create_api_token(&self, name: &str, token: &TokenHash, scope: meshwatch::account::TokenScope, created_by: i64) -> Result<bool, StoreError>;
    fn revoke_api_token(&self, name: &str) -> Result<bool, StoreError>;
    fn server_for_agent_token(&self, token: &TokenHash) -> Result<Option<ServerId>, StoreError>;
    fn new_agent_token(&self, server: &ServerId) -> Result<Option<String>, StoreError>;
    fn mesh_spec(&self) -> Result<(Vec<MeshServer>, Vec<MeshRoute>), StoreError>;
    fn servers(&self) -> Result<Vec<ServerSummary>, StoreError>;
    fn server(&self, id: &ServerId) -> Result<Option<ServerSummary>, StoreError>;
    fn set_verifier(&self, server: &ServerId, mark: &meshwatch::controls::VerifierMark) -> Result<bool, StoreError>;
    fn verifier_checks(&self, server: &ServerId) -> Result<Option<meshwatch::agent_api::VerifierChecks>, StoreError>;
    fn remove_server(&self, server: &ServerId) -> Result<bool, StoreError>;
    fn user(&self, id: &UserId) -> Result<Option<(UserSummary, Option<String>)>, StoreError>;
    fn users(&self) -> Result<Vec<UserSummary>, StoreError>;
    fn user_for_sub_token(&self, token: &TokenHash) -> Result<Option<(UserSummary, Option<String>)>, StoreError>;
    fn route_names(&self) -> Result<HashMap<RouteId, String>, StoreError>;
    fn endpoints(&self) -> Result<HashMap<EntryPointId, Endpoint>, StoreError>;
    fn apply_fleet(&self, fleet: &Fleet) -> Result<GeneratedTokens, StoreError>;
    fn latest_conditions(&self) -> Result<HashMap<ServerId, Vec<ServerStatus>>, StoreError>;
    fn latest_calm_conditions(&self) -> Result<HashMap<ServerId, Vec<ServerStatus>>, StoreError>;
    fn record_changes(&self, changes: &[VerdictChange], notifications: &[NewNotification], runs: &[NewActionRun]) -> Result<(), StoreError>;
    fn status_changes_since(&self, server: &ServerId, since: DateTime<Utc>) -> Result<Vec<(DateTime<Utc>, ServerStatus)>, StoreError>;
    fn fleet_changes_since(&self, since: DateTime<Utc>) -> Result<Vec<(ServerId, DateTime<Utc>, ServerStatus)>, StoreError>;
    fn latest_changes(&self, limit: i64) -> Result<Vec<(ServerId, DateTime<Utc>, ServerStatus)>, StoreError>;
    fn status_history(&self, server: &ServerId, limit: i64) -> Result<Vec<(DateTime<Utc>, ServerStatus)>, StoreError>;
    fn latest_metrics(&self, server: &ServerId) -> Result<Option<Metrics>, StoreError>;
    fn metric_charts(&self, server: &ServerId, until: chrono::DateTime<chrono::Utc>, buckets: usize, bucket_s: u32) -> Result<MetricCharts, StoreError>;
    fn backfill_metrics(&self, server: &ServerId, samples: &[(i64, Metrics)]) -> Result<bool, StoreError>;
    fn queue_notifications(&self, notifications: &[NewNotification]) -> Result<(), StoreError>;
    fn notifications(&self) -> Result<Vec<NotificationView>, StoreError>;
    fn claim_due_notifications(&self, now: DateTime<Utc>, lease: chrono::Duration, limit: i64, channels: Channels) -> Result<Vec<Outgoing>, StoreError>;
    fn record_delivery(&self, id: i64, outcome: Delivery) -> Result<(), StoreError>;
    fn outbox_counts(&self) -> Result<HashMap<DeliveryState, i64>, StoreError>;
    fn recent_reports(&self, server: &ServerId, limit: u32) -> Result<Vec<ReceivedReport>, StoreError>;
    fn store_reports(&self, batch: &[(&ServerId, &AgentReport, i64, ReportAck)]) -> Result<Vec<StoredReport>, StoreError>;
    fn reports_after(&self, after: i64, below: Option<i64>, limit: i64) -> Result<Vec<FollowedReport>, StoreError>;
    fn changes_after(&self, after: i64, limit: i64) -> Result<Vec<RecordedChange>, StoreError>;
    fn last_change_number(&self) -> Result<i64, StoreError>;
    fn evidence_snapshot(&self) -> Result<EvidenceSnapshot, StoreError>;
    fn write_pairs(&self, pairs: &[PairRow]) -> Result<(), StoreError>;
    fn move_checkpoint(&self, applied_seq: i64, controls: &[ControlRow]) -> Result<(), StoreError>;
    fn prune(&self, before_ms: i64) -> Result<u64, StoreError>;
    fn settings(&self) -> Result<Settings, StoreError>;
    fn save_settings(&self, s: &Settings) -> Result<(), StoreError>;
    fn notify_lang(&self) -> Result<Option<Lang>, StoreError>;
    fn set_notify_lang(&self, lang: Lang) -> Result<(), StoreError>;
    fn maintenance_windows(&self) -> Result<Vec<meshwatch::maintenance::MaintenanceWindow>, StoreError>;
    fn plan_maintenance(&self, plan: &meshwatch::maintenance::MaintenancePlan, now: DateTime<Utc>) -> Result<Option<meshwatch::maintenance::MaintenanceWindow>, StoreError>;
    fn cancel_maintenance(&self, id: meshwatch::maintenance::MaintenanceId) -> Result<bool, StoreError>;
    fn actions(&self) -> Result<Vec<meshwatch::actions::Action>, StoreError>;
    fn create_action(&self, new: &meshwatch::actions::NewAction, now: DateTime<Utc>) -> Result<meshwatch::actions::Action, StoreError>;
    fn delete_action(&self, id: meshwatch::actions::ActionId) -> Result<bool, StoreError>;
    fn actions_enabled(&self) -> Result<bool, StoreError>;
    fn set_actions_enabled(&self, enabled: bool) -> Result<(), StoreError>;
    fn interrupt_lapsed_runs(&self, now: DateTime<Utc>, all: bool) -> Result<u64, StoreError>;
    fn rerun(&self, id: i64, now: DateTime<Utc>) -> Result<bool, StoreError>;
    fn runs_started(&self, since: DateTime<Utc>, action: meshwatch::actions::ActionId, server: &ServerId, cooldown_since: DateTime<Utc>, except: i64) -> Result<(u32, bool), StoreError>;
    fn action_budget(&self) -> Result<meshwatch::actions::ActionBudget, StoreError>;
    fn set_action_budget(&self, budget: &meshwatch::actions::ActionBudget) -> Result<(), StoreError>;
    fn actions_off_reason(&self) -> Result<Option<meshwatch::actions::OffReason>, StoreError>;
    fn actions_switch(&self) -> Result<(bool, Option<meshwatch::actions::OffReason>), StoreError>;
    fn switch_actions_off_for(&self, reason: meshwatch::actions::OffReason, messages: &[NewNotification]) -> Result<bool, StoreError>;
    fn conditions_since(&self, server: &ServerId, since: DateTime<Utc>) -> Result<Vec<Vec<ServerStatus>>, StoreError>;
    fn mass_block_decisions(&self) -> Result<Vec<(ServerId, meshwatch::actions::MassDecision)>, StoreError>;
    fn decide_mass_block(&self, verifier: &ServerId, decision: meshwatch::actions::MassDecision, now: DateTime<Utc>) -> Result<(), StoreError>;
    fn forget_mass_block_decisions(&self, guarded: &[ServerId]) -> Result<(), StoreError>;
    fn hold_run(&self, id: i64, until: DateTime<Utc>) -> Result<(), StoreError>;
    fn seal_clear_action_calls(&self) -> Result<usize, StoreError>;
    fn claim_due_runs(&self, now: DateTime<Utc>, lease: chrono::Duration, limit: i64) -> Result<Vec<DueRun>, StoreError>;
    fn record_attempt(&self, id: i64, attempt: &Attempt) -> Result<(), StoreError>;
    fn skip_run(&self, id: i64) -> Result<(), StoreError>;
    fn servers_with_runs(&self) -> Result<Vec<ServerId>, StoreError>;
    fn action_runs(&self, server: Option<&ServerId>, limit: i64) -> Result<Vec<meshwatch::actions::ActionRun>, StoreError>;
    fn connectors(&self) -> Result<Vec<StoredConnector>, StoreError>;
    fn connector_ids(&self) -> Result<Vec<meshwatch::ConnectorId>, StoreError>;
    fn connector(&self, id: &meshwatch::ConnectorId) -> Result<Option<StoredConnector>, StoreError>;
    fn put_connector(&self, id: &meshwatch::ConnectorId, connector: &meshwatch::connectors::CheckedConnector, now: DateTime<Utc>) -> Result<bool, StoreError>;
    fn remove_connector(&self, id: &meshwatch::ConnectorId) -> Result<bool, StoreError>;
    fn set_connector_mode(&self, id: &meshwatch::ConnectorId, mode: meshwatch::connectors::ConnectorMode) -> Result<bool, StoreError>;
    fn connectors_failing(&self) -> Result<u32, StoreError>;
    fn hidden_hosts(&self) -> Result<HashMap<ServerId, Vec<meshwatch::connectors::HiddenIn>>, StoreError>;
    fn forget_connector(&self, id: &meshwatch::ConnectorId) -> Result<(), StoreError>;
    fn intend_turn_off(&self, id: &meshwatch::ConnectorId, hosts: &[meshwatch::connectors::TurnedOff]) -> Result<(), StoreError>;
    fn record_connector_sync(&self, id: &meshwatch::ConnectorId, sync: &ConnectorSync, messages: &[NewNotification]) -> Result<(), StoreError>;
}

/// The database file behind a `sqlite:` URL; `None` for an in-memory
/// database (it has no file, nor a directory to keep anything beside it)
/// and for PostgreSQL.
pub fn database_file(url: &str) -> Result<Option<PathBuf>, sqlx::Error> {
    if !url.starts_with("sqlite:") {
        return Ok(None);
    }
    let options = SqliteConnectOptions::from_str(url)?;
    let file = options.get_filename();
    // sqlx names `:memory:` databases `file:sqlx-in-memory-N`, and
    // `?mode=memory` keeps the name: the URL tells, the file name may not.
    let in_memory = file.as_os_str().is_empty()
        || file == Path::new(":memory:")
        || url.contains(":memory:")
        || url.contains("mode=memory");
    Ok((!in_memory).then(|| file.to_path_buf()))
}

/// A stored value that does not decode: the database was changed behind
/// the store's back.
fn corrupt(what: &str, err: impl std::fmt::Display) -> StoreError {
    StoreError::Database(sqlx::Error::Decode(
        format!("stored {what} is invalid: {err}").into(),
    ))
}

/// A count column (probes, streaks) as the `u32` the domain holds.
fn count(what: &str, stored: i64) -> Result<u32, StoreError> {
    u32::try_from(stored).map_err(|e| corrupt(what, e))
}

#[cfg(test)]
mod tests {
    use meshwatch::{ServerId, UserId};
    use sqlx::{Connection, SqliteConnection};

    #[tokio::test]
    async fn an_id_is_stored_as_its_slug_and_reads_back_only_when_one() {
        let mut conn = SqliteConnection::connect("sqlite::memory:")
            .await
            .expect("opens");
        let id = ServerId::parse("de-1").expect("a server id");
        let (text, back): (String, ServerId) = sqlx::query_as("SELECT $1, $1")
            .bind(&id)
            .fetch_one(&mut conn)
            .await
            .expect("round trip");
        assert_eq!((text.as_str(), back), ("de-1", id));
        let edited = sqlx::query_scalar::<_, UserId>("SELECT 'Alice Smith'")
            .fetch_one(&mut conn)
            .await;
        assert!(edited.is_err(), "{edited:?}");
    }
}
