//! Server functions: thin, authenticated adapters from the pages to the backend.

use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::flash::{Flash, Form, Outcome};
use leptos::prelude::*;
use meshwatch_views::views::{ApiTokenView, NewApiToken, ServerListItem};
#[cfg(feature = "ssr")]
use meshwatch_views::views::{
    MeshMatrix, OutboxItem, Overview, RouteOverview, ServerCard, UserCard,
};

#[cfg(feature = "ssr")]
use crate::backend::{authorize, backend_failed, fail, Backend, PasswordChange};
#[cfg(feature = "ssr")]
use meshwatch_views::i18n::form_error::{FormError, WindowEnd};
#[cfg(feature = "ssr")]
use meshwatch_views::i18n::refusal::Refusal;

/// After a browser's plain form post, sends it back to `page`, which shows
/// the outcome once (see `crate::flash`); a script's call gets the result
/// as it is.
#[cfg(feature = "ssr")]
fn settle<T>(
    form: Form,
    page: &str,
    result: Result<T, AppError>,
    done: impl FnOnce(&T) -> Outcome,
) -> Result<T, AppError> {
    let Some(parts) = use_context::<http::request::Parts>() else {
        return result;
    };
    let session = crate::auth::session_in_context(&parts.headers);
    let flashes = use_context::<crate::flash::Flashes>();
    if let (true, Some(session), Some(flashes)) =
        (crate::auth::is_form_post(&parts.headers), session, flashes)
    {
        let outcome = match &result {
            Ok(value) => done(value),
            Err(error) => Outcome::Failed(error.clone()),
        };
        let secure = crate::auth::PanelSite::from_context()
            .is_some_and(|site| site.secure_cookies(&parts.headers));
        let cookie = flashes.cookie(session, Flash { form, outcome }, secure);
        match cookie.as_deref().map(http::HeaderValue::from_str) {
            Some(Ok(cookie)) => {
                let response = expect_context::<leptos_axum::ResponseOptions>();
                response.append_header(http::header::SET_COOKIE, cookie);
            }
            // The outcome is lost, not the post: the page shows no message.
            _ => tracing::warn!("a form's outcome could not be sealed"),
        }
        // Overrides the error's status: the browser follows a redirect.
        leptos_axum::redirect(page);
    }
    result
}

/// Every server of the fleet, with routes, entry points and its verdict.
#[server(prefix = "/rpc", endpoint = "servers")]
pub async fn list_servers() -> Result<Vec<ServerListItem>, AppError> {
    let (backend, _) = authorize().await?;
    backend.servers().await.map_err(|e| fail(backend_failed(e)))
}

/// One page of the servers list: the servers `filter` admits, 100 a
/// page. Loaded ahead of its page (see `crate::preload`).
#[cfg(feature = "ssr")]
pub async fn servers_page_of(
    backend: &Backend,
    filter: &meshwatch_views::views::ServerFilter,
    page: u32,
) -> Result<meshwatch_views::views::ServersPage, AppError> {
    backend
        .servers_page(filter, page)
        .await
        .map_err(backend_failed)
}

/// One page (50) of the users matching a search (id, name or route).
/// Loaded ahead of its page.
#[cfg(feature = "ssr")]
pub async fn users_page_of(
    backend: &Backend,
    search: &str,
    page: u32,
) -> Result<meshwatch_views::views::UsersPage, AppError> {
    backend
        .users_page(search, page)
        .await
        .map_err(backend_failed)
}

/// One server's card: verdict, self-check, metrics, mesh view, entry
/// points. Loaded ahead of its page (see `crate::preload`).
#[cfg(feature = "ssr")]
pub async fn server_card_of(backend: &Backend, id: &str) -> Result<ServerCard, AppError> {
    let id = meshwatch::ServerId::parse(id).map_err(|_| AppError::NotFound)?;
    backend
        .server_card(&id)
        .await
        .map_err(backend_failed)?
        .ok_or(AppError::NotFound)
}

