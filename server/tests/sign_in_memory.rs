//! The sign-in limiter under a flood of failures with distinct usernames
//! and addresses (the attack that used to grow its map without end): the
//! process's memory grows by well under a few MiB, and the counters are
//! swept when their window ends. A test binary of its own, so no other
//! test's allocations blur the measurement.

use meshwatch_server::auth::login_limit::{LoginLimiter, FAILURE_WINDOW};
use std::net::IpAddr;
use std::time::{Duration, Instant};

const FAILURES: u32 = 10_000;

/// Resident memory now, in KiB (`/proc/self/statm` counts pages).
fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("procfs");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("resident pages");
    pages * 4
}

#[test]
fn ten_thousand_distinct_failures_cost_little_memory_and_are_swept() {
    let limiter = LoginLimiter::default();
    let start = Instant::now();
    // One failure first, so the map's first allocation is not counted as
    // growth caused by the flood.
    let _ = limiter.reserve("warm-up", IpAddr::from([192, 0, 2, 1]), start);
    let before = rss_kib();
    for i in 0..FAILURES {
        // A long username each time: the limiter must not keep the names.
        let username = format!("{i:06}-{}", "x".repeat(50));
        let address = IpAddr::from((0x0a00_0000 + i).to_be_bytes());
        let attempt = limiter.reserve(&username, address, start);
        assert!(attempt.is_ok(), "failure {i} refused: {attempt:?}");
    }
    let grown_kib = rss_kib().saturating_sub(before);
    eprintln!("{FAILURES} failures: resident memory grew by {grown_kib} KiB");
    assert!(
        grown_kib < 3 * 1024,
        "{FAILURES} failures grew memory by {grown_kib} KiB"
    );
    assert_eq!(limiter.tracked(), 3 * FAILURES as usize + 3);

    let later = start + FAILURE_WINDOW + Duration::from_secs(60);
    let _ = limiter.reserve("after", IpAddr::from([192, 0, 2, 2]), later);
    assert_eq!(limiter.tracked(), 3, "expired windows are swept");
}
