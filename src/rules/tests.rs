//! One test per rule sentence of docs/PRODUCT.md §1–§2.

use super::world::{sid, world, world_with, World};
use crate::ids::ServerId;
use crate::status::ServerStatus::{self, *};

const FIVE: [(&str, &str); 5] = [
    ("de-1", "DE"),
    ("de-2", "DE"),
    ("nl-1", "NL"),
    ("fi-1", "FI"),
    ("us-1", "US"),
];

fn healthy_five() -> World {
    let mut w = world(&FIVE);
    w.healthy();
    w
}

fn status(w: &World, id: &str) -> ServerStatus {
    w.verdict(id).status
}

// §1a — self-report

#[test]
fn a_healthy_fleet_is_healthy_and_in_rotation() {
    let w = healthy_five();
    for v in w.evaluation().verdicts() {
        assert_eq!(v.status, Healthy, "{}", v.server);
        assert_eq!(v.conditions, vec![Healthy]);
        assert!(v.in_rotation && !v.stale);
    }
}

#[test]
fn a_fresh_report_with_a_dead_listener_means_server_unavailable() {
    let mut w = healthy_five();
    w.report_at("de-1", w.now, false, true);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Unavailable);
    assert!(!v.in_rotation);
}

#[test]
fn a_fresh_report_with_the_vpn_service_down_means_server_unavailable() {
    let mut w = healthy_five();
    w.report_at("de-1", w.now, true, false);
    assert_eq!(status(&w, "de-1"), Unavailable);
}

#[test]
fn reports_older_than_stale_after_mean_no_data() {
    let mut w = healthy_five();
    let stale = w.now - w.settings.stale_after_ms();
    w.report_at("de-1", stale, true, true);
    let v = w.verdict("de-1");
    assert_eq!(v.status, NoData);
    assert!(v.stale);
    w.report_at("de-1", stale + 1, true, true);
    assert_eq!(
        status(&w, "de-1"),
        Healthy,
        "younger than stale_after is fresh"
    );
}

#[test]
fn a_stale_report_that_said_not_ok_is_no_data_not_unavailable() {
    let mut w = healthy_five();
    w.report_at(
        "de-1",
        w.now - w.settings.stale_after_ms() - 1,
        false,
        false,
    );
    assert_eq!(w.verdict("de-1").conditions, vec![NoData]);
}

#[test]
fn a_server_that_never_reported_has_no_data() {
    let mut w = world(&FIVE);
    w.all_reach_all();
    let v = w.verdict("us-1");
    assert_eq!(v.status, NoData);
    assert_eq!(v.last_report_at, None);
}

// §1b — mesh probes and streaks

#[test]
fn one_failed_knock_means_nothing() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 1);
    w.probe("nl-1", "de-1", false, 2);
    w.probe("fi-1", "de-1", false, 2);
    let v = w.verdict("de-1");
    assert_eq!(
        v.status, Healthy,
        "streaks below failure_streak are not sustained"
    );
    assert!(v.entry_points.iter().all(|e| e.available));
}

#[test]
fn a_success_resets_the_streak() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 2);
    w.probe("de-2", "de-1", true, 1);
    w.probe("de-2", "de-1", false, 2);
    assert_eq!(
        status(&w, "de-1"),
        Healthy,
        "2 + 2 failures around a success are not 4"
    );
}

#[test]
fn a_sustained_streak_is_failure_streak_consecutive_failures() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), EntryPointsUnavailable);
}

#[test]
fn a_witness_fails_to_reach_a_server_only_when_every_entry_point_fails() {
    let mut w = world_with(&[
        ("de-1", "DE", false, 2),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("fi-1", "FI", false, 1),
    ]);
    w.healthy();
    for witness in ["de-2", "nl-1", "fi-1"] {
        w.probe_one(witness, "de-1", 0, false, 3);
    }
    let v = w.verdict("de-1");
    assert_eq!(v.quorum.failing, 0, "the second entry point still answers");
    assert_eq!(v.status, EntryPointsUnavailable);
    assert!(!v.entry_points[0].available && v.entry_points[1].available);
}

#[test]
fn a_witness_evidence_counts_only_while_the_witness_is_fresh() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), Unreachable);
    w.report_at("nl-1", w.now - w.settings.stale_after_ms(), true, true);
    let v = w.verdict("de-1");
    assert_eq!(
        v.status, EntryPointsUnavailable,
        "only de-2's evidence still counts"
    );
    assert_eq!(v.entry_points[0].causes.len(), 1);
}

#[test]
fn probe_results_received_longer_ago_than_stale_after_stop_counting() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    w.now += w.settings.stale_after_ms();
    w.all_report_ok();
    assert_eq!(status(&w, "de-1"), Healthy);
}