/// "Use this server to check blocking on the others" (and its reverse);
/// with `network`, the verifier's network label too (blank clears it,
/// absent keeps it), and so for `control_sni` and `controls` (one
/// `host:port` per line or separated by commas, §8).
#[server(prefix = "/rpc", endpoint = "set_verifier")]
pub async fn set_verifier(
    id: String,
    enabled: bool,
    network: Option<String>,
    control_sni: Option<String>,
    controls: Option<String>,
) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    // Only a valid id goes into the Location header.
    let card = meshwatch::ServerId::parse(&id)
        .map(|id| format!("/servers/{id}"))
        .unwrap_or_else(|_| "/".to_owned());
    let result = async {
        let id = meshwatch::ServerId::parse(&id).map_err(|_| fail(AppError::NotFound))?;
        let network = network
            .as_deref()
            .map(meshwatch::network::NetworkLabel::parse_optional)
            .transpose()
            .map_err(|e| invalid("invalid_network", e))?;
        let control_sni = control_sni
            .as_deref()
            .map(meshwatch::controls::ControlSni::parse_optional)
            .transpose()
            .map_err(|e| invalid("invalid_controls", e))?;
        let controls = controls
            .as_deref()
            .map(|raw| {
                let list: Vec<String> = raw
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                meshwatch::controls::ControlTargets::parse_controls(&list)
            })
            .transpose()
            .map_err(|e| invalid("invalid_controls", e))?;
        let mark = meshwatch::controls::VerifierMark {
            enabled,
            network,
            control_sni,
            controls,
        };
        let found = backend
            .set_verifier(&id, &mark)
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        if !found {
            return Err(fail(AppError::NotFound));
        }
        tracing::info!(server = %id, enabled, operator = %operator.username, "verifier toggled in the panel");
        Ok(())
    }
    .await;
    settle(Form::Verifier, &card, result, |_| Outcome::Done)
}

/// Where a maintenance form sends the browser back: the card of the
/// server it was posted from (a valid id only), else the Routes page.
#[cfg(feature = "ssr")]
fn maintenance_page(server: Option<&str>) -> String {
    server
        .and_then(|id| meshwatch::ServerId::parse(id).ok())
        .map_or_else(|| "/routes".to_owned(), |id| format!("/servers/{id}"))
}

/// "Schedule maintenance" on a server card or a route. Times are UTC: a
/// `datetime-local` input's value, or RFC 3339.
#[server(prefix = "/rpc", endpoint = "plan_maintenance")]
pub async fn plan_maintenance(
    server: Option<String>,
    route: Option<String>,
    start: String,
    end: String,
    weekly: Option<String>,
    note: Option<String>,
) -> Result<(), AppError> {
    use meshwatch::maintenance::{parse_time, MaintenancePlan};
    let (backend, operator) = authorize().await?;
    let page = maintenance_page(server.as_deref());
    let result = async {
        let servers = server
            .as_deref()
            .map(meshwatch::ServerId::parse)
            .transpose()
            .map_err(|_| fail(AppError::NotFound))?;
        let routes = route
            .as_deref()
            .map(meshwatch::RouteId::parse)
            .transpose()
            .map_err(|_| fail(AppError::NotFound))?;
        let time = |raw: &str, end: WindowEnd| {
            parse_time(raw).ok_or_else(|| {
                refused(FormError::NotATime {
                    end,
                    typed: raw.to_owned(),
                })
            })
        };
        let plan = MaintenancePlan {
            servers: servers.into_iter().collect(),
            routes: routes.into_iter().collect(),
            start: time(&start, WindowEnd::Start)?,
            end: time(&end, WindowEnd::End)?,
            // A checked box posts its value ("on"); an unchecked one nothing.
            weekly: weekly.is_some_and(|w| !w.is_empty() && w != "false"),
            note: note.unwrap_or_default(),
        };
        let window = backend
            .plan_maintenance(plan)
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        tracing::info!(window = %window.id, operator = %operator.username, "maintenance window planned in the panel");
        Ok(())
    }
    .await;
    settle(Form::Maintenance, &page, result, |_| Outcome::Done)
}

/// "Cancel window": the servers return to rotation at once (unless
/// another window holds them).
#[server(prefix = "/rpc", endpoint = "cancel_maintenance")]
pub async fn cancel_maintenance(id: i64, server: Option<String>) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let page = maintenance_page(server.as_deref());
    let result = async {
        let found = backend
            .cancel_maintenance(meshwatch::maintenance::MaintenanceId(id))
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        if !found {
            return Err(fail(AppError::NotFound));
        }
        tracing::info!(window = id, operator = %operator.username, "maintenance window cancelled in the panel");
        Ok(())
    }
    .await;
    settle(Form::Maintenance, &page, result, |_| Outcome::Done)
}

