//! The server cards' 24 h charts, kept for a minute per server: a day of
//! quarter-hour averages barely moves in a minute, while a live card is
//! refetched on every status change anywhere in the fleet.

use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use meshwatch::chart::MetricCharts;
use meshwatch::ServerId;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The card charts 24 h in quarter hours.
pub const BUCKET_S: u32 = 900;
pub const BUCKETS: usize = 96;

const KEEP_FOR: Duration = Duration::from_secs(60);

/// More servers than this and the cache starts over (a bound on memory
/// should ids churn).
const MAX_ENTRIES: usize = 10_000;

#[derive(Default)]
pub struct ChartCache {
    kept: Mutex<HashMap<ServerId, (Instant, MetricCharts)>>,
}

/// The end of the current quarter hour: buckets stay on the clock's
/// quarters rather than sliding with every request.
pub fn chart_end(now: DateTime<Utc>) -> DateTime<Utc> {
    let bucket_ms = i64::from(BUCKET_S) * 1000;
    let end_ms = (now.timestamp_millis() / bucket_ms + 1) * bucket_ms;
    DateTime::from_timestamp_millis(end_ms).unwrap_or(now)
}

impl ChartCache {
    fn lock(&self) -> MutexGuard<'_, HashMap<ServerId, (Instant, MetricCharts)>> {
        // Whole inserts only: a poisoned map is still consistent.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The server's charts up to the current quarter hour: kept ones while
    /// younger than a minute and of the same quarter, else fresh ones.
    pub async fn charts(
        &self,
        store: &Store,
        server: &ServerId,
        now: DateTime<Utc>,
    ) -> Result<MetricCharts, StoreError> {
        let until = chart_end(now);
        if let Some((at, charts)) = self.lock().get(server) {
            if at.elapsed() < KEEP_FOR && charts.until == until {
                return Ok(charts.clone());
            }
        }
        let charts = store
            .metric_charts(server.as_str(), until, BUCKETS, BUCKET_S)
            .await?;
        let mut kept = self.lock();
        if kept.len() >= MAX_ENTRIES {
            kept.clear();
        }
        kept.insert(server.clone(), (Instant::now(), charts.clone()));
        Ok(charts)
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
