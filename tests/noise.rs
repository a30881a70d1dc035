//! The noise runs of docs/concepts/witness-sets.md: 1 % of probes fail by
//! chance, iid, while a script of real faults plays out. No false verdict,
//! every fault detected within `failure_streak` + 1 rounds, and witness
//! sets give the full mesh's verdicts on the same script. The bench
//! `cargo bench -p meshwatch --bench noise` prints the comparison.

#[path = "support/noise_run.rs"]
mod noise_run;

use meshwatch::settings::Settings;
use noise_run::{fault_script, server_verdict, Run};

fn run(servers: usize, rounds: usize, settings: Settings, seed: u64) -> Run {
    Run {
        servers,
        settings,
        p: 0.01,
        rounds,
        faults: fault_script(servers, rounds),
        seed,
    }
}

fn sets(threshold: u32) -> Settings {
    Settings {
        witness_set_threshold: threshold,
        ..Settings::default()
    }
}

fn assert_quality(run: &Run, what: &str) {
    let outcome = run.play();
    assert!(
        outcome.false_verdicts.is_empty(),
        "{what}: false verdicts {:?}",
        outcome.false_verdicts
    );
    let within = run.settings.failure_streak as usize;
    for (fault, detected) in run.faults.iter().zip(&outcome.detection) {
        let rounds = detected.unwrap_or_else(|| panic!("{what}: {fault:?} never detected"));
        assert!(
            rounds <= within,
            "{what}: {fault:?} took {} rounds",
            rounds + 1
        );
    }
}

#[test]
fn thirty_servers_with_one_percent_noise_give_no_false_verdict_and_detect_in_time() {
    // 31 servers with the verifier: the full mesh (threshold 64).
    assert_quality(&run(30, 300, Settings::default(), 1), "full mesh");
}

#[test]
fn thirty_servers_watched_by_witness_sets_give_no_false_verdict_and_detect_in_time() {
    // Sets of 12 among 30.
    assert_quality(&run(30, 300, sets(8), 2), "witness sets");
}

#[test]
fn a_thousand_servers_with_witness_sets_match_the_full_mesh_on_the_same_faults() {
    let rounds = 40;
    let full = run(1000, rounds, sets(5000), 3);
    let with_sets = run(1000, rounds, sets(64), 3);
    let (a, b) = (full.play(), with_sets.play());
    // Chance failures just before a fault can show it a round early, on
    // either side (the full mesh has a hundred times the witnesses to
    // be unlucky with): rounds within `failure_streak` of a fault's
    // start or end are compared by the detection bound instead.
    let streak = with_sets.settings.failure_streak as usize;
    let settling = |s: usize, round: usize| {
        with_sets.faults.iter().any(|f| {
            f.server == s
                && [f.from, f.to]
                    .iter()
                    .any(|&edge| (edge.saturating_sub(streak)..edge + streak).contains(&round))
        })
    };
    let mut compared = 0;
    for round in 0..rounds {
        for s in (0..=1000).filter(|&s| !settling(s, round)) {
            assert_eq!(
                server_verdict(a.verdicts[round][s]),
                server_verdict(b.verdicts[round][s]),
                "round {round}, server {s}"
            );
            compared += 1;
        }
    }
    assert!(compared > 39 * 1000, "{compared} verdicts compared");
    assert!(a.false_verdicts.is_empty(), "{:?}", a.false_verdicts);
    assert!(b.false_verdicts.is_empty(), "{:?}", b.false_verdicts);
    for detection in [&a.detection, &b.detection] {
        assert!(
            detection.iter().all(|d| d.is_some_and(|r| r <= streak)),
            "{detection:?}"
        );
    }
    assert!(
        b.probes * 20 < a.probes,
        "sets probe a fraction: {} of {}",
        b.probes,
        a.probes
    );
}