/// One user's card: servers with their status and replacements, the
/// subscription link (under `panel_url`) and QR code, and what the
/// subscription serves now. Loaded ahead of its page (see `crate::preload`).
#[cfg(feature = "ssr")]
pub async fn user_card_of(
    backend: &Backend,
    id: &str,
    panel_url: &str,
) -> Result<UserCard, AppError> {
    let id = meshwatch::UserId::parse(id).map_err(|_| AppError::NotFound)?;
    backend
        .user_card(&id, panel_url)
        .await
        .map_err(backend_failed)?
        .ok_or(AppError::NotFound)
}

/// The mesh page's data: the reachability matrix (witnesses × targets),
/// or beyond the witness set threshold the sets of the servers `query`
/// matches. Loaded ahead of its page.
#[cfg(feature = "ssr")]
pub async fn mesh_of(
    backend: &Backend,
    query: &str,
) -> Result<Result<meshwatch_views::views::WitnessSetsPage, MeshMatrix>, AppError> {
    match backend.witness_sets(query).await.map_err(backend_failed)? {
        Some(sets) => Ok(Ok(sets)),
        None => backend.mesh_matrix().await.map(Err).map_err(backend_failed),
    }
}

/// The notification outbox, newest first. Loaded ahead of its page.
#[cfg(feature = "ssr")]
pub async fn outbox_of(backend: &Backend) -> Result<Vec<OutboxItem>, AppError> {
    backend.outbox().await.map_err(backend_failed)
}

/// "Send test email": queues a test message to every configured target.
#[server(prefix = "/rpc", endpoint = "send_test_notification")]
pub async fn send_test_notification() -> Result<usize, AppError> {
    let (backend, operator) = authorize().await?;
    let result = backend
        .queue_test_notification(&operator.username)
        .await
        .map_err(|e| fail(backend_failed(e)));
    settle(Form::TestNotification, "/notifications", result, |n| {
        Outcome::Queued(*n)
    })
}

/// Every route: its servers, who is in rotation, the best-available
/// warning. Loaded ahead of its page.
#[cfg(feature = "ssr")]
pub async fn routes_of(backend: &Backend) -> Result<Vec<RouteOverview>, AppError> {
    backend.routes().await.map_err(backend_failed)
}

/// The fleet at a glance. Loaded ahead of its page.
#[cfg(feature = "ssr")]
pub async fn overview_of(backend: &Backend) -> Result<Overview, AppError> {
    backend.overview().await.map_err(backend_failed)
}

/// The verdict parameters of docs/PRODUCT.md §2 in force.
#[server(prefix = "/rpc", endpoint = "settings")]
pub async fn load_settings() -> Result<meshwatch::settings::Settings, AppError> {
    let (backend, _) = authorize().await?;
    backend
        .settings()
        .await
        .map_err(|e| fail(backend_failed(e)))
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
    unreliable_fraction: String,
    // Absent from a form of before the witness sets: kept as they are.
    witness_set_threshold: Option<u32>,
    witness_set_size: Option<u32>,
    witness_rotation_s: Option<u32>,
) -> Result<meshwatch::settings::Settings, AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        // As the form shows it: "0,5" or "0.5".
        let unreliable_fraction = meshwatch_views::i18n::Lang::parse_decimal(&unreliable_fraction)
            .ok_or_else(|| {
                refused(FormError::NotADecimal {
                    typed: unreliable_fraction.clone(),
                })
            })?;
        let current = backend
            .settings()
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        let next = meshwatch::settings::Settings {
            report_interval_s,
            probe_interval_s,
            probe_timeout_s,
            stale_after_s,
            failure_streak,
            quorum,
            unreliable_fraction,
            witness_set_threshold: witness_set_threshold.unwrap_or(current.witness_set_threshold),
            witness_set_size: witness_set_size.unwrap_or(current.witness_set_size),
            witness_rotation_s: witness_rotation_s.unwrap_or(current.witness_rotation_s),
        };
        next.validate().map_err(|e| invalid("invalid_setting", e))?;
        backend
            .save_settings(next)
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        tracing::info!(operator = %operator.username, "verdict settings changed in the panel");
        Ok(next)
    }
    .await;
    settle(Form::Parameters, "/settings", result, |_| Outcome::Done)
}

