//! What a server card reads from the store, kept per server so that an
//! open card costs no store read:
//! - the latest metrics and 30 days of status changes, kept until the
//!   server's next stored report or status change (the read model's
//!   [`written`](crate::engine::ReadModel::written) mark says when);
//! - the 24 h charts, kept for a minute: a day of quarter-hour averages
//!   barely moves in a minute, while a live card is refetched on every
//!   status change anywhere in the fleet. A new quarter hour does not end
//!   them early: every card's charts would then be read again in the same
//!   second; each waits out its own minute instead.

use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use meshwatch::agent_api::Metrics;
use meshwatch::status::ServerStatus;
use meshwatch::ServerId;
use meshwatch_views::chart::MetricCharts;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The card charts 24 h in quarter hours.
pub const BUCKET_S: u32 = 900;
pub const BUCKETS: usize = 96;

const CHARTS_KEPT_FOR: Duration = Duration::from_secs(60);

/// How far back the status history (and uptime) reaches.
pub const HISTORY_DAYS: i64 = 30;

/// More servers than this and the cache starts over (a bound on memory
/// should ids churn).
const MAX_ENTRIES: usize = 10_000;

/// A server's latest metrics and status changes (ascending; the first may
/// precede the 30-day window and gives the status at its start).
#[derive(Debug, Default)]
pub struct Recent {
    pub metrics: Option<Metrics>,
    pub changes: Vec<(DateTime<Utc>, ServerStatus)>,
}

/// One server's kept parts, each with what says it is still current.
#[derive(Default, Clone)]
struct Kept {
    recent: Option<(u64, Arc<Recent>)>,
    charts: Option<(Instant, Arc<MetricCharts>)>,
}

#[derive(Default)]
pub struct CardCache {
    kept: Mutex<HashMap<ServerId, Kept>>,
}

/// The end of the current quarter hour: buckets stay on the clock's
/// quarters rather than sliding with every request.
pub fn chart_end(now: DateTime<Utc>) -> DateTime<Utc> {
    let bucket_ms = i64::from(BUCKET_S) * 1000;
    let end_ms = (now.timestamp_millis() / bucket_ms + 1) * bucket_ms;
    DateTime::from_timestamp_millis(end_ms).unwrap_or(now)
}

impl CardCache {
    fn lock(&self) -> MutexGuard<'_, HashMap<ServerId, Kept>> {
        // Whole inserts only: a poisoned map is still consistent.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The server's recent data and charts. `written` is the read model's mark
    /// for the server taken before this call: data read now is at least
    /// that new, so it is kept under that mark and served until it moves.
    pub async fn read(
        &self,
        store: &Store,
        server: &ServerId,
        written: u64,
        now: DateTime<Utc>,
    ) -> Result<(Arc<Recent>, Arc<MetricCharts>), StoreError> {
        let kept = self.lock().get(server).cloned().unwrap_or_default();
        let recent = kept.recent.filter(|(mark, _)| *mark == written);
        let charts = kept.charts.filter(|(at, _)| at.elapsed() < CHARTS_KEPT_FOR);
        if let (Some((_, recent)), Some((_, charts))) = (&recent, &charts) {
            return Ok((recent.clone(), charts.clone()));
        }
        let read_recent = async {
            if let Some(kept) = &recent {
                return Ok(kept.clone());
            }
            let since = now - chrono::Duration::days(HISTORY_DAYS);
            let (metrics, changes) = tokio::try_join!(
                store.latest_metrics(server),
                store.status_changes_since(server, since),
            )?;
            Ok::<_, StoreError>((written, Arc::new(Recent { metrics, changes })))
        };
        let read_charts = async {
            if let Some(kept) = &charts {
                return Ok(kept.clone());
            }
            let fresh = store
                .metric_charts(server, chart_end(now), BUCKETS, BUCKET_S)
                .await?;
            Ok((Instant::now(), Arc::new(fresh)))
        };
        let (recent, charts) = tokio::try_join!(read_recent, read_charts)?;
        let mut kept = self.lock();
        if kept.len() >= MAX_ENTRIES {
            kept.clear();
        }
        let entry = kept.entry(server.clone()).or_default();
        // A newer read may have landed meanwhile: keep the newest mark.
        if entry
            .recent
            .as_ref()
            .is_none_or(|(mark, _)| *mark <= written)
        {
            entry.recent = Some(recent.clone());
        }
        entry.charts = Some(charts.clone());
        Ok((recent.1, charts.1))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn charts_end_at_the_next_quarter_hour() {
        let at = |s: &str| {
            chrono::DateTime::parse_from_rfc3339(s)
                .expect("valid")
                .with_timezone(&chrono::Utc)
        };
        assert_eq!(
            super::chart_end(at("2026-12-02T10:07:30Z")),
            at("2026-12-02T10:15:00Z")
        );
        assert_eq!(
            super::chart_end(at("2026-12-02T10:15:00Z")),
            at("2026-12-02T10:30:00Z")
        );
    }
}
