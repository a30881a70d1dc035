//! The panel's backend adapter: the app's [`PanelBackend`] (what the Leptos
//! server functions call) implemented on the read model, the evaluator
//! (settings and verifier changes) and the store.

use crate::crypto::secrets::{self, TokenHash};
use crate::engine::{server_ref, server_ref_at, CardEvidence, Clock, Evaluator, ReadModel};
use crate::read::card_cache::{CardCache, HISTORY_DAYS};
use crate::store::{Store, StoreError};
use app::backend::{BackendError, PanelBackend, PasswordChange, PasswordCheck};
use meshwatch::maintenance::{MaintenanceId, MaintenancePlan, MaintenanceWindow};
use meshwatch::network::{blocked_per_network, NetworkLabel};
use meshwatch::status::ServerStatus;
use meshwatch::{ServerId, UserId};
use meshwatch_views::server_list::count;
use meshwatch_views::views::{
    ApiTokenView, DeliveryState, EntryPointSummary, MeshMatrix, OperatorView, OutboxItem, Overview,
    PreviewEntry, ReplicaRoles, RouteOverview, RouteServer, ServerCard, ServerFilter,
    ServerListItem, ServerRef, ServersPage, UserCard, UsersPage,
};
use std::sync::Arc;

pub struct PanelAdapter {
    pub store: Store,
    /// This panel's name among the replicas of its database.
    pub replica: crate::ops::config::ReplicaName,
    pub read_model: Arc<ReadModel>,
    pub evaluator: Arc<Evaluator>,
    /// The evaluator's clock: a card's "now" agrees with its verdicts.
    pub clock: Clock,
    pub sessions: Arc<crate::auth::sessions::SessionCache>,
    /// The sign-in limiter, which also paces password changes.
    pub limiter: Arc<crate::auth::login::SignInLimits>,
    /// The budget of concurrent password checks, shared with sign-in.
    pub password_checks: Arc<crate::auth::password_check::PasswordChecks>,
    pub card_cache: CardCache,
    /// Which servers have action runs: the others' cards skip the query.
    pub runs_index: crate::read::runs_index::RunsIndex,
    /// Where notifications go (email addresses, the webhook by its label,
    /// or nowhere).
    pub targets: Arc<Vec<crate::outbound::notify::Target>>,
    /// What this host lets actions do.
    pub action_policy: Arc<meshwatch::actions::HostPolicy>,
    /// Wakes the connected panels' sync when a connector changes.
    pub connector_nudge: Arc<tokio::sync::Notify>,
}

impl PanelAdapter {
    /// The operator's id when `password` is theirs; else why not. Paced
    /// per operator (a session, stolen or left open, cannot guess it), on
    /// the shared budget of password checks.
    async fn check_password(
        &self,
        username: &str,
        password: &str,
    ) -> Result<Result<i64, PasswordCheck>, BackendError> {
        let Some(operator) = self
            .store
            .operator_credentials(username)
            .await
            .map_err(backend_error)?
        else {
            return Ok(Err(PasswordCheck::Wrong));
        };
        if let Err(retry_after) = self
            .limiter
            .try_password_change(operator.id)
            .await
            .map_err(backend_error)?
        {
            tracing::warn!(%username, "a password check refused: too many wrong passwords");
            return Ok(Err(PasswordCheck::TooManyAttempts { retry_after }));
        }
        let (id, password) = (operator.id, password.to_owned());
        let checked = self
            .password_checks
            .run(move || secrets::verify_password(&password, &operator.password_hash))
            .await;
        match checked {
            Ok(true) => {
                self.limiter
                    .password_change_succeeded(id)
                    .await
                    .map_err(backend_error)?;
                Ok(Ok(id))
            }
            Ok(false) => {
                tracing::warn!(%username, "a change refused: wrong password");
                Ok(Err(PasswordCheck::Wrong))
            }
            Err(_) => Ok(Err(PasswordCheck::TooManyAttempts {
                retry_after: crate::auth::password_check::BUSY_RETRY_AFTER,
            })),
        }
    }