/// A refusal of a check, by its API code (docs/API.md, "Error codes").
#[cfg(feature = "ssr")]
fn invalid(code: &'static str, message: impl std::fmt::Display) -> AppError {
    fail(AppError::Invalid(Refusal::new(code, message.to_string())))
}

#[cfg(feature = "ssr")]
fn refused(error: FormError) -> AppError {
    fail(AppError::Form(error))
}

/// Changes the signed-in operator's password; their other sessions end.
#[server(prefix = "/rpc", endpoint = "change_password")]
pub async fn change_password(
    current: String,
    next: String,
    repeat: String,
) -> Result<Vec<String>, AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        meshwatch::account::check_new_password(&current, &next, &repeat)
            .map_err(|e| refused(FormError::from(&e)))?;
        let headers: http::HeaderMap = leptos_axum::extract()
            .await
            .map_err(|_| fail(AppError::Internal))?;
        let session = crate::auth::session_in_context(&headers)
            .ok_or_else(|| fail(AppError::Unauthorized))?;
        let outcome = backend
            .change_password(&operator.username, session, &current, &next)
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        let revoked = match outcome {
            PasswordChange::Changed { revoked } => revoked,
            PasswordChange::WrongCurrent => return Err(refused(FormError::WrongCurrentPassword)),
            PasswordChange::TooManyAttempts { retry_after } => {
                let seconds = retry_after.as_secs().max(1);
                if let Some(res) = use_context::<leptos_axum::ResponseOptions>() {
                    res.insert_header(http::header::RETRY_AFTER, http::HeaderValue::from(seconds));
                }
                return Err(fail(AppError::TooManyAttempts {
                    minutes: seconds.div_ceil(60),
                }));
            }
        };
        tracing::info!(operator = %operator.username, revoked_tokens = revoked.len(), "operator password changed in the panel");
        Ok(revoked)
    }
    .await;
    settle(
        Form::Password,
        "/settings",
        result,
        |revoked: &Vec<String>| Outcome::PasswordChanged(revoked.clone()),
    )
}

/// The signed-in operator's password, asked again before a change that
/// arms actions or hands out access: a session left open (or stolen)
/// alone cannot make one.
#[cfg(feature = "ssr")]
async fn reauthenticate(
    backend: &crate::backend::Backend,
    username: &str,
    password: &str,
) -> Result<(), AppError> {
    use crate::backend::PasswordCheck;
    match backend
        .confirm_password(username, password)
        .await
        .map_err(|e| fail(backend_failed(e)))?
    {
        PasswordCheck::Confirmed => Ok(()),
        PasswordCheck::Wrong => Err(refused(FormError::WrongPassword)),
        PasswordCheck::TooManyAttempts { retry_after } => Err(fail(AppError::TooManyAttempts {
            minutes: retry_after.as_secs().max(1).div_ceil(60),
        })),
    }
}

/// Settings → Actions: the switch, the actions, their latest runs.
#[server(prefix = "/rpc", endpoint = "actions")]
pub async fn load_actions() -> Result<meshwatch::actions::ActionsPanel, AppError> {
    let (backend, _) = authorize().await?;
    backend
        .actions_panel()
        .await
        .map_err(|e| fail(backend_failed(e)))
}

