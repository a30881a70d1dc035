//! Failed sign-ins, counted so that guessing is slow and a lockout stays
//! with the attacker.
//!
//! - An attempt is **reserved before** the password is checked, in the same
//!   step as the check of the limits, so parallel attempts cannot all pass
//!   the check before any of them counts. A right password forgives it.
//! - A (username, address) pair is **locked** after a few failures: the
//!   attacker's own address, not the operator's.
//! - An address is locked after more failures across usernames.
//! - A username is **slowed down**, not locked, with delays that grow with
//!   its failures from everywhere. Addresses the operator has signed in
//!   from before skip the slowdown, so an operator at home still gets in
//!   while their username is hammered from elsewhere.
//! - Memory is bounded: usernames are kept as keyed 64-bit hashes, expired
//!   windows are swept, and the map has a hard size.
//!
//! Hand-written rather than `governor`: its GCRA quotas can neither be
//! reserved and refunded on success nor grow their delay with failures.
//!
//! One panel keeps its counters in memory ([`LoginLimiter`]); replicas of
//! one PostgreSQL database share them in it ([`SharedLimiter`]), under the
//! same policy ([`SignInLimits`] is either).

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::store::StoreError;

mod shared;

pub use shared::SharedLimiter;

/// Failures allowed for one username from one address in a window.
pub const MAX_FAILURES_PER_USER_AND_ADDRESS: u32 = 5;
/// Failures allowed from one address (an IPv6 /64) across usernames.
pub const MAX_FAILURES_PER_ADDRESS: u32 = 20;
/// Failures of one username, from anywhere, before it is slowed down.
pub const FREE_FAILURES_PER_USER: u32 = 5;
/// The longest pause between two attempts at a slowed-down username.
pub const MAX_USER_DELAY: Duration = Duration::from_secs(60);
/// How long failures are remembered.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// Wrong current passwords allowed per operator on the password form in a
/// window: it checks a password too.
pub const MAX_PASSWORD_CHANGE_FAILURES: u32 = MAX_FAILURES_PER_USER_AND_ADDRESS;
/// How long an address the operator signed in from skips the slowdown.
pub const KNOWN_ADDRESS_TTL: Duration = Duration::from_secs(30 * 24 * 3600);
/// Hard bound on the counters kept (each is a few dozen bytes).
pub const MAX_TRACKED_KEYS: usize = 50_000;
/// Hard bound on remembered (username, address) sign-ins.
pub const MAX_KNOWN_ADDRESSES: usize = 10_000;
/// Expired windows are swept at most this often (and whenever full).
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// Why an attempt was not even tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// This address has failed too often (for this username, or overall).
    Locked { retry_after: Duration },
    /// The username is being guessed at: the next try waits a little.
    SlowDown { retry_after: Duration },
}

impl Refusal {
    pub fn retry_after(self) -> Duration {
        match self {
            Self::Locked { retry_after } | Self::SlowDown { retry_after } => retry_after,
        }
    }
}

/// A counted attempt, to be forgiven with [`LoginLimiter::succeeded`] when
/// the password was right. Dropping it leaves the failure counted.
#[derive(Debug)]
#[must_use = "a right password must be reported with `succeeded`"]
pub struct Reservation {
    user: u64,
    address: IpAddr,
}

/// What a counter counts. It is stored only as a keyed 64-bit hash, so a
/// counter costs the same whatever the username's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    UserAt(u64, IpAddr),
    User(u64),
    Address(IpAddr),
    Operator(i64),
    /// The operator signed in from this address (skips the slowdown).
    Known(u64, IpAddr),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    UserAt,
    User,
    Address,
    Operator,
}

impl Kind {
    /// The failures at which this kind of counter starts refusing.
    fn limit(self) -> u32 {
        match self {
            Self::UserAt => MAX_FAILURES_PER_USER_AND_ADDRESS,
            Self::User => FREE_FAILURES_PER_USER,
            Self::Address => MAX_FAILURES_PER_ADDRESS,
            Self::Operator => MAX_PASSWORD_CHANGE_FAILURES,
        }
    }
}

