//! `POST /api/v1/connectors/{id}/import` and the panel's import: a fleet
//! document proposed from the connected panel's nodes and hosts
//! ([`meshwatch::connectors::propose`]). It reads the panel and changes
//! nothing, there or here.

use super::{Panel, PanelError};
use crate::engine::ReadModel;
use crate::store::{Store, StoreError};
use meshwatch::connectors::{propose, FleetNow, Proposal};
use meshwatch::ConnectorId;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("no connector {0}")]
    NotFound(ConnectorId),
    #[error("{0}")]
    Panel(PanelError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What connector `id`'s panel would add to the fleet.
pub async fn proposal(
    store: &Store,
    read_model: &ReadModel,
    id: &ConnectorId,
) -> Result<Proposal, ImportError> {
    let connector = store
        .connector(id)
        .await?
        .ok_or_else(|| ImportError::NotFound(id.clone()))?;
    let token = connector.token.ok_or_else(|| {
        ImportError::Panel(PanelError::new(
            "its token does not open with this panel's key (restored without its key?): \
             give the token again",
        ))
    })?;
    let panel = Panel::new(connector.kind, &connector.url, token).map_err(ImportError::Panel)?;
    let (nodes, hosts) = panel.nodes_and_hosts().await.map_err(ImportError::Panel)?;
    let now = fleet_now(read_model).await?;
    let proposal = propose(&nodes, &hosts, &now);
    tracing::info!(
        connector = %id,
        nodes = nodes.len(),
        hosts = hosts.len(),
        servers = proposal.document.servers.len(),
        "fleet import proposed"
    );
    Ok(proposal)
}

/// The ids and entry points meshwatch holds now.
async fn fleet_now(read_model: &ReadModel) -> Result<FleetNow, StoreError> {
    let endpoints = read_model.endpoints().await?;
    let mesh = read_model.mesh();
    let mut now = FleetNow {
        route_ids: mesh.routes().iter().map(|r| r.id.to_string()).collect(),
        ..FleetNow::default()
    };
    for s in 0..mesh.server_count() {
        let server = mesh.server(s);
        now.server_ids.insert(server.id.to_string());
        for id in server.entry_points.iter().map(|e| &e.id) {
            now.entry_point_ids.insert(id.to_string());
            if let Some(endpoint) = endpoints.get(id) {
                now.entry_points.push((
                    endpoint.host.to_ascii_lowercase(),
                    endpoint.port,
                    server.id.clone(),
                ));
            }
        }
    }
    Ok(now)
}
