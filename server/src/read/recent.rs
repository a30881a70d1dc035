//! A store read that many page requests share: kept for at most its
//! `max_age`, then read again by the next request that needs it. Writes
//! this replica makes [`forget`](Recent::forget) it at once; another
//! replica's writes show within `max_age`.

use crate::store::StoreError;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub struct Recent<T> {
    max_age: Duration,
    kept: Mutex<Kept<T>>,
}

struct Kept<T> {
    /// Moves with every `forget`: a read that started before one is
    /// served to its request but not kept.
    generation: u64,
    value: Option<(Instant, Arc<T>)>,
}

impl<T> Recent<T> {
    pub fn new(max_age: Duration) -> Self {
        Self {
            max_age,
            kept: Mutex::new(Kept {
                generation: 0,
                value: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Kept<T>> {
        // Whole assignments only: a poisoned value is still consistent.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The kept value if it is young enough, else what `read` reads now.
    pub async fn get<F, Fut>(&self, read: F) -> Result<Arc<T>, StoreError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, StoreError>>,
    {
        let (generation, fresh) = {
            let kept = self.lock();
            let fresh = kept
                .value
                .as_ref()
                .filter(|(at, _)| at.elapsed() < self.max_age)
                .map(|(_, value)| value.clone());
            (kept.generation, fresh)
        };
        if let Some(value) = fresh {
            return Ok(value);
        }
        // Aged from before the read: what it returns is at least this new.
        let started = Instant::now();
        let value = Arc::new(read().await?);
        let mut kept = self.lock();
        if kept.generation == generation {
            kept.value = Some((started, value.clone()));
        }
        Ok(value)
    }

    /// The next `get` reads again (this replica changed what it reads).
    pub fn forget(&self) {
        let mut kept = self.lock();
        kept.generation += 1;
        kept.value = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// A read that counts itself and returns how many reads there were.
    async fn counted(reads: &AtomicU32) -> Result<u32, StoreError> {
        Ok(reads.fetch_add(1, Ordering::SeqCst) + 1)
    }

    #[tokio::test]
    async fn a_young_value_is_served_without_reading_again() {
        let (recent, reads) = (Recent::new(Duration::from_secs(3600)), AtomicU32::new(0));
        assert_eq!(*recent.get(|| counted(&reads)).await.expect("read"), 1);
        assert_eq!(*recent.get(|| counted(&reads)).await.expect("read"), 1);
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn an_aged_value_is_read_again() {
        let (recent, reads) = (Recent::new(Duration::ZERO), AtomicU32::new(0));
        assert_eq!(*recent.get(|| counted(&reads)).await.expect("read"), 1);
        assert_eq!(*recent.get(|| counted(&reads)).await.expect("read"), 2);
    }

    #[tokio::test]
    async fn a_forgotten_value_is_read_again_at_once() {
        let (recent, reads) = (Recent::new(Duration::from_secs(3600)), AtomicU32::new(0));
        recent.get(|| counted(&reads)).await.expect("read");
        recent.forget();
        assert_eq!(*recent.get(|| counted(&reads)).await.expect("read"), 2);
        assert_eq!(*recent.get(|| counted(&reads)).await.expect("read"), 2);
    }

    #[tokio::test]
    async fn a_read_overtaken_by_a_write_is_served_but_not_kept() {
        let (recent, reads) = (Recent::new(Duration::from_secs(3600)), AtomicU32::new(0));
        let read = recent.get(|| async {
            // The write lands while this read is in flight.
            recent.forget();
            counted(&reads).await
        });
        assert_eq!(*read.await.expect("read"), 1);
        assert_eq!(*recent.get(|| counted(&reads)).await.expect("read"), 2);
    }

    #[tokio::test]
    async fn a_failed_read_keeps_nothing() {
        let recent: Recent<u32> = Recent::new(Duration::from_secs(3600));
        let failed = recent
            .get(|| async { Err(StoreError::Url("unreadable".into())) })
            .await;
        assert!(failed.is_err());
        assert_eq!(*recent.get(|| async { Ok(7) }).await.expect("read"), 7);
    }
}
