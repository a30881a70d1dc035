//! The live rules engine of the panel, in three parts so that each can
//! later run where it belongs (one evaluating replica, many serving ones):
//!
//! - the [`Evaluator`] owns the mesh state: it applies agent reports in
//!   their stored order, re-evaluates on every tick (the [`Ticker`]),
//!   records changes and checkpoints pairs; it reads time from an injected
//!   [`Clock`];
//! - the [`ReadModel`] serves pages, the APIs and subscriptions from the
//!   verdict snapshot the evaluator publishes, and keeps the fleet data
//!   that changes only with the fleet; [`Serving`] is what one user is
//!   served, computed there once for every view of it;
//! - the [`Broadcaster`] pushes recorded changes to live pages.
//!
//! The verdicts themselves come from the pure `meshwatch::rules`.

mod broadcaster;
mod clock;
mod evaluator;
mod fault_alert;
mod per_fleet;
mod read_model;
mod replication;
mod serving;
mod snapshot;
mod ticker;

pub use crate::store::topics::{CHANGES_RECORDED, FLEET_CHANGED, REPORTS_STORED, SETTINGS_CHANGED};
pub use broadcaster::Broadcaster;
pub use clock::{Clock, ManualClock};
pub use evaluator::Evaluator;
pub use read_model::{AgentPeers, CardEvidence, Endpoints, KeptUser, ReadModel};
pub use replication::Replication;
pub use serving::{server_ref, server_ref_at, Serving};
pub use snapshot::SharedSnapshot;
pub use ticker::{Ticker, Ticks};

/// The evidence, the verdicts and the database: what every reader and
/// every command needs (a sub-state of the router's, `State<Core>`).
#[derive(Clone)]
pub struct Core {
    pub store: crate::store::Store,
    /// Takes agent reports, fleet and settings changes.
    pub evaluator: std::sync::Arc<Evaluator>,
    /// Serves verdicts and the fleet data that changes with the fleet.
    pub read_model: std::sync::Arc<ReadModel>,
    /// Recorded verdict changes, for live pages.
    pub broadcaster: Broadcaster,
    /// The evaluator's clock: report receipt times are read from it.
    pub clock: Clock,
    pub metrics: std::sync::Arc<crate::ops::telemetry::Metrics>,
    /// This panel's name among the replicas of its database.
    pub replica: crate::ops::config::ReplicaName,
}