    /// The mass blocks, with the operator's decisions so far.
    async fn mass_block_views(
        &self,
    ) -> Result<Vec<meshwatch_views::views::MassBlockView>, BackendError> {
        let mass = self.read_model.mass_blocks();
        if mass.is_empty() {
            return Ok(Vec::new());
        }
        let decisions = self
            .store
            .mass_block_decisions()
            .await
            .map_err(backend_error)?;
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
    async fn replica_roles(&self) -> Result<Option<ReplicaRoles>, BackendError> {
        let Some(shared) = self.store.shared() else {
            return Ok(None);
        };
        let evaluator = if self.evaluator.evaluating() {
            Some(self.replica.to_string())
        } else {
            shared.evaluating_replica().await.map_err(backend_error)?
        };
        Ok(Some(ReplicaRoles {
            this: self.replica.to_string(),
            evaluator,
        }))
    }
}

/// A store failure as the panel sees it, with the store's own words:
/// conflicts and invalid requests are written for the operator; anything
/// else (a raw unique violation included) is a failed database, opaque to
/// the browser. The store says "not found" with `None`, not an error.
fn backend_error(err: StoreError) -> BackendError {
    let message = err.to_string();
    match err {
        StoreError::Conflict { .. } => BackendError::Conflict(message),
        StoreError::Rejected { .. } => BackendError::Invalid(message),
        StoreError::Database(_)
        | StoreError::Migrate(_)
        | StoreError::Url(_)
        | StoreError::Directory { .. }
        | StoreError::Sealing(_)
        | StoreError::NotEvaluator
        | StoreError::NewerSchema(_) => BackendError::Unavailable(message),
    }
}

/// Action runs a server card (and Settings → Actions) lists.
const CARD_RUNS: i64 = 20;

#[async_trait::async_trait]
impl PanelBackend for PanelAdapter {
    async fn operator_for_session(
        &self,
        token: &str,
    ) -> Result<Option<OperatorView>, BackendError> {
        self.sessions
            .operator(&self.store, &TokenHash::of(token))
            .await
            .map_err(backend_error)
    }

