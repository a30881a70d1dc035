//! Writes to one server: marking it a verifier, and removing it.

use crate::engine::Evaluator;
use crate::store::{Store, StoreError};
use meshwatch::network::NetworkLabel;
use meshwatch::ServerId;

/// "Use this server to check blocking on the others", or stop; `network`:
/// `None` keeps the label, `Some(None)` clears it. `false`: no such server.
pub async fn set_verifier(
    store: &Store,
    evaluator: &Evaluator,
    server: &ServerId,
    enabled: bool,
    network: Option<Option<NetworkLabel>>,
) -> Result<bool, StoreError> {
    if !store.set_verifier(server, enabled, network).await? {
        return Ok(false);
    }
    evaluator.reload_fleet().await?;
    tracing::info!(server = %server, enabled, "verifier mark changed");
    Ok(true)
}

/// The server leaves its routes, the mesh, subscriptions and its peers'
/// agent config; its history stays readable until retention prunes it.
/// `false`: no such server.
pub async fn remove(
    store: &Store,
    evaluator: &Evaluator,
    server: &ServerId,
) -> Result<bool, StoreError> {
    let removed = evaluator.change_fleet(store.remove_server(server)).await?;
    if removed {
        tracing::info!(server = %server, "server removed from the fleet");
    }
    Ok(removed)
}
