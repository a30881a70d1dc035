//! The evaluator's time. Verdicts depend on "now" (staleness, R1–R6), so
//! every reading of it that must agree with them — the evaluation, report
//! receipt, recorded changes, the pages' "ago" — goes through one
//! [`Clock`]: the system's in the panel, a [`ManualClock`] in tests, which
//! skip the wait for time to pass instead of sleeping through it.

use chrono::{DateTime, Utc};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, Default)]
pub enum Clock {
    /// The system's wall clock.
    #[default]
    System,
    /// The system's, moved on by a test (see [`ManualClock`]).
    Manual(ManualClock),
}

impl Clock {
    /// Unix milliseconds now.
    pub fn now_ms(&self) -> i64 {
        self.now().timestamp_millis()
    }

    pub fn now(&self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Manual(clock) => clock.now(),
        }
    }
}

/// The system's time plus however far a test has advanced it. It keeps
/// running with real time, so the times agents (and tests) write into
/// reports stay as close to the panel's as the intake expects; a test that
/// advances it by seconds moves the evaluator's "now" by exactly that.
/// Clones share one time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    ahead_ms: Arc<AtomicI64>,
}

impl ManualClock {
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + chrono::Duration::milliseconds(self.ahead_ms.load(Ordering::SeqCst))
    }

    /// How far the time has been moved on.
    pub fn ahead(&self) -> chrono::Duration {
        chrono::Duration::milliseconds(self.ahead_ms.load(Ordering::SeqCst))
    }

    /// Moves the time on by `by`.
    pub fn advance(&self, by: Duration) {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.ahead_ms.fetch_add(by, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_advanced_clock_is_ahead_of_the_system_by_that_much_and_clones_share_it() {
        let manual = ManualClock::default();
        let clock = Clock::Manual(manual.clone());
        manual.advance(Duration::from_secs(3_600));
        let before = Utc::now().timestamp_millis();
        let read = clock.now_ms();
        let after = Utc::now().timestamp_millis();
        assert!(read >= before + 3_600_000 && read <= after + 3_600_000);
    }

    #[test]
    fn the_system_clock_reads_the_system_time() {
        let before = Utc::now();
        let read = Clock::System.now();
        assert!(read >= before && read <= Utc::now());
    }
}
