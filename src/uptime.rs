//! Uptime from the status history: the share of a window a server spent in
//! rotation (not unavailable, unreachable or blocked — what users feel).
//! "No data" alone counts as up: silence is not a verdict.

use crate::status::ServerStatus;
use chrono::{DateTime, Utc};

/// `changes` ascending by time; the first may precede `from` (it gives the
/// status at the window's start). Time before the first known change is not
/// counted; `None` when nothing of the window is known.
pub fn in_rotation_share(
    changes: &[(DateTime<Utc>, ServerStatus)],
    from: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Option<f64> {
    let (mut known_ms, mut up_ms) = (0i64, 0i64);
    for (i, (at, status)) in changes.iter().enumerate() {
        let start = (*at).max(from);
        let end = changes.get(i + 1).map_or(now, |(next, _)| *next).min(now);
        let span = (end - start).num_milliseconds();
        if span <= 0 {
            continue;
        }
        known_ms += span;
        if !status.takes_out_of_rotation() {
            up_ms += span;
        }
    }
    (known_ms > 0).then(|| up_ms as f64 / known_ms as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn the_share_counts_only_known_time_in_the_window() {
        let now = Utc::now();
        let h = |n: i64| now - Duration::hours(n);
        let changes = [
            (h(48), ServerStatus::Healthy),
            (h(12), ServerStatus::Unavailable),
            (h(6), ServerStatus::NoData),
        ];
        // Last 24 h: 12 h up, 6 h down, 6 h no data (up).
        let share = in_rotation_share(&changes, h(24), now).expect("known");
        assert!((share - 0.75).abs() < 1e-6, "{share}");
        // Only the last 10 h are known in a window that starts at the first change.
        let recent = [
            (h(10), ServerStatus::Blocked),
            (h(5), ServerStatus::Healthy),
        ];
        let share = in_rotation_share(&recent, h(24), now).expect("known");
        assert!((share - 0.5).abs() < 1e-6, "{share}");
        assert_eq!(in_rotation_share(&[], h(24), now), None);
    }
}
