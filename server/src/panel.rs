//! The panel's backend: what the Leptos server functions call, served from
//! the store.

use crate::engine::Engine;
use crate::secrets::TokenHash;
use crate::store::{Store, StoreError};
use app::backend::{BackendError, PanelBackend};
use chrono::Utc;
use meshwatch::status::ServerStatus;
use meshwatch::views::{OperatorView, ServerListItem, UserSummary};
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
}
