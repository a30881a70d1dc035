//! Builds the whole panel (store, bootstrap, router, listener) from a
//! `Config`; tests use exactly this on port 0.

use crate::api::{self, ApiError};
use crate::config::Config;
use crate::demo;
use crate::login::{self, LoginLimiter};
use crate::ops;
use crate::panel::PanelStore;
use crate::secrets::{self, TokenHash};
use crate::state::AppState;
use crate::store::Store;
use app::backend::Backend;
use app::{shell, App};
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use leptos::prelude::{provide_context, LeptosOptions};
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tower_http::trace::TraceLayer;

/// The API.md body limit for every request.
pub const BODY_LIMIT: usize = 1 << 20;

/// Name under which the `MESHWATCH_ADMIN_TOKEN` (or generated) token is kept.
const BOOTSTRAP_TOKEN_NAME: &str = "bootstrap";

pub struct Application {
    listener: TcpListener,
    router: Router,
    store: Store,
    /// Lines to show the operator once at start-up (generated secrets).
    pub announcements: Vec<String>,
}

impl Application {
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        let store = Store::open(&config.database_url).await?;
        let mut announcements = Vec::new();

        match &config.admin_token {
            Some(token) => {
                store
                    .upsert_api_token(BOOTSTRAP_TOKEN_NAME, &TokenHash::of(token.expose()))
                    .await?
            }
            None if store.api_token_count().await? == 0 => {
                let token = secrets::new_token();
                store
                    .upsert_api_token(BOOTSTRAP_TOKEN_NAME, &TokenHash::of(&token))
                    .await?;
                announcements.push(format!(
                    "Operator API token (shown once, stored hashed): {token}"
                ));
            }
            None => {}
        }

        if config.demo {
            let password = demo::seed(
                &store,
                config
                    .operator_password
                    .as_ref()
                    .map(|p| p.expose().to_owned()),
            )
            .await?;
            announcements.push(format!(
                "Demo fleet seeded. Sign in as {:?} with password {password:?}",
                demo::DEMO_OPERATOR
            ));
        }

        let listener = TcpListener::bind(config.listen).await?;
        let address = listener.local_addr()?;
        let leptos = LeptosOptions::builder()
            .output_name("meshwatch")
            .site_root(config.site_root.as_str())
            .site_pkg_dir("pkg")
            .site_addr(address)
            .build();
        let state = AppState {
            store: store.clone(),
            leptos,
            limiter: Arc::new(LoginLimiter::default()),
        };
        Ok(Self {
            listener,
            router: router(state),
            store,
            announcements,
        })
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
        axum::serve(self.listener, service)
            .with_graceful_shutdown(shutdown)
            .await?;
        self.store.close().await;
        Ok(())
    }
}

fn router(state: AppState) -> Router {
    let backend: Backend = Arc::new(PanelStore {
        store: state.store.clone(),
    });
    let routes = generate_route_list(App);
    let leptos = state.leptos.clone();
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/login", post(login::login))
        .route("/logout", post(login::logout))
        .nest("/api/v1", api::automation::router(state.clone()))
        .route(
            "/api/{*rest}",
            axum::routing::any(|| async { ApiError::not_found("no such API endpoint") }),
        )
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(backend.clone()),
            move || shell(leptos.clone()),
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            login::guard_pages,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
