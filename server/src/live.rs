//! `GET /events`: verdict changes pushed to open panel pages as
//! server-sent events, fed by the engine's broadcast channel. The page
//! guard already requires a session for it (it is not a public path).
//!
//! Each change is one `verdict` event carrying the engine's
//! `VerdictChange`. A subscriber too slow to keep up gets one `resync`
//! event instead of the changes it missed; browsers reconnect on their own
//! and the page refetches on (re)open, so a dropped stream resumes cleanly.

use crate::state::AppState;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

pub async fn events(
    State(state): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let changes = state.engine.subscribe();
    let stream = stream::unfold(changes, |mut changes| async move {
        let event = match changes.recv().await {
            Ok(change) => Event::default()
                .event("verdict")
                .json_data(&change)
                .unwrap_or_else(|_| Event::default().event("resync").data("{}")),
            Err(RecvError::Lagged(_)) => Event::default().event("resync").data("{}"),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(event), changes))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
