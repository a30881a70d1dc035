//! Builds the whole panel (store, bootstrap, router, listener) from a
//! `Config`; tests use exactly this on port 0.

use crate::auth::login::{self, SignInLimits};
use crate::auth::login_limit::{LoginLimiter, SharedLimiter};
use crate::auth::password_check::PasswordChecks;
use crate::auth::Access;
use crate::crypto::secrets::{self, TokenHash};
use crate::engine::Core;
use crate::engine::{Broadcaster, Clock, Evaluator, ReadModel, Replication, Ticker, Ticks};
use crate::http::api::{self, ApiError};
use crate::http::health;
use crate::http::metrics::ScrapeToken;
use crate::http::preloaded_page::{self, PreloadedPages};
use crate::http::site::SiteSource;
use crate::http::state::{AppState, Parts};
use crate::http::Surfaces;
use crate::ops::config::Config;
use crate::ops::database_lock::DatabaseLock;
use crate::ops::demo;
use crate::ops::telemetry::Metrics;
use crate::outbound::delivery::{Delivery, Mailer, Telegram, Webhook};
use crate::outbound::notify::Target;
use crate::outbound::Outbound;
use crate::read::pages::Reader;
use crate::read::panel_adapter::PanelAdapter;
use crate::store::Store;
use app::backend::Backend;
use app::{shell, App};
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, LeptosRoutes};
use meshwatch::account::TokenScope;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tower_http::trace::TraceLayer;

/// The docs/API.md body limit for every request.
pub const BODY_LIMIT: usize = 1 << 20;

/// Name under which the `MESHWATCH_ADMIN_TOKEN` (or generated) token is kept.
const BOOTSTRAP_TOKEN_NAME: &str = "bootstrap";

pub struct Application {
    listener: TcpListener,
    router: Router,
    store: Store,
    background: tokio::task::JoinHandle<()>,
    /// The election and the listener of a replica (PostgreSQL only).
    replication: Vec<tokio::task::JoinHandle<()>>,
    delivery: Option<tokio::task::JoinHandle<()>>,
    /// Carries out the due action runs.
    actions: tokio::task::JoinHandle<()>,
    /// Keeps connected panels in step with the rotation.
    connectors: tokio::task::JoinHandle<()>,
    /// The live demo fleet's agents and listeners (`MESHWATCH_DEMO=1`).
    demo: Option<demo::live::LiveDemo>,
    /// Held from before the migrations until the database is closed: one
    /// panel per database (`None` for an in-memory one).
    database_lock: Option<DatabaseLock>,
    /// Lines to show the operator once at start-up (generated secrets).
    pub announcements: Vec<String>,
    /// The demo's address, sign-in and API token, shown once the panel
    /// listens (`MESHWATCH_DEMO`).
    pub demo_welcome: Option<demo::Welcome>,
    /// Tells open event streams that the panel is stopping.
    stopping: tokio::sync::watch::Sender<bool>,
    /// Runs an evaluator tick on demand (see [`Application::ticks`]).
    ticks: Ticks,
}

