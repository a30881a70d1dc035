//! Several panel replicas on one PostgreSQL database, and which of them
//! evaluates. No consensus of our own: the replica holding a PostgreSQL
//! advisory lock, on a connection of its own, is the evaluator; when it
//! dies its connection drops, the lock frees, and the next replica to try
//! (each tries every [`LOCK_CHECK`]) takes it, raises the evaluator term
//! that fences the old one's writes off, and rebuilds its state from the
//! checkpoint plus the reports after it.
//!
//! Every replica listens on one channel (`LISTEN`): stored reports,
//! recorded changes, fleet and settings changes. A notification only says
//! what to re-read, so one lost with a dropped connection costs nothing:
//! the listener re-reads everything when it reconnects, and the ticker
//! catches up on reports every second anyway.

use super::{Evaluator, Ticks, CHANGES_RECORDED, FLEET_CHANGED, REPORTS_STORED, SETTINGS_CHANGED};
use crate::ops::config::ReplicaName;
use crate::ops::telemetry::Metrics;
use crate::store::postgres::{self, EVALUATOR_LOCK};
use crate::store::StoreError;
use sqlx::postgres::PgListener;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// How often a replica tries the evaluator's lock, and how often the
/// evaluator checks that the connection holding it is alive.
const LOCK_CHECK: Duration = Duration::from_secs(1);

/// How long that check may take before the connection counts as lost.
const CHECK_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a starting replica tries for the lock before it follows.
const START_WAIT: Duration = Duration::from_secs(2);
const START_RETRY: Duration = Duration::from_millis(50);

/// The wait before connecting again after a failed connection.
const RECONNECT: Duration = Duration::from_secs(1);

pub struct Replication {
    pub store: postgres::Store,
    pub evaluator: Arc<Evaluator>,
    /// Runs a tick now: a replica that does not evaluate then tells its
    /// live pages of the changes just recorded.
    pub ticks: Ticks,
    pub replica: ReplicaName,
    pub metrics: Arc<Metrics>,
    /// Listening since before the evaluator loaded its state, so that no
    /// announcement after the load is missed.
    pub listener: PgListener,
}

impl Replication {
    /// Tries the evaluator's lock once (a lone replica then evaluates from
    /// its first request on), then starts the election and the listener;
    /// both run until aborted (an aborted election closes its connection,
    /// which frees the lock).
    pub async fn start(self) -> Vec<JoinHandle<()>> {
        let (this, listener) = self.split();
        this.show_role(false);
        let mut held = None;
        if let Ok(mut conn) = this.store.connect_alone().await {
            // A panel restarted in place finds its old connection still
            // holding the lock for a moment, until the database sees it
            // closed.
            let deadline = tokio::time::Instant::now() + START_WAIT;
            let mut locked = try_lock(&mut conn).await;
            while matches!(locked, Ok(false)) && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(START_RETRY).await;
                locked = try_lock(&mut conn).await;
            }
            if matches!(locked, Ok(true)) {
                match this.take_over().await {
                    Ok(()) => held = Some(conn),
                    Err(err) => this.let_go(err),
                }
            }
        }
        vec![
            tokio::spawn(this.clone().elect(held)),
            tokio::spawn(this.listen(listener)),
        ]
    }

    fn split(self) -> (Arc<Following>, PgListener) {
        let Self {
            store,
            evaluator,
            ticks,
            replica,
            metrics,
            listener,
        } = self;
        let following = Following {
            store,
            evaluator,
            ticks,
            replica,
            metrics,
        };
        (Arc::new(following), listener)
    }
}

/// What the election and the listener share.
struct Following {
    store: postgres::Store,
    evaluator: Arc<Evaluator>,
    ticks: Ticks,
    replica: ReplicaName,
    metrics: Arc<Metrics>,
}

impl Following {
    fn show_role(&self, evaluating: bool) {
        self.metrics
            .evaluator
            .with_label_values(&[self.replica.as_str()])
            .set(i64::from(evaluating));
    }

    /// Holds the lock while its connection lives (`held`: it is held
    /// already), then tries to take it again, forever.
    async fn elect(self: Arc<Self>, mut held: Option<sqlx::PgConnection>) {
        loop {
            let mut conn = match held.take() {
                Some(conn) => conn,
                None => match self.lock().await {
                    Some(conn) => conn,
                    None => continue,
                },
            };
            while alive(&mut conn).await {
                tokio::time::sleep(LOCK_CHECK).await;
            }
            tracing::warn!(replica = %self.replica, "lost the evaluator's lock connection: following from now on");
            drop(conn);
            self.evaluator.demote().await;
            self.show_role(false);
        }
    }

