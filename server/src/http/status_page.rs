//! The public status page (docs/PRODUCT.md §6), `/status` and `/status.json`,
//! served only with `MESHWATCH_STATUS_PAGE=1`. Both are built together at
//! most once per [`MAX_AGE`], in every language, and served from memory:
//! a flood of customers reloading the page costs a copy of bytes, not a
//! query. What goes into them is a [`PublicStatus`], which has no field
//! for a server, an address, an entry point or a verifier.

use crate::engine::Core;
use crate::store::StoreError;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{ACCEPT_LANGUAGE, CACHE_CONTROL, CONTENT_TYPE, VARY};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use leptos::prelude::LeptosOptions;
use meshwatch::maintenance::Occurrence;
use meshwatch::mesh::Mesh;
use meshwatch::status::ServerStatus;
use meshwatch::verdict::Verdict;
use meshwatch::ServerId;
use meshwatch_views::i18n::Lang;
use meshwatch_views::status_page::{
    daily_states, route_state, PublicRoute, PublicStatus, ServerState, DAYS,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How old the served page may be: a status change shows within it.
pub const MAX_AGE: Duration = Duration::from_secs(5);

/// The page as last built.
struct Built {
    at: Instant,
    json: Bytes,
    /// One per language, in [`Lang::ALL`] order.
    html: Vec<Bytes>,
}

/// The cache behind both answers.
#[derive(Default)]
pub struct StatusPage {
    built: Mutex<Option<Arc<Built>>>,
    /// One rebuild at a time; the others serve what is built meanwhile.
    rebuilding: tokio::sync::Mutex<()>,
}

impl StatusPage {
    fn fresh(&self) -> Option<Arc<Built>> {
        self.cached().filter(|b| b.at.elapsed() < MAX_AGE)
    }

    fn cached(&self) -> Option<Arc<Built>> {
        self.built
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The page, rebuilt when older than [`MAX_AGE`]. While one request
    /// rebuilds it, the others are served the previous page; a failed
    /// rebuild serves it too, and only with none is it an error.
    async fn current(&self, core: &Core, leptos: &LeptosOptions) -> Result<Arc<Built>, StoreError> {
        if let Some(built) = self.fresh() {
            return Ok(built);
        }
        let _rebuilding = match self.rebuilding.try_lock() {
            Ok(guard) => guard,
            Err(_) => match self.cached() {
                Some(stale) => return Ok(stale),
                None => self.rebuilding.lock().await,
            },
        };
        if let Some(built) = self.fresh() {
            return Ok(built);
        }
        match build(core, leptos).await {
            Ok(built) => {
                let built = Arc::new(built);
                *self
                    .built
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(built.clone());
                Ok(built)
            }
            Err(err) => {
                tracing::error!(error = %err, "the status page cannot be rebuilt");
                self.cached().ok_or(err)
            }
        }
    }
}

/// What the public sees now.
pub async fn public_status(core: &Core) -> Result<PublicStatus, StoreError> {
    let now = core.clock.now();
    let names = core.store.route_names().await?;
    let since = now - chrono::Duration::days(i64::from(DAYS));
    let mut histories: HashMap<ServerId, Vec<(DateTime<Utc>, ServerStatus)>> = HashMap::new();
    for (server, at, status) in core.store.fleet_changes_since(since).await? {
        histories.entry(server).or_default().push((at, status));
    }
    let routes = core.read_model.with_verdicts(|mesh, verdicts| {
        let mut routes: Vec<PublicRoute> = (0..mesh.routes().len())
            .filter_map(|r| public_route(mesh, verdicts, r, &histories, &names, now))
            .collect();
        routes.sort_by(|a, b| a.name.cmp(&b.name));
        routes
    });
    Ok(PublicStatus {
        routes,
        updated_at: now,
    })
}

/// One route by its public name; `None` for a route with no server.
fn public_route(
    mesh: &Mesh,
    verdicts: &[Verdict],
    r: usize,
    histories: &HashMap<ServerId, Vec<(DateTime<Utc>, ServerStatus)>>,
    names: &HashMap<meshwatch::RouteId, String>,
    now: DateTime<Utc>,
) -> Option<PublicRoute> {
    let route = &mesh.routes()[r];
    let servers = mesh.servers_of_route(r);
    let state = route_state(
        servers.iter().map(|&s| ServerState {
            status: verdicts[s].status,
            in_rotation: verdicts[s].in_rotation,
            planned: verdicts[s].maintenance.is_some(),
        }),
        route.servers_per_user,
    )?;
    let recorded: Vec<&[(DateTime<Utc>, ServerStatus)]> = servers
        .iter()
        .filter_map(|&s| histories.get(&mesh.server(s).id).map(Vec::as_slice))
        .collect();
    let mut days = daily_states(&recorded, route.servers_per_user, now);
    // Today includes this moment (a drain is not in the history).
    if let Some(today) = days.last_mut() {
        today.state = Some(today.state.map_or(state, |s| s.worst(state)));
    }
    // A window naming the route applies to each of its servers.
    let mut maintenance: Vec<Occurrence> = servers
        .iter()
        .flat_map(|&s| mesh.windows_of(s))
        .filter_map(|w| w.occurrence(now))
        .collect();
    maintenance.sort_by_key(|o| (o.start, o.end));
    maintenance.dedup();
    Some(PublicRoute {
        name: names
            .get(&route.id)
            .cloned()
            .unwrap_or_else(|| route.id.to_string()),
        state,
        days,
        maintenance,
    })
}

async fn build(core: &Core, leptos: &LeptosOptions) -> Result<Built, StoreError> {
    let status = public_status(core).await?;
    let json = serde_json::to_vec(&status)
        .map_err(|e| StoreError::Database(sqlx::Error::Protocol(format!("status page: {e}"))))?;
    let stylesheet = format!("/{}/{}.css", leptos.site_pkg_dir, leptos.output_name);
    let html = Lang::ALL
        .iter()
        .map(|&lang| Bytes::from(app::status_page::render(lang, &status, &stylesheet)))
        .collect();
    Ok(Built {
        at: Instant::now(),
        json: Bytes::from(json),
        html,
    })
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "Not found.\n").into_response()
}

/// Public, and the same for everyone of a language: caches may keep it
/// as long as the panel does.
fn cacheable(mut response: Response, content_type: &'static str) -> Response {
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=5"));
    response
}

#[utoipa::path(get, path = "/status", tag = "operations", security(()),
    responses(
        (status = 200, description = "The public status page, in the language Accept-Language asks for", content_type = "text/html"),
        (status = 404, description = "The status page is off (`MESHWATCH_STATUS_PAGE`)"),
    ))]
