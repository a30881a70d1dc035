//! What the pages read: the card caches, the action runs index, and the
//! adapter that translates the engine's state for the Leptos app.

pub mod card_cache;
pub mod panel_adapter;
pub mod runs_index;