    /// Connects, waits for the lock and takes over: the connection that
    /// holds it, or `None` if something failed on the way.
    async fn lock(&self) -> Option<sqlx::PgConnection> {
        let mut conn = match self.store.connect_alone().await {
            Ok(conn) => conn,
            Err(err) => {
                tracing::warn!(error = %err, "cannot connect for the evaluator's lock");
                tokio::time::sleep(RECONNECT).await;
                return None;
            }
        };
        if !self.wait_for_lock(&mut conn).await {
            return None;
        }
        match self.take_over().await {
            Ok(()) => Some(conn),
            Err(err) => {
                // Dropping the connection frees the lock for another replica.
                self.let_go(err);
                tokio::time::sleep(RECONNECT).await;
                None
            }
        }
    }

    fn let_go(&self, err: StoreError) {
        tracing::error!(error = %err, "took the evaluator's lock but cannot evaluate; letting it go");
        self.store.drop_evaluator_term();
    }

    /// Tries the lock until it is held (true) or the connection fails.
    async fn wait_for_lock(&self, conn: &mut sqlx::PgConnection) -> bool {
        loop {
            match try_lock(conn).await {
                Ok(true) => return true,
                Ok(false) => tokio::time::sleep(LOCK_CHECK).await,
                Err(err) => {
                    tracing::warn!(error = %err, "the evaluator's lock connection failed");
                    tokio::time::sleep(RECONNECT).await;
                    return false;
                }
            }
        }
    }

    async fn take_over(&self) -> Result<(), StoreError> {
        let term = self
            .store
            .take_evaluator_term(self.replica.as_str())
            .await?;
        self.evaluator.promote().await?;
        self.show_role(true);
        tracing::info!(replica = %self.replica, term, "this replica evaluates now");
        Ok(())
    }

    async fn listen(self: Arc<Self>, listening: PgListener) {
        let mut listening = Some(listening);
        loop {
            let mut listener = match listening.take() {
                Some(listener) => listener,
                None => match self.store.listener().await {
                    Ok(listener) => {
                        // Whatever was announced while nobody listened.
                        self.reread().await;
                        listener
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, "cannot listen to the other replicas");
                        tokio::time::sleep(RECONNECT).await;
                        continue;
                    }
                },
            };
            loop {
                match listener.try_recv().await {
                    Ok(Some(first)) => {
                        let mut topics = HashSet::new();
                        let mut next = Some(first);
                        while let Some(notification) = next {
                            if let Some(topic) = self.store.topic_of(notification.payload()) {
                                topics.insert(topic.to_owned());
                            }
                            next = listener.next_buffered();
                        }
                        self.follow(&topics).await;
                    }
                    // The connection dropped; the next call reconnects.
                    Ok(None) => {
                        tracing::warn!("the listen connection dropped: re-reading everything");
                        self.reread().await;
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, "listening to the other replicas failed");
                        tokio::time::sleep(RECONNECT).await;
                        break;
                    }
                }
            }
        }
    }

    /// Re-reads what the announced topics say changed.
    async fn follow(&self, topics: &HashSet<String>) {
        let has = |topic: &str| topics.contains(topic);
        if has(FLEET_CHANGED) {
            log_failure("the fleet", self.evaluator.follow_fleet().await);
        }
        if has(SETTINGS_CHANGED) {
            log_failure("the settings", self.evaluator.follow_settings().await);
        }
        if has(REPORTS_STORED) {
            log_failure("the reports", self.evaluator.catch_up().await);
        }
        if has(CHANGES_RECORDED) && !self.evaluator.evaluating() {
            self.ticks.tick().await;
        }
    }

    async fn reread(&self) {
        let all = [
            FLEET_CHANGED,
            SETTINGS_CHANGED,
            REPORTS_STORED,
            CHANGES_RECORDED,
        ];
        self.follow(&all.into_iter().map(str::to_owned).collect())
            .await;
    }
}

/// Takes the evaluator's lock if no other replica holds it.
async fn try_lock(conn: &mut sqlx::PgConnection) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar::<_, bool>("SELECT pg_try_advisory_lock($1)")
        .bind(EVALUATOR_LOCK)
        .fetch_one(&mut *conn)
        .await
}

/// The evaluator's lock connection answers.
async fn alive(conn: &mut sqlx::PgConnection) -> bool {
    let ping = sqlx::query("SELECT 1").execute(&mut *conn);
    matches!(tokio::time::timeout(CHECK_TIMEOUT, ping).await, Ok(Ok(_)))
}

fn log_failure(what: &str, outcome: Result<(), StoreError>) {
    if let Err(err) = outcome {
        tracing::error!(error = %err, "cannot re-read {what} another replica changed");
    }
}
