//! Server functions: thin, authenticated adapters from the pages to the backend.

use crate::error::AppError;
use leptos::prelude::*;
use meshwatch::views::{
    MeshMatrix, OperatorView, OutboxItem, Overview, RouteOverview, ServerCard, ServerListItem,
    UserCard, UserSummary,
};

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

/// One server's card: verdict, self-check, metrics, mesh view, entry points.
#[server(prefix = "/rpc", endpoint = "server_card")]
pub async fn load_server_card(id: String) -> Result<ServerCard, AppError> {
    let (backend, _) = authorize().await?;
    let id = meshwatch::ServerId::parse(&id).map_err(|_| fail(AppError::NotFound))?;
    backend
        .server_card(&id)
        .await
        .map_err(|e| fail(internal(e)))?
        .ok_or_else(|| fail(AppError::NotFound))
}

/// "Use this server to check blocking on the others" (and its reverse).
#[server(prefix = "/rpc", endpoint = "set_verifier")]
pub async fn set_verifier(id: String, enabled: bool) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let id = meshwatch::ServerId::parse(&id).map_err(|_| fail(AppError::NotFound))?;
    let found = backend
        .set_verifier(&id, enabled)
        .await
        .map_err(|e| fail(internal(e)))?;
    if !found {
        return Err(fail(AppError::NotFound));
    }
    tracing::info!(server = %id, enabled, operator = %operator.username, "verifier toggled in the panel");
    Ok(())
}

/// One user's card: servers with their status and replacements, the
/// subscription link and QR code, and what the subscription serves now.
#[server(prefix = "/rpc", endpoint = "user_card")]
pub async fn load_user_card(id: String) -> Result<UserCard, AppError> {
    let (backend, _) = authorize().await?;
    let headers: http::HeaderMap = leptos_axum::extract()
        .await
        .map_err(|_| fail(AppError::Internal))?;
    let id = meshwatch::UserId::parse(&id).map_err(|_| fail(AppError::NotFound))?;
    backend
        .user_card(&id, &crate::auth::panel_url(&headers))
        .await
        .map_err(|e| fail(internal(e)))?
        .ok_or_else(|| fail(AppError::NotFound))
}

/// The reachability matrix: witnesses × targets.
#[server(prefix = "/rpc", endpoint = "mesh")]
pub async fn load_mesh() -> Result<MeshMatrix, AppError> {
    let (backend, _) = authorize().await?;
    backend.mesh_matrix().await.map_err(|e| fail(internal(e)))
}

/// The notification outbox, newest first.
#[server(prefix = "/rpc", endpoint = "outbox")]
pub async fn load_outbox() -> Result<Vec<OutboxItem>, AppError> {
    let (backend, _) = authorize().await?;
    backend.outbox().await.map_err(|e| fail(internal(e)))
}

/// "Send test email": queues a test message to every configured target.
#[server(prefix = "/rpc", endpoint = "send_test_notification")]
pub async fn send_test_notification() -> Result<usize, AppError> {
    let (backend, operator) = authorize().await?;
    backend
        .queue_test_notification(&operator.username)
        .await
        .map_err(|e| fail(internal(e)))
}

/// Every route: its servers, who is in rotation, the best-available warning.
#[server(prefix = "/rpc", endpoint = "routes")]
pub async fn load_routes() -> Result<Vec<RouteOverview>, AppError> {
    let (backend, _) = authorize().await?;
    backend.routes().await.map_err(|e| fail(internal(e)))
}

/// The fleet at a glance.
#[server(prefix = "/rpc", endpoint = "overview")]
pub async fn load_overview() -> Result<Overview, AppError> {
    let (backend, _) = authorize().await?;
    backend.overview().await.map_err(|e| fail(internal(e)))
}
