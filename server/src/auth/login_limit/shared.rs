//! The sign-in limits of several replicas on one PostgreSQL database: the
//! same policy as one panel's (see the parent module), on counters kept in
//! the database, so that an attacker spreading guesses over the replicas
//! meets one set of limits. Each attempt locks the rows of the counters it
//! touches (`SELECT … FOR UPDATE`), applies the policy to them and writes
//! them back, in one transaction; parallel attempts at one username thus
//! still cannot all pass the check before any counts.
//!
//! Replicas must agree on the counters' keys and on the time: the keys are
//! hashed with a key derived from `MESHWATCH_SECRET_KEY` (the names are
//! never stored), and time is the wall clock in tenths of a second since
//! 2026-01-01 (replicas keep their clocks in sync, as servers do).

use super::{
    count_in, limited_address, not_checked_in, reserve_in, succeeded_in, AttemptSlots, Counters,
    Key, Kind, Refusal, Reservation, Tick, Window, FAILURE_WINDOW, KNOWN_ADDRESS_TTL,
    MAX_KNOWN_ADDRESSES, MAX_TRACKED_KEYS, SWEEP_EVERY,
};
use crate::store::postgres::{self, KnownRow, LimitRow};
use crate::store::StoreError;
use sha2::{Digest, Sha256};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// 2026-01-01T00:00:00Z, in Unix milliseconds: ticks count from it (a
/// 32-bit count of tenths lasts until 2039).
const TICK_EPOCH_MS: i64 = 1_767_225_600_000;

pub struct SharedLimiter {
    store: postgres::Store,
    /// Keys the counters' hashes (derived from the shared secret key).
    key: [u8; 32],
    /// When this replica last swept expired counters out of the database.
    swept: Mutex<Option<Instant>>,
}

fn kind_code(kind: Kind) -> i16 {
    match kind {
        Kind::UserAt => 1,
        Kind::User => 2,
        Kind::Address => 3,
        Kind::Operator => 4,
    }
}

fn kind_of(code: i16) -> Option<Kind> {
    [Kind::UserAt, Kind::User, Kind::Address, Kind::Operator]
        .into_iter()
        .find(|kind| kind_code(*kind) == code)
}

/// A slot as the database keeps it (the same 64 bits).
fn stored(slot: u64) -> i64 {
    i64::from_ne_bytes(slot.to_ne_bytes())
}

fn loaded(slot: i64) -> u64 {
    u64::from_ne_bytes(slot.to_ne_bytes())
}

fn tick_of(stored: i64) -> Tick {
    Tick(u32::try_from(stored.max(0)).unwrap_or(u32::MAX))
}

impl Window {
    fn from_row(row: &LimitRow) -> Option<Self> {
        Some(Self {
            failures: u16::try_from(row.failures.max(0)).unwrap_or(u16::MAX),
            kind: kind_of(row.kind)?,
            started: tick_of(row.started),
            next_allowed: tick_of(row.next_allowed),
        })
    }

    fn write_to(&self, row: &mut LimitRow) {
        row.kind = kind_code(self.kind);
        row.failures = i32::from(self.failures);
        row.started = i64::from(self.started.0);
        row.next_allowed = i64::from(self.next_allowed.0);
    }
}

