//! meshwatch-server: the panel's HTTP server, as a library so integration
//! tests drive exactly what the binary serves.
// The panel's view types (in islands mode) are deep.
#![recursion_limit = "256"]

pub mod actions;
pub mod api;
pub mod card_cache;
pub mod cli;
pub mod client_address;
pub mod config;
pub mod connectors;
pub mod database_lock;
pub mod delivery;
pub mod demo;
pub mod engine;
pub mod flashes;
pub mod language;
pub mod live;
pub mod login;
pub mod login_limit;
pub mod maintenance;
pub mod mesh_picture;
pub mod notify;
pub mod ops;
pub mod panel_adapter;
pub mod password_check;
pub mod qr;
pub mod report_limit;
pub mod request_deadline;
pub mod runs_index;
pub mod sealing;
pub mod secrets;
pub mod security_headers;
pub mod sessions;
pub mod site;
pub mod startup;
pub mod state;
pub mod status_page;
pub mod store;
pub mod subscription;
pub mod telemetry;
