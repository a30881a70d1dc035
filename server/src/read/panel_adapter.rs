//! The panel's backend adapter: the app's [`PanelBackend`] (what the Leptos
//! server functions call) implemented on the read model, the evaluator
//! (settings and verifier changes) and the store.

use crate::crypto::secrets::{self, TokenHash};
use crate::read::pages::Reader;
use crate::store::StoreError;
use app::backend::{BackendError, PanelBackend, PasswordChange, PasswordCheck, Refusal};
use meshwatch::maintenance::{MaintenanceId, MaintenancePlan, MaintenanceWindow};
use meshwatch::{ServerId, UserId};
use meshwatch_views::views::{
    ApiTokenView, MeshMatrix, OperatorView, OutboxItem, Overview, RouteOverview, ServerCard,
    ServerFilter, ServerListItem, ServersPage, UserCard, UsersPage,
};
use std::sync::Arc;

/// The panel's backend: reads go to [`Reader`], writes to
/// [`crate::commands`]; this only translates between them and the app.
pub struct PanelAdapter {
    /// What the pages read (the store too, which the writes share).
    pub read: Reader,
    pub sessions: Arc<crate::auth::sessions::SessionCache>,
    /// The sign-in limiter, which also paces password changes.
    pub limiter: Arc<crate::auth::login::SignInLimits>,
    /// The budget of concurrent password checks, shared with sign-in.
    pub password_checks: Arc<crate::auth::password_check::PasswordChecks>,
    /// Where notifications go (email addresses, the webhook by its label,
    /// or nowhere).
    pub targets: Arc<Vec<crate::outbound::notify::Target>>,
    /// Wakes the connected panels' sync when a connector changes.
    pub connector_nudge: Arc<tokio::sync::Notify>,
}

impl PanelAdapter {
    /// The operator's id when `password` is theirs; else why not. Paced
    /// per operator (a session, stolen or left open, cannot guess it), on
    /// the shared budget of password checks.
    async fn check_password(
        &self,
        username: &str,
        password: &str,
    ) -> Result<Result<i64, PasswordCheck>, BackendError> {
        let Some(operator) = self
            .read
            .store
            .operator_credentials(username)
            .await
            .map_err(backend_error)?
        else {
            return Ok(Err(PasswordCheck::Wrong));
        };
        if let Err(retry_after) = self
            .limiter
            .try_password_change(operator.id)
            .await
            .map_err(backend_error)?
        {
            tracing::warn!(%username, "a password check refused: too many wrong passwords");
            return Ok(Err(PasswordCheck::TooManyAttempts { retry_after }));
        }
        let (id, password) = (operator.id, password.to_owned());
        let checked = self
            .password_checks
            .run(move || secrets::verify_password(&password, &operator.password_hash))
            .await;
        match checked {
            Ok(true) => {
                self.limiter
                    .password_change_succeeded(id)
                    .await
                    .map_err(backend_error)?;
                Ok(Ok(id))
            }
            Ok(false) => {
                tracing::warn!(%username, "a change refused: wrong password");
                Ok(Err(PasswordCheck::Wrong))
            }
            Err(_) => Ok(Err(PasswordCheck::TooManyAttempts {
                retry_after: crate::auth::password_check::BUSY_RETRY_AFTER,
            })),
        }
    }
}

/// A store failure as the panel sees it, with the store's own words:
/// conflicts and invalid requests are written for the operator; anything
/// else (a raw unique violation included) is a failed database, opaque to
/// the browser. The store says "not found" with `None`, not an error.
fn backend_error(err: StoreError) -> BackendError {
    let message = err.to_string();
    match err {
        StoreError::Conflict { code, .. } => BackendError::Conflict(Refusal::new(code, message)),
        StoreError::Rejected { code, .. } => BackendError::Invalid(Refusal::new(code, message)),
        StoreError::Database(_)
        | StoreError::Migrate(_)
        | StoreError::Url(_)
        | StoreError::Directory { .. }
        | StoreError::Sealing(_)
        | StoreError::NotEvaluator
        | StoreError::NewerSchema(_) => BackendError::Unavailable(message),
    }
}

#[async_trait::async_trait]
impl PanelBackend for PanelAdapter {
    async fn operator_for_session(
        &self,
        token: &str,
    ) -> Result<Option<OperatorView>, BackendError> {
        self.sessions
            .operator(&self.read.store, &TokenHash::of(token))
            .await
            .map_err(backend_error)
    }

