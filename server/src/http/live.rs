//! `GET /events`: verdict changes pushed to open panel pages as
//! server-sent events, fed by the engine's [`Broadcaster`](crate::engine::Broadcaster).
//! The page guard already requires a session for it (it is not a public path).
//!
//! Each change is one `verdict` event carrying the engine's
//! `VerdictChange`. A subscriber too slow to keep up gets one `resync`
//! event instead of the changes it missed; browsers reconnect on their own
//! and the page refetches on (re)open, so a dropped stream resumes cleanly.
//!
//! A stream lives no longer than its session: it ends at once when the
//! session is signed out or a password change ends it in this process, and
//! the session is checked again every [`SESSION_RECHECK`] for sessions
//! ended elsewhere (another replica, `create-operator`) or expired. Every
//! stream ends when the panel begins to stop.

use crate::auth::sessions::Ended;
use crate::crypto::secrets::TokenHash;
use crate::http::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// How often an open stream asks whether its session still exists.
pub const SESSION_RECHECK: Duration = Duration::from_secs(10);

struct Stream {
    state: AppState,
    token: TokenHash,
    changes: tokio::sync::broadcast::Receiver<meshwatch::verdict::VerdictChange>,
    ended: tokio::sync::broadcast::Receiver<Ended>,
    recheck: tokio::time::Interval,
    stopping: tokio::sync::watch::Receiver<bool>,
}

impl Stream {
    async fn session_lives(&self) -> bool {
        // A store error is not proof the session ended: keep streaming.
        self.state
            .access
            .sessions
            .operator(&self.state.core.store, &self.token)
            .await
            .map_or(true, |operator| operator.is_some())
    }

    /// The next event, or `None` when the stream must end.
    async fn next(&mut self) -> Option<Event> {
        loop {
            tokio::select! {
                change = self.changes.recv() => {
                    return match change {
                        Ok(change) => Some(
                            Event::default()
                                .event("verdict")
                                .json_data(&change)
                                .unwrap_or_else(|_| resync()),
                        ),
                        Err(RecvError::Lagged(_)) => Some(resync()),
                        Err(RecvError::Closed) => None,
                    };
                }
                ended = self.ended.recv() => {
                    let mine = match ended {
                        Ok(Ended::One(hash)) => hash == self.token.as_str(),
                        Ok(Ended::Some) | Err(RecvError::Lagged(_)) => !self.session_lives().await,
                        Err(RecvError::Closed) => false,
                    };
                    if mine {
                        return None;
                    }
                }
                // Browsers reconnect on their own, to this panel once it is
                // back or to another replica.
                () = stopped(&mut self.stopping) => return None,
                _ = self.recheck.tick() => {
                    if !self.session_lives().await {
                        return None;
                    }
                }
            }
        }
    }
}

/// Resolves once the panel begins to stop (or can no longer say).
async fn stopped(stopping: &mut tokio::sync::watch::Receiver<bool>) {
    // The answer borrows the channel: keep only the fact.
    let _ = stopping.wait_for(|stopping| *stopping).await;
}

fn resync() -> Event {
    Event::default().event("resync").data("{}")
}

pub async fn events(State(state): State<AppState>, headers: HeaderMap) -> Response {
    // The page guard let this request through with a live session.
    let Some(token) = state.access.site.session_token(&headers).map(TokenHash::of) else {
        return StatusCode::UNAUTHORIZED.into_response();
    };
    let mut recheck = tokio::time::interval(SESSION_RECHECK);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    recheck.reset();
    let stream = Stream {
        changes: state.core.broadcaster.subscribe(),
        ended: state.access.sessions.ended(),
        stopping: state.surfaces.stopping.clone(),
        state,
        token,
        recheck,
    };
    // A first comment at once: a proxy speaking HTTP/2 to the browser
    // (nginx) may hold the response's headers back until body bytes
    // arrive, and the browser counts the stream as open only then.
    let opened = stream::once(async { Ok(Event::default().comment("open")) });
    let events = opened.chain(stream::unfold(stream, |mut stream| async move {
        let event = stream.next().await?;
        Some((Ok::<_, std::convert::Infallible>(event), stream))
    }));
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
