//! Writes to one server: marking it a verifier, and removing it.

use crate::engine::Evaluator;
use crate::store::{Store, StoreError};
use meshwatch::controls::VerifierMark;
use meshwatch::ServerId;

/// "Use this server to check blocking on the others", or stop, with what
/// `mark` gives of its network and control targets. `false`: no such server.
pub async fn set_verifier(
    store: &Store,
    evaluator: &Evaluator,
    server: &ServerId,
    mark: &VerifierMark,
) -> Result<bool, StoreError> {
    if !store.set_verifier(server, mark).await? {
        return Ok(false);
    }
    evaluator.reload_fleet().await?;
    tracing::info!(server = %server, enabled = mark.enabled, "verifier mark changed");
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