/// `GET /status`: the page in the language `Accept-Language` asks for.
pub async fn html(
    State(core): State<Core>,
    State(surfaces): State<crate::http::Surfaces>,
    headers: HeaderMap,
) -> Response {
    if !surfaces.status_page_enabled {
        return not_found();
    }
    let lang = headers
        .get(ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .map(Lang::negotiate)
        .unwrap_or_default();
    match surfaces.status_page.current(&core, &surfaces.leptos).await {
        Ok(built) => {
            let k = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
            let mut response = cacheable(
                built.html[k].clone().into_response(),
                "text/html; charset=utf-8",
            );
            response
                .headers_mut()
                .insert(VARY, HeaderValue::from_static("accept-language"));
            response
        }
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

#[utoipa::path(get, path = "/status.json", tag = "operations", security(()),
    responses(
        (status = 200, description = "Each route's state and days; no server, address or verifier", body = meshwatch_views::status_page::PublicStatus),
        (status = 404, description = "The status page is off (`MESHWATCH_STATUS_PAGE`)"),
    ))]
/// `GET /status.json`: the same, for scripts.
pub async fn json(
    State(core): State<Core>,
    State(surfaces): State<crate::http::Surfaces>,
) -> Response {
    if !surfaces.status_page_enabled {
        return not_found();
    }
    match surfaces.status_page.current(&core, &surfaces.leptos).await {
        Ok(built) => cacheable(built.json.clone().into_response(), "application/json"),
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}
