//! The verdict parameters of docs/PRODUCT.md §2, with their defaults and ranges.

use serde::{Deserialize, Serialize};

/// Operator-editable verdict parameters (durations in whole seconds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Settings {
    pub report_interval_s: u32,
    pub probe_interval_s: u32,
    pub probe_timeout_s: u32,
    pub stale_after_s: u32,
    pub failure_streak: u32,
    pub quorum: u32,
    pub unreliable_fraction: f64,
    /// Beyond this many servers, each normal server is watched by its
    /// witness set rather than by every other server (docs/concepts/witness-sets.md).
    #[serde(default = "default_witness_set_threshold")]
    pub witness_set_threshold: u32,
    /// How many witnesses a set holds (m).
    #[serde(default = "default_witness_set_size")]
    pub witness_set_size: u32,
    /// Each set swaps one witness once per this many seconds.
    #[serde(default = "default_witness_rotation_s")]
    pub witness_rotation_s: u32,
}

/// The largest witness set an operator may ask for: sets are meant to be
/// small and constant; a fleet that wants more should raise the threshold.
pub const MAX_WITNESS_SET_SIZE: u32 = 32;

fn default_witness_set_threshold() -> u32 {
    Settings::default().witness_set_threshold
}

fn default_witness_set_size() -> u32 {
    Settings::default().witness_set_size
}

fn default_witness_rotation_s() -> u32 {
    Settings::default().witness_rotation_s
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            report_interval_s: 60,
            probe_interval_s: 30,
            probe_timeout_s: 5,
            stale_after_s: 180,
            failure_streak: 3,
            quorum: 2,
            unreliable_fraction: 0.5,
            witness_set_threshold: 64,
            witness_set_size: 12,
            witness_rotation_s: 3600,
        }
    }
}

/// A parameter outside its range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct SettingsError {
    pub field: &'static str,
    pub problem: &'static str,
}

impl Settings {
    pub fn validate(&self) -> Result<(), SettingsError> {
        let at_least_one = [
            ("report_interval_s", self.report_interval_s),
            ("probe_interval_s", self.probe_interval_s),
            ("probe_timeout_s", self.probe_timeout_s),
            ("stale_after_s", self.stale_after_s),
            ("failure_streak", self.failure_streak),
            ("quorum", self.quorum),
            ("witness_set_threshold", self.witness_set_threshold),
            ("witness_set_size", self.witness_set_size),
            ("witness_rotation_s", self.witness_rotation_s),
        ];
        if let Some((field, _)) = at_least_one.iter().find(|(_, v)| *v < 1) {
            return Err(SettingsError {
                field,
                problem: "must be a whole number of at least 1",
            });
        }
        if self.witness_set_size > MAX_WITNESS_SET_SIZE {
            return Err(SettingsError {
                field: "witness_set_size",
                problem: "must be at most 32",
            });
        }
        let f = self.unreliable_fraction;
        if !(f > 0.0 && f <= 1.0) {
            return Err(SettingsError {
                field: "unreliable_fraction",
                problem: "must be a number in (0, 1]",
            });
        }
        Ok(())
    }

    /// Whether a fleet of `servers` is watched by witness sets.
    pub fn uses_witness_sets(&self, servers: usize) -> bool {
        servers > self.witness_set_threshold as usize
    }

    pub fn witness_rotation_ms(&self) -> i64 {
        i64::from(self.witness_rotation_s) * 1000
    }

    pub fn stale_after_ms(&self) -> i64 {
        i64::from(self.stale_after_s) * 1000
    }

    /// How receipt times bound streaks: stale evidence starts a new
    /// streak, and a pair grows by at most one knock per half a probe
    /// interval of receipt time (§1b).
    pub fn streak_timing(&self) -> crate::evidence::StreakTiming {
        crate::evidence::StreakTiming {
            stale_after_ms: self.stale_after_ms(),
            knock_gap_ms: i64::from(self.probe_interval_s) * 500,
        }
    }

    /// R1's threshold: a witness failing to reach at least this many of the
    /// `n` servers it probes is unreliable.
    pub fn unreliable_threshold(&self, n: u32) -> u32 {
        let share = (self.unreliable_fraction * f64::from(n)).ceil();
        // `share` is in [0, n], so the cast cannot truncate.
        (share as u32).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_those_of_product_md() {
        let s = Settings::default();
        assert_eq!(
            (
                s.report_interval_s,
                s.probe_interval_s,
                s.probe_timeout_s,
                s.stale_after_s
            ),
            (60, 30, 5, 180)
        );
        assert_eq!((s.failure_streak, s.quorum), (3, 2));
        assert_eq!(s.unreliable_fraction, 0.5);
        assert_eq!(
            (
                s.witness_set_threshold,
                s.witness_set_size,
                s.witness_rotation_s
            ),
            (64, 12, 3600)
        );
        assert!(!s.uses_witness_sets(64) && s.uses_witness_sets(65));
        assert_eq!(s.validate(), Ok(()));
    }

    #[test]
    fn out_of_range_values_are_refused() {
        let zero_quorum = Settings {
            quorum: 0,
            ..Settings::default()
        };
        assert_eq!(zero_quorum.validate().map_err(|e| e.field), Err("quorum"));
        for f in [0.0, -0.1, 1.01, f64::NAN] {
            let s = Settings {
                unreliable_fraction: f,
                ..Settings::default()
            };
            assert_eq!(
                s.validate().map_err(|e| e.field),
                Err("unreliable_fraction"),
                "{f}"
            );
        }
        let too_big = Settings {
            witness_set_size: MAX_WITNESS_SET_SIZE + 1,
            ..Settings::default()
        };
        assert_eq!(
            too_big.validate().map_err(|e| e.field),
            Err("witness_set_size")
        );
        let no_rotation = Settings {
            witness_rotation_s: 0,
            ..Settings::default()
        };
        assert_eq!(
            no_rotation.validate().map_err(|e| e.field),
            Err("witness_rotation_s")
        );
        let full = Settings {
            unreliable_fraction: 1.0,
            ..Settings::default()
        };
        assert_eq!(full.validate(), Ok(()));
    }

    #[test]
    fn the_unreliable_threshold_is_at_least_two() {
        let s = Settings::default();
        assert_eq!(s.unreliable_threshold(0), 2);
        assert_eq!(s.unreliable_threshold(3), 2);
        assert_eq!(s.unreliable_threshold(5), 3);
        assert_eq!(s.unreliable_threshold(10), 5);
    }
}
