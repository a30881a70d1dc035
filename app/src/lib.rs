//! The meshwatch panel: Leptos pages, components and the server functions
//! they call. Compiled with `ssr` into the server and with `hydrate` to WASM.
#![recursion_limit = "256"]

pub mod api;
pub mod app;
#[cfg(feature = "ssr")]
pub mod auth;
#[cfg(feature = "ssr")]
pub mod backend;
pub mod error;
pub mod flash;
pub mod lang;
pub mod live;
pub mod preload;
#[cfg(feature = "ssr")]
pub mod status_page;
pub mod ui;

pub use app::{shell, App};
pub use error::AppError;

/// Browser entry point. The pages are rendered on the server only; what
/// runs in the browser are the islands (`#[island]`: the live indicator
/// that refreshes verdicts in place, the servers filter, the copy button),
/// each hydrated where it sits, so the WASM carries no page code.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_islands();
}
