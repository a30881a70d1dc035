//! The loop that keeps every connected panel in step with meshwatch's
//! rotation: within seconds of a change of rotation, every
//! [`SYNC_EVERY`] anyway, and with backoff after a failure. Only the
//! evaluating panel (the one SQLite panel, or the PostgreSQL replica that
//! holds the evaluator's term) writes to connected panels.
//!
//! A host is recorded as turned off before the panel is asked, and the
//! record confirmed once it answered: a panel (or an evaluator) that stops
//! in between leaves a record the next sync completes, so a change is
//! neither lost nor repeated.

use super::{Panel, PanelError};
use crate::engine::{Clock, ReadModel};
use crate::outbound::notify::Target;
use crate::store::{ConnectorSync, NewNotification, Store, StoreError, StoredConnector};
use chrono::{DateTime, Duration, Utc};
use meshwatch::balance::{best_first, route_fallback};
use meshwatch::connectors::{
    plan, ConnectorMode, ConnectorState, HostChange, KnownEntryPoint, Plan, PlanInput, TurnedOff,
};
use meshwatch::{ConnectorId, ServerId, ServerStatus};
use meshwatch_views::views::NotificationKind;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use tokio::sync::Notify;

/// How often the loop looks at the rotation and the connectors.
const POLL: std::time::Duration = std::time::Duration::from_secs(1);
/// A connector syncs at least this often.
pub const SYNC_EVERY: Duration = Duration::seconds(60);
/// The first wait after a failed sync; it doubles up to [`SYNC_EVERY`].
pub const FIRST_RETRY: Duration = Duration::seconds(5);

/// meshwatch's rotation as connected panels apply it.
pub struct Rotation {
    /// In rotation, or served as their route's best available.
    pub served: HashSet<ServerId>,
    /// Every route's servers, best first.
    pub routes: Vec<Vec<ServerId>>,
    pub entry_points: Vec<KnownEntryPoint>,
    pub status: HashMap<ServerId, ServerStatus>,
    /// Changes whenever what connectors would do may change.
    key: u64,
}

impl Rotation {
    pub async fn read(read_model: &ReadModel) -> Result<Self, StoreError> {
        let endpoints = read_model.endpoints().await?;
        let fleet_version = read_model.fleet_version();
        Ok(read_model.with_verdicts(|mesh, verdicts| {
            let mut served: HashSet<ServerId> = verdicts
                .iter()
                .filter(|v| v.in_rotation)
                .map(|v| v.server.clone())
                .collect();
            let mut routes = Vec::with_capacity(mesh.routes().len());
            for r in 0..mesh.routes().len() {
                if let Some(fallback) = route_fallback(mesh, verdicts, r) {
                    served.insert(mesh.server(fallback).id.clone());
                }
                routes.push(
                    best_first(verdicts, mesh.servers_of_route(r))
                        .into_iter()
                        .map(|s| mesh.server(s).id.clone())
                        .collect(),
                );
            }
            let entry_points = (0..mesh.server_count())
                .flat_map(|s| {
                    let server = mesh.server(s);
                    server.entry_points.iter().map(|e| &e.id).filter_map(|id| {
                        let endpoint = endpoints.get(id)?;
                        Some(KnownEntryPoint {
                            host: endpoint.host.clone(),
                            port: endpoint.port,
                            server: server.id.clone(),
                            entry_point: id.clone(),
                        })
                    })
                })
                .collect();
            let status = verdicts
                .iter()
                .map(|v| (v.server.clone(), v.status))
                .collect();
            let mut sorted: Vec<&ServerId> = served.iter().collect();
            sorted.sort();
            let mut hasher = DefaultHasher::new();
            (fleet_version, sorted).hash(&mut hasher);
            Rotation {
                served,
                routes,
                entry_points,
                status,
                key: hasher.finish(),
            }
        }))
    }
}

/// A client kept between syncs (a panel that signs admins in keeps its
/// access token), rebuilt when the connector's kind, address or token
/// changes.
struct KeptPanel {
    made_from: u64,
    panel: Arc<Panel>,
}

