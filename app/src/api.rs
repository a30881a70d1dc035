//! Server functions: thin, authenticated adapters from the pages to the backend.

use crate::error::AppError;
use leptos::prelude::*;
use meshwatch::views::{
    MeshMatrix, OperatorView, OutboxItem, Overview, RouteOverview, ServerCard, ServerListItem,
    UserCard,
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

/// One page (50) of the users matching a search (id, name or route).
#[server(prefix = "/rpc", endpoint = "users")]
pub async fn list_users(query: String, page: u32) -> Result<meshwatch::views::UsersPage, AppError> {
    let (backend, _) = authorize().await?;
    let all = backend.users().await.map_err(|e| fail(internal(e)))?;
    Ok(meshwatch::views::UsersPage::of(all, &query, page))
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

/// The verdict parameters of PRODUCT.md §2 in force.
#[server(prefix = "/rpc", endpoint = "settings")]
pub async fn load_settings() -> Result<meshwatch::settings::Settings, AppError> {
    let (backend, _) = authorize().await?;
    backend.settings().await.map_err(|e| fail(internal(e)))
}

/// Saves the verdict parameters after validating every one of them.
#[server(prefix = "/rpc", endpoint = "save_settings")]
#[allow(clippy::too_many_arguments)]
pub async fn save_settings(
    report_interval_s: u32,
    probe_interval_s: u32,
    probe_timeout_s: u32,
    stale_after_s: u32,
    failure_streak: u32,
    quorum: u32,
    unreliable_fraction: f64,
) -> Result<meshwatch::settings::Settings, AppError> {
    let (backend, operator) = authorize().await?;
    let next = meshwatch::settings::Settings {
        report_interval_s,
        probe_interval_s,
        probe_timeout_s,
        stale_after_s,
        failure_streak,
        quorum,
        unreliable_fraction,
    };
    next.validate()
        .map_err(|e| fail(AppError::Invalid(e.to_string())))?;
    backend
        .save_settings(next)
        .await
        .map_err(|e| fail(internal(e)))?;
    tracing::info!(operator = %operator.username, "verdict settings changed in the panel");
    Ok(next)
}
