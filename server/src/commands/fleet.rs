//! Applying a fleet document: `PUT /api/v1/fleet` and the panel's import
//! alike.

use crate::engine::Evaluator;
use crate::store::{GeneratedTokens, Store, StoreError};
use meshwatch::fleet::{Fleet, FleetDocument, FleetError};

/// Why a fleet document was not applied; nothing was stored.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// Not a valid document (a 422 with its code).
    #[error("{}", .0.message)]
    Invalid(FleetError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Validates the whole document, then upserts it in one transaction and
/// has the evaluator reload the fleet; returns the validated fleet and the
/// tokens this call generated (the only time they are shown).
pub async fn apply(
    store: &Store,
    evaluator: &Evaluator,
    document: &FleetDocument,
) -> Result<(Fleet, GeneratedTokens), ApplyError> {
    let fleet = document.validate().map_err(ApplyError::Invalid)?;
    let generated = evaluator.change_fleet(store.apply_fleet(&fleet)).await?;
    tracing::info!(
        routes = fleet.routes.len(),
        servers = fleet.servers.len(),
        users = fleet.users.len(),
        removed_servers = fleet.remove_servers.len(),
        "fleet applied"
    );
    Ok((fleet, generated))
}