    async fn servers(&self) -> Result<Vec<ServerListItem>, BackendError> {
        let servers = self.store.servers().await.map_err(backend_error)?;
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
                        server,
                        status,
                        stale,
                    }
                })
                .collect()
        }))
    }

    async fn servers_page(
        &self,
        filter: &ServerFilter,
        page: u32,
    ) -> Result<ServersPage, BackendError> {
        let listed = self
            .read_model
            .listed_servers()
            .await
            .map_err(backend_error)?;
        Ok(self.read_model.with_verdicts(|mesh, verdicts| {
            listed.page(filter, page, |server| {
                let v = &verdicts[mesh.server_index(&server.id)?];
                Some((v.status, v.stale))
            })
        }))
    }

    async fn users_page(&self, query: &str, page: u32) -> Result<UsersPage, BackendError> {
        let users = self
            .read_model
            .searchable_users()
            .await
            .map_err(backend_error)?;
        Ok(users.page(query, page))
    }

    async fn server_card(&self, id: &ServerId) -> Result<Option<ServerCard>, BackendError> {
        let now = self.clock.now();
        // Taken before anything is read: see `CardCache::read`.
        let written = self.read_model.written(id);
        let Some(server) = self.read_model.server(id).await.map_err(backend_error)? else {
            return Ok(None);
        };
        // Only known servers' data is read (and kept).
        let (recent, charts) = self
            .card_cache
            .read(&self.store, id, written, now)
            .await
            .map_err(backend_error)?;
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
            .chain(verdict.blocked_by.iter().cloned())
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
        let action_runs = if self
            .runs_index
            .has_runs(&self.store, id)
            .await
            .map_err(backend_error)?
        {
            self.store
                .action_runs(Some(id), CARD_RUNS)
                .await
                .map_err(backend_error)?
        } else {
            Vec::new()
        };
        let hidden_in = self.store.hidden_in(id).await.map_err(backend_error)?;
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
            verdict,
            metrics: recent.metrics.clone(),
            witness_fault: self.read_model.witness_fault(),
            now,
        }))
    }

    async fn user_card(
        &self,
        id: &UserId,
        panel_url: &str,
    ) -> Result<Option<UserCard>, BackendError> {
        let Some(kept) = self.read_model.user(id).await.map_err(backend_error)? else {
            return Ok(None);
        };
        let (user, sub_token) = &*kept;
        let serving = self.read_model.serving(user);
        let details = self.read_model.endpoints().await.map_err(backend_error)?;
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

    async fn settings(&self) -> Result<meshwatch::settings::Settings, BackendError> {
        Ok(self.read_model.settings())
    }

    async fn save_settings(&self, next: meshwatch::settings::Settings) -> Result<(), BackendError> {
        use crate::commands::settings::{save, SaveError};
        match save(&self.evaluator, next).await {
            Ok(()) => Ok(()),
            Err(SaveError::Invalid(e)) => Err(BackendError::Invalid(e.to_string())),
            Err(SaveError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn overview(&self) -> Result<Overview, BackendError> {
        let names = self.read_model.route_names().await.map_err(backend_error)?;
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
            .await
            .map_err(backend_error)?
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
            actions_off: self
                .store
                .actions_off_reason()
                .await
                .map_err(backend_error)?,
            mass_blocks: self.mass_block_views().await?,
            connectors_failing: self
                .store
                .connectors_failing()
                .await
                .map_err(backend_error)?,
            replicas: self.replica_roles().await?,
            now: self.clock.now(),
        })
    }

    async fn routes(&self) -> Result<Vec<RouteOverview>, BackendError> {
        let names = self.read_model.route_names().await.map_err(backend_error)?;
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

    async fn outbox(&self) -> Result<Vec<OutboxItem>, BackendError> {
        let rows = crate::outbound::notify::label_targets(
            self.store.notifications().await.map_err(backend_error)?,
        );
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

    async fn queue_test_notification(&self, operator: &str) -> Result<usize, BackendError> {
        let test = crate::outbound::notify::test_message(operator, self.clock.now());
        let queued: Vec<_> = self.targets.iter().map(|t| test.to(t)).collect();
        self.store
            .queue_notifications(&queued)
            .await
            .map_err(backend_error)?;
        Ok(queued.len())
    }

    async fn mesh_matrix(&self) -> Result<MeshMatrix, BackendError> {
        Ok(MeshMatrix::clone(&self.read_model.mesh_matrix()))
    }

    async fn set_verifier(
        &self,
        id: &ServerId,
        enabled: bool,
        network: Option<Option<NetworkLabel>>,
    ) -> Result<bool, BackendError> {
        crate::commands::servers::set_verifier(&self.store, &self.evaluator, id, enabled, network)
            .await
            .map_err(backend_error)
    }

    async fn actions_panel(&self) -> Result<meshwatch::actions::ActionsPanel, BackendError> {
        Ok(meshwatch::actions::ActionsPanel {
            enabled: self.store.actions_enabled().await.map_err(backend_error)?,
            off_reason: self
                .store
                .actions_off_reason()
                .await
                .map_err(backend_error)?,
            budget: self.store.action_budget().await.map_err(backend_error)?,
            actions: self
                .store
                .actions()
                .await
                .map_err(backend_error)?
                .iter()
                .map(|a| a.view(&self.action_policy))
                .collect(),
            recent: self
                .store
                .action_runs(None, CARD_RUNS)
                .await
                .map_err(backend_error)?,
        })
    }

    async fn create_action(
        &self,
        spec: meshwatch::actions::ActionSpec,
    ) -> Result<meshwatch::actions::ActionView, BackendError> {
        match crate::commands::actions::create(
            &self.store,
            &self.action_policy,
            spec,
            self.clock.now(),
        )
        .await
        {
            Ok(action) => Ok(action.view(&self.action_policy)),
            Err(crate::commands::actions::CreateError::Refused(e)) => {
                Err(BackendError::Invalid(e.to_string()))
            }
            Err(crate::commands::actions::CreateError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn connectors(&self) -> Result<Vec<meshwatch::connectors::ConnectorView>, BackendError> {
        let connectors = self.store.connectors().await.map_err(backend_error)?;
        Ok(connectors
            .into_iter()
            .map(crate::commands::connectors::view)
            .collect())
    }

    async fn save_connector(
        &self,
        id: &meshwatch::ConnectorId,
        spec: meshwatch::connectors::ConnectorSpec,
    ) -> Result<meshwatch::connectors::ConnectorView, BackendError> {
        use crate::commands::connectors::{save, SaveError};
        match save(
            &self.store,
            &self.connector_nudge,
            id,
            &spec,
            self.clock.now(),
        )
        .await
        {
            Ok(view) => Ok(view),
            Err(SaveError::Invalid(e)) => Err(BackendError::Invalid(e.message)),
            Err(SaveError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn set_connector_mode(
        &self,
        id: &meshwatch::ConnectorId,
        mode: meshwatch::connectors::ConnectorMode,
    ) -> Result<bool, BackendError> {
        crate::commands::connectors::set_mode(&self.store, &self.connector_nudge, id, mode)
            .await
            .map_err(backend_error)
    }

    async fn remove_connector(&self, id: &meshwatch::ConnectorId) -> Result<bool, BackendError> {
        use crate::commands::connectors::{remove, Removal};
        match remove(&self.store, &self.connector_nudge, id)
            .await
            .map_err(backend_error)?
        {
            Removal::NotFound => Ok(false),
            Removal::Gone | Removal::Removing(_) => Ok(true),
        }
    }

    async fn import_proposal(
        &self,
        id: &meshwatch::ConnectorId,
    ) -> Result<meshwatch::connectors::Proposal, BackendError> {
        use crate::outbound::connectors::import::{proposal, ImportError};
        match proposal(&self.store, &self.read_model, id).await {
            Ok(proposal) => Ok(proposal),
            Err(ImportError::NotFound(id)) => Err(BackendError::NotFound(id.to_string())),
            Err(ImportError::Panel(e)) => Err(BackendError::Invalid(format!(
                "the connected panel could not be read: {e}"
            ))),
            Err(ImportError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn apply_import(
        &self,
        document: meshwatch::fleet::FleetDocument,
    ) -> Result<Vec<ServerId>, BackendError> {
        if !document.remove.servers.is_empty() || !document.remove.users.is_empty() {
            return Err(BackendError::Invalid(
                "an import adds servers and routes; it removes nothing".to_owned(),
            ));
        }
        use crate::commands::fleet::{apply, ApplyError};
        let (_, generated) = apply(&self.store, &self.evaluator, &document)
            .await
            .map_err(|e| match e {
                ApplyError::Invalid(e) => BackendError::Invalid(e.message),
                ApplyError::Store(e) => backend_error(e),
            })?;
        let mut added: Vec<ServerId> = generated.agent_tokens.into_keys().collect();
        added.sort();
        Ok(added)
    }

    async fn new_agent_token(&self, server: &ServerId) -> Result<Option<String>, BackendError> {
        let token = self
            .store
            .new_agent_token(server)
            .await
            .map_err(backend_error)?;
        if token.is_some() {
            tracing::info!(server = %server, "a new agent token was made in the panel");
        }
        Ok(token)
    }

    async fn delete_action(&self, id: meshwatch::actions::ActionId) -> Result<bool, BackendError> {
        crate::commands::actions::delete(&self.store, id)
            .await
            .map_err(backend_error)
    }

    async fn decide_mass_block(
        &self,
        verifier: &ServerId,
        decision: meshwatch::actions::MassDecision,
    ) -> Result<bool, BackendError> {
        if !self
            .read_model
            .mass_blocks()
            .iter()
            .any(|m| &m.verifier == verifier)
        {
            return Ok(false);
        }
        self.store
            .decide_mass_block(verifier, decision, self.clock.now())
            .await
            .map_err(backend_error)?;
        Ok(true)
    }

    async fn rerun_action(&self, run: i64) -> Result<bool, BackendError> {
        crate::commands::actions::rerun(&self.store, run, self.clock.now())
            .await
            .map_err(backend_error)
    }

    async fn set_actions_enabled(&self, enabled: bool) -> Result<(), BackendError> {
        crate::commands::actions::set_enabled(&self.store, enabled)
            .await
            .map_err(backend_error)
    }

    async fn plan_maintenance(
        &self,
        plan: MaintenancePlan,
    ) -> Result<MaintenanceWindow, BackendError> {
        let planned = crate::commands::maintenance::plan(
            &self.store,
            &self.evaluator,
            &self.read_model,
            plan,
            self.clock.now(),
        )
        .await
        .map_err(backend_error)?;
        planned.map_err(|refusal| match refusal {
            crate::commands::maintenance::Refusal::Full => {
                BackendError::Conflict(refusal.to_string())
            }
            other => BackendError::Invalid(other.to_string()),
        })
    }

    async fn cancel_maintenance(&self, id: MaintenanceId) -> Result<bool, BackendError> {
        crate::commands::maintenance::cancel(&self.store, &self.evaluator, id)
            .await
            .map_err(backend_error)
    }

    async fn change_password(
        &self,
        username: &str,
        session_token: &str,
        current: &str,
        next: &str,
    ) -> Result<PasswordChange, BackendError> {
        let operator_id = match self.check_password(username, current).await? {
            Ok(id) => id,
            Err(PasswordCheck::TooManyAttempts { retry_after }) => {
                return Ok(PasswordChange::TooManyAttempts { retry_after })
            }
            Err(_) => return Ok(PasswordChange::WrongCurrent),
        };
        let next = next.to_owned();
        let Ok(hashed) = self
            .password_checks
            .run(move || secrets::hash_password(&next))
            .await
        else {
            return Ok(PasswordChange::TooManyAttempts {
                retry_after: crate::auth::password_check::BUSY_RETRY_AFTER,
            });
        };
        let hash = hashed.map_err(|e| BackendError::Unavailable(e.to_string()))?;
        let revoked = self
            .store
            .change_password(operator_id, &hash, &TokenHash::of(session_token))
            .await
            .map_err(backend_error)?;
        self.sessions.forget_all();
        if !revoked.is_empty() {
            tracing::warn!(%username, tokens = ?revoked, "the API tokens this operator's sessions created are revoked with the password change");
        }
        Ok(PasswordChange::Changed { revoked })
    }

    async fn confirm_password(
        &self,
        username: &str,
        password: &str,
    ) -> Result<PasswordCheck, BackendError> {
        Ok(match self.check_password(username, password).await? {
            Ok(_) => PasswordCheck::Confirmed,
            Err(check) => check,
        })
    }

    async fn api_tokens(&self) -> Result<Vec<ApiTokenView>, BackendError> {
        self.store.api_tokens().await.map_err(backend_error)
    }

    async fn create_api_token(
        &self,
        username: &str,
        name: &str,
        scope: meshwatch::account::TokenScope,
    ) -> Result<Option<String>, BackendError> {
        let Some(operator) = self
            .store
            .operator_credentials(username)
            .await
            .map_err(backend_error)?
        else {
            return Err(BackendError::Unavailable("the operator is gone".into()));
        };
        let token = secrets::new_token();
        let created = self
            .store
            .create_api_token(name, &TokenHash::of(&token), scope, operator.id)
            .await
            .map_err(backend_error)?;
        Ok(created.then_some(token))
    }

    async fn revoke_api_token(&self, name: &str) -> Result<bool, BackendError> {
        self.store
            .revoke_api_token(name)
            .await
            .map_err(backend_error)
    }
}

/// Loads a page's data before the page renders (see `app::preload`), by
/// the route the router matched: a route layer, inside the page guard, so
/// only for a signed-in operator.
pub async fn preload_pages(
    axum::extract::State((backend, site)): axum::extract::State<(
        app::backend::Backend,
        app::auth::PanelSite,
    )>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::extract::{FromRequestParts, MatchedPath, RawPathParams};
    let signed_in = request.extensions().get::<app::auth::SignedIn>().is_some();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|matched| app::preload::PageRoute::of_route(matched.as_str()));
    let (Some(route), true, true) = (
        route,
        signed_in,
        crate::auth::login::is_page_view(request.method()),
    ) else {
        return next.run(request).await;
    };
    let (mut parts, body) = request.into_parts();
    let params = RawPathParams::from_request_parts(&mut parts, &())
        .await
        .ok();
    let id = params
        .as_ref()
        .and_then(|p| p.iter().find(|(name, _)| *name == "id").map(|(_, v)| v));
    let page = app::preload::PageRequest {
        id,
        query: app::preload::query_params(parts.uri.query().unwrap_or_default()),
        headers: &parts.headers,
    };
    let mut extensions = std::mem::take(&mut parts.extensions);
    app::preload::load(&backend, &site, route, page, &mut extensions).await;
    parts.extensions = extensions;
    next.run(axum::extract::Request::from_parts(parts, body))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_conflicts_and_rejections_keep_their_words_and_their_kind() {
        let conflict = StoreError::Conflict {
            code: "token_conflict",
            message: "agent token of server de-2 is already in use".into(),
        };
        assert_eq!(
            backend_error(conflict),
            BackendError::Conflict("agent token of server de-2 is already in use".into())
        );
        let rejected = StoreError::Rejected {
            code: "unknown_server",
            message: "server \"de-9\" is no longer in the fleet".into(),
        };
        assert_eq!(
            backend_error(rejected),
            BackendError::Invalid("server \"de-9\" is no longer in the fleet".into())
        );
    }

    #[test]
    fn a_failed_database_is_unavailable_with_the_message_of_today() {
        for err in [
            sqlx::Error::PoolTimedOut,
            sqlx::Error::RowNotFound,
            sqlx::Error::Protocol("UNIQUE constraint failed: api_tokens.token_hash".into()),
        ] {
            let store = StoreError::Database(err);
            let message = store.to_string();
            assert_eq!(backend_error(store), BackendError::Unavailable(message));
        }
    }
}
