//! Rules engine speed: full evaluation for N = 100, 1000, 3000 servers (one
//! entry point each, every pair probed, 2 % of pairs failing with a
//! sustained streak), and one incremental report at N = 1000 and 3000: a
//! steady one, and one of a witness that was silent (every server it
//! probes gets its verdict rebuilt).
//! Run: `cargo bench -p meshwatch --bench engine`.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use meshwatch::evidence::{Evidence, ProbeError, ProbeOutcome, SelfCheck};
use meshwatch::ids::{EntryPointId, RouteId, ServerId};
use meshwatch::mesh::{Mesh, MeshRoute, MeshServer};
use meshwatch::rules::evaluate;
use meshwatch::settings::Settings;
use std::hint::black_box;

const NOW: i64 = 1_800_000_000_000;
const COUNTRIES: [&str; 5] = ["de", "nl", "fi", "us", "jp"];

fn ok_check() -> SelfCheck {
    SelfCheck {
        listener_ok: true,
        service_ok: true,
        detail: None,
    }
}

/// Deterministic "2 % of pairs fail" without a RNG dependency.
fn failing(w: usize, e: usize) -> bool {
    (w.wrapping_mul(2_654_435_761) ^ e.wrapping_mul(40_503)).is_multiple_of(50)
}

fn fleet(n: usize) -> (Mesh, Evidence) {
    let servers = (0..n)
        .map(|i| MeshServer {
            id: ServerId::parse(&format!("s{i}")).expect("slug"),
            name: format!("Server {i}"),
            country: COUNTRIES[i % 5].to_uppercase(),
            verifier: i % 100 == 99,
            network: None,
            controls: Default::default(),
            routes: vec![RouteId::parse(COUNTRIES[i % 5]).expect("slug")],
            entry_points: vec![EntryPointId::parse(&format!("s{i}-ep"))
                .expect("slug")
                .into()],
        })
        .collect();
    let routes = COUNTRIES
        .iter()
        .map(|c| MeshRoute {
            id: RouteId::parse(c).expect("slug"),
            servers_per_user: Some(2),
        })
        .collect();
    let mesh = Mesh::new(servers, routes);
    let mut evidence = Evidence::new(&mesh);
    for w in 0..n {
        evidence.record_report(w, NOW - 1_000, ok_check());
        for e in (0..n).filter(|&e| e != w) {
            let fails = failing(w, e);
            for k in 0..3 {
                let probe = ProbeOutcome::handshake(
                    NOW - 90_000 + k * 30_000,
                    !fails,
                    fails.then_some(ProbeError::Timeout),
                );
                // One round a probe interval apart, as agents report them.
                let received = NOW - 61_000 + k * 30_000;
                evidence.apply_probe(w, e, probe, received, Settings::default().streak_timing());
            }
        }
    }
    (mesh, evidence)
}

fn full_evaluation(c: &mut Criterion) {
    let settings = Settings::default();
    let mut group = c.benchmark_group("full_evaluation");
    group.sample_size(10);
    for n in [100usize, 1000, 3000] {
        let (mesh, evidence) = fleet(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| black_box(evaluate(&mesh, &evidence, &settings, NOW)))
        });
    }
    group.finish();
}

/// A realistic report of `witness`: one new result for each peer, the
/// same outcomes as before.
fn report_of(witness: usize, n: usize) -> Vec<(usize, ProbeOutcome)> {
    (0..n)
        .filter(|&e| e != witness)
        .map(|e| {
            let fails = failing(witness, e);
            (
                e,
                ProbeOutcome::handshake(NOW, !fails, fails.then_some(ProbeError::Timeout)),
            )
        })
        .collect()
}

fn incremental_report(c: &mut Criterion) {
    let settings = Settings::default();
    let witness = 7;
    let mut group = c.benchmark_group("incremental_report");
    for n in [1000usize, 3000] {
        let (mesh, mut evidence) = fleet(n);
        let probes = report_of(witness, n);
        let steady = evidence.clone();
        // The witness was silent (stale) and reports again: its evidence
        // counts once more for every server it probes.
        evidence.record_report(witness, NOW - 3_600_000, ok_check());
        for (case, evidence) in [("steady", steady), ("witness_returns", evidence)] {
            let evaluation = evaluate(&mesh, &evidence, &settings, NOW);
            group.bench_with_input(BenchmarkId::new(case, n), &n, |b, _| {
                b.iter_batched(
                    || (evaluation.clone(), evidence.clone()),
                    |(mut eval, mut ev)| {
                        let outcome =
                            eval.apply_report(&mesh, &mut ev, witness, NOW, ok_check(), &probes);
                        // Returned, so that dropping the state is not timed.
                        (eval, ev, black_box(outcome))
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, full_evaluation, incremental_report);
criterion_main!(benches);
