//! What the pages read: each page's view model ([`pages::Reader`]), the
//! card caches, the indexes of all servers (action runs, hidden hosts),
//! and the adapter that hands reads and writes ([`crate::commands`]) to
//! the Leptos app, translating only.

pub mod card_cache;
pub mod indexes;
pub mod pages;
pub mod panel_adapter;
pub mod recent;
