//! How the panel takes an agent's report before any of it becomes evidence:
//! an agent cannot invent time (future results are clamped, a stepped clock
//! is re-based), one report counts at most once per pair, and what it says
//! about itself is bounded. Pure, so the rules read as tests.

use crate::agent_api::AgentReport;
use crate::evidence::{to_ms, ProbeOutcome};

/// How far an agent's clock may run ahead of the panel's before its times
/// are not believed. Also the largest `sent_at` error taken as ordinary
/// network delay rather than a wrong clock.
pub const MAX_CLOCK_SKEW_MS: i64 = 5_000;

/// The most of `self_check.detail` kept, in bytes (longer ones are cut
/// with an ellipsis).
pub const MAX_DETAIL_BYTES: usize = 1024;

/// The fewest probe results one report may carry, whatever the fleet.
pub const MIN_PROBES_PER_REPORT: usize = 1_000;

/// How many probe rounds one report's bound allows for, per entry point of
/// the fleet: a full report interval's rounds plus slack for jitter.
pub const ROUNDS_PER_REPORT_SLACK: usize = 2;

/// The results one round may carry per entry point: the handshake, and a
/// verifier's control-SNI retry and transfer check (PRODUCT.md §8).
pub const CHECKS_PER_ENTRY_POINT: usize = 3;

/// The most probe results one report may carry in a fleet of
/// `entry_points`, probing every `probe_interval_s` and reporting every
/// `report_interval_s`: every check of every entry point, and of each
/// control address, per round. An agent with more evidence splits it.
pub fn max_probes_per_report(
    entry_points: usize,
    report_interval_s: u32,
    probe_interval_s: u32,
) -> usize {
    let rounds = report_interval_s.div_ceil(probe_interval_s.max(1)) as usize;
    entry_points
        .saturating_mul(CHECKS_PER_ENTRY_POINT)
        .saturating_add(crate::controls::MAX_CONTROLS)
        .saturating_mul(rounds + ROUNDS_PER_REPORT_SLACK)
        .max(MIN_PROBES_PER_REPORT)
}

/// The shift that turns the agent's clock into the panel's for this
/// report, judged from `sent_at` (the agent's clock when it sent the
/// report) against the receipt time. Within [`MAX_CLOCK_SKEW_MS`] it is
/// network delay and ignored; beyond, the agent's clock is wrong (say it
/// stepped back an hour) and every result is re-based, so that its
/// results are neither ignored as old nor taken as from the future.
pub fn clock_shift_ms(sent_at_ms: i64, received_ms: i64) -> i64 {
    let shift = received_ms.saturating_sub(sent_at_ms);
    if shift.abs() > MAX_CLOCK_SKEW_MS {
        shift
    } else {
        0
    }
}

/// A result's time on the panel's clock: re-based by `shift_ms`, and never
/// later than the receipt (plus the allowed skew).
pub fn probe_time_ms(at_ms: i64, shift_ms: i64, received_ms: i64) -> i64 {
    let at = at_ms.saturating_add(shift_ms);
    if at > received_ms.saturating_add(MAX_CLOCK_SKEW_MS) {
        received_ms
    } else {
        at
    }
}

/// Cuts `detail` to at most [`MAX_DETAIL_BYTES`] (on a character
/// boundary), marking the cut with an ellipsis.
pub fn cap_detail(detail: &mut String) {
    if detail.len() <= MAX_DETAIL_BYTES {
        return;
    }
    const ELLIPSIS: char = '…';
    let mut end = MAX_DETAIL_BYTES - ELLIPSIS.len_utf8();
    while !detail.is_char_boundary(end) {
        end -= 1;
    }
    detail.truncate(end);
    detail.push(ELLIPSIS);
}

/// Puts a report on the panel's terms, in place: result times re-based and
/// clamped, and the self-check detail capped.
pub fn normalize(report: &mut AgentReport, received_ms: i64) {
    let shift = clock_shift_ms(to_ms(report.sent_at), received_ms);
    for probe in &mut report.probes {
        let at = probe_time_ms(to_ms(probe.at), shift, received_ms);
        probe.at = crate::evidence::from_ms(at);
    }
    if let Some(detail) = report.self_check.detail.as_mut() {
        cap_detail(detail);
    }
}

