//! Everything drawn: the page frame, pages and small components.

pub mod actions;
pub mod agent_install;
pub mod chart;
pub mod components;
pub mod connectors;
pub mod format;
pub mod frame;
pub mod maintenance;
pub mod memo;
pub mod pages;
