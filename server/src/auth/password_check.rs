//! Password checks on a small budget. argon2id at OWASP's parameters
//! takes ~19 MiB and tens of milliseconds per check on the blocking pool,
//! so a burst of sign-ins would otherwise take gigabytes; beyond
//! [`MAX_CONCURRENT_PASSWORD_CHECKS`] a check is refused at once (the
//! caller answers 429 with `Retry-After`).

use prometheus::IntCounter;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Password checks (sign-in and the password form) running at once.
pub const MAX_CONCURRENT_PASSWORD_CHECKS: usize = 2;

/// What a refused check is told to wait.
pub const BUSY_RETRY_AFTER: Duration = Duration::from_secs(1);

/// Every check slot is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

pub struct PasswordChecks {
    slots: Arc<Semaphore>,
    /// `meshwatch_password_checks_total`.
    checked: IntCounter,
}

impl PasswordChecks {
    pub fn new(checked: IntCounter) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(MAX_CONCURRENT_PASSWORD_CHECKS)),
            checked,
        }
    }

    /// Runs `check` (which verifies one password, and may hash a new one)
    /// on the blocking pool if a slot is free.
    pub async fn run<T: Send + 'static>(
        &self,
        check: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Busy> {
        let slot = self.slots.clone().try_acquire_owned().map_err(|_| Busy)?;
        self.checked.inc();
        tokio::task::spawn_blocking(move || {
            let outcome = check();
            drop(slot);
            outcome
        })
        .await
        .map_err(|_| Busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn checks_beyond_the_budget_are_refused_not_queued() {
        let counter = IntCounter::new("checks", "checks").expect("counter");
        let checks = Arc::new(PasswordChecks::new(counter.clone()));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(std::sync::Mutex::new(wait));
        let running: Vec<_> = (0..MAX_CONCURRENT_PASSWORD_CHECKS)
            .map(|_| {
                let (checks, wait) = (checks.clone(), wait.clone());
                tokio::spawn(async move {
                    checks
                        .run(move || {
                            let _ = wait.lock().map(|w| w.recv());
                        })
                        .await
                })
            })
            .collect();
        while checks.slots.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(checks.run(|| ()).await, Err(Busy));
        for _ in 0..MAX_CONCURRENT_PASSWORD_CHECKS {
            release.send(()).expect("sent");
        }
        for check in running {
            assert_eq!(check.await.expect("joined"), Ok(()));
        }
        assert_eq!(checks.run(|| 7).await, Ok(7));
        assert_eq!(counter.get(), MAX_CONCURRENT_PASSWORD_CHECKS as u64 + 1);
    }
}
