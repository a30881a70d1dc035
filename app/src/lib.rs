//! The meshwatch panel: Leptos pages, components and the server functions
//! they call. Compiled with `ssr` into the server and with `hydrate` to WASM.
//!
//! # Layout
//!
//! - [`app`]: the shell and the one list of page routes (`page_routes!`),
//!   from which the router and [`preload`]'s route keys are both made.
//! - [`ui`]: the pages (`ui::pages`), the frame around them, and the
//!   components and islands they share (charts, forms, the live
//!   indicator).
//! - [`api`]: the server functions the forms and islands call.
//! - [`backend`] (ssr): the trait the server implements to give the pages
//!   their data and take their writes — the seam between the app and
//!   `server/src/read/panel_adapter.rs`; [`preload`] loads a page's data
//!   ahead by its route.
//! - [`auth`] (ssr), [`flash`], [`lang`], [`live`], [`error`]: the signed-in
//!   operator, one-shot messages, the language chosen, the live event
//!   stream, and `AppError`.
//!
//! The words and view models come from `meshwatch-views`, the domain types
//! from `meshwatch`.
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