#[test]
fn a_result_that_follows_a_stale_one_starts_a_new_streak() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), EntryPointsUnavailable);
    // de-2 falls silent past stale_after, then knocks and fails once more.
    w.now += w.settings.stale_after_ms();
    w.all_report_ok();
    w.probe("de-2", "de-1", false, 1);
    let v = w.verdict("de-1");
    assert_eq!(
        v.status, Healthy,
        "stale evidence never counts, not even inside a streak"
    );
    w.probe("de-2", "de-1", false, 2);
    let v = w.verdict("de-1");
    assert_eq!(v.status, EntryPointsUnavailable);
    assert_eq!(
        crate::evidence::to_ms(v.entry_points[0].causes[0].since),
        w.evidence
            .pair(
                w.index("de-2"),
                w.mesh.entry_points_of(w.index("de-1")).start
            )
            .first_failure()
            .expect("a streak"),
    );
}

#[test]
fn the_new_streak_since_is_the_time_of_its_first_failure_after_the_silence() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    let e = w.mesh.entry_points_of(w.index("de-1")).start;
    let first = w.evidence.pair(w.index("de-2"), e).first_failure();
    w.now += w.settings.stale_after_ms();
    w.all_report_ok();
    w.probe("de-2", "de-1", false, 3);
    let again = w.evidence.pair(w.index("de-2"), e).first_failure();
    assert!(again > first, "{again:?} must be after {first:?}");
    assert_eq!(status(&w, "de-1"), EntryPointsUnavailable);
}

#[test]
fn a_streak_grows_by_at_most_one_knock_per_half_probe_interval_of_receipt_time() {
    let mut w = healthy_five();
    let gap = w.settings.streak_timing().knock_gap_ms;
    // A burst of three reports (a leaked token): one knock.
    for k in 0..3 {
        w.probe_received("de-2", "de-1", false, w.now + k * 1_000);
    }
    let e = w.mesh.entry_points_of(w.index("de-1")).start;
    assert_eq!(w.evidence.pair(w.index("de-2"), e).streak, 1);
    assert_eq!(status(&w, "de-1"), Healthy);
    // The same three results received half a probe interval apart: a streak.
    let mut w = healthy_five();
    for k in 0..3 {
        w.probe_received("de-2", "de-1", false, w.now - 2 * gap + k * gap);
    }
    assert_eq!(status(&w, "de-1"), EntryPointsUnavailable);
}

// Whole-fleet faults

#[test]
fn when_most_witnesses_cannot_reach_most_servers_the_fault_is_the_witnesses_network() {
    let mut w = healthy_five();
    assert_eq!(w.evaluation().witness_fault(), None);
    // The witnesses' shared network fails: everyone fails everyone.
    for witness in ["de-1", "de-2", "nl-1", "fi-1", "us-1"] {
        for target in ["de-1", "de-2", "nl-1", "fi-1", "us-1"] {
            if witness != target {
                w.probe(witness, target, false, 3);
            }
        }
    }
    let eval = w.evaluation();
    assert_eq!(
        eval.witness_fault(),
        Some(crate::verdict::WitnessFault {
            unreliable: 5,
            witnesses: 5
        })
    );
    for v in eval.verdicts() {
        assert!(
            v.in_rotation,
            "{}: R2 is silent, nothing is removed",
            v.server
        );
    }
}

#[test]
fn one_unreliable_witness_is_no_fleet_fault() {
    let mut w = healthy_five();
    for target in ["de-1", "de-2", "nl-1"] {
        w.probe("us-1", target, false, 3);
    }
    let eval = w.evaluation();
    assert!(eval.verdicts()[w.index("us-1")]
        .unreliable_witness
        .is_some());
    assert_eq!(eval.witness_fault(), None);
}

// R1 — unreliable witness

#[test]
fn a_witness_that_cannot_see_half_its_neighbours_is_ignored() {
    let mut w = healthy_five();
    for target in ["de-1", "nl-1"] {
        w.probe("us-1", target, false, 3);
    }
    let us = w.verdict("us-1");
    let figure = us
        .unreliable_witness
        .expect("R1 holds: 2 of 4 with threshold max(2, ceil(0.5·4)) = 2");
    assert_eq!((figure.failing, figure.of), (2, 4));
    for target in ["de-1", "nl-1"] {
        let v = w.verdict(target);
        assert_eq!(
            v.status, Healthy,
            "{target}: an unreliable witness leaves no pair marks"
        );
        assert_eq!(v.quorum.of, 3, "its votes are not counted either");
    }
}

#[test]
fn an_unreliable_witness_casts_no_vote_towards_quorum() {
    let mut w = healthy_five();
    for target in ["de-1", "nl-1"] {
        w.probe("us-1", target, false, 3);
    }
    w.probe("fi-1", "de-1", false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.quorum.failing, 1, "us-1 is discarded, only fi-1 counts");
    assert_eq!(v.status, EntryPointsUnavailable);
}

