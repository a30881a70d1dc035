//! Property tests of the invariants: incremental == full, verdicts depend
//! only on current evidence, a route is never empty, silence never removes,
//! one success resets a streak.

use crate::balance::assign;
use crate::evidence::{
    Check, Evidence, PairState, ProbeError, ProbeOutcome, SelfCheck, Stage, StreakTiming,
};
use crate::fleet::Transport;
use crate::ids::{EntryPointId, RouteId, ServerId, UserId};
use crate::mesh::{Mesh, MeshEntryPoint, MeshRoute, MeshServer};
use crate::rules::{evaluate, WitnessReport};
use crate::settings::Settings;
use crate::status::ServerStatus;
use proptest::prelude::*;

const NOW: i64 = 1_800_000_000_000;
const STALE_MS: i64 = 180_000;
/// The scenarios' results of one pair arrive together and stand for
/// separate rounds: the knock gap has its own property below.
const TIMING: StreakTiming = StreakTiming {
    stale_after_ms: STALE_MS,
    knock_gap_ms: 0,
};

#[derive(Debug, Clone)]
enum ReportKind {
    Missing,
    Stale,
    Fresh { listener_ok: bool, service_ok: bool },
}

#[derive(Debug, Clone)]
struct Scenario {
    /// (verifier, entry points, country index, route servers_per_user)
    servers: Vec<(bool, usize, usize)>,
    per_user: Vec<Option<u32>>,
    reports: Vec<ReportKind>,
    /// For every (witness, entry point): a probe sequence and whether it arrived fresh.
    probes: Vec<(Vec<bool>, bool)>,
    settings: Settings,
}