/// Tenths of a second since the limiter started: 4 bytes reach 13 years,
/// and a counter fits in 12.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Tick(u32);

impl Tick {
    const PER_SECOND: u64 = 10;

    fn of(span: Duration) -> u32 {
        u32::try_from(span.as_millis() / 100).unwrap_or(u32::MAX)
    }

    fn after(self, span: Duration) -> Self {
        Self(self.0.saturating_add(Self::of(span)))
    }

    fn since(self, earlier: Self) -> Duration {
        Duration::from_millis(u64::from(self.0.saturating_sub(earlier.0)) * 1000 / Self::PER_SECOND)
    }
}

#[derive(Debug, Clone, Copy)]
struct Window {
    failures: u16,
    kind: Kind,
    started: Tick,
    /// When the next attempt is allowed (the username slowdown).
    next_allowed: Tick,
}

impl Window {
    fn fresh(kind: Kind, now: Tick) -> Self {
        Self {
            failures: 0,
            kind,
            started: now,
            next_allowed: now,
        }
    }

    fn expired(&self, now: Tick) -> bool {
        now.since(self.started) >= FAILURE_WINDOW
    }

    fn reopens_in(&self, now: Tick) -> Duration {
        FAILURE_WINDOW.saturating_sub(now.since(self.started))
    }

    fn full(&self) -> bool {
        u32::from(self.failures) >= self.kind.limit()
    }
}

#[derive(Default)]
struct Counters {
    windows: HashMap<u64, Window>,
    /// Sign-ins that succeeded from an address: when, by slot.
    known: HashMap<u64, Tick>,
    swept: Option<Tick>,
}

impl Counters {
    /// The live window of a slot (an expired one counts as none).
    fn live(&self, slot: u64, now: Tick) -> Option<Window> {
        self.windows
            .get(&slot)
            .filter(|window| !window.expired(now))
            .copied()
    }

    fn count_failure(&mut self, slot: u64, kind: Kind, now: Tick) -> &mut Window {
        let window = self
            .windows
            .entry(slot)
            .and_modify(|w| {
                if w.expired(now) {
                    *w = Window::fresh(kind, now);
                }
            })
            .or_insert_with(|| Window::fresh(kind, now));
        window.failures = window.failures.saturating_add(1);
        window
    }

    fn give_back(&mut self, slot: u64) {
        if let Some(w) = self.windows.get_mut(&slot) {
            w.failures = w.failures.saturating_sub(1);
        }
    }

    fn sweep(&mut self, now: Tick) {
        let due = self.swept.is_none_or(|at| now.since(at) >= SWEEP_EVERY);
        if !due && self.windows.len() < MAX_TRACKED_KEYS && self.known.len() < MAX_KNOWN_ADDRESSES {
            return;
        }
        self.swept = Some(now);
        self.windows.retain(|_, w| !w.expired(now));
        self.known
            .retain(|_, at| now.since(*at) < KNOWN_ADDRESS_TTL);
        if self.windows.len() >= MAX_TRACKED_KEYS {
            // Full of live windows: keep only those that lock or slow
            // something down, so a flood of one-off failures cannot push
            // out the counters that matter.
            self.windows.retain(|_, w| w.full());
        }
        if self.windows.len() >= MAX_TRACKED_KEYS {
            // Still full: a flood this big from this many addresses is
            // beyond what counters can stop; the memory bound wins.
            self.windows.clear();
        }
        if self.known.len() >= MAX_KNOWN_ADDRESSES {
            self.known.clear();
        }
    }
}

/// The pause before the next try at a username that has failed
/// `failures` times: nothing up to [`FREE_FAILURES_PER_USER`], then 1 s,
/// 2 s, 4 s … up to [`MAX_USER_DELAY`].
pub fn user_delay(failures: u32) -> Duration {
    let Some(over) = failures.checked_sub(FREE_FAILURES_PER_USER) else {
        return Duration::ZERO;
    };
    if over == 0 {
        return Duration::ZERO;
    }
    let doublings = (over - 1).min(16);
    Duration::from_secs(1u64 << doublings).min(MAX_USER_DELAY)
}

