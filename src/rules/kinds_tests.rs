//! One test per rule sentence of docs/PRODUCT.md §8 (block kinds).

use super::world::{sid, world_with, Outcome, World};
use crate::evidence::{Check, ProbeError, Stage};
use crate::fleet::Transport;
use crate::status::ServerStatus::*;
use crate::verdict::{BlockKind, Verdict, VerifierBlock};

/// de-1 has a TCP entry point (0) and a QUIC one (1); ir-1 verifies.
fn fleet() -> World {
    let mut w = world_with(&[
        ("de-1", "DE", false, 2),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("fi-1", "FI", false, 1),
        ("ir-1", "IR", true, 1),
    ])
    .quic("de-1", 1);
    w.healthy();
    w
}

fn kinds(v: &Verdict) -> Vec<BlockKind> {
    v.blocks.iter().map(|b| b.kind).collect()
}

const TCP_TIMEOUT: Outcome = Outcome::Fails(ProbeError::Timeout, Stage::Tcp);
const UDP_DROPPED: Outcome = Outcome::Fails(ProbeError::Timeout, Stage::Quic);
const TLS_RESET: Outcome = Outcome::Fails(ProbeError::Reset, Stage::Tls);

#[test]
fn every_entry_point_failing_at_tcp_or_udp_is_an_ip_block_out_of_rotation() {
    let mut w = fleet();
    w.check("ir-1", "de-1", 0, Check::Handshake, TCP_TIMEOUT, 3);
    w.check("ir-1", "de-1", 1, Check::Handshake, UDP_DROPPED, 3);
    let v = w.verdict("de-1");
    assert_eq!(kinds(&v), vec![BlockKind::Ip]);
    assert_eq!(v.status, Blocked);
    assert!(!v.in_rotation);
    assert_eq!(v.blocked_by, vec![sid("ir-1")]);
}

#[test]
fn failures_that_name_no_stage_still_mean_an_ip_block_as_before() {
    let mut w = fleet();
    w.probe("ir-1", "de-1", false, 3);
    assert_eq!(kinds(&w.verdict("de-1")), vec![BlockKind::Ip]);
}

#[test]
fn the_real_sni_failing_while_the_control_sni_succeeds_is_an_sni_block_out_of_rotation() {
    let mut w = fleet();
    for nth in 0..2 {
        for _ in 0..3 {
            w.check("ir-1", "de-1", nth, Check::Handshake, TLS_RESET, 1);
            w.check("ir-1", "de-1", nth, Check::ControlSni, Outcome::Ok, 1);
        }
    }
    let v = w.verdict("de-1");
    assert_eq!(kinds(&v), vec![BlockKind::Sni]);
    assert_eq!(v.status, Blocked);
    assert!(!v.in_rotation);
}

#[test]
fn a_tls_failure_whose_control_sni_also_fails_is_no_sni_block() {
    let mut w = fleet();
    for nth in 0..2 {
        for _ in 0..3 {
            w.check("ir-1", "de-1", nth, Check::Handshake, TLS_RESET, 1);
            w.check("ir-1", "de-1", nth, Check::ControlSni, TLS_RESET, 1);
        }
    }
    assert_eq!(kinds(&w.verdict("de-1")), vec![BlockKind::Ip]);
}

#[test]
fn a_control_sni_result_without_a_failing_handshake_says_nothing() {
    let mut w = fleet();
    w.check("ir-1", "de-1", 0, Check::ControlSni, Outcome::Ok, 3);
    let v = w.verdict("de-1");
    assert!(v.blocks.is_empty());
    assert_eq!(v.status, Healthy);
}

#[test]
fn one_transport_failing_while_another_reaches_is_a_protocol_block_that_removes_nothing() {
    let mut w = fleet();
    w.check("ir-1", "de-1", 1, Check::Handshake, UDP_DROPPED, 3);
    let v = w.verdict("de-1");
    assert_eq!(
        v.blocks,
        vec![VerifierBlock {
            verifier: sid("ir-1"),
            kind: BlockKind::Protocol,
            transport: Some(Transport::Quic),
            frozen_after_bytes: None,
        }]
    );
    assert_eq!(v.status, Healthy, "a protocol block is not `blocked`");
    assert!(v.in_rotation);
    assert!(v.blocked_by.is_empty());
    assert_eq!(v.still_reached_by, vec![sid("ir-1")]);
    // That transport's entry point is ordered last, with the verifier's cause.
    assert!(v.entry_points[0].available);
    assert!(!v.entry_points[1].available);
    assert_eq!(v.entry_points[1].causes[0].from, sid("ir-1"));
}

