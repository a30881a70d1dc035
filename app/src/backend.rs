//! What the panel needs from the server, declared here and implemented by
//! `meshwatch-server` (SQL stays there). Server functions find it in context.

use crate::auth;
use crate::error::AppError;
use meshwatch::{ServerId, UserId};
pub use meshwatch_views::i18n::refusal::Refusal;
use meshwatch_views::views::{
    ApiTokenView, MeshMatrix, OperatorView, OutboxItem, Overview, RouteOverview, ServerCard,
    ServerFilter, ServerListItem, ServersPage, UserCard, UsersPage,
};
use std::sync::Arc;

/// A backend failure, by what the caller can do about it. Its text is
/// logged; only `Conflict` and `Invalid`, written for the operator, reach
/// the browser (see [`From<BackendError> for AppError`](AppError)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// What the request names does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with what is stored; nothing was written.
    #[error("{0}")]
    Conflict(Refusal),
    /// The request is invalid against what is stored; nothing was written.
    #[error("{0}")]
    Invalid(Refusal),
    /// The database (or another part of the panel) failed.
    #[error("{0}")]
    Unavailable(String),
}

impl From<BackendError> for AppError {
    fn from(err: BackendError) -> Self {
        match err {
            BackendError::NotFound(_) => AppError::NotFound,
            BackendError::Conflict(message) => AppError::Conflict(message),
            BackendError::Invalid(message) => AppError::Invalid(message),
            BackendError::Unavailable(_) => AppError::Internal,
        }
    }
}

