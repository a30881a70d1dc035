//! What every handler shares.

use crate::engine::{Broadcaster, Clock, Evaluator, ReadModel};
use crate::login::SignInLimits;
use crate::store::Store;
use crate::telemetry::Metrics;
use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub leptos: LeptosOptions,
    pub limiter: Arc<SignInLimits>,
    /// The budget of concurrent password checks.
    pub password_checks: Arc<crate::password_check::PasswordChecks>,
    /// Whose forwarding headers name the client.
    pub trusted_proxies: Arc<crate::client_address::TrustedProxies>,
    pub report_limiter: Arc<crate::report_limit::ReportLimiter>,
    pub sessions: Arc<crate::sessions::SessionCache>,
    /// Takes agent reports, fleet and settings changes.
    pub evaluator: Arc<Evaluator>,
    /// Serves verdicts and the fleet data that changes with the fleet.
    pub read_model: Arc<ReadModel>,
    /// Recorded verdict changes, for live pages.
    pub broadcaster: Broadcaster,
    /// The evaluator's clock: report receipt times are read from it.
    pub clock: Clock,
    pub metrics: Arc<Metrics>,
    /// This panel's name among the replicas of its database.
    pub replica: crate::config::ReplicaName,
    /// `MESHWATCH_METRICS_TOKEN`, when set: `/metrics` wants it.
    pub metrics_token: Option<crate::telemetry::ScrapeToken>,
    /// Fault control of the live demo fleet, when it runs.
    pub demo: Option<crate::demo::live::DemoControl>,
    /// Where notifications go: email address, webhook (by label), or
    /// nowhere (none configured: rows stay queued so the panel can show
    /// them).
    pub targets: Arc<Vec<crate::notify::Target>>,
    /// Where browsers reach the panel (`MESHWATCH_PUBLIC_URL`, else each
    /// request's `Host`): cross-site checks, links, the session cookie.
    pub site: app::auth::PanelSite,
    /// Turns true when the panel begins to stop: open event streams end
    /// then, or a graceful stop would wait for them until it is killed.
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// `MESHWATCH_STATUS_PAGE`: the public status page is served.
    pub status_page_enabled: bool,
    /// The public status page, built at most every few seconds.
    pub status_page: Arc<crate::status_page::StatusPage>,
    /// What this host lets actions do (its allow-list of programs).
    pub action_policy: Arc<meshwatch::actions::HostPolicy>,
    /// Wakes the connected panels' sync when a connector changes.
    pub connector_nudge: Arc<tokio::sync::Notify>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
