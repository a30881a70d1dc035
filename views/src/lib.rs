//! meshwatch-views: the product's words and the view models the pages
//! and messages are built from, apart from the rules they show.
//!
//! # Layout
//!
//! - [`i18n`]: the six languages — the catalogue of UI texts (`i18n::ui`),
//!   the counted phrases with CLDR plurals (`i18n::counted`), numbers,
//!   dates and lists as each language writes them (`i18n::numbers`), the
//!   notifications' subjects and bodies (`i18n::notice`), and the pinned
//!   texts that keep every wording reviewed (`i18n::pins`).
//! - [`views`]: the view models every page renders, built by the server
//!   and carried to the islands as they are.
//! - [`server_list`]: the servers list's filter and pages.
//! - [`chart`] and [`uptime`]: a server card's metric charts and its
//!   uptime figures.
//! - [`status_page`]: the public status page's route states and days.
//! - [`mesh_picture`] and [`markup`]: the mesh as one SVG picture, and the
//!   escaping it is written with.
//!
//! It depends on the domain crate (`meshwatch`) and nothing above it; the
//! domain knows nothing of it. Changing a word rebuilds this crate, the app
//! and the server — never the domain or the agent.
//!
//! This crate is compiled natively for the panel server and to WASM for
//! the islands, so it holds no I/O.

pub mod chart;
pub mod i18n;
pub mod markup;
pub mod mesh_picture;
pub mod server_list;
pub mod status_page;
pub mod uptime;
pub mod views;