/// The address a limit is kept for: IPv6 clients usually hold a whole /64,
/// so its addresses count as one.
fn limited_address(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// The counters one sign-in attempt touches.
struct AttemptSlots {
    user_at: u64,
    by_user: u64,
    by_address: u64,
    known: u64,
}

impl AttemptSlots {
    fn of(user: u64, address: IpAddr, slot: impl Fn(Key) -> u64) -> Self {
        Self {
            user_at: slot(Key::UserAt(user, address)),
            by_user: slot(Key::User(user)),
            by_address: slot(Key::Address(address)),
            known: slot(Key::Known(user, address)),
        }
    }

    fn windows(&self) -> [(u64, Kind); 3] {
        [
            (self.user_at, Kind::UserAt),
            (self.by_user, Kind::User),
            (self.by_address, Kind::Address),
        ]
    }
}

/// Refuses when the slot's window is full.
fn check(counters: &Counters, slot: u64, now: Tick) -> Result<(), Refusal> {
    match counters.live(slot, now) {
        Some(window) if window.full() => Err(Refusal::Locked {
            retry_after: window.reopens_in(now),
        }),
        _ => Ok(()),
    }
}

/// The policy of a sign-in attempt on the counters it touches (in this
/// process's map, or loaded from the shared database and written back).
fn reserve_in(counters: &mut Counters, s: &AttemptSlots, now: Tick) -> Result<(), Refusal> {
    counters.sweep(now);
    check(counters, s.user_at, now)?;
    check(counters, s.by_address, now)?;
    if !counters.known.contains_key(&s.known) {
        if let Some(window) = counters.live(s.by_user, now) {
            if now < window.next_allowed {
                return Err(Refusal::SlowDown {
                    retry_after: window.next_allowed.since(now),
                });
            }
        }
    }
    counters.count_failure(s.user_at, Kind::UserAt, now);
    counters.count_failure(s.by_address, Kind::Address, now);
    let window = counters.count_failure(s.by_user, Kind::User, now);
    window.next_allowed = now.after(user_delay(u32::from(window.failures)));
    Ok(())
}

fn succeeded_in(counters: &mut Counters, s: &AttemptSlots, now: Tick) {
    counters.windows.remove(&s.user_at);
    counters.give_back(s.by_address);
    counters.give_back(s.by_user);
    if counters.known.len() < MAX_KNOWN_ADDRESSES {
        counters.known.insert(s.known, now);
    }
}

fn not_checked_in(counters: &mut Counters, s: &AttemptSlots) {
    for (slot, _) in s.windows() {
        counters.give_back(slot);
    }
}

/// Counts a failure in one slot, unless its window is full already.
fn count_in(counters: &mut Counters, slot: u64, kind: Kind, now: Tick) -> Result<(), Refusal> {
    counters.sweep(now);
    check(counters, slot, now)?;
    counters.count_failure(slot, kind, now);
    Ok(())
}

/// The sign-in limits of this panel: its own counters (the one panel of
/// a SQLite database), or those the replicas of a PostgreSQL database
/// share. The answer of each step is the limiter's; the outer error, a
/// database that failed.
pub enum SignInLimits {
    Local(LoginLimiter),
    Shared(SharedLimiter),
}

impl SignInLimits {
    /// See [`LoginLimiter::reserve`].
    pub async fn reserve(
        &self,
        username: &str,
        address: IpAddr,
    ) -> Result<Result<Reservation, Refusal>, StoreError> {
        match self {
            Self::Local(l) => Ok(l.reserve(username, address, Instant::now())),
            Self::Shared(s) => s.reserve(username, address).await,
        }
    }

    /// See [`LoginLimiter::succeeded`].
    pub async fn succeeded(&self, reservation: Reservation) -> Result<(), StoreError> {
        match self {
            Self::Local(l) => {
                l.succeeded(reservation, Instant::now());
                Ok(())
            }
            Self::Shared(s) => s.succeeded(reservation).await,
        }
    }

    /// See [`LoginLimiter::not_checked`].
    pub async fn not_checked(&self, reservation: Reservation) -> Result<(), StoreError> {
        match self {
            Self::Local(l) => {
                l.not_checked(reservation);
                Ok(())
            }
            Self::Shared(s) => s.not_checked(reservation).await,
        }
    }

    /// See [`LoginLimiter::reserve_address_only`].
    pub async fn reserve_address_only(
        &self,
        address: IpAddr,
    ) -> Result<Result<(), Refusal>, StoreError> {
        match self {
            Self::Local(l) => Ok(l.reserve_address_only(address, Instant::now())),
            Self::Shared(s) => s.reserve_address_only(address).await,
        }
    }

    /// See [`LoginLimiter::try_password_change`].
    pub async fn try_password_change(
        &self,
        operator_id: i64,
    ) -> Result<Result<(), Duration>, StoreError> {
        match self {
            Self::Local(l) => Ok(l.try_password_change(operator_id, Instant::now())),
            Self::Shared(s) => s.try_password_change(operator_id).await,
        }
    }

    /// See [`LoginLimiter::password_change_succeeded`].
    pub async fn password_change_succeeded(&self, operator_id: i64) -> Result<(), StoreError> {
        match self {
            Self::Local(l) => {
                l.password_change_succeeded(operator_id);
                Ok(())
            }
            Self::Shared(s) => s.password_change_succeeded(operator_id).await,
        }
    }
}

pub struct LoginLimiter {
    counters: Mutex<Counters>,
    /// Keys the counters' hashes, so nobody can aim collisions at them.
    hasher: RandomState,
    epoch: Instant,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        Self {
            counters: Mutex::default(),
            hasher: RandomState::new(),
            epoch: Instant::now(),
        }
    }
}