/// "Add action": a command (one argument per line) or an HTTP call.
#[allow(clippy::too_many_arguments)]
#[server(prefix = "/rpc", endpoint = "create_action")]
pub async fn create_action(
    name: String,
    on: String,
    after_minutes: String,
    command: Option<String>,
    url: Option<String>,
    method: Option<String>,
    headers: Option<String>,
    body: Option<String>,
    password: String,
) -> Result<(), AppError> {
    use meshwatch::actions::{parse_header_lines, ActionEvent, ActionSpec, HttpCall, HttpMethod};
    let (backend, operator) = authorize().await?;
    let result = async {
        reauthenticate(&backend, &operator.username, &password).await?;
        let on = ActionEvent::from_wire(on.trim())
            .ok_or_else(|| invalid("invalid_document", format!("{on:?} is not an event")))?;
        let after_minutes: u32 = match after_minutes.trim() {
            "" => 0,
            raw => raw
                .parse()
                .map_err(|_| refused(FormError::NotMinutes { typed: raw.to_owned() }))?,
        };
        let blank = |v: &Option<String>| v.as_deref().is_none_or(|t| t.trim().is_empty());
        let command = (!blank(&command)).then(|| {
            command
                .unwrap_or_default()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        });
        let http = if blank(&url) {
            None
        } else {
            let method = match method.as_deref().unwrap_or("POST").trim() {
                "GET" => HttpMethod::Get,
                "PUT" => HttpMethod::Put,
                "PATCH" => HttpMethod::Patch,
                "DELETE" => HttpMethod::Delete,
                _ => HttpMethod::Post,
            };
            let body = match body.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(raw) => Some(
                    serde_json::from_str(raw)
                        .map_err(|e| refused(FormError::BodyNotJson { detail: e.to_string() }))?,
                ),
            };
            Some(HttpCall {
                url: url.unwrap_or_default(),
                method,
                headers: parse_header_lines(headers.as_deref().unwrap_or(""))
                    .map_err(|e| invalid("invalid_http", e))?,
                body,
            })
        };
        let spec = ActionSpec {
            name,
            on,
            after_minutes,
            command,
            http,
            kinds: None,
        };
        let action = backend
            .create_action(spec)
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        tracing::info!(action = %action.spec.name, operator = %operator.username, "action created in the panel");
        Ok(())
    }
    .await;
    settle(Form::Action, "/settings", result, |_| Outcome::Done)
}

/// Deletes an action (its past runs stay in the servers' histories).
#[server(prefix = "/rpc", endpoint = "delete_action")]
pub async fn delete_action(id: i64) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        if !backend
            .delete_action(meshwatch::actions::ActionId(id))
            .await
            .map_err(|e| fail(backend_failed(e)))?
        {
            return Err(fail(AppError::NotFound));
        }
        tracing::info!(action = id, operator = %operator.username, "action deleted in the panel");
        Ok(())
    }
    .await;
    settle(Form::Action, "/settings", result, |_| Outcome::Done)
}

/// Settings → Connected panels: every connector, never its token.
#[server(prefix = "/rpc", endpoint = "connectors")]
pub async fn load_connectors() -> Result<Vec<meshwatch::connectors::ConnectorView>, AppError> {
    let (backend, _) = authorize().await?;
    backend
        .connectors()
        .await
        .map_err(|e| fail(backend_failed(e)))
}

#[cfg(feature = "ssr")]
fn connector_id(raw: &str) -> Result<meshwatch::ConnectorId, AppError> {
    meshwatch::ConnectorId::parse(raw.trim())
        .map_err(|e| invalid("invalid_id", format!("name: {e}")))
}

/// "Connect in dry run": a panel to apply the rotation in, after the
/// operator's password again (its token is a secret of another panel).
#[server(prefix = "/rpc", endpoint = "save_connector")]
pub async fn save_connector(
    id: String,
    kind: String,
    url: String,
    token: String,
    tag: Option<String>,
    password: String,
) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        reauthenticate(&backend, &operator.username, &password).await?;
        let id = connector_id(&id)?;
        let tag = tag.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
        let spec = meshwatch::connectors::ConnectorSpec {
            kind: kind.trim().to_owned(),
            url: url.trim().to_owned(),
            token,
            tag,
            mode: Some(meshwatch::connectors::ConnectorMode::DryRun.as_str().to_owned()),
        };
        backend
            .save_connector(&id, spec)
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        tracing::info!(connector = %id, operator = %operator.username, "connector saved in the panel");
        Ok(())
    }
    .await;
    settle(Form::Connector, "/settings", result, |_| Outcome::Done)
}

