//! Uptime from the status history: the share of a window a server spent in
//! rotation (not unavailable, unreachable or blocked — what users feel).
//! "No data" alone counts as up: silence is not a verdict. Time in a
//! maintenance window is planned, neither up nor down: it is counted
//! apart (§6).

use chrono::{DateTime, Utc};
use meshwatch::status::ServerStatus;
use serde::{Deserialize, Serialize};

/// One window's uptime.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Uptime {
    /// Share of the known time outside maintenance spent in rotation
    /// (`None`: nothing of it is known).
    pub in_rotation: Option<f64>,
    /// Seconds spent in maintenance windows.
    pub maintenance_s: i64,
}

/// `changes` ascending by time; the first may precede `from` (it gives the
/// status at the window's start). Time before the first known change is not
/// counted.
pub fn uptime(
    changes: &[(DateTime<Utc>, ServerStatus)],
    from: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Uptime {
    let (mut known_ms, mut up_ms, mut maintenance_ms) = (0i64, 0i64, 0i64);
    for (i, (at, status)) in changes.iter().enumerate() {
        let start = (*at).max(from);
        let end = changes.get(i + 1).map_or(now, |(next, _)| *next).min(now);
        let span = (end - start).num_milliseconds();
        if span <= 0 {
            continue;
        }
        if *status == ServerStatus::Maintenance {
            maintenance_ms += span;
            continue;
        }
        known_ms += span;
        if !status.takes_out_of_rotation() {
            up_ms += span;
        }
    }
    Uptime {
        in_rotation: (known_ms > 0).then(|| up_ms as f64 / known_ms as f64),
        maintenance_s: maintenance_ms / 1000,
    }
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
        let share = uptime(&changes, h(24), now).in_rotation.expect("known");
        assert!((share - 0.75).abs() < 1e-6, "{share}");
        // Only the last 10 h are known in a window that starts at the first change.
        let recent = [
            (h(10), ServerStatus::Blocked),
            (h(5), ServerStatus::Healthy),
        ];
        let share = uptime(&recent, h(24), now).in_rotation.expect("known");
        assert!((share - 0.5).abs() < 1e-6, "{share}");
        assert_eq!(uptime(&[], h(24), now), Uptime::default());
    }

    #[test]
    fn maintenance_is_counted_apart_neither_up_nor_down() {
        let now = Utc::now();
        let h = |n: i64| now - Duration::hours(n);
        let changes = [
            (h(30), ServerStatus::Healthy),
            (h(20), ServerStatus::Maintenance),
            (h(16), ServerStatus::Blocked),
            (h(12), ServerStatus::Healthy),
        ];
        // Last 24 h: 4 h healthy, 4 h maintenance, 4 h blocked, 12 h healthy.
        let day = uptime(&changes, h(24), now);
        assert_eq!(day.maintenance_s, 4 * 3600);
        let share = day.in_rotation.expect("known");
        assert!((share - 16.0 / 20.0).abs() < 1e-6, "{share}");
        // A window spent wholly in maintenance knows no uptime.
        let planned = uptime(&[(h(3), ServerStatus::Maintenance)], h(2), now);
        assert_eq!((planned.in_rotation, planned.maintenance_s), (None, 7200));
    }
}