impl LoginLimiter {
    fn lock(&self) -> MutexGuard<'_, Counters> {
        // Every update leaves the counters whole: a poisoned map is usable.
        self.counters
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn user(&self, username: &str) -> u64 {
        self.hasher.hash_one(username)
    }

    fn slot(&self, key: Key) -> u64 {
        self.hasher.hash_one(key)
    }

    fn tick(&self, now: Instant) -> Tick {
        Tick(Tick::of(now.saturating_duration_since(self.epoch)))
    }

    fn slots(&self, user: u64, address: IpAddr) -> AttemptSlots {
        AttemptSlots::of(user, address, |key| self.slot(key))
    }

    /// Checks the limits for a sign-in and, when none refuses, counts the
    /// attempt as a failure until [`Self::succeeded`] forgives it.
    pub fn reserve(
        &self,
        username: &str,
        address: IpAddr,
        now: Instant,
    ) -> Result<Reservation, Refusal> {
        let reservation = Reservation {
            user: self.user(username),
            address: limited_address(address),
        };
        let slots = self.slots(reservation.user, reservation.address);
        reserve_in(&mut self.lock(), &slots, self.tick(now))?;
        Ok(reservation)
    }

    /// The password was right: the attempt is forgiven, with the username's
    /// earlier failures from this address, and the address is remembered as
    /// the operator's own.
    pub fn succeeded(&self, reservation: Reservation, now: Instant) {
        let slots = self.slots(reservation.user, reservation.address);
        succeeded_in(&mut self.lock(), &slots, self.tick(now));
    }

    /// The password could not be checked (no check slot was free): the
    /// attempt is given back uncounted.
    pub fn not_checked(&self, reservation: Reservation) {
        let slots = self.slots(reservation.user, reservation.address);
        not_checked_in(&mut self.lock(), &slots);
    }

    /// A sign-in that names no possible username (an over-long one) counts
    /// against its address only, and is refused when the address is locked.
    pub fn reserve_address_only(&self, address: IpAddr, now: Instant) -> Result<(), Refusal> {
        let slot = self.slot(Key::Address(limited_address(address)));
        count_in(&mut self.lock(), slot, Kind::Address, self.tick(now))
    }

    /// Takes one password-change attempt for the operator, or says how long
    /// until one is free. Counted before the password is checked, like a
    /// sign-in; a correct password forgives them
    /// ([`Self::password_change_succeeded`]).
    pub fn try_password_change(&self, operator_id: i64, now: Instant) -> Result<(), Duration> {
        let slot = self.slot(Key::Operator(operator_id));
        count_in(&mut self.lock(), slot, Kind::Operator, self.tick(now))
            .map_err(Refusal::retry_after)
    }