#[test]
fn a_witness_failing_one_server_is_not_unreliable() {
    let mut w = world(&[("de-1", "DE"), ("de-2", "DE"), ("nl-1", "NL")]);
    w.healthy();
    w.probe("nl-1", "de-1", false, 3);
    assert_eq!(
        w.verdict("nl-1").unreliable_witness,
        None,
        "max(2, …): one failure is never enough"
    );
    assert_eq!(status(&w, "de-1"), EntryPointsUnavailable);
}

#[test]
fn failing_to_reach_silent_servers_says_nothing_about_the_witness() {
    const TEN: [(&str, &str); 10] = [
        ("de-1", "DE"),
        ("de-2", "DE"),
        ("nl-1", "NL"),
        ("nl-2", "NL"),
        ("fi-1", "FI"),
        ("fi-2", "FI"),
        ("us-1", "US"),
        ("us-2", "US"),
        ("jp-1", "JP"),
        ("jp-2", "JP"),
    ];
    let mut w = world(&TEN);
    w.healthy();
    let (dark, survivors) = TEN.split_at(5);
    // Half the fleet goes dark: its reports stop and every probe of it fails.
    for (id, _) in dark {
        w.report_at(id, w.now - w.settings.stale_after_ms(), true, true);
    }
    for (witness, _) in survivors {
        for (target, _) in dark {
            w.probe(witness, target, false, 3);
        }
    }
    for (id, _) in survivors {
        let v = w.verdict(id);
        assert_eq!(
            v.unreliable_witness, None,
            "{id}: n counts only fresh targets, none of which it fails"
        );
    }
    for (id, _) in dark {
        let v = w.verdict(id);
        assert_eq!(v.conditions, vec![Unreachable, NoData], "{id}");
        assert_eq!((v.quorum.failing, v.quorum.of), (5, 5));
        assert!(!v.in_rotation, "{id}: the survivors' votes take it out");
    }
}

#[test]
fn a_silent_server_coming_back_counts_again_in_its_witnesses_figures() {
    let mut w = healthy_five();
    w.report_at("nl-1", w.now - w.settings.stale_after_ms(), true, true);
    for target in ["de-1", "nl-1"] {
        w.probe("us-1", target, false, 3);
    }
    assert_eq!(
        w.verdict("us-1").unreliable_witness,
        None,
        "1 of 3 fresh targets"
    );
    // nl-1 reports again (the incremental path, as the panel takes it).
    let mut eval = w.evaluation();
    let nl = w.index("nl-1");
    let check = crate::evidence::SelfCheck {
        listener_ok: true,
        service_ok: true,
        detail: None,
    };
    eval.apply_report(&w.mesh, &mut w.evidence, nl, w.now, check, &[]);
    let us = &eval.verdicts()[w.index("us-1")];
    let figure = us.unreliable_witness.expect("2 of 4 fresh targets");
    assert_eq!((figure.failing, figure.of), (2, 4));
    assert_eq!(eval.verdicts(), w.evaluation().verdicts());
}

// R2 — unreachable by quorum

#[test]
fn a_quorum_of_reliable_witnesses_makes_a_server_unreachable() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Unreachable);
    assert!(!v.in_rotation);
    assert_eq!(
        (v.quorum.failing, v.quorum.of),
        (2, 4),
        "k of n: 2 of the 4 witnesses that probe it"
    );
    assert_eq!(v.quorum.failing_witnesses, vec![sid("de-2"), sid("nl-1")]);
}

#[test]
fn the_witnesses_that_still_see_it_are_listed() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    let evaluation = w.evaluation();
    let seeing: Vec<ServerId> = evaluation
        .seeing_witnesses(&w.mesh, w.index("de-1"))
        .map(|i| w.mesh.server(i).id.clone())
        .collect();
    assert_eq!(seeing, vec![sid("fi-1"), sid("us-1")]);
}

#[test]
fn fewer_failing_witnesses_than_quorum_is_not_unreachable() {
    let mut w = healthy_five();
    w.settings.quorum = 3;
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), EntryPointsUnavailable);
}

#[test]
fn n_counts_only_fresh_reliable_witnesses_that_probe_the_server() {
    let mut w = healthy_five();
    w.report_at("us-1", w.now - w.settings.stale_after_ms(), true, true);
    assert_eq!(w.verdict("de-1").quorum.of, 3);
}

// R3 — pair failures

#[test]
fn a_single_witness_failure_marks_the_entry_point_naming_both_servers() {
    let mut w = healthy_five();
    w.probe("fi-1", "de-1", false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, EntryPointsUnavailable);
    let cause = &v.entry_points[0].causes[0];
    assert_eq!((cause.from.as_str(), cause.to.as_str()), ("fi-1", "de-1"));
    assert!(
        cause.since.timestamp_millis() < w.now,
        "since the first failure of the streak"
    );
}