impl SharedLimiter {
    /// The limiter of the replicas of `store`, whose counters are keyed
    /// from `secret` (`MESHWATCH_SECRET_KEY`, which they all share).
    pub fn new(store: postgres::Store, secret: &str) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(b"meshwatch sign-in limiter\0");
        hasher.update(secret.trim().as_bytes());
        Self {
            store,
            key: hasher.finalize().into(),
            swept: Mutex::default(),
        }
    }

    fn hash(&self, what: &[u8]) -> u64 {
        let digest = Sha256::new()
            .chain_update(self.key)
            .chain_update(what)
            .finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_le_bytes(first)
    }

    fn user(&self, username: &str) -> u64 {
        self.hash(format!("user {username}").as_bytes())
    }

    fn slot(&self, key: Key) -> u64 {
        self.hash(format!("slot {key:?}").as_bytes())
    }

    fn now() -> Tick {
        let since = chrono::Utc::now().timestamp_millis() - TICK_EPOCH_MS;
        Tick(u32::try_from(since.max(0) / 100).unwrap_or(u32::MAX))
    }

    /// Runs `op` on the counters `windows` and the remembered addresses
    /// `known`, locked, and writes back what it left.
    async fn on<R>(
        &self,
        windows: &[u64],
        known: &[u64],
        op: impl FnOnce(&mut Counters, Tick) -> R,
    ) -> Result<R, StoreError> {
        self.sweep_if_due().await;
        let now = Self::now();
        let windows: Vec<i64> = windows.iter().copied().map(stored).collect();
        let known: Vec<i64> = known.iter().copied().map(stored).collect();
        self.store
            .with_login_counters(&windows, &known, |rows, remembered| {
                let mut counters = Counters {
                    // The database is swept on its own (`sweep_if_due`).
                    swept: Some(now),
                    ..Counters::default()
                };
                for row in rows.iter() {
                    if let Some(window) = Window::from_row(row) {
                        counters.windows.insert(loaded(row.slot), window);
                    }
                }
                for row in remembered.iter() {
                    counters.known.insert(loaded(row.slot), tick_of(row.at));
                }
                let out = op(&mut counters, now);
                for row in rows.iter_mut() {
                    match counters.windows.get(&loaded(row.slot)) {
                        Some(window) => window.write_to(row),
                        None => row.kind = 0,
                    }
                }
                remembered.clear();
                remembered.extend(counters.known.iter().map(|(slot, at)| KnownRow {
                    slot: stored(*slot),
                    at: i64::from(at.0),
                }));
                out
            })
            .await
    }

    async fn sweep_if_due(&self) {
        {
            let mut swept = self.swept.lock().unwrap_or_else(|p| p.into_inner());
            if swept.is_some_and(|at| at.elapsed() < SWEEP_EVERY) {
                return;
            }
            *swept = Some(Instant::now());
        }
        let now = i64::from(Self::now().0);
        let tenths = |d: Duration| i64::try_from(d.as_millis() / 100).unwrap_or(i64::MAX);
        let full: Vec<(i16, i32)> = [Kind::UserAt, Kind::User, Kind::Address, Kind::Operator]
            .into_iter()
            .map(|kind| {
                (
                    kind_code(kind),
                    i32::try_from(kind.limit()).unwrap_or(i32::MAX),
                )
            })
            .collect();
        let bounds = (
            i64::try_from(MAX_TRACKED_KEYS).unwrap_or(i64::MAX),
            i64::try_from(MAX_KNOWN_ADDRESSES).unwrap_or(i64::MAX),
        );
        let swept = self
            .store
            .sweep_login_counters(
                now - tenths(FAILURE_WINDOW),
                now - tenths(KNOWN_ADDRESS_TTL),
                bounds,
                &full,
            )
            .await;
        if let Err(err) = swept {
            tracing::warn!(error = %err, "cannot sweep the sign-in counters; will retry");
        }
    }

    fn slots(&self, reservation: &Reservation) -> AttemptSlots {
        AttemptSlots::of(reservation.user, reservation.address, |key| self.slot(key))
    }

    pub async fn reserve(
        &self,
        username: &str,
        address: IpAddr,
    ) -> Result<Result<Reservation, Refusal>, StoreError> {
        let reservation = Reservation {
            user: self.user(username),
            address: limited_address(address),
        };
        let slots = self.slots(&reservation);
        let windows = slots.windows().map(|(slot, _)| slot);
        let allowed = self
            .on(&windows, &[slots.known], |counters, now| {
                reserve_in(counters, &slots, now)
            })
            .await?;
        Ok(allowed.map(|()| reservation))
    }

    pub async fn succeeded(&self, reservation: Reservation) -> Result<(), StoreError> {
        let slots = self.slots(&reservation);
        let windows = slots.windows().map(|(slot, _)| slot);
        self.on(&windows, &[slots.known], |counters, now| {
            succeeded_in(counters, &slots, now)
        })
        .await
    }

    pub async fn not_checked(&self, reservation: Reservation) -> Result<(), StoreError> {
        let slots = self.slots(&reservation);
        let windows = slots.windows().map(|(slot, _)| slot);
        self.on(&windows, &[], |counters, _| {
            not_checked_in(counters, &slots)
        })
        .await
    }

    pub async fn reserve_address_only(
        &self,
        address: IpAddr,
    ) -> Result<Result<(), Refusal>, StoreError> {
        let slot = self.slot(Key::Address(limited_address(address)));
        self.on(&[slot], &[], |counters, now| {
            count_in(counters, slot, Kind::Address, now)
        })
        .await
    }

    pub async fn try_password_change(
        &self,
        operator_id: i64,
    ) -> Result<Result<(), Duration>, StoreError> {
        let slot = self.slot(Key::Operator(operator_id));
        let counted = self
            .on(&[slot], &[], |counters, now| {
                count_in(counters, slot, Kind::Operator, now)
            })
            .await?;
        Ok(counted.map_err(Refusal::retry_after))
    }

    pub async fn password_change_succeeded(&self, operator_id: i64) -> Result<(), StoreError> {
        let slot = self.slot(Key::Operator(operator_id));
        self.on(&[slot], &[], |counters, _| {
            counters.windows.remove(&slot);
        })
        .await
    }
}