fn report_kind() -> impl Strategy<Value = ReportKind> {
    prop_oneof![
        1 => Just(ReportKind::Missing),
        1 => Just(ReportKind::Stale),
        6 => (prop::bool::weighted(0.85), prop::bool::weighted(0.85))
            .prop_map(|(listener_ok, service_ok)| ReportKind::Fresh { listener_ok, service_ok }),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let servers = prop::collection::vec((prop::bool::weighted(0.2), 1usize..3, 0usize..3), 2..7);
    let settings = (1u32..4, 1u32..4, 1u32..=10, 1u32..9, 1u32..4).prop_map(
        |(failure_streak, quorum, tenths, witness_set_threshold, witness_set_size)| Settings {
            failure_streak,
            quorum,
            unreliable_fraction: f64::from(tenths) / 10.0,
            // Half the fleets are beyond the threshold: witness sets
            // of 1 to 3, with indirect confirmation.
            witness_set_threshold,
            witness_set_size,
            ..Settings::default()
        },
    );
    (servers, settings).prop_flat_map(|(servers, settings)| {
        let n = servers.len();
        let eps: usize = servers.iter().map(|s| s.1).sum();
        (
            Just(servers),
            prop::collection::vec(prop::option::of(1u32..3), 3),
            prop::collection::vec(report_kind(), n),
            prop::collection::vec(
                (
                    prop::collection::vec(prop::bool::weighted(0.4), 0..6),
                    prop::bool::weighted(0.9),
                ),
                n * eps,
            ),
            Just(settings),
        )
            .prop_map(|(servers, per_user, reports, probes, settings)| Scenario {
                servers,
                per_user,
                reports,
                probes,
                settings,
            })
    })
}

const COUNTRIES: [&str; 3] = ["de", "nl", "ir"];

fn build(s: &Scenario) -> (Mesh, Evidence) {
    let servers = s
        .servers
        .iter()
        .enumerate()
        .map(|(i, (verifier, eps, country))| MeshServer {
            id: ServerId::parse(&format!("s{i}")).expect("slug"),
            name: format!("Server {i}"),
            country: COUNTRIES[*country].to_uppercase(),
            verifier: *verifier,
            network: None,
            controls: Default::default(),
            routes: vec![RouteId::parse(COUNTRIES[*country]).expect("slug")],
            // Every second entry point is a QUIC one, so that §8's
            // `protocol` kind has two transports to tell apart.
            entry_points: (0..*eps)
                .map(|e| MeshEntryPoint {
                    id: EntryPointId::parse(&format!("s{i}-e{e}")).expect("slug"),
                    transport: if e % 2 == 1 {
                        Transport::Quic
                    } else {
                        Transport::Tcp
                    },
                })
                .collect(),
        })
        .collect();
    let routes = COUNTRIES
        .iter()
        .zip(&s.per_user)
        .map(|(c, k)| MeshRoute {
            id: RouteId::parse(c).expect("slug"),
            servers_per_user: *k,
        })
        .collect();
    let mesh = Mesh::new(servers, routes);
    let mut evidence = Evidence::new(&mesh);
    let stale_ms = s.settings.stale_after_ms();
    for (i, kind) in s.reports.iter().enumerate() {
        match kind {
            ReportKind::Missing => {}
            ReportKind::Stale => evidence.record_report(i, NOW - stale_ms - 1, ok_check()),
            ReportKind::Fresh {
                listener_ok,
                service_ok,
            } => evidence.record_report(
                i,
                NOW - 1_000,
                SelfCheck {
                    listener_ok: *listener_ok,
                    service_ok: *service_ok,
                    detail: None,
                },
            ),
        }
    }
    let eps = mesh.entry_point_count();
    for w in 0..mesh.server_count() {
        for e in (0..eps).filter(|&e| mesh.owner_of(e) != w) {
            let (sequence, fresh) = &s.probes[w * eps + e];
            let received = if *fresh {
                NOW - 2_000
            } else {
                NOW - stale_ms - 5
            };
            for (k, ok) in sequence.iter().enumerate() {
                evidence.apply_probe(w, e, outcome(k as i64, *ok), received, TIMING);
            }
        }
    }
    (mesh, evidence)
}

fn ok_check() -> SelfCheck {
    SelfCheck {
        listener_ok: true,
        service_ok: true,
        detail: None,
    }
}

fn outcome(at_ms: i64, ok: bool) -> ProbeOutcome {
    ProbeOutcome::handshake(at_ms, ok, (!ok).then_some(ProbeError::Refused))
}

/// One of §8's checks, picked by `variant`: handshakes failing at TCP or
/// at TLS, the control SNI, and transfers (frozen when failing).
fn check_outcome(at_ms: i64, ok: bool, variant: u8) -> ProbeOutcome {
    let base = outcome(at_ms, ok);
    let failed = |stage| (!ok).then_some(stage);
    match variant {
        0 => base,
        1 => ProbeOutcome {
            stage: failed(Stage::Tcp),
            ..base
        },
        2 => ProbeOutcome {
            stage: failed(Stage::Tls),
            error: (!ok).then_some(ProbeError::Reset),
            ..base
        },
        3 => ProbeOutcome {
            check: Check::ControlSni,
            ..base
        },
        _ => ProbeOutcome {
            check: Check::Transfer,
            error: (!ok).then_some(ProbeError::Frozen),
            stage: failed(Stage::Transfer),
            bytes: Some(if ok {
                131_072
            } else {
                16_384 + u64::from(variant)
            }),
            ..base
        },
    }
}

/// The mesh with one maintenance window of the servers `planned` marks.
fn with_window(
    mesh: Mesh,
    planned: &[bool],
    start: chrono::DateTime<chrono::Utc>,
    length: chrono::Duration,
) -> Mesh {
    use crate::maintenance::{MaintenanceId, MaintenancePlan, MaintenanceWindow};
    let servers = (0..mesh.server_count())
        .filter(|&i| planned.get(i).copied().unwrap_or(false))
        .map(|i| mesh.server(i).id.clone())
        .collect();
    let window = MaintenanceWindow {
        id: MaintenanceId(1),
        plan: MaintenancePlan {
            servers,
            routes: Vec::new(),
            start,
            end: start + length,
            weekly: false,
            note: String::new(),
        },
    };
    mesh.with_maintenance(vec![window])
}

/// Report `k`'s results of witness `w`: `(entry point pick, ok, kind of
/// check)`, each newer than the scenario's own.
fn new_probes(
    mesh: &Mesh,
    w: usize,
    results: &[(prop::sample::Index, bool, u8)],
    k: usize,
) -> Vec<(usize, ProbeOutcome)> {
    let targets: Vec<usize> = (0..mesh.entry_point_count())
        .filter(|&e| mesh.owner_of(e) != w)
        .collect();
    if targets.is_empty() {
        return Vec::new();
    }
    results
        .iter()
        .enumerate()
        .map(|(i, (pick, ok, variant))| {
            let at = 1_000 + (k * 4 + i % 4) as i64;
            (
                targets[pick.index(targets.len())],
                check_outcome(at, *ok, *variant),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn advancing_time_equals_full_evaluation(
        s in scenario(),
        rotation_s in 1u32..400,
        steps in prop::collection::vec(
            (
                0i64..120_000,
                prop::option::of((
                    any::<prop::sample::Index>(),
                    prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), 0u8..6), 0..4),
                )),
            ),
            1..8,
        ),
        planned in prop::collection::vec(any::<bool>(), 0..7),
    ) {
        // Sets that rotate within the run, evaluated from before the
        // scenario's evidence arrived until after all of it went stale,
        // and a maintenance window that opens and closes meanwhile.
        let settings = Settings { witness_rotation_s: rotation_s, ..s.settings };
        let (mesh, mut evidence) = build(&s);
        let start = crate::evidence::from_ms(NOW - 60_000);
        let mesh = with_window(mesh, &planned, start, chrono::Duration::minutes(2));
        let mut now = NOW - settings.stale_after_ms() - 10;
        let mut advanced = evaluate(&mesh, &evidence, &settings, now);
        for (k, (dt, report)) in steps.iter().enumerate() {
            now += dt;
            advanced.advance(&mesh, &evidence, now);
            let full = evaluate(&mesh, &evidence, &settings, now);
            prop_assert_eq!(advanced.verdicts(), full.verdicts(), "at step {}", k);
            prop_assert_eq!(advanced.sets(), full.sets(), "the sets at step {}", k);
            if let Some((witness, results)) = report {
                let w = witness.index(mesh.server_count());
                let probes = new_probes(&mesh, w, results, k);
                advanced.apply_report(&mesh, &mut evidence, w, now, ok_check(), &probes);
                let full = evaluate(&mesh, &evidence, &settings, now);
                prop_assert_eq!(advanced.verdicts(), full.verdicts(), "after report {}", k);
            }
        }
    }

    #[test]
    fn incremental_evaluation_equals_full_evaluation(
        s in scenario(),
        reports in prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), 0u8..6), 0..8),
                prop::option::of((any::<bool>(), any::<bool>())),
            ),
            1..5,
        ),
    ) {
        let (mesh, mut evidence) = build(&s);
        let mut incremental = evaluate(&mesh, &evidence, &s.settings, NOW);
        let (mut batched, mut batch_evidence) = (incremental.clone(), evidence.clone());
        let mut batch = Vec::new();
        // Reports one after another: the caches each leaves behind must
        // serve the next one as well as a full evaluation would.
        for (k, (witness, new_results, new_report)) in reports.iter().enumerate() {
            let w = witness.index(mesh.server_count());
            let self_check = match new_report {
                Some((listener_ok, service_ok)) => {
                    SelfCheck { listener_ok: *listener_ok, service_ok: *service_ok, detail: None }
                }
                None => ok_check(),
            };
            let probes = new_probes(&mesh, w, new_results, k);
            incremental.apply_report(&mesh, &mut evidence, w, NOW, self_check.clone(), &probes);
            let full = evaluate(&mesh, &evidence, &s.settings, NOW);
            prop_assert_eq!(incremental.verdicts(), full.verdicts(), "after report {}", k);
            prop_assert_eq!(incremental.sets(), full.sets(), "the sets after report {}", k);
            batch.push((w, self_check, probes));
        }
        // The same reports in one batch: the verdicts are rebuilt once.
        let reports = batch.iter().map(|(w, self_check, probes)| WitnessReport {
            w: *w,
            received_ms: NOW,
            self_check: self_check.clone(),
            probes,
            controls: None,
        });
        batched.apply_reports(&mesh, &mut batch_evidence, reports);
        prop_assert_eq!(batched.verdicts(), incremental.verdicts());
    }

    #[test]
    fn verdicts_depend_only_on_current_evidence(s in scenario()) {
        let (mesh, evidence) = build(&s);
        let first = evaluate(&mesh, &evidence, &s.settings, NOW);
        let again = evaluate(&mesh, &evidence, &s.settings, NOW);
        prop_assert_eq!(first.verdicts(), again.verdicts());
        // The same current state reached without any history: same verdicts.
        let mut replayed = Evidence::new(&mesh);
        for i in 0..mesh.server_count() {
            if let Some(r) = evidence.report(i) {
                replayed.record_report(i, r.received_ms, r.self_check.clone());
            }
            replayed.restore_pairs(evidence.pairs_of(i).map(|(e, pair)| (i, e, *pair)));
        }
        let from_state = evaluate(&mesh, &replayed, &s.settings, NOW);
        prop_assert_eq!(first.verdicts(), from_state.verdicts());
    }

    #[test]
    fn a_route_is_never_empty(s in scenario(), user in "[a-z]{1,8}") {
        let (mesh, evidence) = build(&s);
        let eval = evaluate(&mesh, &evidence, &s.settings, NOW);
        let routes: Vec<RouteId> = mesh.routes().iter().map(|r| r.id.clone()).collect();
        let user = UserId::parse(&user).expect("slug");
        for (r, serving) in assign(&mesh, eval.verdicts(), &user, &routes).iter().enumerate() {
            let has_servers = !mesh.servers_of_route(r).is_empty();
            prop_assert_eq!(!serving.serving.is_empty(), has_servers, "route {}", serving.route);
        }
    }

    #[test]
    fn a_route_is_never_empty_whatever_is_in_maintenance(
        s in scenario(),
        user in "[a-z]{1,8}",
        planned in prop::collection::vec(any::<bool>(), 0..12),
        draining in any::<bool>(),
    ) {
        use crate::evidence::from_ms;
        let (mesh, evidence) = build(&s);
        // Some servers in a window that holds (or drains) now.
        let now = from_ms(NOW);
        let start = if draining { now + chrono::Duration::minutes(30) } else { now };
        let mesh = with_window(mesh, &planned, start, chrono::Duration::hours(2));
        let eval = evaluate(&mesh, &evidence, &s.settings, NOW);
        for (i, v) in eval.verdicts().iter().enumerate() {
            let in_window = planned.get(i).copied().unwrap_or(false);
            prop_assert_eq!(v.maintenance.is_some(), in_window, "{}", v.server);
            if in_window {
                prop_assert!(!v.in_rotation, "{} is drained", v.server);
                prop_assert_eq!(v.status == ServerStatus::Maintenance, !draining);
            }
        }
        let routes: Vec<RouteId> = mesh.routes().iter().map(|r| r.id.clone()).collect();
        let user = UserId::parse(&user).expect("slug");
        for (r, serving) in assign(&mesh, eval.verdicts(), &user, &routes).iter().enumerate() {
            let has_servers = !mesh.servers_of_route(r).is_empty();
            prop_assert_eq!(!serving.serving.is_empty(), has_servers, "route {}", serving.route);
        }
    }

    #[test]
    fn silence_never_removes_a_server(s in scenario(), pick in any::<prop::sample::Index>()) {
        let (mesh, mut evidence) = build(&s);
        let target = pick.index(mesh.server_count());
        evidence.record_report(target, NOW - 1_000, ok_check());
        let speaking = evaluate(&mesh, &evidence, &s.settings, NOW).verdicts()[target].clone();
        evidence.record_report(target, NOW - s.settings.stale_after_ms() - 1, ok_check());
        let silent = evaluate(&mesh, &evidence, &s.settings, NOW).verdicts()[target].clone();
        prop_assert!(silent.has(ServerStatus::NoData));
        // Only the witnesses' votes (R2) take a silent server out: its
        // silence no longer excuses them (R1), it never counts by itself.
        if !silent.in_rotation {
            prop_assert!(
                silent.has(ServerStatus::Unreachable),
                "silence took {} out (it was in rotation: {})",
                silent.server,
                speaking.in_rotation
            );
        }
    }

    #[test]
    fn no_block_without_a_fresh_ok_self_report(s in scenario()) {
        let (mesh, evidence) = build(&s);
        let cutoff = NOW - s.settings.stale_after_ms();
        for (i, v) in evaluate(&mesh, &evidence, &s.settings, NOW).verdicts().iter().enumerate() {
            if v.has(ServerStatus::Blocked) || !v.blocked_by.is_empty() {
                let report = evidence.report(i);
                prop_assert!(
                    report.is_some_and(|r| r.received_ms > cutoff && r.self_check.is_ok()),
                    "{} is blocked without a fresh OK self-report",
                    v.server
                );
                prop_assert!(
                    v.quorum.of == 0 || v.quorum.failing < v.quorum.of,
                    "{} is blocked while every witness that probes it fails it",
                    v.server
                );
            }
        }
    }

    #[test]
    fn a_burst_of_failures_is_one_knock(
        gap_s in 1i64..120,
        offsets in prop::collection::vec(0i64..1_000_000, 1..20),
    ) {
        let timing = StreakTiming { stale_after_ms: STALE_MS, knock_gap_ms: gap_s * 500 };
        let mut offsets = offsets;
        offsets.sort_unstable();
        let mut pair = PairState::default();
        for (k, offset) in offsets.iter().enumerate() {
            // Every result of the burst arrives within one knock gap.
            let received = NOW + offset % timing.knock_gap_ms;
            pair.apply(outcome(k as i64, false), received, timing);
        }
        prop_assert_eq!(pair.streak, 1);
    }

    #[test]
    fn no_data_alone_keeps_a_server_in_rotation(s in scenario()) {
        let (mesh, evidence) = build(&s);
        for v in evaluate(&mesh, &evidence, &s.settings, NOW).verdicts() {
            if v.status == ServerStatus::NoData {
                prop_assert!(v.in_rotation, "{}", v.server);
            }
        }
    }

    #[test]
    fn after_silence_fewer_than_failure_streak_new_failures_never_make_a_verdict(
        before in 0u32..8,
        after in 0u32..8,
        failure_streak in 1u32..5,
        silence_extra_ms in 0i64..1_000_000,
    ) {
        let after = after % failure_streak;
        let mut w = super::world::world(&[("a", "DE"), ("b", "DE"), ("c", "NL")]);
        w.settings.failure_streak = failure_streak;
        w.settings.quorum = 1;
        w.healthy();
        w.probe("a", "b", false, before);
        w.now += w.settings.stale_after_ms() + silence_extra_ms;
        w.all_report_ok();
        w.probe("a", "b", false, after);
        let v = w.verdict("b");
        prop_assert_eq!(v.status, ServerStatus::Healthy);
        prop_assert!(v.entry_points.iter().all(|e| e.available));
    }

    #[test]
    fn one_success_resets_a_streak(sequence in prop::collection::vec(any::<bool>(), 0..20)) {
        let mut pair = PairState::default();
        for (k, ok) in sequence.iter().enumerate() {
            pair.apply(outcome(k as i64, *ok), 0, TIMING);
        }
        pair.apply(outcome(100, true), 0, TIMING);
        prop_assert_eq!(pair.streak, 0);
        prop_assert_eq!(pair.first_failure(), None);
    }
}