#[test]
fn a_pair_failure_blames_no_one_and_removes_nothing() {
    let mut w = healthy_five();
    w.probe("fi-1", "de-1", false, 3);
    assert!(w.verdict("de-1").in_rotation);
    assert_eq!(
        status(&w, "fi-1"),
        Healthy,
        "the witness is not blamed either"
    );
}

#[test]
fn a_two_way_pair_failure_marks_both_sides() {
    let mut w = healthy_five();
    w.probe("fi-1", "de-1", false, 3);
    w.probe("de-1", "fi-1", false, 3);
    for (target, from) in [("de-1", "fi-1"), ("fi-1", "de-1")] {
        let v = w.verdict(target);
        assert_eq!(v.status, EntryPointsUnavailable, "{target}");
        assert_eq!(v.entry_points[0].causes[0].from.as_str(), from);
    }
}

#[test]
fn an_unreachable_server_gets_no_pair_mark_condition() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    assert_eq!(w.verdict("de-1").conditions, vec![Unreachable]);
}

#[test]
fn no_pair_mark_involves_a_verifier() {
    let mut w = world_with(&[
        ("de-1", "DE", false, 1),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("ir-1", "IR", true, 1),
    ]);
    w.healthy();
    w.probe("de-1", "ir-1", false, 3);
    assert_eq!(
        status(&w, "ir-1"),
        Healthy,
        "a failure towards a verifier marks nothing"
    );
    w.probe("ir-1", "nl-1", false, 3);
    let nl = w.verdict("nl-1");
    assert!(
        nl.entry_points[0].available,
        "a verifier's failure is not a pair mark"
    );
}

// R4 — verifiers

fn with_verifier() -> World {
    let mut w = world_with(&[
        ("de-1", "DE", false, 2),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("fi-1", "FI", false, 1),
        ("ir-1", "IR", true, 1),
    ]);
    w.healthy();
    w
}

#[test]
fn a_verifier_failing_every_entry_point_blocks_the_server() {
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Blocked);
    assert_eq!(v.blocked_by, vec![sid("ir-1")]);
    assert!(!v.in_rotation);
}

#[test]
fn a_verifier_failing_some_entry_points_blocks_nothing() {
    let mut w = with_verifier();
    w.probe_one("ir-1", "de-1", 0, false, 3);
    assert_eq!(status(&w, "de-1"), Healthy);
}

#[test]
fn a_verifier_failing_one_protocol_shows_on_that_entry_point_and_marks_nothing() {
    // A UDP-only block on the verifier's network: its QUIC entry point
    // fails, its TCP one answers.
    let mut w = with_verifier();
    w.probe_one("ir-1", "de-1", 1, false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Healthy, "nothing is marked or removed");
    assert!(v.entry_points.iter().all(|e| e.available));
    assert!(v.entry_points[0].verifier_failures.is_empty());
    let seen = &v.entry_points[1].verifier_failures;
    assert_eq!(seen.len(), 1);
    assert_eq!((&seen[0].from, &seen[0].to), (&sid("ir-1"), &sid("de-1")));
    // Once every entry point fails, it is a block instead.
    w.probe_one("ir-1", "de-1", 0, false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Blocked);
    assert!(v
        .entry_points
        .iter()
        .all(|e| e.verifier_failures.is_empty()));
}

#[test]
fn a_verifier_judges_only_the_entry_points_it_probes() {
    // de-1's second entry point is of a protocol the verifier's agent
    // cannot probe: it has no result for it at all.
    let mut w = world_with(&[
        ("de-1", "DE", false, 2),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("ir-1", "IR", true, 1),
    ]);
    w.all_report_ok();
    for witness in ["de-2", "nl-1", "ir-1"] {
        for target in ["de-1", "de-2", "nl-1", "ir-1"] {
            if witness != target {
                w.probe_one(witness, target, 0, true, 1);
            }
        }
    }
    w.probe_one("ir-1", "de-1", 0, false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Blocked);
    assert_eq!(v.blocked_by, vec![sid("ir-1")]);
}

#[test]
fn fails_to_reach_counts_only_the_entry_points_the_witness_probes() {
    let mut w = world_with(&[
        ("de-1", "DE", false, 2),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("fi-1", "FI", false, 1),
    ]);
    w.all_report_ok();
    for witness in ["de-2", "nl-1", "fi-1"] {
        w.probe_one(witness, "de-1", 0, false, 3);
    }
    assert_eq!(status(&w, "de-1"), Unreachable);
}

