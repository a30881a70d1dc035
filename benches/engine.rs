//! Rules engine speed: full evaluation for N = 100, 1000, 3000 servers (one
//! entry point each, every pair probed, 2 % of pairs failing with a
//! sustained streak), and one incremental report at N = 1000 and 3000: a
//! steady one, and one of a witness that was silent (every server it
//! probes gets its verdict rebuilt). Then fleets of 1000, 3000 and 10 000
//! as agents of today report them beyond the witness-set threshold: each
//! agent probes its own targets only (ten verifiers probe every normal
//! server): full evaluations, the once-a-second tick and steady reports.
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
    fleet_probing(n, 99, |_, _| true)
}

/// Every this many servers, one is a verifier in the fleets of today's
/// agents: ten of them, whatever the fleet's size (verifiers probe every
/// normal server, so they are few).
fn one_verifier_in(n: usize) -> usize {
    n / 10
}

/// Like [`fleet`], with each agent probing only the targets its witness
/// sets give it.
fn fleet_of_sets(n: usize, settings: &Settings) -> (Mesh, Evidence) {
    let (mesh, reports) = fleet_probing(n, one_verifier_in(n) - 1, |_, _| false);
    let sets = evaluate(&mesh, &reports, settings, NOW).sets().clone();
    let probes = |w: usize, e: usize| match sets.targets_of(w) {
        Some(targets) => targets.iter().any(|&(t, _)| t as usize == e),
        None => !mesh.server(e).verifier,
    };
    fleet_probing(n, one_verifier_in(n) - 1, probes)
}

/// `n` servers of which those at `verifier` modulo `verifier + 1` are
/// verifiers, each probing the entry points `probes` says.
fn fleet_probing(
    n: usize,
    verifier: usize,
    probes: impl Fn(usize, usize) -> bool,
) -> (Mesh, Evidence) {
    let servers = (0..n)
        .map(|i| MeshServer {
            id: ServerId::parse(&format!("s{i}")).expect("slug"),
            name: format!("Server {i}"),
            country: COUNTRIES[i % 5].to_uppercase(),
            verifier: i % (verifier + 1) == verifier,
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
        for e in (0..n).filter(|&e| e != w && probes(w, e)) {
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

/// One report applied to an evaluation and its evidence.
struct Report<'a> {
    mesh: &'a Mesh,
    evaluation: &'a meshwatch::rules::Evaluation,
    evidence: &'a Evidence,
    witness: usize,
    probes: &'a [(usize, ProbeOutcome)],
}

fn bench_report(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    r: Report<'_>,
) {
    group.bench_function(id, |b| {
        b.iter_batched(
            || (r.evaluation.clone(), r.evidence.clone()),
            |(mut eval, mut ev)| {
                let outcome =
                    eval.apply_report(r.mesh, &mut ev, r.witness, NOW, ok_check(), r.probes);
                // Returned, so that dropping the state is not timed.
                (eval, ev, black_box(outcome))
            },
            BatchSize::LargeInput,
        )
    });
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
            let report = Report {
                mesh: &mesh,
                evaluation: &evaluation,
                evidence: &evidence,
                witness,
                probes: &probes,
            };
            bench_report(&mut group, BenchmarkId::new(case, n), report);
        }
    }
    group.finish();
}

/// The fleets of today's agents: full evaluations (at start-up and on
/// fleet or settings changes), the once-a-second tick, and one steady
/// report of a normal agent and of a verifier.
fn with_sets(c: &mut Criterion) {
    let settings = Settings::default();
    let mut group = c.benchmark_group("sets");
    group.sample_size(10);
    for n in [1000usize, 3000, 10_000] {
        let (mesh, evidence) = fleet_of_sets(n, &settings);
        group.bench_with_input(BenchmarkId::new("full_evaluation", n), &n, |b, _| {
            b.iter(|| black_box(evaluate(&mesh, &evidence, &settings, NOW)))
        });
        let evaluation = evaluate(&mesh, &evidence, &settings, NOW);
        // The once-a-second tick: a second later, with the sets whose turn
        // to rotate came in it (about n / 3600); and a tick in which an
        // agent went silent: every set is chosen again.
        let mut silent = evidence.clone();
        silent.record_report(7, NOW + 500 - settings.stale_after_ms(), ok_check());
        let before_silence = evaluate(&mesh, &silent, &settings, NOW);
        // And the tick in which the reports of three rounds ago expire,
        // every result in them renewed by a later report.
        let (mut renewing, mut renewed) = (evaluation.clone(), evidence.clone());
        for round in [0, 60_000] {
            for w in 0..n {
                let probes: Vec<(usize, ProbeOutcome)> = renewed
                    .pairs_of(w)
                    .map(|(e, _)| (e, ProbeOutcome::handshake(NOW + round, true, None)))
                    .collect();
                renewing.apply_report(&mesh, &mut renewed, w, NOW + round, ok_check(), &probes);
            }
        }
        renewing.advance(&mesh, &renewed, NOW + settings.stale_after_ms() - 500);
        let ticks = [
            ("tick", &evaluation, &evidence),
            ("tick_agent_silent", &before_silence, &silent),
            ("tick_reports_renewed", &renewing, &renewed),
        ];
        for (case, evaluation, evidence) in ticks {
            group.bench_with_input(BenchmarkId::new(case, n), &n, |b, _| {
                b.iter_batched(
                    || evaluation.clone(),
                    |mut eval| {
                        let now = eval.now_ms() + 1_000;
                        let rebuilt = eval.advance(&mesh, evidence, now);
                        (eval, black_box(rebuilt))
                    },
                    BatchSize::LargeInput,
                )
            });
        }
        let verifier = one_verifier_in(n) - 1;
        for (case, witness) in [("steady_report", 7), ("verifier_report", verifier)] {
            let probes: Vec<(usize, ProbeOutcome)> = evidence
                .pairs_of(witness)
                .map(|(e, _)| {
                    let fails = failing(witness, e);
                    let outcome =
                        ProbeOutcome::handshake(NOW, !fails, fails.then_some(ProbeError::Timeout));
                    (e, outcome)
                })
                .collect();
            let report = Report {
                mesh: &mesh,
                evaluation: &evaluation,
                evidence: &evidence,
                witness,
                probes: &probes,
            };
            bench_report(&mut group, BenchmarkId::new(case, n), report);
        }
    }
    group.finish();
}

criterion_group!(benches, full_evaluation, incremental_report, with_sets);
criterion_main!(benches);
