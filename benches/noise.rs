//! Witness sets against the full mesh on the same noise run: N servers
//! (default 1000, `MESHWATCH_NOISE_SERVERS`), 1 % of probes failing by
//! chance, the same script of real faults, `MESHWATCH_NOISE_ROUNDS`
//! rounds (default 60). Prints, per mode, the probes an agent sends a
//! round, false verdicts, the rounds each fault took to show, the time a
//! round's evaluation took, and how many verdicts the two modes share.
//! Run: `cargo bench -p meshwatch --bench noise`.

#[path = "../tests/support/noise_run.rs"]
mod noise_run;

use meshwatch::settings::Settings;
use noise_run::{fault_script, server_verdict, Run};
use std::time::Instant;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let servers = env("MESHWATCH_NOISE_SERVERS", 1000);
    let rounds = env("MESHWATCH_NOISE_ROUNDS", 60);
    let run = |threshold: u32| Run {
        servers,
        settings: Settings {
            witness_set_threshold: threshold,
            ..Settings::default()
        },
        p: 0.01,
        rounds,
        faults: fault_script(servers, rounds),
        seed: 7,
    };
    println!("noise run: {servers} servers and a verifier, p = 1 %, {rounds} rounds, 9 faults");
    println!("| mode | probes per agent and round | false verdicts | rounds to detect (max) | a round simulated and evaluated |");
    println!("|---|---|---|---|---|");
    let mut outcomes = Vec::new();
    for (mode, threshold) in [("full mesh", u32::MAX), ("witness sets (m = 12)", 64)] {
        let run = run(threshold);
        let started = Instant::now();
        let outcome = run.play();
        let per_round = started.elapsed() / rounds as u32;
        let detect = outcome
            .detection
            .iter()
            .map(|d| d.map_or("never".to_owned(), |r| (r + 1).to_string()))
            .max()
            .unwrap_or_default();
        println!(
            "| {mode} | {:.1} | {} | {detect} | {per_round:.1?} |",
            outcome.probes as f64 / (rounds * (servers + 1)) as f64,
            outcome.false_verdicts.len(),
        );
        outcomes.push(outcome);
    }
    let (a, b) = (&outcomes[0], &outcomes[1]);
    let total = rounds * (servers + 1);
    let same = (0..rounds)
        .flat_map(|r| (0..=servers).map(move |s| (r, s)))
        .filter(|&(r, s)| server_verdict(a.verdicts[r][s]) == server_verdict(b.verdicts[r][s]))
        .count();
    println!(
        "verdicts the two modes share: {same} of {total} ({:.3} %)",
        100.0 * same as f64 / total as f64
    );
}