/// "Apply its changes" / "Back to dry run".
#[server(prefix = "/rpc", endpoint = "set_connector_mode")]
pub async fn set_connector_mode(id: String, mode: String) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        let id = connector_id(&id)?;
        let mode = meshwatch::connectors::ConnectorMode::parse(mode.trim())
            .ok_or_else(|| invalid("invalid_mode", format!("{mode:?} is not apply or dry_run")))?;
        if !backend
            .set_connector_mode(&id, mode)
            .await
            .map_err(|e| fail(backend_failed(e)))?
        {
            return Err(fail(AppError::NotFound));
        }
        tracing::info!(connector = %id, mode = mode.as_str(), operator = %operator.username, "connector mode switched in the panel");
        Ok(())
    }
    .await;
    settle(Form::Connector, "/settings", result, |_| Outcome::Done)
}

/// "Remove": the hosts it turned off go back on, then it goes.
#[server(prefix = "/rpc", endpoint = "remove_connector")]
pub async fn remove_connector(id: String) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        let id = connector_id(&id)?;
        if !backend
            .remove_connector(&id)
            .await
            .map_err(|e| fail(backend_failed(e)))?
        {
            return Err(fail(AppError::NotFound));
        }
        tracing::info!(connector = %id, operator = %operator.username, "connector removed in the panel");
        Ok(())
    }
    .await;
    settle(Form::Connector, "/settings", result, |_| Outcome::Done)
}

/// Settings → Connected panels → "Import servers": what the connector's
/// panel would add to the fleet. Reads the panel; changes nothing.
#[server(prefix = "/rpc", endpoint = "import_proposal")]
pub async fn import_proposal(id: String) -> Result<meshwatch::connectors::Proposal, AppError> {
    let (backend, _) = authorize().await?;
    let id = connector_id(&id)?;
    backend
        .import_proposal(&id)
        .await
        .map_err(|e| fail(backend_failed(e)))
}

/// "Add these servers": the reviewed proposal (as it was shown, in
/// `document`), after the operator's password again (it makes agent
/// tokens).
#[server(prefix = "/rpc", endpoint = "apply_import")]
pub async fn apply_import(
    document: String,
    password: String,
) -> Result<Vec<meshwatch::ServerId>, AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        reauthenticate(&backend, &operator.username, &password).await?;
        let document: meshwatch::fleet::FleetDocument = serde_json::from_str(&document)
            .map_err(|e| invalid("invalid_document", format!("the proposal: {e}")))?;
        let added = backend
            .apply_import(document)
            .await
            .map_err(|e| fail(backend_failed(e)))?;
        tracing::info!(servers = added.len(), operator = %operator.username, "import applied in the panel");
        Ok(added)
    }
    .await;
    settle(Form::Import, "/settings", result, |added| {
        Outcome::Imported {
            count: added.len(),
            first: added
                .iter()
                .take(crate::flash::SHOWN_AFTER_IMPORT)
                .cloned()
                .collect(),
        }
    })
}

/// The server card's "New agent token and install command", after the
/// operator's password again; the token is shown once, in the command.
#[server(prefix = "/rpc", endpoint = "new_agent_token")]
pub async fn new_agent_token(server: String, password: String) -> Result<String, AppError> {
    let (backend, operator) = authorize().await?;
    let id = meshwatch::ServerId::parse(server.trim()).map_err(|_| {
        invalid(
            "invalid_server_id",
            format!("{server:?} is not a server id"),
        )
    });
    let page = match &id {
        Ok(id) => format!("/servers/{id}"),
        Err(_) => "/".to_owned(),
    };
    let result = async {
        reauthenticate(&backend, &operator.username, &password).await?;
        let id = id?;
        let token = backend
            .new_agent_token(&id)
            .await
            .map_err(|e| fail(backend_failed(e)))?
            .ok_or_else(|| fail(AppError::NotFound))?;
        tracing::info!(server = %id, operator = %operator.username, "agent token replaced in the panel");
        Ok(token)
    }
    .await;
    settle(Form::AgentToken, &page, result, |token| {
        Outcome::AgentToken(token.clone())
    })
}