/// Keeps only the newest result per entry point (mesh index) and check,
/// so that one report, even from a leaked token, is one knock per pair
/// and can never make a streak by itself. Sorted by entry point, then
/// check (a handshake before its control-SNI retry).
pub fn newest_per_entry_point(
    mut results: Vec<(usize, ProbeOutcome)>,
) -> Vec<(usize, ProbeOutcome)> {
    results.sort_unstable_by_key(|(e, p)| (*e, p.check, p.at_ms));
    // The last of each run of one entry point and check is its newest.
    let mut kept: Vec<(usize, ProbeOutcome)> = Vec::with_capacity(results.len());
    for result in results {
        match kept.last_mut() {
            Some(last) if last.0 == result.0 && last.1.check == result.1.check => *last = result,
            _ => kept.push(result),
        }
    }
    kept
}

/// One report's checks of the verifier's own control addresses as one
/// result (PRODUCT.md §8): it reached its network when any control
/// answered; timed by the newest. `None` without any.
pub fn fold_controls(controls: &[ProbeOutcome]) -> Option<ProbeOutcome> {
    let newest = controls.iter().max_by_key(|c| c.at_ms)?;
    let ok = controls.iter().any(|c| c.ok);
    Some(ProbeOutcome {
        ok,
        error: if ok { None } else { newest.error },
        ..*newest
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_api::{Metrics, ProbeReport};
    use crate::evidence::{from_ms, SelfCheck};

    const NOW: i64 = 1_800_000_000_000;

    fn report(sent_at_ms: i64, probes: &[(&str, i64, bool)]) -> AgentReport {
        AgentReport {
            report_id: "6f1c1c9e-5d0b-4a51-9f5e-1b2c3d4e5f60".into(),
            agent_version: "test".into(),
            sent_at: from_ms(sent_at_ms),
            self_check: SelfCheck {
                listener_ok: true,
                service_ok: true,
                detail: None,
            },
            metrics: Metrics::default(),
            probes: probes
                .iter()
                .map(|(ep, at, ok)| ProbeReport {
                    entry_point_id: (*ep).into(),
                    at: from_ms(*at),
                    ok: *ok,
                    latency_ms: None,
                    error: None,
                    check: Default::default(),
                    stage: None,
                    bytes: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_result_from_the_future_is_taken_as_the_receipt_time() {
        let mut r = report(NOW, &[("a", NOW + 3_600_000, false)]);
        normalize(&mut r, NOW);
        assert_eq!(to_ms(r.probes[0].at), NOW);
    }

    #[test]
    fn a_result_within_the_skew_keeps_its_time() {
        let mut r = report(NOW, &[("a", NOW + MAX_CLOCK_SKEW_MS, false)]);
        normalize(&mut r, NOW);
        assert_eq!(to_ms(r.probes[0].at), NOW + MAX_CLOCK_SKEW_MS);
    }

    #[test]
    fn a_clock_stepped_back_an_hour_is_re_based_onto_the_panels() {
        let hour = 3_600_000;
        let mut r = report(NOW - hour, &[("a", NOW - hour - 20_000, false)]);
        normalize(&mut r, NOW);
        assert_eq!(to_ms(r.probes[0].at), NOW - 20_000);
    }

    #[test]
    fn ordinary_network_delay_is_not_a_clock_step() {
        let mut r = report(NOW - 2_000, &[("a", NOW - 30_000, true)]);
        normalize(&mut r, NOW);
        assert_eq!(to_ms(r.probes[0].at), NOW - 30_000);
    }

    #[test]
    fn one_report_keeps_only_the_newest_result_per_entry_point() {
        let result = |e: usize, at_ms: i64, ok: bool| (e, ProbeOutcome::handshake(at_ms, ok, None));
        let kept = newest_per_entry_point(vec![
            result(1, 3, false),
            result(0, 2, false),
            result(0, 4, true),
            result(0, 1, false),
            result(1, 5, false),
        ]);
        assert_eq!(kept, vec![result(0, 4, true), result(1, 5, false)]);
    }

    #[test]
    fn a_long_detail_is_cut_with_an_ellipsis_on_a_character_boundary() {
        let mut detail = "é".repeat(MAX_DETAIL_BYTES);
        cap_detail(&mut detail);
        assert!(detail.len() <= MAX_DETAIL_BYTES);
        assert!(detail.ends_with('…'));
        let mut short = "listener down".to_owned();
        cap_detail(&mut short);
        assert_eq!(short, "listener down");
    }

    #[test]
    fn the_probe_bound_grows_with_the_fleet_and_has_a_floor() {
        assert_eq!(max_probes_per_report(10, 60, 30), MIN_PROBES_PER_REPORT);
        assert_eq!(max_probes_per_report(5_000, 60, 30), (15_000 + 8) * 4);
        assert_eq!(max_probes_per_report(5_000, 60, 0), (15_000 + 8) * 62);
    }
}