#[async_trait::async_trait]
pub trait PanelBackend: Send + Sync + 'static {
    /// The operator signed in with this session token, if the session is live.
    async fn operator_for_session(&self, token: &str)
        -> Result<Option<OperatorView>, BackendError>;
    /// Every server with its current verdict.
    async fn servers(&self) -> Result<Vec<ServerListItem>, BackendError>;
    /// One page of the servers `filter` admits, with their verdicts.
    async fn servers_page(
        &self,
        filter: &ServerFilter,
        page: u32,
    ) -> Result<ServersPage, BackendError>;
    /// One page of the users a search matches.
    async fn users_page(&self, query: &str, page: u32) -> Result<UsersPage, BackendError>;
    /// One server's card; `None` for an unknown server.
    async fn server_card(&self, id: &ServerId) -> Result<Option<ServerCard>, BackendError>;
    /// One user's card; `panel_url` (scheme://host) makes the subscription
    /// link absolute. `None` for an unknown user.
    async fn user_card(
        &self,
        id: &UserId,
        panel_url: &str,
    ) -> Result<Option<UserCard>, BackendError>;
    /// The verdict parameters in force.
    async fn settings(&self) -> Result<meshwatch::settings::Settings, BackendError>;
    /// Stores validated parameters and applies them at once.
    async fn save_settings(&self, next: meshwatch::settings::Settings) -> Result<(), BackendError>;
    /// The fleet at a glance.
    async fn overview(&self) -> Result<Overview, BackendError>;
    /// Every route with its servers and rotation.
    async fn routes(&self) -> Result<Vec<RouteOverview>, BackendError>;
    /// The notification outbox, newest first.
    async fn outbox(&self) -> Result<Vec<OutboxItem>, BackendError>;
    /// Queues a test message to every configured target; how many.
    async fn queue_test_notification(&self, operator: &str) -> Result<usize, BackendError>;
    /// The whole fleet's reachability matrix.
    async fn mesh_matrix(&self) -> Result<MeshMatrix, BackendError>;
    /// The witness sets of the servers a search matches; `None` while
    /// the fleet is small enough for every server to probe every other.
    async fn witness_sets(
        &self,
        query: &str,
    ) -> Result<Option<meshwatch_views::views::WitnessSetsPage>, BackendError>;
    /// Marks or unmarks a verifier and, when `network` is given, sets or
    /// clears its network label; `false` for an unknown server.
    async fn set_verifier(
        &self,
        id: &ServerId,
        mark: &meshwatch::controls::VerifierMark,
    ) -> Result<bool, BackendError>;
    /// Settings → Actions: the switch, the actions, the latest runs.
    async fn actions_panel(&self) -> Result<meshwatch::actions::ActionsPanel, BackendError>;
    /// Stores an action once it is valid (`Invalid` says what is not).
    async fn create_action(
        &self,
        spec: meshwatch::actions::ActionSpec,
    ) -> Result<meshwatch::actions::ActionView, BackendError>;
    /// Deletes an action; `false` when there is none with that id.
    async fn delete_action(&self, id: meshwatch::actions::ActionId) -> Result<bool, BackendError>;
    /// Settings → Connected panels: every connector (never its token).
    async fn connectors(&self) -> Result<Vec<meshwatch::connectors::ConnectorView>, BackendError>;
    /// Checks and stores a connector (`Invalid` says what is wrong).
    async fn save_connector(
        &self,
        id: &meshwatch::ConnectorId,
        spec: meshwatch::connectors::ConnectorSpec,
    ) -> Result<meshwatch::connectors::ConnectorView, BackendError>;
    /// Switches a connector between applying and dry run; `false` when
    /// there is none.
    async fn set_connector_mode(
        &self,
        id: &meshwatch::ConnectorId,
        mode: meshwatch::connectors::ConnectorMode,
    ) -> Result<bool, BackendError>;
    /// Removes a connector once its hosts are back on (or leaves it
    /// `removing`, retrying); `false` when there is none.
    async fn remove_connector(&self, id: &meshwatch::ConnectorId) -> Result<bool, BackendError>;
    /// What a connector's panel would add to the fleet (it reads the
    /// panel, and changes nothing); a panel it cannot read is `Invalid`
    /// with the reason.
    async fn import_proposal(
        &self,
        id: &meshwatch::ConnectorId,
    ) -> Result<meshwatch::connectors::Proposal, BackendError>;
    /// Adds what an import proposed (new routes and servers; never a
    /// removal); the servers it created.
    async fn apply_import(
        &self,
        document: meshwatch::fleet::FleetDocument,
    ) -> Result<Vec<ServerId>, BackendError>;
    /// A new agent token for `server` (the one it had stops working at
    /// once); `None` for an unknown server.
    async fn new_agent_token(&self, server: &ServerId) -> Result<Option<String>, BackendError>;
    /// The switch that holds every action off.
    async fn set_actions_enabled(&self, enabled: bool) -> Result<(), BackendError>;
    /// The operator's word on a mass block's actions; `false` when that
    /// verifier is not under the guard (any more).
    async fn decide_mass_block(
        &self,
        verifier: &ServerId,
        decision: meshwatch::actions::MassDecision,
    ) -> Result<bool, BackendError>;
    /// Runs an interrupted run again; `false` when there is no
    /// interrupted run with that id.
    async fn rerun_action(&self, run: i64) -> Result<bool, BackendError>;
    /// Plans a maintenance window (checked against the fleet); an invalid
    /// plan is refused with what is wrong, and nothing is stored.
    async fn plan_maintenance(
        &self,
        plan: meshwatch::maintenance::MaintenancePlan,
    ) -> Result<meshwatch::maintenance::MaintenanceWindow, BackendError>;
    /// Cancels a window; `false` when there is none with that id.
    async fn cancel_maintenance(
        &self,
        id: meshwatch::maintenance::MaintenanceId,
    ) -> Result<bool, BackendError>;
    /// Replaces the operator's password once `current` checks out, ending
    /// their other sessions (the one with `session_token` stays). Wrong
    /// `current` passwords count against the operator like failed sign-ins.
    async fn change_password(
        &self,
        username: &str,
        session_token: &str,
        current: &str,
        next: &str,
    ) -> Result<PasswordChange, BackendError>;
    /// The operator API tokens (names and dates; secrets are not kept).
    async fn api_tokens(&self) -> Result<Vec<ApiTokenView>, BackendError>;
    /// Creates a token and returns its secret, or `None` when the name is taken.
    async fn create_api_token(
        &self,
        username: &str,
        name: &str,
        scope: meshwatch::account::TokenScope,
    ) -> Result<Option<String>, BackendError>;
    /// Checks the signed-in operator's password again before a change
    /// that arms actions or hands out access (paced like a password change).
    async fn confirm_password(
        &self,
        username: &str,
        password: &str,
    ) -> Result<PasswordCheck, BackendError>;
    /// Revokes a token at once; `false` when no token has that name.
    async fn revoke_api_token(&self, name: &str) -> Result<bool, BackendError>;
}

