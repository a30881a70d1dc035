//! The panel's backend: what the Leptos server functions call, served from
//! the store.

use crate::engine::Engine;
use crate::secrets::TokenHash;
use crate::store::{Store, StoreError};
use app::backend::{BackendError, PanelBackend};
use chrono::Utc;
use meshwatch::status::ServerStatus;
use meshwatch::views::{OperatorView, ServerCard, ServerListItem, ServerRef, UserSummary};
use meshwatch::ServerId;
use std::sync::Arc;

pub struct PanelStore {
    pub store: Store,
    pub engine: Arc<Engine>,
}

fn backend_error(err: StoreError) -> BackendError {
    BackendError(err.to_string())
}

#[async_trait::async_trait]
impl PanelBackend for PanelStore {
    async fn operator_for_session(
        &self,
        token: &str,
    ) -> Result<Option<OperatorView>, BackendError> {
        self.store
            .operator_for_session(&TokenHash::of(token), Utc::now())
            .await
            .map_err(backend_error)
    }

    async fn servers(&self) -> Result<Vec<ServerListItem>, BackendError> {
        let servers = self.store.servers().await.map_err(backend_error)?;
        Ok(servers
            .into_iter()
            .map(|server| {
                // A server provisioned a moment ago may not be in the
                // engine's mesh yet: it has no data either way.
                let (status, stale) = self
                    .engine
                    .verdict(&server.id)
                    .map_or((ServerStatus::NoData, true), |(_, _, v)| {
                        (v.status, v.stale)
                    });
                ServerListItem {
                    server,
                    status,
                    stale,
                }
            })
            .collect())
    }

    async fn users(&self) -> Result<Vec<UserSummary>, BackendError> {
        self.store.users().await.map_err(backend_error)
    }

    async fn server_card(&self, id: &ServerId) -> Result<Option<ServerCard>, BackendError> {
        let Some(server) = self.store.server(id).await.map_err(backend_error)? else {
            return Ok(None);
        };
        let Some((mesh, verdict, reaching)) = self.engine.server_card(id) else {
            return Ok(None);
        };
        let reference = |id: &ServerId| {
            mesh.server_index(id).map(|i| {
                let s = mesh.server(i);
                ServerRef {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    country: s.country.clone(),
                }
            })
        };
        let failing = verdict
            .quorum
            .failing_witnesses
            .iter()
            .filter_map(reference)
            .collect();
        let mut named: Vec<ServerId> = verdict
            .entry_points
            .iter()
            .flat_map(|e| e.causes.iter().flat_map(|c| [c.from.clone(), c.to.clone()]))
            .chain(verdict.blocked_by.iter().cloned())
            .collect();
        named.sort();
        named.dedup();
        let metrics = self
            .store
            .latest_metrics(id.as_str())
            .await
            .map_err(backend_error)?;
        Ok(Some(ServerCard {
            server,
            stale_after_s: self.engine.settings().stale_after_s,
            reaching: reaching.iter().filter_map(reference).collect(),
            failing,
            named: named.iter().filter_map(reference).collect(),
            verdict,
            metrics,
            now: Utc::now(),
        }))
    }

    async fn set_verifier(&self, id: &ServerId, enabled: bool) -> Result<bool, BackendError> {
        if !self
            .store
            .set_verifier(id, enabled)
            .await
            .map_err(backend_error)?
        {
            return Ok(false);
        }
        self.engine
            .reload_fleet(&self.store)
            .await
            .map_err(backend_error)?;
        Ok(true)
    }
}