/// When a connector syncs next.
struct Schedule {
    last_at: DateTime<Utc>,
    /// The rotation it last synced to.
    key: u64,
    failures: u32,
}

pub struct Syncer {
    pub store: Store,
    pub read_model: Arc<ReadModel>,
    pub clock: Clock,
    pub targets: Arc<Vec<Target>>,
    /// Woken when a connector is added, changed or removed.
    pub nudge: Arc<Notify>,
    /// The cards' view of hidden hosts, renewed after each recorded sync.
    pub hidden_hosts: Arc<crate::read::indexes::HiddenIndex>,
}

impl Syncer {
    pub async fn run(self) {
        let mut schedules: HashMap<ConnectorId, Schedule> = HashMap::new();
        let mut panels: HashMap<ConnectorId, KeptPanel> = HashMap::new();
        loop {
            let nudged = tokio::select! {
                _ = self.nudge.notified() => true,
                _ = tokio::time::sleep(POLL) => false,
            };
            if !self.store.evaluates() {
                schedules.clear();
                continue;
            }
            if let Err(error) = self.pass(&mut schedules, &mut panels, nudged).await {
                tracing::warn!(%error, "connected panels: cannot read the store");
            }
        }
    }

    async fn pass(
        &self,
        schedules: &mut HashMap<ConnectorId, Schedule>,
        panels: &mut HashMap<ConnectorId, KeptPanel>,
        nudged: bool,
    ) -> Result<(), StoreError> {
        // Ids only: a connector is read whole (its hosts and records) when
        // it is due.
        let ids = self.store.connector_ids().await?;
        if ids.is_empty() {
            schedules.clear();
            panels.clear();
            return Ok(());
        }
        schedules.retain(|id, _| ids.contains(id));
        panels.retain(|id, _| ids.contains(id));
        let rotation = Rotation::read(&self.read_model).await?;
        let now = self.clock.now();
        for id in ids {
            // A nudge (the connector saved again, say with a new token)
            // cuts a backoff short.
            let due = match schedules.get(&id) {
                None => true,
                Some(_) if nudged => true,
                Some(s) if s.failures > 0 => now >= s.last_at + retry_after(s.failures),
                Some(s) => s.key != rotation.key || now >= s.last_at + SYNC_EVERY,
            };
            if !due {
                continue;
            }
            let Some(connector) = self.store.connector(&id).await? else {
                continue;
            };
            let panel = kept_panel(panels, &connector);
            let ok = if connector.state == ConnectorState::Removing {
                self.remove(&connector, panel).await?
            } else {
                self.sync(&connector, panel, &rotation).await?
            };
            let failures = match (ok, schedules.get(&connector.id)) {
                (true, _) => 0,
                (false, Some(s)) => s.failures + 1,
                (false, None) => 1,
            };
            schedules.insert(
                connector.id.clone(),
                Schedule {
                    last_at: now,
                    key: rotation.key,
                    failures,
                },
            );
        }
        Ok(())
    }

    /// One sync of one connector; whether it succeeded.
    async fn sync(
        &self,
        connector: &StoredConnector,
        panel: Result<Arc<Panel>, PanelError>,
        rotation: &Rotation,
    ) -> Result<bool, StoreError> {
        let at = self.clock.now();
        let panel = match panel {
            Ok(panel) => panel,
            Err(error) => return self.failed(connector, at, error, None).await,
        };
        let hosts = match panel.hosts().await {
            Ok(hosts) => hosts,
            Err(error) => return self.failed(connector, at, error, None).await,
        };
        let turned_off: HashSet<String> = connector
            .turned_off
            .iter()
            .map(|r| r.host.external_id.clone())
            .collect();
        let mut plan = plan(&PlanInput {
            hosts: &hosts,
            tag: connector.tag.as_deref(),
            entry_points: &rotation.entry_points,
            served: &rotation.served,
            turned_off: &turned_off,
            routes: &rotation.routes,
        });
        if connector.mode == ConnectorMode::DryRun {
            return self
                .succeeded(connector, at, plan, Applied::default())
                .await;
        }
        let (applied, error) = self
            .apply(connector, &panel, &mut plan, rotation, at)
            .await?;
        match error {
            Some(error) => {
                self.failed(connector, at, error, Some((plan, applied)))
                    .await
            }
            None => self.succeeded(connector, at, plan, applied).await,
        }
    }

