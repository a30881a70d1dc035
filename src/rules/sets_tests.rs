//! The rules over witness sets (docs/concepts/witness-sets.md), one test
//! per sentence: R2 over a server's set and its confirmers, R1 over a
//! witness's targets, R4 unchanged, results outside the sets kept but
//! without a vote.

use super::world::{world_with, World};
use crate::status::ServerStatus::*;
use crate::verdict::MeshCell;

/// Twelve normal servers in four countries and one verifier, beyond a
/// threshold of 8: sets of 3.
fn fleet() -> World {
    let mut spec: Vec<(String, &str, bool, usize)> = Vec::new();
    for country in ["DE", "NL", "FI", "SE"] {
        for k in 1..=3 {
            spec.push((format!("{}-{k}", country.to_lowercase()), country, false, 1));
        }
    }
    spec.push(("ru-v".to_owned(), "RU", true, 1));
    let borrowed: Vec<(&str, &str, bool, usize)> = spec
        .iter()
        .map(|(id, c, v, e)| (id.as_str(), *c, *v, *e))
        .collect();
    let mut w = world_with(&borrowed);
    w.settings.witness_set_threshold = 8;
    w.settings.witness_set_size = 3;
    w.healthy();
    w
}

fn id_of(w: &World, s: usize) -> String {
    w.mesh.server(s).id.to_string()
}

/// The target's set and the normal servers outside it, by id.
fn set_and_others(w: &World, target: &str) -> (Vec<String>, Vec<String>) {
    let t = w.index(target);
    let eval = w.evaluation();
    let set = eval.sets().set_of(t).expect("a set");
    let members: Vec<String> = set.iter().map(|&s| id_of(w, s as usize)).collect();
    let others = (0..w.mesh.server_count())
        .filter(|&s| s != t && !w.mesh.server(s).verifier && !set.contains(&(s as u32)))
        .map(|s| id_of(w, s))
        .collect();
    (members, others)
}

#[test]
fn r2_counts_the_fresh_witnesses_of_the_servers_set() {
    let w = fleet();
    let v = w.verdict("de-1");
    assert_eq!(
        (v.quorum.failing, v.quorum.of),
        (0, 3),
        "k of n over the set of 3"
    );
    assert_eq!(v.status, Healthy);
}

#[test]
fn failures_from_outside_the_set_are_kept_and_shown_but_do_not_vote() {
    let mut w = fleet();
    let (_, others) = set_and_others(&w, "de-1");
    // Old agents probe everyone: every server outside the set fails de-1.
    for o in &others {
        w.probe(o, "de-1", false, 3);
    }
    let eval = w.evaluation();
    let v = &eval.verdicts()[w.index("de-1")];
    assert_eq!(v.status, Healthy, "{:?}", v.quorum);
    assert_eq!(v.quorum.failing, 0);
    assert!(
        v.entry_points.iter().all(|e| e.available),
        "no R3 mark from outside the set"
    );
    // The matrix still shows what they saw.
    let n = w.mesh.server_count();
    let cells = eval.matrix(&w.mesh, &w.evidence);
    let o = w.index(&others[0]);
    assert_eq!(cells[o * n + w.index("de-1")], MeshCell::Sustained);
}

#[test]
fn a_quorum_of_the_set_makes_it_unreachable_and_the_caption_counts_the_set() {
    let mut w = fleet();
    let (set, _) = set_and_others(&w, "de-1");
    for m in &set[..2] {
        w.probe(m, "de-1", false, 3);
    }
    let v = w.verdict("de-1");
    assert_eq!(v.status, Unreachable);
    assert_eq!(v.quorum.failing, 2);
    // The streak asked three servers outside the set to confirm; until
    // they report, they reach it by their last results and count in n.
    assert_eq!(v.quorum.of, 3 + 3);
}

