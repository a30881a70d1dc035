//! What the pages read: each page's view model built from the read model,
//! the card caches and the store. [`crate::read::panel_adapter`] hands them
//! to the app as they are.

use crate::engine::{server_ref, server_ref_at, CardEvidence, Clock, ReadModel};
use crate::read::card_cache::{CardCache, HISTORY_DAYS};
use crate::store::{Store, StoreError};
use meshwatch::network::blocked_per_network;
use meshwatch::status::ServerStatus;
use meshwatch::{ServerId, UserId};
use meshwatch_views::server_list::count;
use meshwatch_views::views::{
    DeliveryState, EntryPointSummary, OutboxItem, Overview, PreviewEntry, ReplicaRoles,
    RouteOverview, RouteServer, ServerCard, ServerFilter, ServerListItem, ServerRef, ServersPage,
    UserCard, UsersPage,
};
use std::sync::Arc;

/// Action runs a server card (and Settings → Actions) lists.
pub const CARD_RUNS: i64 = 20;

/// The read side of the panel.
pub struct Reader {
    pub store: Store,
    /// This panel's name among the replicas of its database.
    pub replica: crate::ops::config::ReplicaName,
    pub read_model: Arc<ReadModel>,
    /// Whether this replica evaluates (and, for the writes that share
    /// this reader, the evaluator they tell).
    pub evaluator: Arc<crate::engine::Evaluator>,
    /// The evaluator's clock: a card's "now" agrees with its verdicts.
    pub clock: Clock,
    pub card_cache: CardCache,
    /// Which servers have action runs: the others' cards skip the query.
    pub runs_index: crate::read::indexes::RunsIndex,
    /// Which connected panels hide each server's hosts.
    pub hidden_hosts: Arc<crate::read::indexes::HiddenIndex>,
    /// What this host lets actions do (an action's view says what runs).
    pub action_policy: Arc<meshwatch::actions::HostPolicy>,
}

impl Reader {
    pub async fn servers(&self) -> Result<Vec<ServerListItem>, StoreError> {
        let servers = self.store.servers().await?;
        Ok(self.read_model.with_verdicts(|mesh, verdicts| {
            servers
                .into_iter()
                .map(|server| {
                    // A server provisioned a moment ago may not be in the
                    // evaluator's mesh yet: it has no data either way.
                    let (status, stale) = mesh
                        .server_index(&server.id)
                        .map_or((ServerStatus::NoData, true), |i| {
                            (verdicts[i].status, verdicts[i].stale)
                        });
                    ServerListItem {
                        server: Arc::new(server),
                        status,
                        stale,
                    }
                })
                .collect()
        }))
    }

    pub async fn servers_page(
        &self,
        filter: &ServerFilter,
        page: u32,
    ) -> Result<ServersPage, StoreError> {
        let listed = self.read_model.listed_servers().await?;
        Ok(self.read_model.with_verdicts(|mesh, verdicts| {
            listed.page(filter, page, |server| {
                let v = &verdicts[mesh.server_index(&server.id)?];
                Some((v.status, v.stale))
            })
        }))
    }

    pub async fn users_page(&self, query: &str, page: u32) -> Result<UsersPage, StoreError> {
        let users = self.read_model.searchable_users().await?;
        Ok(users.page(query, page))
    }

    pub async fn server_card(&self, id: &ServerId) -> Result<Option<ServerCard>, StoreError> {
        let now = self.clock.now();
        // Taken before anything is read: see `CardCache::read`.
        let written = self.read_model.written(id);
        let Some(server) = self.read_model.server(id).await? else {
            return Ok(None);
        };
        // Only known servers' data is read (and kept).
        let (recent, charts) = self.card_cache.read(&self.store, id, written, now).await?;
        let Some(CardEvidence {
            mesh,
            verdict,
            opinions,
            best_available_of,
        }) = self.read_model.server_card(id)
        else {
            return Ok(None);
        };
        let reference = |id: &ServerId| server_ref(&mesh, id);
        let mut named: Vec<ServerId> = verdict
            .entry_points
            .iter()
            .flat_map(|e| e.causes.iter().flat_map(|c| [c.from.clone(), c.to.clone()]))
            .chain(verdict.blocks.iter().map(|b| b.verifier.clone()))
            .chain(verdict.still_reached_by.iter().cloned())
            .collect();
        named.sort();
        named.dedup();
        let changes = &recent.changes;
        let uptime = [1, 7, HISTORY_DAYS].map(|days| {
            meshwatch_views::uptime::uptime(changes, now - chrono::Duration::days(days), now)
        });
        let history = changes.iter().rev().take(50).copied().collect();
        let maintenance = mesh
            .server_index(id)
            .map(|s| meshwatch::maintenance::upcoming(mesh.windows_of(s), now))
            .unwrap_or_default();
        let action_runs = if self.runs_index.has_runs(&self.store, id).await? {
            self.store.action_runs(Some(id), CARD_RUNS).await?
        } else {
            Vec::new()
        };
        let hidden_in = self.hidden_hosts.hidden_in(&self.store, id).await?;
        Ok(Some(ServerCard {
            hidden_in,
            action_runs,
            maintenance,
            charts: (*charts).clone(),
            history,
            uptime,
            server: (*server).clone(),
            stale_after_s: self.read_model.settings().stale_after_s,
            opinions,
            best_available_of,
            named: named.iter().filter_map(reference).collect(),
            blocked_on: mesh.on_networks(&verdict.blocked_by),
            still_reached_by: mesh.on_networks(&verdict.still_reached_by),
            blocks: mesh.blocks_on_networks(&verdict.blocks),
            verdict,
            metrics: recent.metrics.clone(),
            witness_fault: self.read_model.witness_fault(),
            now,
        }))
    }

