//! Writes to the operator's actions: the API and the panel alike.

use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use meshwatch::actions::{Action, ActionBudget, ActionError, ActionId, ActionSpec, HostPolicy};

/// Why a new action is not stored.
#[derive(Debug)]
pub enum CreateError {
    /// Invalid, or not allowed on this host (a 422 with its code).
    Refused(ActionError),
    Store(StoreError),
}

/// Stores a new action: valid, and allowed by this host's policy (a
/// command's program on its allow-list, an HTTP call's URL not naming a
/// restricted address).
pub async fn create(
    store: &Store,
    policy: &HostPolicy,
    spec: ActionSpec,
    now: DateTime<Utc>,
) -> Result<Action, CreateError> {
    let new = spec.validate().map_err(CreateError::Refused)?;
    policy.admit(&new.kind).map_err(CreateError::Refused)?;
    let action = store
        .create_action(&new, now)
        .await
        .map_err(CreateError::Store)?;
    tracing::info!(action = %action.name, on = action.on.as_str(), "action created");
    Ok(action)
}

/// `false`: no such action.
pub async fn delete(store: &Store, id: ActionId) -> Result<bool, StoreError> {
    let deleted = store.delete_action(id).await?;
    if deleted {
        tracing::info!(action = id.0, "action deleted");
    }
    Ok(deleted)
}

/// An interrupted run, due now (it still runs only if its incident
/// stands). `false`: no interrupted run with this number.
pub async fn rerun(store: &Store, run: i64, now: DateTime<Utc>) -> Result<bool, StoreError> {
    let due = store.rerun(run, now).await?;
    if due {
        tracing::warn!(run, "interrupted action run started again");
    }
    Ok(due)
}

/// The global switch.
pub async fn set_enabled(store: &Store, enabled: bool) -> Result<(), StoreError> {
    store.set_actions_enabled(enabled).await?;
    tracing::warn!(enabled, "actions switched");
    Ok(())
}

/// Why the budget did not change; nothing was stored.
#[derive(Debug, thiserror::Error)]
pub enum BudgetError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Both bounds, each within its range.
pub async fn set_budget(store: &Store, budget: &ActionBudget) -> Result<(), BudgetError> {
    budget.validate().map_err(BudgetError::Invalid)?;
    store.set_action_budget(budget).await?;
    tracing::warn!(
        runs_per_hour = budget.runs_per_hour,
        cooldown_s = budget.cooldown_s,
        "action budget changed"
    );
    Ok(())
}