    async fn servers(&self) -> Result<Vec<ServerListItem>, BackendError> {
        self.read.servers().await.map_err(backend_error)
    }

    async fn servers_page(
        &self,
        filter: &ServerFilter,
        page: u32,
    ) -> Result<ServersPage, BackendError> {
        self.read
            .servers_page(filter, page)
            .await
            .map_err(backend_error)
    }

    async fn users_page(&self, query: &str, page: u32) -> Result<UsersPage, BackendError> {
        self.read
            .users_page(query, page)
            .await
            .map_err(backend_error)
    }

    async fn server_card(&self, id: &ServerId) -> Result<Option<ServerCard>, BackendError> {
        self.read.server_card(id).await.map_err(backend_error)
    }

    async fn user_card(
        &self,
        id: &UserId,
        panel_url: &str,
    ) -> Result<Option<UserCard>, BackendError> {
        self.read
            .user_card(id, panel_url)
            .await
            .map_err(backend_error)
    }

    async fn settings(&self) -> Result<meshwatch::settings::Settings, BackendError> {
        Ok(self.read.read_model.settings())
    }

    async fn save_settings(&self, next: meshwatch::settings::Settings) -> Result<(), BackendError> {
        use crate::commands::settings::{save, SaveError};
        match save(&self.read.evaluator, next).await {
            Ok(()) => Ok(()),
            Err(SaveError::Invalid(e)) => Err(BackendError::Invalid(Refusal::new(
                "invalid_setting",
                e.to_string(),
            ))),
            Err(SaveError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn overview(&self) -> Result<Overview, BackendError> {
        self.read.overview().await.map_err(backend_error)
    }

    async fn routes(&self) -> Result<Vec<RouteOverview>, BackendError> {
        self.read.routes().await.map_err(backend_error)
    }

    async fn outbox(&self) -> Result<Vec<OutboxItem>, BackendError> {
        self.read.outbox().await.map_err(backend_error)
    }

    async fn queue_test_notification(&self, operator: &str) -> Result<usize, BackendError> {
        let test = crate::outbound::notify::test_message(operator, self.read.clock.now());
        let queued: Vec<_> = self.targets.iter().map(|t| test.to(t)).collect();
        self.read
            .store
            .queue_notifications(&queued)
            .await
            .map_err(backend_error)?;
        Ok(queued.len())
    }

    async fn mesh_matrix(&self) -> Result<MeshMatrix, BackendError> {
        Ok(MeshMatrix::clone(&self.read.read_model.mesh_matrix()))
    }

    async fn witness_sets(
        &self,
        query: &str,
    ) -> Result<Option<meshwatch_views::views::WitnessSetsPage>, BackendError> {
        Ok(self.read.read_model.witness_sets(query))
    }

    async fn set_verifier(
        &self,
        id: &ServerId,
        mark: &meshwatch::controls::VerifierMark,
    ) -> Result<bool, BackendError> {
        crate::commands::servers::set_verifier(&self.read.store, &self.read.evaluator, id, mark)
            .await
            .map_err(backend_error)
    }

    async fn actions_panel(&self) -> Result<meshwatch::actions::ActionsPanel, BackendError> {
        self.read.actions_panel().await.map_err(backend_error)
    }

    async fn create_action(
        &self,
        spec: meshwatch::actions::ActionSpec,
    ) -> Result<meshwatch::actions::ActionView, BackendError> {
        match crate::commands::actions::create(
            &self.read.store,
            &self.read.action_policy,
            spec,
            self.read.clock.now(),
        )
        .await
        {
            Ok(action) => Ok(action.view(&self.read.action_policy)),
            Err(crate::commands::actions::CreateError::Refused(e)) => {
                Err(BackendError::Invalid(Refusal::new(e.code(), e.to_string())))
            }
            Err(crate::commands::actions::CreateError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn connectors(&self) -> Result<Vec<meshwatch::connectors::ConnectorView>, BackendError> {
        let connectors = self.read.store.connectors().await.map_err(backend_error)?;
        Ok(connectors
            .into_iter()
            .map(crate::commands::connectors::view)
            .collect())
    }

    async fn save_connector(
        &self,
        id: &meshwatch::ConnectorId,
        spec: meshwatch::connectors::ConnectorSpec,
    ) -> Result<meshwatch::connectors::ConnectorView, BackendError> {
        use crate::commands::connectors::{save, SaveError};
        match save(
            &self.read.store,
            &self.connector_nudge,
            id,
            &spec,
            self.read.clock.now(),
        )
        .await
        {
            Ok(view) => Ok(view),
            Err(SaveError::Invalid(e)) => {
                Err(BackendError::Invalid(Refusal::new(e.code, e.message)))
            }
            Err(SaveError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn set_connector_mode(
        &self,
        id: &meshwatch::ConnectorId,
        mode: meshwatch::connectors::ConnectorMode,
    ) -> Result<bool, BackendError> {
        crate::commands::connectors::set_mode(&self.read.store, &self.connector_nudge, id, mode)
            .await
            .map_err(backend_error)
    }

    async fn remove_connector(&self, id: &meshwatch::ConnectorId) -> Result<bool, BackendError> {
        use crate::commands::connectors::{remove, Removal};
        match remove(&self.read.store, &self.connector_nudge, id)
            .await
            .map_err(backend_error)?
        {
            Removal::NotFound => Ok(false),
            Removal::Gone | Removal::Removing(_) => Ok(true),
        }
    }

    async fn import_proposal(
        &self,
        id: &meshwatch::ConnectorId,
    ) -> Result<meshwatch::connectors::Proposal, BackendError> {
        use crate::outbound::connectors::import::{proposal, ImportError};
        match proposal(&self.read.store, &self.read.read_model, id).await {
            Ok(proposal) => Ok(proposal),
            Err(ImportError::NotFound(id)) => Err(BackendError::NotFound(id.to_string())),
            Err(ImportError::Panel(e)) => Err(BackendError::Invalid(Refusal::new(
                "panel_error",
                format!("the connected panel could not be read: {e}"),
            ))),
            Err(ImportError::Store(e)) => Err(backend_error(e)),
        }
    }

    async fn apply_import(
        &self,
        document: meshwatch::fleet::FleetDocument,
    ) -> Result<Vec<ServerId>, BackendError> {
        if !document.remove.servers.is_empty() || !document.remove.users.is_empty() {
            return Err(BackendError::Invalid(Refusal::new(
                "invalid_document",
                "an import adds servers and routes; it removes nothing",
            )));
        }
        use crate::commands::fleet::{apply, ApplyError};
        let (_, generated) = apply(&self.read.store, &self.read.evaluator, &document)
            .await
            .map_err(|e| match e {
                ApplyError::Invalid(e) => BackendError::Invalid(Refusal::new(e.code, e.message)),
                ApplyError::Store(e) => backend_error(e),
            })?;
        let mut added: Vec<ServerId> = generated.agent_tokens.into_keys().collect();
        added.sort();
        Ok(added)
    }

    async fn new_agent_token(&self, server: &ServerId) -> Result<Option<String>, BackendError> {
        let token = self
            .read
            .store
            .new_agent_token(server)
            .await
            .map_err(backend_error)?;
        if token.is_some() {
            tracing::info!(server = %server, "a new agent token was made in the panel");
        }
        Ok(token)
    }

    async fn delete_action(&self, id: meshwatch::actions::ActionId) -> Result<bool, BackendError> {
        crate::commands::actions::delete(&self.read.store, id)
            .await
            .map_err(backend_error)
    }

    async fn decide_mass_block(
        &self,
        verifier: &ServerId,
        decision: meshwatch::actions::MassDecision,
    ) -> Result<bool, BackendError> {
        if !self
            .read
            .read_model
            .mass_blocks()
            .iter()
            .any(|m| &m.verifier == verifier)
        {
            return Ok(false);
        }
        self.read
            .store
            .decide_mass_block(verifier, decision, self.read.clock.now())
            .await
            .map_err(backend_error)?;
        Ok(true)
    }

    async fn rerun_action(&self, run: i64) -> Result<bool, BackendError> {
        crate::commands::actions::rerun(&self.read.store, run, self.read.clock.now())
            .await
            .map_err(backend_error)
    }

    async fn set_actions_enabled(&self, enabled: bool) -> Result<(), BackendError> {
        crate::commands::actions::set_enabled(&self.read.store, enabled)
            .await
            .map_err(backend_error)
    }

    async fn plan_maintenance(
        &self,
        plan: MaintenancePlan,
    ) -> Result<MaintenanceWindow, BackendError> {
        let planned = crate::commands::maintenance::plan(
            &self.read.store,
            &self.read.evaluator,
            &self.read.read_model,
            plan,
            self.read.clock.now(),
        )
        .await
        .map_err(backend_error)?;
        planned.map_err(|refusal| match refusal {
            crate::commands::maintenance::Refusal::Full => {
                BackendError::Conflict(Refusal::new(refusal.code(), refusal.to_string()))
            }
            other => BackendError::Invalid(Refusal::new(other.code(), other.to_string())),
        })
    }

    async fn cancel_maintenance(&self, id: MaintenanceId) -> Result<bool, BackendError> {
        crate::commands::maintenance::cancel(&self.read.store, &self.read.evaluator, id)
            .await
            .map_err(backend_error)
    }

    async fn change_password(
        &self,
        username: &str,
        session_token: &str,
        current: &str,
        next: &str,
    ) -> Result<PasswordChange, BackendError> {
        let operator_id = match self.check_password(username, current).await? {
            Ok(id) => id,
            Err(PasswordCheck::TooManyAttempts { retry_after }) => {
                return Ok(PasswordChange::TooManyAttempts { retry_after })
            }
            Err(_) => return Ok(PasswordChange::WrongCurrent),
        };
        let next = next.to_owned();
        let Ok(hashed) = self
            .password_checks
            .run(move || secrets::hash_password(&next))
            .await
        else {
            return Ok(PasswordChange::TooManyAttempts {
                retry_after: crate::auth::password_check::BUSY_RETRY_AFTER,
            });
        };
        let hash = hashed.map_err(|e| BackendError::Unavailable(e.to_string()))?;
        let revoked = self
            .read
            .store
            .change_password(operator_id, &hash, &TokenHash::of(session_token))
            .await
            .map_err(backend_error)?;
        self.sessions.forget_all();
        if !revoked.is_empty() {
            tracing::warn!(%username, tokens = ?revoked, "the API tokens this operator's sessions created are revoked with the password change");
        }
        Ok(PasswordChange::Changed { revoked })
    }

    async fn confirm_password(
        &self,
        username: &str,
        password: &str,
    ) -> Result<PasswordCheck, BackendError> {
        Ok(match self.check_password(username, password).await? {
            Ok(_) => PasswordCheck::Confirmed,
            Err(check) => check,
        })
    }

    async fn api_tokens(&self) -> Result<Vec<ApiTokenView>, BackendError> {
        self.read.store.api_tokens().await.map_err(backend_error)
    }

    async fn create_api_token(
        &self,
        username: &str,
        name: &str,
        scope: meshwatch::account::TokenScope,
    ) -> Result<Option<String>, BackendError> {
        let Some(operator) = self
            .read
            .store
            .operator_credentials(username)
            .await
            .map_err(backend_error)?
        else {
            return Err(BackendError::Unavailable("the operator is gone".into()));
        };
        let token = secrets::new_token();
        let created = self
            .read
            .store
            .create_api_token(name, &TokenHash::of(&token), scope, operator.id)
            .await
            .map_err(backend_error)?;
        Ok(created.then_some(token))
    }

    async fn revoke_api_token(&self, name: &str) -> Result<bool, BackendError> {
        self.read
            .store
            .revoke_api_token(name)
            .await
            .map_err(backend_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_conflicts_and_rejections_keep_their_words_and_their_kind() {
        let conflict = StoreError::Conflict {
            code: "token_conflict",
            message: "agent token of server de-2 is already in use".into(),
        };
        assert_eq!(
            backend_error(conflict),
            BackendError::Conflict(Refusal::new(
                "token_conflict",
                "agent token of server de-2 is already in use"
            ))
        );
        let rejected = StoreError::Rejected {
            code: "unknown_server",
            message: "server \"de-9\" is no longer in the fleet".into(),
        };
        assert_eq!(
            backend_error(rejected),
            BackendError::Invalid(Refusal::new(
                "unknown_server",
                "server \"de-9\" is no longer in the fleet"
            ))
        );
    }

    #[test]
    fn a_failed_database_is_unavailable_with_the_message_of_today() {
        for err in [
            sqlx::Error::PoolTimedOut,
            sqlx::Error::RowNotFound,
            sqlx::Error::Protocol("UNIQUE constraint failed: api_tokens.token_hash".into()),
        ] {
            let store = StoreError::Database(err);
            let message = store.to_string();
            assert_eq!(backend_error(store), BackendError::Unavailable(message));
        }
    }
}