#[test]
fn reverse_failure_towards_a_verifier_means_nothing() {
    let mut w = with_verifier();
    for witness in ["de-1", "de-2", "nl-1"] {
        w.probe(witness, "ir-1", false, 3);
    }
    let v = w.verdict("ir-1");
    assert_eq!(v.status, Healthy);
    assert_eq!(v.quorum.of, 0);
    assert_eq!(w.verdict("de-1").unreliable_witness, None);
}

#[test]
fn a_verifier_is_exempt_from_r1() {
    let mut w = with_verifier();
    for target in ["de-1", "de-2"] {
        w.probe("ir-1", target, false, 3);
    }
    assert_eq!(w.verdict("ir-1").unreliable_witness, None);
    assert_eq!(status(&w, "de-1"), Blocked);
    assert_eq!(status(&w, "de-2"), Blocked);
}

#[test]
fn a_verifier_that_reaches_no_one_is_suspended() {
    let mut w = with_verifier();
    for target in ["de-1", "de-2", "nl-1", "fi-1"] {
        w.probe("ir-1", target, false, 3);
    }
    let v = w.verdict("ir-1");
    assert!(v.suspended_verifier, "its card says so");
    for target in ["de-1", "de-2", "nl-1", "fi-1"] {
        assert_eq!(
            status(&w, target),
            Healthy,
            "{target}: its verdicts are suspended"
        );
    }
}

#[test]
fn a_stale_verifier_blocks_nothing() {
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    w.report_at("ir-1", w.now - w.settings.stale_after_ms(), true, true);
    assert_eq!(status(&w, "de-1"), Healthy);
}

// R4 — a block needs a living server (do no harm)

#[test]
fn a_block_holds_only_while_the_server_s_own_report_is_fresh_and_ok() {
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), Blocked);
    w.report_at("de-1", w.now, true, false);
    let v = w.verdict("de-1");
    assert_eq!(v.conditions, vec![Unavailable], "its VPN service stopped");
    assert!(v.blocked_by.is_empty(), "no blocked_on entry, no message");
    w.report_at("de-1", w.now - w.settings.stale_after_ms(), true, true);
    let v = w.verdict("de-1");
    assert!(v.blocked_by.is_empty(), "a silent server is not blocked");
    assert!(!v.has(Blocked));
    w.report_at("de-1", w.now, true, true);
    assert_eq!(status(&w, "de-1"), Blocked, "alive again: blocked again");
}

#[test]
fn a_server_unreachable_from_every_witness_that_probes_it_is_not_blocked() {
    let mut w = with_verifier();
    for witness in ["de-2", "nl-1", "fi-1", "ir-1"] {
        w.probe(witness, "de-1", false, 3);
    }
    let v = w.verdict("de-1");
    assert_eq!(v.conditions, vec![Unreachable], "an outage, not a block");
    assert!(v.blocked_by.is_empty());
}

#[test]
fn a_block_holds_while_one_fresh_reliable_witness_still_reaches_the_server() {
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    // fi-1 still reaches it.
    let v = w.verdict("de-1");
    assert!(v.has(Blocked));
    assert_eq!(v.blocked_by, vec![sid("ir-1")]);
}

#[test]
fn witnesses_inside_the_censored_network_failing_with_the_verifier_do_not_stop_a_block() {
    // de-2 and nl-1 sit in the censored network: they fail de-1 with the
    // verifier. R2 holds and shows first; the block still holds and is told.
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Unreachable, "R5: unreachable shows first");
    assert_eq!(v.conditions, vec![Unreachable, Blocked]);
    assert_eq!(v.blocked_by, vec![sid("ir-1")]);
}

#[test]
fn a_server_no_voting_witness_probes_is_blocked_on_the_verifier_s_word_alone() {
    let mut w = world_with(&[("de-1", "DE", false, 1), ("ir-1", "IR", true, 1)]);
    w.healthy();
    w.probe("ir-1", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), Blocked);
}

#[test]
fn a_verifier_blocking_more_than_unreliable_fraction_of_what_it_probes_is_a_mass_block() {
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    assert_eq!(
        w.evaluation().mass_blocks(&w.mesh),
        vec![],
        "1 of 4: one block"
    );
    w.probe("ir-1", "de-2", false, 3);
    assert_eq!(
        w.evaluation().mass_blocks(&w.mesh),
        vec![],
        "2 of 4 is not more than half"
    );
    w.probe("ir-1", "nl-1", false, 3);
    let mass = w.evaluation().mass_blocks(&w.mesh);
    assert_eq!(mass.len(), 1);
    assert_eq!(mass[0].verifier, sid("ir-1"));
    assert_eq!(mass[0].blocked, vec![sid("de-1"), sid("de-2"), sid("nl-1")]);
    assert_eq!(mass[0].probed, 4);
    // The blocks themselves are still shown.
    assert_eq!(status(&w, "nl-1"), Blocked);
}

