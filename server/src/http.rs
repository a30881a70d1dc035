//! What answers requests: the JSON APIs, the subscription, the live event
//! stream, the site's files, the status page, the mesh picture, and the
//! layers every request passes (security headers, the request deadline,
//! compression).

pub mod api;
pub mod compression;
pub mod flashes;
pub mod health;
pub mod language;
pub mod live;
pub mod log_safe;
pub mod mesh_picture;
pub mod metrics;
pub mod preloaded_page;
pub mod qr;
pub mod request_deadline;
pub mod security_headers;
pub mod site;
pub mod state;
pub mod status_page;
pub mod subscription;

use std::sync::Arc;

/// The rendered and public surfaces (a sub-state of the router's,
/// `State<Surfaces>`).
#[derive(Clone)]
pub struct Surfaces {
    pub leptos: leptos::prelude::LeptosOptions,
    /// Turns true when the panel begins to stop: open event streams end
    /// then, or a graceful stop would wait for them until it is killed.
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// `MESHWATCH_STATUS_PAGE`: the public status page is served.
    pub status_page_enabled: bool,
    /// The public status page, built at most every few seconds.
    pub status_page: Arc<status_page::StatusPage>,
    /// `MESHWATCH_METRICS_TOKEN`, when set: `/metrics` wants it.
    pub metrics_token: Option<crate::http::metrics::ScrapeToken>,
    /// Fault control of the live demo fleet, when it runs.
    pub demo: Option<crate::ops::demo::live::DemoControl>,
}
