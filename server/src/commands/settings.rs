//! Changing the settings: the API's `PUT /api/v1/settings` and the panel's
//! settings form alike.

use crate::engine::Evaluator;
use crate::store::StoreError;
use meshwatch::settings::{Settings, SettingsError};

/// Why the settings did not change; nothing was stored.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error(transparent)]
    Invalid(#[from] SettingsError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Checks the whole set, then stores it and evaluates under it.
pub async fn save(evaluator: &Evaluator, next: Settings) -> Result<(), SaveError> {
    next.validate()?;
    evaluator.apply_settings(next).await?;
    tracing::info!("settings changed");
    Ok(())
}