    /// Carries `plan` out: hosts on first, then hosts off. What is done is
    /// taken out of `plan.changes`, shown in `plan.matched` and returned,
    /// with the panel's error if it stopped part way.
    async fn apply(
        &self,
        connector: &StoredConnector,
        panel: &Panel,
        plan: &mut Plan,
        rotation: &Rotation,
        at: DateTime<Utc>,
    ) -> Result<(Applied, Option<PanelError>), StoreError> {
        let mut applied = Applied {
            forget: plan.forget.clone(),
            confirmed_off: Vec::new(),
        };
        let ids = |change: HostChange, plan: &Plan| -> Vec<String> {
            plan.changes
                .iter()
                .filter(|c| c.change == change)
                .map(|c| c.external_id.clone())
                .collect()
        };
        let on = ids(HostChange::Enable, plan);
        if let Err(error) = panel.set_enabled(&on, true).await {
            return Ok((applied, Some(error)));
        }
        done(plan, &on, HostChange::Enable);
        applied.forget.extend(on.iter().cloned());

        let off: Vec<TurnedOff> = plan
            .changes
            .iter()
            .filter(|c| c.change == HostChange::Disable)
            .map(|c| TurnedOff {
                external_id: c.external_id.clone(),
                server_id: c.server_id.clone(),
                entry_point_id: c.entry_point_id.clone(),
                status: rotation
                    .status
                    .get(&c.server_id)
                    .copied()
                    .unwrap_or(ServerStatus::NoData),
                since: at,
            })
            .collect();
        let off_ids = ids(HostChange::Disable, plan);
        // Recorded before the panel is asked: a stop in between leaves a
        // record the next sync completes.
        self.store.intend_turn_off(&connector.id, &off).await?;
        if let Err(error) = panel.set_enabled(&off_ids, false).await {
            return Ok((applied, Some(error)));
        }
        done(plan, &off_ids, HostChange::Disable);
        if !on.is_empty() || !off_ids.is_empty() {
            tracing::info!(
                connector = %connector.id,
                on = on.len(),
                off = off_ids.len(),
                "connected panel: hosts turned on and off"
            );
        }
        applied.confirmed_off = off_ids;
        Ok((applied, None))
    }

    /// A removed connector: every host it turned off goes back on, then
    /// the connector goes. Whether that succeeded.
    async fn remove(
        &self,
        connector: &StoredConnector,
        panel: Result<Arc<Panel>, PanelError>,
    ) -> Result<bool, StoreError> {
        let at = self.clock.now();
        let ids: Vec<String> = connector
            .turned_off
            .iter()
            .map(|r| r.host.external_id.clone())
            .collect();
        let restored = match panel {
            Ok(panel) => restore(&panel, &ids).await,
            Err(error) => Err(error),
        };
        match restored {
            Ok(()) => {
                self.store.forget_connector(&connector.id).await?;
                self.hidden_hosts.forget();
                tracing::info!(connector = %connector.id, hosts = ids.len(), "connected panel removed; its hosts are back on");
                Ok(true)
            }
            Err(error) => self.failed(connector, at, error, None).await,
        }
    }

    async fn succeeded(
        &self,
        connector: &StoredConnector,
        at: DateTime<Utc>,
        plan: Plan,
        applied: Applied,
    ) -> Result<bool, StoreError> {
        let sync = ConnectorSync {
            at,
            error: None,
            read_hosts: true,
            hosts: plan.matched,
            pending: plan.changes,
            forget: applied.forget,
            confirmed_off: applied.confirmed_off,
        };
        self.store
            .record_connector_sync(&connector.id, &sync, &[])
            .await?;
        self.hidden_hosts.forget();
        Ok(true)
    }

