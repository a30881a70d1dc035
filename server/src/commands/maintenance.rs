//! Planning and cancelling maintenance windows (docs/PRODUCT.md §6), for the
//! API and the panel alike: the plan is checked against the fleet, stored,
//! and the mesh is rebuilt with it, so the verdicts show it at once.

use crate::engine::{Evaluator, ReadModel};
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use meshwatch::maintenance::{
    MaintenanceError, MaintenanceId, MaintenancePlan, MaintenanceWindow, MAX_WINDOWS,
};
use meshwatch::{RouteId, ServerId};

/// Why a plan is refused; nothing is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Invalid(MaintenanceError),
    UnknownServer(ServerId),
    UnknownRoute(RouteId),
    /// [`MAX_WINDOWS`] windows are kept already.
    Full,
}

impl Refusal {
    /// The API's `error` code.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Invalid(e) => e.code(),
            Refusal::UnknownServer(_) => "unknown_server",
            Refusal::UnknownRoute(_) => "unknown_route",
            Refusal::Full => "too_many_windows",
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Invalid(e) => e.fmt(f),
            Refusal::UnknownServer(id) => write!(f, "no server {id}"),
            Refusal::UnknownRoute(id) => write!(f, "no route {id}"),
            Refusal::Full => write!(
                f,
                "{MAX_WINDOWS} windows are planned already: cancel one first"
            ),
        }
    }
}

/// Stores `plan` once it is valid at `now` and names only servers and
/// routes of the fleet; the verdicts follow it from then on.
pub async fn plan(
    store: &Store,
    evaluator: &Evaluator,
    read_model: &ReadModel,
    plan: MaintenancePlan,
    now: DateTime<Utc>,
) -> Result<Result<MaintenanceWindow, Refusal>, StoreError> {
    let plan = match plan.validate(now) {
        Ok(plan) => plan,
        Err(e) => return Ok(Err(Refusal::Invalid(e))),
    };
    let mesh = read_model.mesh();
    if let Some(id) = plan.servers.iter().find(|s| mesh.server_index(s).is_none()) {
        return Ok(Err(Refusal::UnknownServer(id.clone())));
    }
    if let Some(id) = plan.routes.iter().find(|r| mesh.route_index(r).is_none()) {
        return Ok(Err(Refusal::UnknownRoute(id.clone())));
    }
    let stored = evaluator
        .change_fleet(store.plan_maintenance(&plan, now))
        .await?;
    Ok(stored.ok_or(Refusal::Full))
}

/// Cancels a window (the servers return at once unless another holds);
/// false when there is none with that id.
pub async fn cancel(
    store: &Store,
    evaluator: &Evaluator,
    id: MaintenanceId,
) -> Result<bool, StoreError> {
    evaluator.change_fleet(store.cancel_maintenance(id)).await
}
