//! How the agent cuts its evidence into reports the panel takes whole: the
//! panel counts at most one result per (witness, entry point) from one
//! report, and refuses a body over 1 MiB. So results go out in rounds, each
//! round one result per entry point, oldest round first, and a round too
//! big for one body is cut into several.

use meshwatch::agent_api::ProbeReport;
use std::collections::HashMap;

/// The most probe results in one report: about 200 KB of JSON with
/// typical ids and under half the panel's 1 MiB limit with the longest
/// (64-character) ones.
pub const MAX_PROBES_PER_REPORT: usize = 2_000;

/// Splits `probes` into the probe lists of consecutive reports: in each,
/// at most one result per entry point and at most `max_per_report`
/// results; the results of one entry point keep their order across them.
pub fn split(mut probes: Vec<ProbeReport>, max_per_report: usize) -> Vec<Vec<ProbeReport>> {
    let max_per_report = max_per_report.max(1);
    // Stable: results of one entry point stay in time order.
    probes.sort_by_key(|p| p.at);
    let mut rounds: Vec<Vec<ProbeReport>> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for probe in probes {
        let round = seen.entry(probe.entry_point_id.clone()).or_insert(0);
        if rounds.len() <= *round {
            rounds.push(Vec::new());
        }
        rounds[*round].push(probe);
        *round += 1;
    }
    rounds
        .into_iter()
        .flat_map(|round| {
            let mut parts = Vec::new();
            let mut rest = round;
            while rest.len() > max_per_report {
                let tail = rest.split_off(max_per_report);
                parts.push(rest);
                rest = tail;
            }
            parts.push(rest);
            parts
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn probe(ep: &str, second: u32) -> ProbeReport {
        ProbeReport {
            entry_point_id: ep.into(),
            at: Utc
                .with_ymd_and_hms(2026, 12, 3, 10, 0, second)
                .single()
                .expect("time"),
            ok: false,
            latency_ms: None,
            error: None,
            check: Default::default(),
            stage: None,
            bytes: None,
        }
    }

    #[test]
    fn each_report_has_at_most_one_result_per_entry_point_oldest_first() {
        let parts = split(
            vec![probe("a", 2), probe("b", 1), probe("a", 1), probe("a", 3)],
            100,
        );
        let shape: Vec<Vec<(String, u32)>> = parts
            .iter()
            .map(|p| {
                p.iter()
                    .map(|r| (r.entry_point_id.clone(), chrono::Timelike::second(&r.at)))
                    .collect()
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                vec![("b".into(), 1), ("a".into(), 1)],
                vec![("a".into(), 2)],
                vec![("a".into(), 3)],
            ]
        );
    }

    #[test]
    fn a_big_round_is_cut_and_nothing_is_lost() {
        let probes: Vec<ProbeReport> = (0..2_500).map(|i| probe(&format!("ep-{i}"), 0)).collect();
        let parts = split(probes, 1_000);
        assert_eq!(
            parts.iter().map(Vec::len).collect::<Vec<_>>(),
            [1_000, 1_000, 500]
        );
    }

    #[test]
    fn no_evidence_makes_no_report() {
        assert!(split(Vec::new(), 10).is_empty());
    }
}