#[test]
fn one_of_two_entry_points_of_the_same_transport_failing_is_no_protocol_block() {
    let mut w = world_with(&[("de-1", "DE", false, 2), ("ir-1", "IR", true, 1)]);
    w.healthy();
    w.check("ir-1", "de-1", 1, Check::Handshake, TCP_TIMEOUT, 3);
    let v = w.verdict("de-1");
    assert!(v.blocks.is_empty());
    assert!(v.entry_points.iter().all(|e| e.available));
    assert_eq!(v.entry_points[1].verifier_failures.len(), 1, "still shown");
}

#[test]
fn transfers_freezing_sustained_while_handshakes_succeed_are_throttled_out_of_rotation() {
    let mut w = fleet();
    w.check(
        "ir-1",
        "de-1",
        0,
        Check::Transfer,
        Outcome::Frozen(16_384),
        3,
    );
    let v = w.verdict("de-1");
    assert_eq!(
        v.blocks,
        vec![VerifierBlock {
            verifier: sid("ir-1"),
            kind: BlockKind::Throttled,
            transport: None,
            frozen_after_bytes: Some(16_384),
        }]
    );
    assert_eq!(v.status, Blocked);
    assert!(!v.in_rotation);
    assert!(
        v.still_reached_by.is_empty(),
        "a throttled server is not reached"
    );
}

#[test]
fn one_frozen_transfer_means_nothing_and_a_full_one_ends_the_streak() {
    let mut w = fleet();
    w.check(
        "ir-1",
        "de-1",
        0,
        Check::Transfer,
        Outcome::Frozen(16_384),
        2,
    );
    assert!(w.verdict("de-1").blocks.is_empty());
    w.check(
        "ir-1",
        "de-1",
        0,
        Check::Transfer,
        Outcome::OkBytes(131_072),
        1,
    );
    w.check(
        "ir-1",
        "de-1",
        0,
        Check::Transfer,
        Outcome::Frozen(16_384),
        2,
    );
    assert!(w.verdict("de-1").blocks.is_empty());
}

#[test]
fn a_transfer_that_fails_to_connect_is_no_freeze() {
    let mut w = fleet();
    let refused = Outcome::Fails(ProbeError::Refused, Stage::Tcp);
    w.check("ir-1", "de-1", 0, Check::Transfer, refused, 3);
    assert!(w.verdict("de-1").blocks.is_empty());
}

#[test]
fn a_verifier_that_cannot_reach_its_controls_either_has_its_verdicts_suspended() {
    let mut w = fleet();
    w.check("ir-1", "de-1", 0, Check::Handshake, TCP_TIMEOUT, 3);
    w.check("ir-1", "de-1", 1, Check::Handshake, UDP_DROPPED, 3);
    assert_eq!(w.verdict("de-1").status, Blocked);
    w.check("ir-1", "ir-1", 0, Check::Control, TCP_TIMEOUT, 3);
    let v = w.verdict("de-1");
    assert!(v.blocks.is_empty(), "allowlist or shutdown: no verdict");
    assert_eq!(v.status, Healthy);
    let verifier = w.verdict("ir-1");
    assert!(verifier.controls_unreachable);
    assert!(verifier.suspended_verifier);
    // Its network is back: its word counts again.
    w.check("ir-1", "ir-1", 0, Check::Control, Outcome::Ok, 1);
    assert!(!w.verdict("ir-1").controls_unreachable);
    assert_eq!(w.verdict("de-1").status, Blocked);
}

#[test]
fn no_kind_is_a_verdict_on_a_server_that_is_down() {
    let mut w = fleet();
    w.check(
        "ir-1",
        "de-1",
        0,
        Check::Transfer,
        Outcome::Frozen(16_384),
        3,
    );
    w.report_at("de-1", w.now, false, true);
    let v = w.verdict("de-1");
    assert!(v.blocks.is_empty(), "a crash is never a block");
    assert_eq!(v.status, Unavailable);
}

#[test]
fn only_ip_and_throttled_blocks_call_for_a_new_address() {
    assert!(BlockKind::Ip.new_address_helps());
    assert!(BlockKind::Throttled.new_address_helps());
    assert!(!BlockKind::Sni.new_address_helps());
    assert!(!BlockKind::Protocol.new_address_helps());
}
