//! The router's state: four sub-states, each owned by its layer, that
//! handlers extract alone with `State<Core>`, `State<Access>`, … (axum's
//! `FromRef`), so a handler depends on the parts it uses.

use crate::auth::Access;
use crate::engine::Core;
use crate::http::Surfaces;
use crate::outbound::Outbound;
use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use std::sync::Arc;

/// A handle on the parts (one `Arc`): axum clones the state for every
/// middleware and extractor of every request, and cloning the parts
/// themselves took a quarter of a subscription's CPU.
#[derive(Clone)]
pub struct AppState(Arc<Parts>);

pub struct Parts {
    /// The evidence, the verdicts and the database.
    pub core: Core,
    /// Who may ask: sign-in, sessions, proxies, report limits.
    pub access: Access,
    /// What meshwatch does outside: notifications, actions, panels.
    pub outbound: Outbound,
    /// The rendered and public surfaces: Leptos, the status page, /metrics.
    pub surfaces: Surfaces,
}

impl AppState {
    pub fn new(parts: Parts) -> Self {
        Self(Arc::new(parts))
    }
}

impl std::ops::Deref for AppState {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.0
    }
}

macro_rules! sub_state {
    ($($part:ident: $ty:ty),* $(,)?) => {$(
        impl FromRef<AppState> for $ty {
            fn from_ref(state: &AppState) -> Self {
                state.$part.clone()
            }
        }
    )*};
}

sub_state!(core: Core, access: Access, outbound: Outbound, surfaces: Surfaces);

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.surfaces.leptos.clone()
    }
}
