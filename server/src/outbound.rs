//! What meshwatch does to the world outside: notifications and their
//! delivery, the actions runner, and the connected panels.

pub mod actions;
pub mod connectors;
pub mod delivery;
pub mod notify;

use std::sync::Arc;

/// What meshwatch does outside, as the handlers that change it need it (a
/// sub-state of the router's, `State<Outbound>`).
#[derive(Clone)]
pub struct Outbound {
    /// Where notifications go: email address, webhook (by label), or
    /// nowhere (none configured: rows stay queued so the panel can show
    /// them).
    pub targets: Arc<Vec<notify::Target>>,
    /// What this host lets actions do (its allow-list of programs).
    pub action_policy: Arc<meshwatch::actions::HostPolicy>,
    /// Wakes the connected panels' sync when a connector changes.
    pub connector_nudge: Arc<tokio::sync::Notify>,
    /// Which panels hide each server's hosts, as the cards show it; the
    /// sync renews it.
    pub hidden_hosts: Arc<crate::read::indexes::HiddenIndex>,
}