    /// Records a failed sync; the first failure of an outage tells the
    /// operator on every channel.
    async fn failed(
        &self,
        connector: &StoredConnector,
        at: DateTime<Utc>,
        error: PanelError,
        plan: Option<(Plan, Applied)>,
    ) -> Result<bool, StoreError> {
        tracing::warn!(connector = %connector.id, %error, "connected panel: sync failed");
        let messages = if connector.failing_since.is_none() {
            let lang = self.store.notify_lang().await?.unwrap_or_default();
            let notice = lang.connector_failed_notice(
                connector.id.as_str(),
                connector.kind.display_name(),
                error.message(),
                at,
            );
            let message = NewNotification {
                block_kinds: Vec::new(),
                kind: NotificationKind::ConnectorFailed,
                server_id: None,
                target: crate::store::Recipient::default(),
                subject: notice.subject,
                body: notice.body,
                created_at: at,
            };
            self.targets.iter().map(|t| message.to(t)).collect()
        } else {
            Vec::new()
        };
        let (read_hosts, hosts, pending, applied) = match plan {
            Some((plan, applied)) => (true, plan.matched, plan.changes, applied),
            None => (false, Vec::new(), Vec::new(), Applied::default()),
        };
        let sync = ConnectorSync {
            at,
            error: Some(error.message().to_owned()),
            read_hosts,
            hosts,
            pending,
            forget: applied.forget,
            confirmed_off: applied.confirmed_off,
        };
        self.store
            .record_connector_sync(&connector.id, &sync, &messages)
            .await?;
        self.hidden_hosts.forget();
        Ok(false)
    }
}

/// What a sync did in the panel, recorded with what it saw.
#[derive(Default)]
struct Applied {
    forget: Vec<String>,
    confirmed_off: Vec<String>,
}

/// The client for `connector`: the one kept from earlier syncs while the
/// connector's kind, address and token are the same.
fn kept_panel(
    panels: &mut HashMap<ConnectorId, KeptPanel>,
    connector: &StoredConnector,
) -> Result<Arc<Panel>, PanelError> {
    let token = connector.token.clone().ok_or_else(|| {
        PanelError::new(
            "its token does not open with this panel's key (restored without its key?): \
             give the token again",
        )
    })?;
    let mut hasher = DefaultHasher::new();
    (connector.kind.as_str(), &connector.url, &token).hash(&mut hasher);
    let made_from = hasher.finish();
    if let Some(kept) = panels.get(&connector.id) {
        if kept.made_from == made_from {
            return Ok(kept.panel.clone());
        }
    }
    let panel = Arc::new(Panel::new(connector.kind, &connector.url, token)?);
    panels.insert(
        connector.id.clone(),
        KeptPanel {
            made_from,
            panel: panel.clone(),
        },
    );
    Ok(panel)
}

/// Turns back on those of `ids` the panel still has off (a host the
/// operator deleted, or turned on already, is left alone).
async fn restore(panel: &Panel, ids: &[String]) -> Result<(), PanelError> {
    if ids.is_empty() {
        return Ok(());
    }
    let off: Vec<String> = panel
        .hosts()
        .await?
        .into_iter()
        .filter(|h| !h.enabled && ids.contains(&h.external_id))
        .map(|h| h.external_id)
        .collect();
    panel.set_enabled(&off, true).await
}

/// Takes the changes to `ids` out of `plan` and shows them done.
fn done(plan: &mut Plan, ids: &[String], change: HostChange) {
    plan.changes
        .retain(|c| !(c.change == change && ids.contains(&c.external_id)));
    for host in plan.matched.iter_mut() {
        if ids.contains(&host.external_id) {
            host.enabled = change == HostChange::Enable;
            host.turned_off_by_meshwatch = change == HostChange::Disable;
        }
    }
}

/// The wait before the next try after `failures` failed syncs in a row.
pub fn retry_after(failures: u32) -> Duration {
    let doubled = FIRST_RETRY * 2i32.saturating_pow(failures.saturating_sub(1).min(8));
    doubled.min(SYNC_EVERY)
}
