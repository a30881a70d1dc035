//! Data that changes only with the fleet (entry points, users), kept until
//! the next fleet reload. Every change to the fleet reloads it into a new
//! mesh, so comparing mesh pointers says when kept data is out of date.

use meshwatch::mesh::Mesh;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

/// More keys than this and the map starts over (a bound on memory).
const MAX_ENTRIES: usize = 100_000;

/// The mesh the values were read for, and the values.
type Kept<K, V> = (Option<Arc<Mesh>>, HashMap<K, V>);

pub struct PerFleet<K, V> {
    kept: Mutex<Kept<K, V>>,
}

impl<K, V> Default for PerFleet<K, V> {
    fn default() -> Self {
        Self {
            kept: Mutex::new((None, HashMap::new())),
        }
    }
}

impl<K: Eq + Hash, V: Clone> PerFleet<K, V> {
    fn lock(&self) -> MutexGuard<'_, Kept<K, V>> {
        // Whole inserts and clears only: a poisoned map is still consistent.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The value kept for `key` as of `mesh`, if any.
    fn get(&self, mesh: &Arc<Mesh>, key: &K) -> Option<V> {
        let kept = self.lock();
        match &kept.0 {
            Some(of) if Arc::ptr_eq(of, mesh) => kept.1.get(key).cloned(),
            _ => None,
        }
    }

    /// The value kept for `key` as of the current `mesh`, else what `read`
    /// finds (kept unless it is `None`). Callers take the mesh before the
    /// read starts: a reload in between leaves a stale pointer, so what
    /// they read is never served for the new fleet.
    pub async fn get_or_read<E>(
        &self,
        mesh: Arc<Mesh>,
        key: K,
        read: impl std::future::Future<Output = Result<Option<V>, E>>,
    ) -> Result<Option<V>, E> {
        if let Some(value) = self.get(&mesh, &key) {
            return Ok(Some(value));
        }
        let value = read.await?;
        if let Some(value) = &value {
            self.put(mesh, key, value.clone());
        }
        Ok(value)
    }

    /// Keeps a value read while `mesh` was current.
    fn put(&self, mesh: Arc<Mesh>, key: K, value: V) {
        let mut kept = self.lock();
        let current = matches!(&kept.0, Some(of) if Arc::ptr_eq(of, &mesh));
        if !current || kept.1.len() >= MAX_ENTRIES {
            kept.1.clear();
            kept.0 = Some(mesh);
        }
        kept.1.insert(key, value);
    }
}