/// What an attempt to change the operator's password did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PasswordChange {
    /// Changed; the API tokens the operator's sessions created are revoked
    /// (their names).
    Changed { revoked: Vec<String> },
    /// `current` was wrong.
    WrongCurrent,
    /// Too many wrong `current` passwords lately: nothing was checked, and
    /// the next attempt is let in after `retry_after`.
    TooManyAttempts { retry_after: std::time::Duration },
}

/// What checking the operator's password again found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordCheck {
    Confirmed,
    Wrong,
    /// Too many wrong passwords lately: nothing was checked.
    TooManyAttempts {
        retry_after: std::time::Duration,
    },
}

/// The handle placed in Leptos context.
pub type Backend = Arc<dyn PanelBackend>;

/// Logs a backend failure and turns it into the wire error: a failed
/// database goes out opaque, as `AppError::Internal`.
pub fn backend_failed(err: BackendError) -> AppError {
    match &err {
        BackendError::Unavailable(_) => tracing::error!(error = %err, "panel backend failed"),
        _ => tracing::warn!(error = %err, "panel backend refused"),
    }
    AppError::from(err)
}

/// Sets the response status from the error, then returns it: server
/// functions answer 401/403/… and SSR pages carry the right status.
pub fn fail(err: AppError) -> AppError {
    if let Some(res) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
        if let Ok(status) = http::StatusCode::from_u16(err.status_code()) {
            res.set_status(status);
        }
    }
    err
}

/// Every server function starts here: the request must carry a live
/// operator session, and unless it is a page view rendering (a `GET`,
/// possibly a link followed from another site) come from our own pages.
pub async fn authorize() -> Result<(Backend, OperatorView), AppError> {
    let parts = leptos::prelude::use_context::<http::request::Parts>().ok_or_else(|| {
        tracing::error!("request parts missing from context");
        fail(AppError::Internal)
    })?;
    let site = auth::PanelSite::from_context().ok_or_else(|| {
        tracing::error!("panel site missing from context");
        fail(AppError::Internal)
    })?;
    if !auth::is_read_only(&parts.method) && site.is_cross_site(&parts.headers) {
        return Err(fail(AppError::CrossSite));
    }
    let backend = leptos::prelude::use_context::<Backend>().ok_or_else(|| {
        tracing::error!("panel backend missing from context");
        fail(AppError::Internal)
    })?;
    if let Some(auth::SignedIn(operator)) = parts.extensions.get::<auth::SignedIn>() {
        return Ok((backend, operator.clone()));
    }
    let token = site
        .session_token(&parts.headers)
        .ok_or_else(|| fail(AppError::Unauthorized))?;
    let operator = backend
        .operator_for_session(token)
        .await
        .map_err(|e| fail(backend_failed(e)))?
        .ok_or_else(|| fail(AppError::Unauthorized))?;
    Ok((backend, operator))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_failure_answers_with_its_status() {
        let cases = [
            (BackendError::NotFound("no server de-9".into()), 404),
            (
                BackendError::Conflict(Refusal::new("token_conflict", "token in use")),
                409,
            ),
            (
                BackendError::Invalid(Refusal::new("invalid_setting", "quorum must be 1..=9")),
                422,
            ),
            (
                BackendError::Unavailable("database error: pool timed out".into()),
                500,
            ),
        ];
        for (err, status) in cases {
            assert_eq!(AppError::from(err.clone()).status_code(), status, "{err:?}");
        }
    }

    #[test]
    fn conflicts_and_invalid_requests_keep_their_message() {
        assert_eq!(
            AppError::from(BackendError::Conflict(Refusal::new(
                "token_conflict",
                "token in use"
            )))
            .to_string(),
            "token in use"
        );
        assert_eq!(
            AppError::from(BackendError::Invalid(Refusal::new(
                "invalid_setting",
                "quorum must be 1..=9"
            )))
            .to_string(),
            "quorum must be 1..=9"
        );
    }

    #[test]
    fn a_failed_database_is_not_described_to_the_browser() {
        let err = BackendError::Unavailable("database error: no such table: settings".into());
        assert_eq!(err.to_string(), "database error: no such table: settings");
        let sent = AppError::from(err);
        assert_eq!(sent, AppError::Internal);
        assert!(!sent.to_string().contains("settings"));
    }

    #[test]
    fn a_missing_thing_says_not_found_and_nothing_more() {
        let sent = AppError::from(BackendError::NotFound("user u-7 in table users".into()));
        assert_eq!(sent, AppError::NotFound);
        assert_eq!(sent.to_string(), "Not found.");
    }
}
