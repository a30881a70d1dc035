//! When to tell the operator of a whole-fleet fault: once per fault, only
//! once the message is queued, and not again for a fault that flaps: it
//! counts as over only after it has been gone for [`FAULT_HOLD_DOWN_MS`].

/// How long a whole-fleet fault must have been gone before another one is
/// a new fault with its own message.
pub const FAULT_HOLD_DOWN_MS: i64 = 15 * 60 * 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FaultAlert {
    /// The operator was told of the fault that holds (or held within the
    /// hold-down).
    told: bool,
    /// When the fault told of was last seen gone (panel ms), while it is.
    gone_since_ms: Option<i64>,
}

impl FaultAlert {
    /// A fault that held when the panel (or this replica's term) started
    /// was told by the one before.
    pub fn at_start(holds: bool) -> Self {
        Self {
            told: holds,
            gone_since_ms: None,
        }
    }

    /// Whether a message is due now, given whether the fault holds.
    pub fn due(&mut self, holds: bool, now_ms: i64) -> bool {
        if holds {
            self.gone_since_ms = None;
            return !self.told;
        }
        if self.told {
            let since = *self.gone_since_ms.get_or_insert(now_ms);
            if now_ms.saturating_sub(since) >= FAULT_HOLD_DOWN_MS {
                *self = Self::default();
            }
        }
        false
    }

    /// The message is queued: the fault counts as told.
    pub fn told(&mut self) {
        self.told = true;
        self.gone_since_ms = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_is_due_until_its_message_is_queued() {
        let mut alert = FaultAlert::default();
        assert!(alert.due(true, 0));
        assert!(alert.due(true, 1_000), "queueing failed: still due");
        alert.told();
        assert!(!alert.due(true, 2_000));
    }

    #[test]
    fn a_flapping_fault_is_told_once() {
        let mut alert = FaultAlert::default();
        assert!(alert.due(true, 0));
        alert.told();
        for k in 1..20 {
            let at = k * 60_000;
            assert!(!alert.due(k % 2 == 0, at), "flap {k}");
        }
    }

    #[test]
    fn a_fault_gone_for_the_hold_down_is_over_and_the_next_is_new() {
        let mut alert = FaultAlert::default();
        assert!(alert.due(true, 0));
        alert.told();
        assert!(!alert.due(false, 1_000));
        assert!(!alert.due(false, 1_000 + FAULT_HOLD_DOWN_MS - 1));
        assert!(!alert.due(false, 1_000 + FAULT_HOLD_DOWN_MS));
        assert!(alert.due(true, 2_000 + FAULT_HOLD_DOWN_MS));
    }

    #[test]
    fn a_fault_holding_at_start_was_told_before() {
        assert!(!FaultAlert::at_start(true).due(true, 0));
        assert!(FaultAlert::at_start(false).due(true, 0));
    }
}
