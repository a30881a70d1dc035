//! Running the panel: configuration, start-up, the command line, the demo
//! fleet, the database lock and telemetry.

pub mod cli;
pub mod config;
pub mod database_lock;
pub mod demo;
pub mod startup;
pub mod telemetry;