    /// The current password checked out: the operator's attempts are forgiven.
    pub fn password_change_succeeded(&self, operator_id: i64) {
        let slot = self.slot(Key::Operator(operator_id));
        self.lock().windows.remove(&slot);
    }

    /// Counters and remembered addresses held now (for tests and metrics).
    pub fn tracked(&self) -> usize {
        let counters = self.lock();
        counters.windows.len() + counters.known.len()
    }

    /// Failures of a username from everywhere in the current window.
    pub fn user_failures(&self, username: &str, now: Instant) -> u32 {
        let slot = self.slot(Key::User(self.user(username)));
        let now = self.tick(now);
        self.lock()
            .live(slot, now)
            .map_or(0, |w| u32::from(w.failures))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("an address")
    }

    fn fail(limiter: &LoginLimiter, user: &str, address: &str, now: Instant) {
        let _counted = limiter.reserve(user, ip(address), now).expect("allowed");
    }

    #[test]
    fn five_failures_lock_a_username_from_that_address_only() {
        let limiter = LoginLimiter::default();
        let start = Instant::now();
        for _ in 0..MAX_FAILURES_PER_USER_AND_ADDRESS {
            fail(&limiter, "ops", "10.0.0.1", start);
        }
        assert!(matches!(
            limiter.reserve("ops", ip("10.0.0.1"), start),
            Err(Refusal::Locked { retry_after }) if retry_after == FAILURE_WINDOW
        ));
        assert!(
            limiter.reserve("other", ip("10.0.0.1"), start).is_ok(),
            "another username from the same address"
        );
        assert!(limiter
            .reserve("ops", ip("10.0.0.1"), start + FAILURE_WINDOW)
            .is_ok());
    }

    #[test]
    fn a_hammered_username_is_slowed_down_with_growing_delays_not_locked() {
        let limiter = LoginLimiter::default();
        let mut now = Instant::now();
        for k in 0..FREE_FAILURES_PER_USER {
            fail(&limiter, "ops", &format!("10.0.1.{k}"), now);
        }
        let mut previous = Duration::ZERO;
        for k in 0..8u32 {
            let address = format!("10.0.2.{k}");
            fail(&limiter, "ops", &address, now);
            let refused = limiter.reserve("ops", ip("10.0.3.1"), now);
            let Err(Refusal::SlowDown { retry_after }) = refused else {
                panic!("attempt {k}: {refused:?}");
            };
            assert!(retry_after >= previous && retry_after <= MAX_USER_DELAY);
            previous = retry_after;
            now += retry_after;
        }
        assert_eq!(previous, MAX_USER_DELAY);
    }

    #[test]
    fn the_operators_own_address_gets_in_while_their_username_is_hammered() {
        let limiter = LoginLimiter::default();
        let now = Instant::now();
        let home = ip("192.0.2.7");
        let earlier = limiter.reserve("ops", home, now).expect("first sign-in");
        limiter.succeeded(earlier, now);
        for k in 0..200u32 {
            let _ = limiter.reserve("ops", ip(&format!("198.51.100.{}", k % 250)), now);
        }
        assert!(limiter.user_failures("ops", now) > FREE_FAILURES_PER_USER);
        let at_home = limiter.reserve("ops", home, now);
        assert!(at_home.is_ok(), "{at_home:?}");
    }

