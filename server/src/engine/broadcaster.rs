//! Recorded verdict changes, pushed to whoever listens in this process:
//! the open panel pages (`GET /events`). A change is published only once
//! it is in the status history, so a page that refetches on an event reads
//! at least that much.
//!
//! Whoever learns of recorded changes publishes them here: today the
//! evaluator's ticker right after recording them; on a replica that does
//! not evaluate, whatever loads the verdicts another replica recorded.

use meshwatch::verdict::VerdictChange;
use tokio::sync::broadcast;

/// How many changes a slow listener may fall behind before it is told to
/// resync (see `live.rs`).
const BACKLOG: usize = 1024;

#[derive(Clone)]
pub struct Broadcaster {
    changes: broadcast::Sender<VerdictChange>,
}

impl Default for Broadcaster {
    fn default() -> Self {
        Self {
            changes: broadcast::channel(BACKLOG).0,
        }
    }
}

impl Broadcaster {
    /// Pushes recorded changes to every listener, in order.
    pub fn publish(&self, changes: &[VerdictChange]) {
        for change in changes {
            // No listener is fine: nobody has a page open.
            let _ = self.changes.send(change.clone());
        }
    }

    /// A stream of the changes published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<VerdictChange> {
        self.changes.subscribe()
    }
}