#[test]
fn a_starting_streak_asks_three_more_servers_whose_failures_count_while_they_probe() {
    let mut w = fleet();
    let (set, others) = set_and_others(&w, "de-1");
    w.probe(&set[0], "de-1", false, 1);
    let eval = w.evaluation();
    let t = w.index("de-1");
    let confirmers: Vec<String> = eval
        .sets()
        .confirmers_of(t)
        .iter()
        .map(|&c| id_of(&w, c as usize))
        .collect();
    assert_eq!(confirmers.len(), 3);
    assert!(confirmers.iter().all(|c| others.contains(c)));
    // The set's witness and the confirmers fail: 4 of 6.
    w.probe(&set[0], "de-1", false, 2);
    for c in &confirmers {
        w.probe(c, "de-1", false, 3);
    }
    let v = w.verdict("de-1");
    assert_eq!(v.status, Unreachable);
    assert_eq!((v.quorum.failing, v.quorum.of), (4, 6));
    // The streak ends: the confirmers are no longer asked, and their
    // failures no longer vote.
    w.probe(&set[0], "de-1", true, 1);
    let v = w.verdict("de-1");
    assert_eq!((v.quorum.failing, v.quorum.of), (0, 3));
    assert_eq!(v.status, Healthy);
}

#[test]
fn r1_counts_only_the_targets_a_witness_is_assigned() {
    let mut w = fleet();
    let f = w.index("fi-2");
    let eval = w.evaluation();
    let targets: Vec<usize> = eval
        .sets()
        .targets_of(f)
        .expect("targets")
        .iter()
        .map(|&(t, _)| t as usize)
        .collect();
    assert!(!targets.is_empty());
    // fi-2 fails every server it is not assigned: no R1.
    for t in (0..w.mesh.server_count()).filter(|t| *t != f && !targets.contains(t)) {
        let id = id_of(&w, t);
        w.probe("fi-2", &id, false, 3);
    }
    assert_eq!(w.verdict("fi-2").unreliable_witness, None);
    // It fails its own targets too: unreliable, over those alone.
    for &t in &targets {
        let id = id_of(&w, t);
        w.probe("fi-2", &id, false, 3);
    }
    let figure = w.verdict("fi-2").unreliable_witness.expect("R1 holds");
    assert_eq!(figure.failing, figure.of);
    assert!(figure.of as usize <= targets.len() + 3, "{figure:?}");
}

#[test]
fn a_verifier_still_probes_every_normal_server_and_r4_holds() {
    let mut w = fleet();
    w.probe("ru-v", "se-3", false, 3);
    let v = w.verdict("se-3");
    assert_eq!(v.status, Blocked);
    assert_eq!(v.blocked_by.len(), 1);
}

/// The server card's "still reached by" asks only a server's set and its
/// confirmers; it names exactly the witnesses that asking the whole fleet
/// names, in the fleet's order, with a streak's confirmers among them and
/// old agents' results outside the set left out.
#[test]
fn the_witnesses_still_reaching_a_server_are_its_voters_that_reach_it() {
    let mut w = fleet();
    let (set, others) = set_and_others(&w, "de-1");
    // A streak starts (confirmers asked); one outsider probes it anyway.
    w.probe(&set[0], "de-1", false, 3);
    w.probe(&others[0], "de-1", true, 1);
    let eval = w.evaluation();
    assert_eq!(eval.sets().confirmers_of(w.index("de-1")).len(), 3);
    for s in 0..w.mesh.server_count() {
        let asked: Vec<usize> = eval.seeing_witnesses(&w.mesh, s).collect();
        let everyone: Vec<usize> = (0..w.mesh.server_count())
            .filter(|&x| {
                !w.mesh.server(s).verifier
                    && x != s
                    && eval.witnesses[x].votes(w.mesh.server(x).verifier)
                    && eval.votes_on(x, s)
                    && eval.reach(x, s) == super::Reach::Reaches
            })
            .collect();
        assert_eq!(asked, everyone, "{}", id_of(&w, s));
    }
    let seeing: Vec<String> = eval
        .seeing_witnesses(&w.mesh, w.index("de-1"))
        .map(|x| id_of(&w, x))
        .collect();
    assert!(
        !seeing.contains(&set[0]),
        "the failing witness does not reach it"
    );
    assert!(
        seeing.len() >= 2 + 3 - 1,
        "{seeing:?}: the set's other two and the confirmers"
    );
}