// §6 — verifiers per network: R4 per verifier, and who still reaches it

fn with_two_verifiers() -> World {
    let mut w = world_with(&[
        ("de-1", "DE", false, 2),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("ru-1", "RU", true, 1),
        ("ru-2", "RU", true, 1),
    ]);
    w.healthy();
    w
}

#[test]
fn every_fresh_verifier_that_reaches_a_server_is_listed() {
    let w = with_two_verifiers();
    let v = w.verdict("de-1");
    assert_eq!(v.status, Healthy);
    assert!(v.blocked_by.is_empty());
    assert_eq!(v.still_reached_by, vec![sid("ru-1"), sid("ru-2")]);
    assert!(
        w.verdict("ru-1").still_reached_by.is_empty(),
        "R4 says nothing of a verifier"
    );
}

#[test]
fn one_network_blocking_is_a_block_while_another_still_reaches_it() {
    let mut w = with_two_verifiers();
    w.probe("ru-1", "de-1", false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Blocked, "one verifier's evidence is enough");
    assert!(!v.in_rotation);
    assert_eq!(v.blocked_by, vec![sid("ru-1")]);
    assert_eq!(v.still_reached_by, vec![sid("ru-2")]);
}

#[test]
fn a_stale_verifier_is_not_said_to_reach_anything() {
    let mut w = with_two_verifiers();
    w.report_at("ru-2", w.now - w.settings.stale_after_ms(), true, true);
    assert_eq!(w.verdict("de-1").still_reached_by, vec![sid("ru-1")]);
}

// R5 — precedence

#[test]
fn the_status_is_the_top_condition_and_every_condition_is_listed() {
    // Unreachable by quorum (de-2, nl-1), blocked (ir-1) while fi-1 still
    // reaches it, and a pair mark of its second entry point from fi-1.
    let mut w = with_verifier();
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    w.probe("ir-1", "de-1", false, 3);
    w.probe_one("fi-1", "de-1", 1, false, 3);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Unreachable);
    assert_eq!(v.conditions, vec![Unreachable, Blocked]);
    w.report_at("de-1", w.now, false, true);
    let v = w.verdict("de-1");
    assert_eq!(v.status, Unavailable);
    assert_eq!(
        v.conditions,
        vec![Unavailable, Unreachable],
        "a crash is never a block"
    );
}

#[test]
fn no_data_ranks_below_blocked_and_above_pair_marks() {
    let mut w = with_verifier();
    w.probe("fi-1", "de-2", false, 3);
    w.report_at("de-2", w.now - w.settings.stale_after_ms(), true, true);
    assert_eq!(
        w.verdict("de-2").conditions,
        vec![NoData, EntryPointsUnavailable]
    );
    w.report_at("de-2", w.now, true, true);
    w.probe("ir-1", "de-2", false, 3);
    assert_eq!(
        w.verdict("de-2").conditions,
        vec![Blocked, EntryPointsUnavailable]
    );
}

// R6 — self-healing

#[test]
fn a_healthy_report_lifts_server_unavailable() {
    let mut w = healthy_five();
    w.report_at("de-1", w.now, false, false);
    assert_eq!(status(&w, "de-1"), Unavailable);
    w.report_at("de-1", w.now, true, true);
    assert_eq!(status(&w, "de-1"), Healthy);
}

#[test]
fn successful_probes_lift_the_quorum() {
    let mut w = healthy_five();
    w.probe("de-2", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), Unreachable);
    w.probe("de-2", "de-1", true, 1);
    assert_eq!(
        status(&w, "de-1"),
        EntryPointsUnavailable,
        "one success resets one streak"
    );
    w.probe("nl-1", "de-1", true, 1);
    assert_eq!(status(&w, "de-1"), Healthy);
}

#[test]
fn a_success_from_the_verifier_lifts_the_block() {
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    assert_eq!(status(&w, "de-1"), Blocked);
    w.probe_one("ir-1", "de-1", 1, true, 1);
    assert_eq!(status(&w, "de-1"), Healthy);
}

#[test]
fn reports_resuming_lift_no_data() {
    let mut w = healthy_five();
    w.now += w.settings.stale_after_ms() + 1;
    assert!(w.evaluation().verdicts().iter().all(|v| v.status == NoData));
    w.all_report_ok();
    w.all_reach_all();
    assert!(w
        .evaluation()
        .verdicts()
        .iter()
        .all(|v| v.status == Healthy));
}

#[test]
fn evaluating_twice_gives_the_same_verdicts() {
    let mut w = with_verifier();
    w.probe("ir-1", "de-1", false, 3);
    w.probe("fi-1", "nl-1", false, 3);
    assert_eq!(w.evaluation().verdicts(), w.evaluation().verdicts());
}

// The mesh matrix