/// The operator's word on the actions of a mass block (the Overview's
/// two buttons): run them, or dismiss them.
#[server(prefix = "/rpc", endpoint = "decide_mass_block")]
pub async fn decide_mass_block(verifier: String, decision: String) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        let id = meshwatch::ServerId::parse(verifier.trim())
            .map_err(|_| invalid("invalid_server_id", format!("{verifier:?} is not a server id")))?;
        let decision = meshwatch::actions::MassDecision::from_wire(decision.trim())
            .ok_or_else(|| invalid("invalid_document", format!("{decision:?} is not confirmed or dismissed")))?;
        if !backend
            .decide_mass_block(&id, decision)
            .await
            .map_err(|e| fail(backend_failed(e)))?
        {
            return Err(fail(AppError::NotFound));
        }
        tracing::warn!(verifier = %id, decision = decision.as_str(), operator = %operator.username, "mass block decided in the panel");
        Ok(())
    }
    .await;
    settle(Form::Action, "/overview", result, |_| Outcome::Done)
}

/// Runs an interrupted run again: it was running when its panel stopped,
/// and only the operator starts it again.
#[server(prefix = "/rpc", endpoint = "rerun_action")]
pub async fn rerun_action(id: i64) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        if !backend
            .rerun_action(id)
            .await
            .map_err(|e| fail(backend_failed(e)))?
        {
            return Err(fail(AppError::NotFound));
        }
        tracing::warn!(run = id, operator = %operator.username, "interrupted action run started again in the panel");
        Ok(())
    }
    .await;
    settle(Form::Action, "/settings", result, |_| Outcome::Done)
}

/// The switch that holds every action off (e.g. during an incident).
#[server(prefix = "/rpc", endpoint = "switch_actions")]
pub async fn switch_actions(enabled: bool, password: Option<String>) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        // Switching them off is always one click; arming them asks again.
        if enabled {
            reauthenticate(
                &backend,
                &operator.username,
                password.as_deref().unwrap_or(""),
            )
            .await?;
        }
        backend
            .set_actions_enabled(enabled)
            .await
            .map_err(|e| fail(backend_failed(e)))
    }
    .await;
    if result.is_ok() {
        tracing::warn!(enabled, operator = %operator.username, "actions switched in the panel");
    }
    settle(Form::Action, "/settings", result, |_| Outcome::Done)
}

/// The operator API tokens.
#[server(prefix = "/rpc", endpoint = "api_tokens")]
pub async fn load_api_tokens() -> Result<Vec<ApiTokenView>, AppError> {
    let (backend, _) = authorize().await?;
    backend
        .api_tokens()
        .await
        .map_err(|e| fail(backend_failed(e)))
}

/// Creates a named API token; the answer is the only place its secret appears.
#[server(prefix = "/rpc", endpoint = "create_api_token")]
pub async fn create_api_token(
    name: String,
    scope: String,
    password: String,
) -> Result<NewApiToken, AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
    let name = meshwatch::account::check_token_name(&name).map_err(|e| refused(FormError::from(&e)))?;
    let scope = meshwatch::account::TokenScope::from_wire(scope.trim())
        .ok_or_else(|| invalid("invalid_document", format!("{scope:?} is not a scope: read, fleet or admin")))?;
    reauthenticate(&backend, &operator.username, &password).await?;
    let token = backend
        .create_api_token(&operator.username, name, scope)
        .await
        .map_err(|e| fail(backend_failed(e)))?
        .ok_or_else(|| {
            refused(FormError::TokenNameTaken {
                name: name.to_string(),
            })
        })?;
    tracing::info!(token = name, scope = scope.as_str(), operator = %operator.username, "API token created in the panel");
    Ok(NewApiToken {
        name: name.to_owned(),
        scope,
        token,
    })
    }
    .await;
    settle(Form::CreateToken, "/settings", result, |new| {
        Outcome::TokenCreated(new.clone())
    })
}

/// Revokes an API token; scripts using it get 401 from the next request.
#[server(prefix = "/rpc", endpoint = "revoke_api_token")]
pub async fn revoke_api_token(name: String) -> Result<(), AppError> {
    let (backend, operator) = authorize().await?;
    let result = async {
        if !backend
            .revoke_api_token(&name)
            .await
            .map_err(|e| fail(backend_failed(e)))?
        {
            return Err(fail(AppError::NotFound));
        }
        tracing::info!(token = %name, operator = %operator.username, "API token revoked in the panel");
        Ok(())
    }
    .await;
    settle(Form::RevokeToken, "/settings", result, |_| Outcome::Done)
}
