//! Exponential backoff with jitter for resending reports: the delay doubles
//! per failed attempt up to a cap, and each wait is drawn from its upper
//! half so a fleet that lost the panel at once does not return at once.

use rand::Rng;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    failures: u32,
}

impl Backoff {
    pub fn new(base: Duration, cap: Duration) -> Self {
        Self {
            base,
            cap: cap.max(base),
            failures: 0,
        }
    }

    /// The ceiling of the next wait: base × 2^failures, at most `cap`.
    pub fn ceiling(&self) -> Duration {
        let factor = 1u32.checked_shl(self.failures.min(31)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.cap)
    }

    /// Records a failure and returns how long to wait before the next try.
    pub fn next_delay(&mut self, rng: &mut impl Rng) -> Duration {
        let ceiling = self.ceiling();
        self.failures = self.failures.saturating_add(1);
        let half = ceiling / 2;
        half + rng.gen_range(Duration::ZERO..=ceiling - half)
    }

    /// A success: the next failure starts from `base` again.
    pub fn reset(&mut self) {
        self.failures = 0;
    }

    pub fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn delays_double_with_jitter_up_to_the_cap() {
        let mut rng = StdRng::seed_from_u64(7);
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
        let ceilings: Vec<u64> = (0..10)
            .map(|_| {
                let ceiling = b.ceiling();
                let d = b.next_delay(&mut rng);
                assert!(d >= ceiling / 2 && d <= ceiling, "{d:?} vs {ceiling:?}");
                ceiling.as_secs()
            })
            .collect();
        assert_eq!(ceilings, [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
    }

    #[test]
    fn jitter_spreads_the_waits() {
        let mut rng = StdRng::seed_from_u64(1);
        let waits: std::collections::HashSet<Duration> = (0..20)
            .map(|_| Backoff::new(Duration::from_secs(8), Duration::from_secs(8)))
            .map(|mut b| b.next_delay(&mut rng))
            .collect();
        assert!(waits.len() > 10, "{waits:?}");
    }

    #[test]
    fn a_success_starts_over_and_many_failures_do_not_overflow() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut b = Backoff::new(Duration::from_millis(500), Duration::from_secs(30));
        for _ in 0..200 {
            assert!(b.next_delay(&mut rng) <= Duration::from_secs(30));
        }
        assert_eq!(b.failures(), 200);
        b.reset();
        assert_eq!(b.ceiling(), Duration::from_millis(500));
    }
}
