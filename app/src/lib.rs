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
pub mod lang;
pub mod live;
pub mod ui;

pub use app::{shell, App};
pub use error::AppError;

/// Browser entry point: takes over the server-rendered HTML.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
}
