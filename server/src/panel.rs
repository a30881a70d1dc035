//! The panel's backend: what the Leptos server functions call, served from
//! the store.

use crate::secrets::TokenHash;
use crate::store::{Store, StoreError};
use app::backend::{BackendError, PanelBackend};
use chrono::Utc;
use meshwatch::views::{OperatorView, ServerSummary, UserSummary};

pub struct PanelStore {
    pub store: Store,
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

    async fn servers(&self) -> Result<Vec<ServerSummary>, BackendError> {
        self.store.servers().await.map_err(backend_error)
    }

    async fn users(&self) -> Result<Vec<UserSummary>, BackendError> {
        self.store.users().await.map_err(backend_error)
    }
}