#[test]
fn the_matrix_shows_each_witness_opinion() {
    use crate::verdict::MeshCell;
    let mut w = healthy_five();
    w.probe("fi-1", "de-1", false, 3);
    w.probe("nl-1", "de-1", false, 1);
    for target in ["de-1", "nl-1"] {
        w.probe("us-1", target, false, 3);
    }
    let cells = w.evaluation().matrix(&w.mesh, &w.evidence);
    let n = w.mesh.servers().len();
    let cell = |a: &str, b: &str| cells[w.index(a) * n + w.index(b)];
    assert_eq!(cell("de-1", "de-1"), MeshCell::Itself);
    assert_eq!(cell("fi-1", "de-1"), MeshCell::Sustained);
    assert_eq!(cell("nl-1", "de-1"), MeshCell::Failing(1));
    assert_eq!(cell("de-1", "nl-1"), MeshCell::Reaches);
    assert_eq!(
        cell("us-1", "de-1"),
        MeshCell::Discarded,
        "an unreliable witness is discarded"
    );
    for c in [
        MeshCell::Itself,
        MeshCell::NotProbed,
        MeshCell::Reaches,
        MeshCell::Failing(4),
        MeshCell::Sustained,
        MeshCell::Discarded,
    ] {
        assert_eq!(MeshCell::from_char(c.to_char()), Some(c));
    }
}

// §6 — maintenance windows

mod maintenance {
    use super::*;
    use crate::balance::assign;
    use crate::evidence::from_ms;
    use crate::ids::{RouteId, UserId};
    use crate::maintenance::{MaintenanceId, MaintenancePlan, MaintenanceWindow};
    use crate::rules::world::NOW;
    use crate::verdict::VerdictChange;
    use chrono::Duration;

    /// A window over `servers` (and `routes`) from `start` minutes after
    /// NOW, for `hours`.
    fn window(servers: &[&str], routes: &[&str], start_min: i64, hours: i64) -> MaintenanceWindow {
        let start = from_ms(NOW) + Duration::minutes(start_min);
        MaintenanceWindow {
            id: MaintenanceId(7),
            plan: MaintenancePlan {
                servers: servers.iter().map(|s| sid(s)).collect(),
                routes: routes
                    .iter()
                    .map(|r| RouteId::parse(r).expect("slug"))
                    .collect(),
                start,
                end: start + Duration::hours(hours),
                weekly: false,
                note: String::new(),
            },
        }
    }

    fn fleet() -> World {
        let mut w = world(&[
            ("de-1", "DE"),
            ("de-2", "DE"),
            ("nl-1", "NL"),
            ("fi-1", "FI"),
        ]);
        w.healthy();
        w
    }

    #[test]
    fn a_server_in_a_window_is_out_of_rotation_and_shows_maintenance() {
        let w = fleet().with_windows(vec![window(&["de-1"], &[], -10, 2)]);
        let v = w.verdict("de-1");
        assert_eq!(v.status, Maintenance);
        assert_eq!(v.conditions, vec![Maintenance]);
        assert!(!v.in_rotation);
        let m = v.maintenance.expect("in a window");
        assert!(m.active);
        assert_eq!(m.id, MaintenanceId(7));
        assert_eq!(m.until, from_ms(NOW) + Duration::minutes(110));
        assert_eq!(w.verdict("de-2").status, Healthy, "others are untouched");
        assert!(w.verdict("de-2").maintenance.is_none());
    }

    #[test]
    fn it_is_drained_before_the_window_starts() {
        // The window starts in 30 minutes: within one app refresh.
        let w = fleet().with_windows(vec![window(&["de-1"], &[], 30, 2)]);
        let v = w.verdict("de-1");
        assert_eq!(v.status, Healthy, "the window does not hold yet");
        assert!(!v.in_rotation, "but the apps move away first");
        assert!(!v.maintenance.expect("draining").active);
        // Two hours ahead, it is still served.
        let w = fleet().with_windows(vec![window(&["de-1"], &[], 120, 2)]);
        assert!(w.verdict("de-1").in_rotation);
        assert!(w.verdict("de-1").maintenance.is_none());
    }

    #[test]
    fn maintenance_shows_above_every_other_status_whose_verdicts_are_still_derived() {
        let mut w = with_two_verifiers();
        w.probe("ru-1", "de-1", false, 3);
        let w = w.with_windows(vec![window(&["de-1"], &[], 0, 1)]);
        let v = w.verdict("de-1");
        assert_eq!(v.status, Maintenance);
        assert_eq!(
            v.conditions,
            vec![Maintenance, Blocked],
            "the block is still listed"
        );
        assert_eq!(v.blocked_by, vec![sid("ru-1")]);
        assert_eq!(v.derived_status(), Blocked);
    }