    pub async fn user_card(
        &self,
        id: &UserId,
        panel_url: &str,
    ) -> Result<Option<UserCard>, StoreError> {
        let Some(kept) = self.read_model.user(id).await? else {
            return Ok(None);
        };
        let (user, sub_token) = &*kept;
        let serving = self.read_model.serving(user);
        let details = self.read_model.endpoints().await?;
        let preview = serving
            .entry_points(&details)
            .map(|(id, d, marked)| PreviewEntry {
                server_name: d.name.clone(),
                marked,
                entry_point: EntryPointSummary {
                    id: id.clone(),
                    protocol: d.protocol,
                    host: d.host.clone(),
                    port: d.port,
                    sni: d.sni.clone(),
                },
            })
            .collect();
        let subscription_url = sub_token.as_ref().map(|t| format!("{panel_url}/sub/{t}"));
        Ok(Some(UserCard {
            qr_image: subscription_url
                .as_deref()
                .map(|url| crate::http::qr::image_path(id, url)),
            subscription_url,
            user: user.clone(),
            routes: serving.routes,
            preview,
        }))
    }

    pub async fn overview(&self) -> Result<Overview, StoreError> {
        let names = self.read_model.route_names().await?;
        let (counts, stale, out_of_rotation, blocked_per_network, best_available) =
            self.read_model.with_verdicts(|mesh, verdicts| {
                let mut by_status = [0u32; ServerStatus::ALL.len()];
                for v in verdicts {
                    if let Some(i) = ServerStatus::ALL.iter().position(|s| *s == v.status) {
                        by_status[i] = by_status[i].saturating_add(1);
                    }
                }
                let counts = ServerStatus::ALL.iter().copied().zip(by_status).collect();
                let stale = verdicts.iter().filter(|v| v.stale).count();
                let out_of_rotation = verdicts
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| !v.in_rotation)
                    .map(|(s, v)| (server_ref_at(mesh, s), v.status))
                    .collect();
                let blocked = blocked_per_network(mesh, verdicts, 0..mesh.server_count());
                // Only the routes serving their best available server.
                let mut best: Vec<(String, ServerRef)> = mesh
                    .routes()
                    .iter()
                    .enumerate()
                    .filter_map(|(r, route)| {
                        let s = meshwatch::balance::route_fallback(mesh, verdicts, r)?;
                        let name = names
                            .get(&route.id)
                            .cloned()
                            .unwrap_or_else(|| route.id.to_string());
                        Some((name, server_ref_at(mesh, s)))
                    })
                    .collect();
                best.sort_by(|a, b| a.0.cmp(&b.0));
                (counts, stale, out_of_rotation, blocked, best)
            });
        let mesh = self.read_model.mesh();
        let reference = |id: &ServerId| server_ref(&mesh, id);
        let latest_changes = self
            .store
            .latest_changes(15)
            .await?
            .into_iter()
            .map(|(id, at, status)| {
                // A server that left the fleet keeps its history until
                // retention prunes it: named by its id.
                let server = reference(&id).unwrap_or_else(|| ServerRef {
                    name: id.to_string(),
                    country: String::new(),
                    id,
                });
                (at, server, status)
            })
            .collect();
        let outbox = self.outbox().await?;
        let undelivered = outbox
            .iter()
            .filter(|n| n.state == DeliveryState::Queued && n.to.is_empty())
            .count();
        let failed = outbox
            .iter()
            .filter(|n| n.state == DeliveryState::Failed)
            .count();
        Ok(Overview {
            counts,
            stale: u32::try_from(stale).unwrap_or(u32::MAX),
            blocked_per_network,
            out_of_rotation,
            best_available,
            latest_changes,
            undelivered: u32::try_from(undelivered).unwrap_or(u32::MAX),
            failed: u32::try_from(failed).unwrap_or(u32::MAX),
            witness_fault: self.read_model.witness_fault(),
            actions_off: self.store.actions_off_reason().await?,
            mass_blocks: self.mass_block_views().await?,
            connectors_failing: self.store.connectors_failing().await?,
            replicas: self.replica_roles().await?,
            now: self.clock.now(),
        })
    }

    pub async fn routes(&self) -> Result<Vec<RouteOverview>, StoreError> {
        let names = self.read_model.route_names().await?;
        let now = self.clock.now();
        let mut routes: Vec<RouteOverview> = self.read_model.with_verdicts(|mesh, verdicts| {
            mesh.routes()
                .iter()
                .enumerate()
                .map(|(r, route)| RouteOverview {
                    id: route.id.clone(),
                    name: names
                        .get(&route.id)
                        .cloned()
                        .unwrap_or_else(|| route.id.to_string()),
                    servers_per_user: route.servers_per_user,
                    servers: {
                        let members = mesh.servers_of_route(r);
                        let rotation: Vec<bool> =
                            members.iter().map(|&s| verdicts[s].in_rotation).collect();
                        let listed = RouteOverview::listed(&rotation);
                        members
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| listed(*i))
                            .map(|(_, &s)| RouteServer {
                                server: server_ref_at(mesh, s),
                                status: verdicts[s].status,
                                in_rotation: verdicts[s].in_rotation,
                                stale: verdicts[s].stale,
                            })
                            .collect()
                    },
                    total: count(mesh.servers_of_route(r).len()),
                    in_rotation: count(
                        mesh.servers_of_route(r)
                            .iter()
                            .filter(|&&s| verdicts[s].in_rotation)
                            .count(),
                    ),
                    best_available: meshwatch::balance::route_fallback(mesh, verdicts, r)
                        .map(|s| server_ref_at(mesh, s)),
                    blocked_per_network: blocked_per_network(
                        mesh,
                        verdicts,
                        mesh.servers_of_route(r).iter().copied(),
                    ),
                    all_in_maintenance: !mesh.servers_of_route(r).is_empty()
                        && mesh
                            .servers_of_route(r)
                            .iter()
                            .all(|&s| verdicts[s].in_maintenance()),
                    maintenance: meshwatch::maintenance::upcoming(
                        mesh.windows()
                            .iter()
                            .filter(|w| w.plan.routes.contains(&route.id)),
                        now,
                    ),
                })
                .collect()
        });
        routes.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(routes)
    }

    pub async fn outbox(&self) -> Result<Vec<OutboxItem>, StoreError> {
        let rows = crate::outbound::notify::label_targets(self.store.notifications().await?);
        Ok(rows
            .into_iter()
            .map(|n| OutboxItem {
                id: n.id,
                kind: n.kind,
                server: n.server_id,
                to: n.to,
                subject: n.subject,
                state: n.state,
                attempts: n.attempts,
                last_error: n.last_error,
                created_at: n.created_at,
            })
            .collect())
    }

    pub async fn actions_panel(&self) -> Result<meshwatch::actions::ActionsPanel, StoreError> {
        let (enabled, off_reason) = self.store.actions_switch().await?;
        Ok(meshwatch::actions::ActionsPanel {
            enabled,
            off_reason,
            budget: self.store.action_budget().await?,
            actions: self
                .store
                .actions()
                .await?
                .iter()
                .map(|a| a.view(&self.action_policy))
                .collect(),
            recent: self.store.action_runs(None, CARD_RUNS).await?,
        })
    }

    /// The mass blocks, with the operator's decisions so far.
    pub async fn mass_block_views(
        &self,
    ) -> Result<Vec<meshwatch_views::views::MassBlockView>, StoreError> {
        let mass = self.read_model.mass_blocks();
        if mass.is_empty() {
            return Ok(Vec::new());
        }
        let decisions = self.store.mass_block_decisions().await?;
        let mesh = self.read_model.mesh();
        Ok(mass
            .into_iter()
            .filter_map(|m| {
                let i = mesh.server_index(&m.verifier)?;
                Some(meshwatch_views::views::MassBlockView {
                    verifier: server_ref_at(&mesh, i),
                    network: mesh.server(i).network.as_ref().map(|n| n.to_string()),
                    blocked: u32::try_from(m.blocked.len()).unwrap_or(u32::MAX),
                    probed: m.probed,
                    decision: decisions
                        .iter()
                        .find(|(v, _)| *v == m.verifier)
                        .map(|(_, d)| *d),
                })
            })
            .collect())
    }

    /// Which replica this is and which one evaluates; `None` on SQLite.
    pub async fn replica_roles(&self) -> Result<Option<ReplicaRoles>, StoreError> {
        let Some(shared) = self.store.shared() else {
            return Ok(None);
        };
        let evaluator = if self.evaluator.evaluating() {
            Some(self.replica.to_string())
        } else {
            shared.evaluating_replica().await?
        };
        Ok(Some(ReplicaRoles {
            this: self.replica.to_string(),
            evaluator,
        }))
    }
}
