//! The per-agent rate limit on reports: a token bucket per server.
//!
//! Hand-written rather than `governor`: the allowed rate follows the live
//! `report_interval` setting, which an operator can change at any time,
//! and a `governor` quota is fixed when the limiter is built. The keys are
//! authenticated servers, so the map is bounded by the fleet.

use meshwatch::ServerId;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Reports one agent may send per `report_interval`, sustained. docs/API.md
/// asks for at least 10 (a big fleet's agent splits its evidence).
pub const REPORTS_PER_INTERVAL: u32 = 30;

/// Reports one agent may send at once (a spool flushed after an outage).
pub const REPORT_BURST: u32 = 60;

struct Bucket {
    tokens: f64,
    at: Instant,
}

#[derive(Default)]
pub struct ReportLimiter {
    buckets: Mutex<HashMap<ServerId, Bucket>>,
}

impl ReportLimiter {
    /// Takes one report from `server`'s bucket at `now`: `Ok` when allowed,
    /// else how long until the next one is.
    pub fn take(
        &self,
        server: &ServerId,
        report_interval: Duration,
        now: Instant,
    ) -> Result<(), Duration> {
        let per_second =
            f64::from(REPORTS_PER_INTERVAL) / report_interval.as_secs_f64().max(f64::EPSILON);
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let bucket = buckets.entry(server.clone()).or_insert(Bucket {
            tokens: f64::from(REPORT_BURST),
            at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * per_second).min(f64::from(REPORT_BURST));
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / per_second))
        }
    }

    /// Forgets a server that left the fleet.
    pub fn forget(&self, server: &ServerId) {
        self.buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(server);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sid(id: &str) -> ServerId {
        ServerId::parse(id).expect("slug")
    }

    #[test]
    fn a_burst_is_allowed_then_refused_with_the_wait() {
        let limiter = ReportLimiter::default();
        let now = Instant::now();
        let interval = Duration::from_secs(60);
        for _ in 0..REPORT_BURST {
            assert!(limiter.take(&sid("a"), interval, now).is_ok());
        }
        let wait = limiter
            .take(&sid("a"), interval, now)
            .expect_err("over the burst");
        assert_eq!(wait, Duration::from_secs(2), "60 s / 30 reports");
        assert!(limiter.take(&sid("b"), interval, now).is_ok(), "per agent");
    }

    #[test]
    fn at_least_ten_reports_per_interval_are_allowed_sustained() {
        let limiter = ReportLimiter::default();
        let interval = Duration::from_secs(60);
        let start = Instant::now();
        // Ten reports an interval for an hour, after the burst is spent.
        for _ in 0..REPORT_BURST {
            let _ = limiter.take(&sid("a"), interval, start);
        }
        for k in 1..=600u64 {
            let at = start + Duration::from_secs(6 * k);
            assert!(limiter.take(&sid("a"), interval, at).is_ok(), "report {k}");
        }
    }
}