    #[test]
    fn it_returns_by_itself_when_the_window_ends() {
        let mut w = fleet().with_windows(vec![window(&["de-1"], &[], -60, 1)]);
        assert_eq!(w.verdict("de-1").status, Healthy, "ended exactly now");
        assert!(w.verdict("de-1").in_rotation);
        w.now -= 1;
        assert_eq!(
            w.verdict("de-1").status,
            Maintenance,
            "a moment before its end"
        );
    }

    #[test]
    fn a_window_on_a_route_applies_to_each_of_its_servers() {
        let w = fleet().with_windows(vec![window(&[], &["de"], 0, 1)]);
        assert_eq!(w.verdict("de-1").status, Maintenance);
        assert_eq!(w.verdict("de-2").status, Maintenance);
        assert_eq!(w.verdict("nl-1").status, Healthy);
    }

    #[test]
    fn never_empty_holds_when_every_server_of_a_route_is_in_maintenance() {
        let mut w = fleet();
        let now = w.now;
        w.report_at("de-2", now, false, true); // down beneath the window too
        let w = w.with_windows(vec![window(&[], &["de"], 0, 1)]);
        let eval = w.evaluation();
        let user = UserId::parse("alice").expect("slug");
        let route = RouteId::parse("de").expect("slug");
        let serving = assign(&w.mesh, eval.verdicts(), &user, &[route]);
        assert!(serving[0].best_available);
        assert_eq!(
            serving[0].serving,
            vec![sid("de-1")],
            "the best available is the one healthy beneath its window"
        );
    }

    #[test]
    fn a_server_in_maintenance_is_replaced_for_its_users() {
        let w = fleet().with_windows(vec![window(&["de-1"], &[], 0, 1)]);
        let eval = w.evaluation();
        let route = RouteId::parse("de").expect("slug");
        for user in ["alice", "bob", "carol", "dave"] {
            let user = UserId::parse(user).expect("slug");
            let serving = assign(
                &w.mesh,
                eval.verdicts(),
                &user,
                std::slice::from_ref(&route),
            );
            assert_eq!(serving[0].serving, vec![sid("de-2")], "{user}");
            assert!(!serving[0].best_available);
        }
    }

    /// A change whose previous conditions were in a window (then the
    /// calm ones before it are `calm`) or not (then they are the calm ones).
    fn change_after(
        calm: &[ServerStatus],
        previous: &[ServerStatus],
        conditions: &[ServerStatus],
    ) -> VerdictChange {
        VerdictChange {
            server: sid("de-1"),
            status: conditions[0],
            conditions: conditions.to_vec(),
            previous: previous.to_vec(),
            calm_previous: calm.to_vec(),
            at: from_ms(NOW),
        }
    }

    /// A change with nothing told before a window.
    fn change(previous: &[ServerStatus], conditions: &[ServerStatus]) -> VerdictChange {
        let calm = if previous.contains(&Maintenance) {
            &[][..]
        } else {
            previous
        };
        change_after(calm, previous, conditions)
    }

    #[test]
    fn nothing_is_told_while_a_window_holds() {
        assert!(!change(&[Maintenance], &[Maintenance, Blocked]).became_blocked());
        assert!(!change(&[Blocked], &[Maintenance, Blocked]).became_blocked());
        assert!(!change(&[Blocked], &[Maintenance]).block_cleared());
        assert!(!change(&[Maintenance, Blocked], &[Maintenance]).block_cleared());
        // Outside windows, as before.
        assert!(change(&[Healthy], &[Blocked]).became_blocked());
        assert!(change(&[Blocked], &[Healthy]).block_cleared());
    }

    #[test]
    fn leaving_a_window_a_block_that_still_holds_is_told() {
        assert!(change(&[Maintenance, Blocked], &[Blocked]).became_blocked());
        assert!(change(&[Maintenance], &[Blocked]).became_blocked());
        assert!(!change(&[Maintenance, Blocked], &[Healthy]).block_cleared());
        assert!(!change(&[Maintenance], &[Healthy]).became_blocked());
    }

    #[test]
    fn a_block_told_before_a_window_that_cleared_in_it_is_told_cleared_when_it_ends() {
        let told = [Blocked];
        assert!(!change_after(&told, &[Maintenance, Blocked], &[Maintenance]).block_cleared());
        assert!(change_after(&told, &[Maintenance], &[Healthy]).block_cleared());
        assert!(change_after(&told, &[Maintenance, Blocked], &[Healthy]).block_cleared());
    }

    #[test]
    fn a_block_told_before_a_window_and_still_holding_after_it_is_not_told_again() {
        let told = [Blocked];
        assert!(!change_after(&told, &[Maintenance, Blocked], &[Blocked]).became_blocked());
        assert!(!change_after(&told, &[Maintenance, Blocked], &[Blocked]).block_cleared());
    }
}
