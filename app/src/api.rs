//! Server functions: thin, authenticated adapters from the pages to the backend.

use crate::error::AppError;
use leptos::prelude::*;
use meshwatch::views::{OperatorView, ServerListItem, UserSummary};

#[cfg(feature = "ssr")]
use crate::backend::{authorize, fail, internal};

/// Who is signed in (for the header).
#[server(prefix = "/rpc", endpoint = "operator")]
pub async fn current_operator() -> Result<OperatorView, AppError> {
    let (_, operator) = authorize().await?;
    Ok(operator)
}

/// Every server of the fleet, with routes, entry points and its verdict.
#[server(prefix = "/rpc", endpoint = "servers")]
pub async fn list_servers() -> Result<Vec<ServerListItem>, AppError> {
    let (backend, _) = authorize().await?;
    backend.servers().await.map_err(|e| fail(internal(e)))
}

/// Every user with their routes.
#[server(prefix = "/rpc", endpoint = "users")]
pub async fn list_users() -> Result<Vec<UserSummary>, AppError> {
    let (backend, _) = authorize().await?;
    backend.users().await.map_err(|e| fail(internal(e)))
}