    #[test]
    fn parallel_attempts_cannot_pass_the_check_before_one_counts() {
        let limiter = std::sync::Arc::new(LoginLimiter::default());
        let now = Instant::now();
        let passed: usize = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..64)
                .map(|_| {
                    let limiter = limiter.clone();
                    scope.spawn(move || limiter.reserve("ops", ip("10.0.0.1"), now).is_ok())
                })
                .collect();
            handles
                .into_iter()
                .map(|h| usize::from(h.join().expect("joined")))
                .sum()
        });
        assert_eq!(passed, MAX_FAILURES_PER_USER_AND_ADDRESS as usize);
    }

    #[test]
    fn one_address_cannot_try_many_usernames() {
        let limiter = LoginLimiter::default();
        let now = Instant::now();
        for i in 0..MAX_FAILURES_PER_ADDRESS {
            fail(&limiter, &format!("user{i}"), "10.0.0.9", now);
        }
        assert!(matches!(
            limiter.reserve("fresh", ip("10.0.0.9"), now),
            Err(Refusal::Locked { .. })
        ));
        assert!(matches!(
            limiter.reserve_address_only(ip("10.0.0.9"), now),
            Err(Refusal::Locked { .. })
        ));
    }

    #[test]
    fn an_ipv6_slash_64_counts_as_one_address() {
        let limiter = LoginLimiter::default();
        let now = Instant::now();
        for i in 0..MAX_FAILURES_PER_ADDRESS {
            fail(
                &limiter,
                &format!("user{i}"),
                &format!("2001:db8::{i:x}"),
                now,
            );
        }
        assert!(limiter.reserve("x", ip("2001:db8::ffff"), now).is_err());
        assert!(limiter.reserve("x", ip("2001:db8:0:1::1"), now).is_ok());
    }

    #[test]
    fn a_right_password_forgives_the_attempt() {
        let limiter = LoginLimiter::default();
        let now = Instant::now();
        for _ in 0..20 {
            let attempt = limiter
                .reserve("ops", ip("10.0.0.1"), now)
                .expect("allowed");
            limiter.succeeded(attempt, now);
        }
        assert_eq!(limiter.user_failures("ops", now), 0);
    }

    #[test]
    fn expired_windows_are_swept_and_the_map_is_bounded() {
        let limiter = LoginLimiter::default();
        let start = Instant::now();
        for i in 0..10_000u32 {
            let address = IpAddr::from((0x0a00_0000 + i).to_be_bytes());
            let _ = limiter.reserve(&format!("user-{i}"), address, start);
        }
        assert_eq!(limiter.tracked(), 30_000);
        let later = start + FAILURE_WINDOW + SWEEP_EVERY;
        let _ = limiter.reserve("ops", ip("10.9.9.9"), later);
        assert_eq!(limiter.tracked(), 3, "only the new attempt's counters");

        for i in 0..(MAX_TRACKED_KEYS as u32) {
            let address = IpAddr::from((0x0b00_0000 + i).to_be_bytes());
            let _ = limiter.reserve(&format!("flood-{i}"), address, later);
        }
        assert!(limiter.tracked() <= MAX_TRACKED_KEYS + 3);
    }

    #[test]
    fn user_delays_double_up_to_the_cap() {
        assert_eq!(user_delay(0), Duration::ZERO);
        assert_eq!(user_delay(FREE_FAILURES_PER_USER), Duration::ZERO);
        assert_eq!(
            user_delay(FREE_FAILURES_PER_USER + 1),
            Duration::from_secs(1)
        );
        assert_eq!(
            user_delay(FREE_FAILURES_PER_USER + 3),
            Duration::from_secs(4)
        );
        assert_eq!(user_delay(u32::MAX), MAX_USER_DELAY);
    }

    #[test]
    fn five_wrong_current_passwords_pause_that_operators_password_changes() {
        let limiter = LoginLimiter::default();
        let start = Instant::now();
        for _ in 0..MAX_PASSWORD_CHANGE_FAILURES {
            assert_eq!(limiter.try_password_change(1, start), Ok(()));
        }
        let later = start + Duration::from_secs(60);
        assert_eq!(
            limiter.try_password_change(1, later),
            Err(FAILURE_WINDOW - Duration::from_secs(60))
        );
        assert_eq!(
            limiter.try_password_change(2, later),
            Ok(()),
            "per operator"
        );
        assert!(
            limiter.reserve("ops", ip("10.0.0.1"), later).is_ok(),
            "not a sign-in lock"
        );
        assert_eq!(
            limiter.try_password_change(1, start + FAILURE_WINDOW),
            Ok(())
        );
        limiter.password_change_succeeded(1);
        for _ in 0..MAX_PASSWORD_CHANGE_FAILURES {
            assert_eq!(limiter.try_password_change(1, later), Ok(()));
        }
    }
}