impl Application {
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        Self::build_with_clock(config, Clock::System).await
    }

    /// A panel whose evaluator reads the time from `clock` (tests pass a
    /// [`ManualClock`](crate::engine::ManualClock) and advance it).
    pub async fn build_with_clock(config: Config, clock: Clock) -> anyhow::Result<Self> {
        // Before anything touches the database (key file, migrations): a
        // second panel on the same file stops here.
        let database_lock = match crate::store::database_file(config.database_url.as_str())? {
            Some(file) => Some(DatabaseLock::acquire(&file)?),
            None => None,
        };
        let sealing = crate::store::key_file::key_for_database(
            config.secret_key.as_ref(),
            config.database_url.as_str(),
        )?;
        let flashes = crate::http::flashes::sealed_with(sealing.key.clone());
        let store = Store::open_url(&config.database_url, sealing.key).await?;
        let mut announcements = Vec::new();
        if let Some(path) = &sealing.generated {
            announcements.push(key_file_made(path));
        }

        match &config.admin_token {
            Some(token) => {
                store
                    .upsert_api_token(
                        BOOTSTRAP_TOKEN_NAME,
                        &TokenHash::of(token.expose()),
                        TokenScope::Admin,
                    )
                    .await?
            }
            // The demo makes (and shows) its own token: see `demo::seed`.
            None if config.demo.is_none() && store.api_token_count().await? == 0 => {
                let token = secrets::new_token();
                store
                    .upsert_api_token(
                        BOOTSTRAP_TOKEN_NAME,
                        &TokenHash::of(&token),
                        TokenScope::Admin,
                    )
                    .await?;
                announcements.push(format!(
                    "Operator API token (shown once, stored hashed): {token}"
                ));
            }
            None => {}
        }

        let mut demo_tokens = None;
        let mut demo_welcome = None;
        if let Some(mode) = config.demo {
            let seeded = demo::seed(
                &store,
                config
                    .operator_password
                    .as_ref()
                    .map(|p| p.expose().to_owned()),
            )
            .await?;
            demo_welcome = Some(demo::Welcome {
                password: seeded.password,
                api_token: seeded.api_token,
                fleet_token: seeded.fleet_token,
                mode,
                status_page: config.status_page,
            });
            demo_tokens = Some(seeded.agent_tokens);
        }

        let listener = TcpListener::bind(config.listen).await?;
        let address = listener.local_addr()?;
        let demo = match (&demo_tokens, config.demo) {
            (Some(tokens), Some(mode)) => Some(demo::live::start(address, tokens, mode).await?),
            _ => None,
        };
        let front_end = SiteSource::new(config.site_root.as_deref());
        front_end.announce();
        let leptos = front_end.leptos_options(address);
        let metrics = Arc::new(Metrics::new()?);
        // Replicas listen before loading: nothing announced after the
        // load is missed.
        let listening = match store.shared() {
            Some(shared) => Some(shared.listener().await?),
            None => None,
        };
        let evaluator =
            Arc::new(Evaluator::load(store.clone(), metrics.clone(), clock.clone()).await?);
        let read_model = Arc::new(ReadModel::new(evaluator.snapshot(), store.clone()));
        let broadcaster = Broadcaster::default();
        let (stopping, stopping_seen) = tokio::sync::watch::channel(false);
        let state = AppState::new(Parts {
            core: Core {
                store: store.clone(),
                evaluator: evaluator.clone(),
                read_model: read_model.clone(),
                broadcaster: broadcaster.clone(),
                clock: clock.clone(),
                metrics: metrics.clone(),
                replica: config.replica.clone(),
            },
            access: Access {
                limiter: Arc::new(match (store.shared(), &config.secret_key) {
                    (Some(shared), Some(key)) => {
                        SignInLimits::Shared(SharedLimiter::new(shared.clone(), key.expose()))
                    }
                    _ => SignInLimits::Local(LoginLimiter::default()),
                }),
                password_checks: Arc::new(PasswordChecks::new(metrics.password_checks.clone())),
                trusted_proxies: Arc::new(config.trusted_proxies.clone()),
                report_limiter: Arc::default(),
                sessions: Arc::default(),
                site: app::auth::PanelSite::new(config.public_url.clone()),
            },
            outbound: Outbound {
                targets: Arc::new(notification_targets(&config)),
                action_policy: Arc::new(config.action_policy.clone()),
                connector_nudge: Arc::default(),
                hidden_hosts: Arc::default(),
            },
            surfaces: Surfaces {
                leptos,
                stopping: stopping_seen,
                status_page_enabled: config.status_page,
                status_page: Arc::default(),
                metrics_token: config
                    .metrics_token
                    .as_ref()
                    .map(|token| ScrapeToken::new(token.expose())),
                demo: demo.as_ref().map(demo::live::LiveDemo::control),
            },
        });
        let targets = state.outbound.targets.as_ref().clone();
        let delivery = Delivery {
            clock: clock.clone(),
            mailer: match &config.smtp_url {
                Some(url) => Some(Mailer::new(url, &config.notify_from)?),
                None => None,
            },
            webhook: config.webhook_url.clone().map(Webhook::new),
            telegram: config.telegram.as_ref().map(Telegram::new),
        };
        let (background, ticks) = Ticker {
            evaluator: evaluator.clone(),
            read_model,
            broadcaster,
            store: store.clone(),
            clock,
            targets,
        }
        .start();
        let replication = match (store.shared(), listening) {
            (Some(shared), Some(listening)) => {
                Replication {
                    store: shared.clone(),
                    evaluator,
                    ticks: ticks.clone(),
                    replica: config.replica.clone(),
                    metrics: metrics.clone(),
                    listener: listening,
                }
                .start()
                .await
            }
            _ => {
                // One panel per SQLite database: it evaluates.
                metrics
                    .evaluator
                    .with_label_values(&[config.replica.as_str()])
                    .set(1);
                Vec::new()
            }
        };
        let delivery = delivery
            .delivers_anything()
            .then(|| tokio::spawn(delivery.run(store.clone())));
        let actions = tokio::spawn(
            crate::outbound::actions::Runner::new(
                store.clone(),
                state.core.read_model.clone(),
                state.core.clock.clone(),
                state.outbound.action_policy.clone(),
                state.outbound.targets.clone(),
                state.core.metrics.action_rounds.clone(),
            )
            .run(),
        );
        let connectors = tokio::spawn(
            crate::outbound::connectors::Syncer {
                store: store.clone(),
                read_model: state.core.read_model.clone(),
                clock: state.core.clock.clone(),
                targets: state.outbound.targets.clone(),
                nudge: state.outbound.connector_nudge.clone(),
                hidden_hosts: state.outbound.hidden_hosts.clone(),
            }
            .run(),
        );
        Ok(Self {
            actions,
            connectors,
            listener,
            router: router(state, &front_end, flashes),
            store,
            background,
            replication,
            delivery,
            demo,
            database_lock,
            announcements,
            demo_welcome,
            stopping,
            ticks,
        })
    }

    /// A handle that runs an evaluator tick at once and waits until its
    /// changes are recorded (tests, rather than waiting for the next second).
    pub fn ticks(&self) -> Ticks {
        self.ticks.clone()
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` resolves, then finishes in-flight requests
    /// and closes the database cleanly.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let service = self
            .router
            .into_make_service_with_connect_info::<SocketAddr>();
        let stopping = self.stopping;
        let shutdown = async move {
            shutdown.await;
            stopping.send_replace(true);
        };
        axum::serve(self.listener, service)
            .with_graceful_shutdown(shutdown)
            .await?;
        drop(self.demo);
        self.background.abort();
        // The evaluator's lock goes with its connection: another replica
        // takes over at once.
        for task in &self.replication {
            task.abort();
        }
        if let Some(delivery) = &self.delivery {
            delivery.abort();
        }
        self.actions.abort();
        self.connectors.abort();
        // Closing waits for pooled connections; never let it hold up exit.
        if tokio::time::timeout(Duration::from_secs(5), self.store.close())
            .await
            .is_err()
        {
            tracing::warn!("database connections did not close within 5 s");
        }
        // Only now may another panel (or a restore) have the database.
        drop(self.database_lock);
        Ok(())
    }
}

/// What to tell the operator about a key file this start made.
pub fn key_file_made(path: &std::path::Path) -> String {
    format!(
        "Made {}: the key that seals the subscription links, proxy credentials and action \
         calls kept in the database. Back it up (a database restored without it shows no \
         links, and its subscriptions wait for the credentials to be given again), or set \
         MESHWATCH_SECRET_KEY to its content",
        path.display()
    )
}

/// Where each notification goes: the email address, the webhook (by its
/// label: the URL stays with delivery), each Telegram chat. With none, one
/// undeliverable row is still queued so the panel can show it.
fn notification_targets(config: &Config) -> Vec<Target> {
    let mut targets: Vec<Target> = config
        .notify_to
        .iter()
        .cloned()
        .map(Target::Email)
        .collect();
    targets.extend(config.webhook_url.iter().map(Target::webhook));
    if let Some(telegram) = &config.telegram {
        targets.extend(telegram.chats.iter().cloned().map(Target::Telegram));
    }
    if targets.is_empty() {
        vec![Target::Nowhere]
    } else {
        targets
    }
}

fn router(state: AppState, front_end: &SiteSource, flashes: app::flash::Flashes) -> Router {
    let backend: Backend = Arc::new(PanelAdapter {
        read: Reader {
            store: state.core.store.clone(),
            replica: state.core.replica.clone(),
            read_model: state.core.read_model.clone(),
            evaluator: state.core.evaluator.clone(),
            clock: state.core.clock.clone(),
            card_cache: Default::default(),
            runs_index: Default::default(),
            hidden_hosts: state.outbound.hidden_hosts.clone(),
            action_policy: state.outbound.action_policy.clone(),
        },
        sessions: state.access.sessions.clone(),
        limiter: state.access.limiter.clone(),
        password_checks: state.access.password_checks.clone(),
        targets: state.outbound.targets.clone(),
        connector_nudge: state.outbound.connector_nudge.clone(),
    });
    // The preloaded pages are rendered in one pass (`preloaded_page`);
    // leptos_axum renders the rest.
    let mut routes = generate_route_list(App);
    routes.retain(|route| !preloaded_page::is_preloaded(route.path()));
    let leptos = state.surfaces.leptos.clone();
    let backend_for_pages = backend.clone();
    let site = state.access.site.clone();
    // What every page render and server function finds in its context.
    let context = move || {
        provide_context(backend.clone());
        provide_context(flashes.clone());
        provide_context(site.clone());
        crate::http::security_headers::provide_nonce();
    };
    let pages = Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/login", post(login::login))
        .route("/logout", post(login::logout))
        .route("/sub/{token}", get(crate::http::subscription::serve))
        .route("/users/{id}/qr.svg", get(crate::http::qr::serve))
        .route("/mesh.svg", get(crate::http::mesh_picture::serve))
        .route("/metrics", get(crate::http::metrics::serve))
        .route("/status", get(crate::http::status_page::html))
        .route("/status.json", get(crate::http::status_page::json))
        .route("/events", get(crate::http::live::events))
        .route("/lang", post(crate::http::language::choose))
        .route("/api/v1/openapi.json", get(api::openapi::serve))
        .nest("/api/v1", api::automation::router(state.clone()))
        .nest("/api/agent/v1", api::agent::router(state.clone()))
        .route(
            "/api/{*rest}",
            axum::routing::any(|| async { ApiError::not_found("no such API endpoint") }),
        )
        .leptos_routes_with_context(&state, routes, context.clone(), move || {
            shell(leptos.clone())
        });
    let pages = preloaded_page::routes(
        pages,
        PreloadedPages {
            backend: backend_for_pages,
            site: state.access.site.clone(),
            options: state.surfaces.leptos.clone(),
            context: {
                let (state, context) = (state.clone(), context.clone());
                // What leptos_axum adds for its own routes' renders.
                Arc::new(move || {
                    provide_context(leptos_router::Method::Get);
                    provide_context(state.clone());
                    context();
                })
            },
        },
    );
    // The front end's files, and the not-found page — a Leptos page too:
    // it needs the nonce.
    let pages = front_end
        .fallback(pages, state.surfaces.leptos.clone(), context, shell)
        .layer(axum::middleware::from_fn_with_state(
            state.access.site.clone(),
            crate::http::flashes::clear_shown,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            login::guard_pages,
        ));
    // Outside the guard, so its redirects carry the headers too.
    let router = crate::http::security_headers::around(pages, state.access.site.clone())
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(
            crate::http::request_deadline::deadline,
        ));
    // Debug builds (the test suites, `make dev`) check every API answer
    // against docs/openapi.json, the request deadline's 503 included.
    let router = if cfg!(debug_assertions) {
        router.layer(axum::middleware::from_fn(
            crate::http::api::openapi::contract::check,
        ))
    } else {
        router
    };
    // Outside the contract check, which reads the answers as sent.
    router
        .layer(crate::http::compression::layer())
        .layer(TraceLayer::new_for_http().make_span_with(crate::http::log_safe::request_span))
        .with_state(state)
}
