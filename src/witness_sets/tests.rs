//! The sets' own properties: diversity, stability under fleet changes,
//! rotation, indirect confirmation, and no set of a fresh server empty.

use super::*;
use crate::evidence::{ProbeError, ProbeOutcome, SelfCheck, StreakTiming};
use crate::ids::{EntryPointId, RouteId, ServerId};
use crate::mesh::{MeshRoute, MeshServer};
use proptest::prelude::*;
use std::collections::BTreeSet;

const NOW: i64 = 1_800_000_000_000;
const HOUR: i64 = 3_600_000;

/// `(id, country, route)` servers, one entry point each; `verifiers` ids
/// are verifiers.
fn mesh_of(servers: &[(String, String, String)], verifiers: &[&str]) -> Mesh {
    let mut routes: Vec<MeshRoute> = Vec::new();
    let list = servers
        .iter()
        .map(|(id, country, route)| {
            let route = RouteId::parse(route).expect("route slug");
            if !routes.iter().any(|r| r.id == route) {
                routes.push(MeshRoute {
                    id: route.clone(),
                    servers_per_user: None,
                });
            }
            MeshServer {
                id: ServerId::parse(id).expect("slug"),
                name: id.clone(),
                country: country.clone(),
                verifier: verifiers.contains(&id.as_str()),
                network: None,
                controls: Default::default(),
                routes: vec![route],
                entry_points: vec![EntryPointId::parse(&format!("{id}-ep"))
                    .expect("slug")
                    .into()],
            }
        })
        .collect();
    Mesh::new(list, routes)
}

/// `per_country` servers in each of `countries` countries, spread over
/// `routes` routes per country.
fn fleet(countries: usize, per_country: usize, routes: usize) -> Vec<(String, String, String)> {
    let mut list = Vec::new();
    for c in 0..countries {
        let country = format!(
            "{}{}",
            (b'A' + (c / 26) as u8) as char,
            (b'A' + (c % 26) as u8) as char
        );
        for k in 0..per_country {
            let route = format!("r{c}-{}", k % routes);
            list.push((format!("s{c}-{k}"), country.clone(), route));
        }
    }
    list
}

fn settings(threshold: u32, m: u32) -> Settings {
    Settings {
        witness_set_threshold: threshold,
        witness_set_size: m,
        ..Settings::default()
    }
}

fn ok() -> SelfCheck {
    SelfCheck {
        listener_ok: true,
        service_ok: true,
        detail: None,
    }
}

/// Every server reported just now.
fn all_reporting(mesh: &Mesh) -> Evidence {
    all_reporting_at(mesh, NOW)
}

fn all_reporting_at(mesh: &Mesh, now: i64) -> Evidence {
    let mut evidence = Evidence::new(mesh);
    for s in 0..mesh.server_count() {
        evidence.record_report(s, now - 1_000, ok());
    }
    evidence
}

fn ids(mesh: &Mesh, list: &[u32]) -> BTreeSet<String> {
    list.iter()
        .map(|&w| mesh.server(w as usize).id.as_str().to_owned())
        .collect()
}

fn set_ids(mesh: &Mesh, sets: &WitnessSets, id: &str) -> BTreeSet<String> {
    let s = mesh
        .server_index(&ServerId::parse(id).expect("slug"))
        .expect("known");
    ids(mesh, sets.set_of(s).expect("a set"))
}

#[test]
fn at_or_below_the_threshold_everyone_witnesses_everyone() {
    let mesh = mesh_of(&fleet(4, 16, 2), &[]);
    let evidence = all_reporting(&mesh);
    let sets = WitnessSets::derive(&mesh, &evidence, &settings(64, 12), NOW);
    assert!(sets.is_full());
    assert!(sets.assigned(0, 63) && !sets.assigned(5, 5));
    assert_eq!((sets.targets_of(0), sets.set_of(0)), (None, None));
    let beyond = WitnessSets::derive(&mesh, &evidence, &settings(63, 12), NOW);
    assert!(!beyond.is_full());
}

#[test]
fn a_set_spans_as_many_countries_as_the_fleet_has_up_to_its_size() {
    for (countries, m) in [(20, 12), (5, 12), (12, 12), (3, 4)] {
        let mesh = mesh_of(&fleet(countries, 10, 1), &[]);
        let sets = WitnessSets::derive(&mesh, &all_reporting(&mesh), &settings(8, m), NOW);
        for s in 0..mesh.server_count() {
            let set = sets.set_of(s).expect("a set");
            assert_eq!(set.len(), m as usize);
            let spanned: BTreeSet<usize> =
                set.iter().map(|&w| mesh.country_of(w as usize)).collect();
            assert_eq!(
                spanned.len(),
                countries.min(m as usize),
                "{countries} countries, m = {m}"
            );
            assert!(
                !set.contains(&(s as u32)),
                "a server never witnesses itself"
            );
        }
    }
}

#[test]
fn within_few_countries_a_set_spans_different_routes() {
    // Two countries of 40 servers each, on 5 routes each: 10 routes for
    // sets of 6.
    let mesh = mesh_of(&fleet(2, 40, 5), &[]);
    let sets = WitnessSets::derive(&mesh, &all_reporting(&mesh), &settings(8, 6), NOW);
    for s in 0..mesh.server_count() {
        let set = sets.set_of(s).expect("a set");
        let routes: BTreeSet<usize> = set
            .iter()
            .flat_map(|&w| mesh.routes_of(w as usize).to_vec())
            .collect();
        assert_eq!(routes.len(), 6, "every witness on a route of its own");
    }
}

#[test]
fn verifiers_are_in_no_set_and_probe_every_normal_server() {
    let mut list = fleet(4, 20, 2);
    list.push(("v-1".into(), "RU".into(), "ru".into()));
    let mesh = mesh_of(&list, &["v-1"]);
    let v = mesh
        .server_index(&ServerId::parse("v-1").expect("slug"))
        .expect("v-1");
    let sets = WitnessSets::derive(&mesh, &all_reporting(&mesh), &settings(8, 12), NOW);
    assert_eq!((sets.set_of(v), sets.targets_of(v)), (None, None));
    for s in (0..mesh.server_count()).filter(|&s| s != v) {
        assert!(sets.assigned(v, s), "the verifier probes {s}");
        assert!(!sets.set_of(s).expect("a set").contains(&(v as u32)));
        assert!(!sets.assigned(s, v), "no set watches a verifier");
    }
}

#[test]
fn what_a_witness_probes_is_what_votes_in_every_mode() {
    let mut list = fleet(4, 20, 2);
    list.push(("v-1".into(), "RU".into(), "ru".into()));
    let mesh = mesh_of(&list, &["v-1"]);
    let n = mesh.server_count();
    for threshold in [8, 200] {
        let sets = WitnessSets::derive(&mesh, &all_reporting(&mesh), &settings(threshold, 12), NOW);
        for w in 0..n {
            let probed: Vec<usize> = sets.probed_by(w).map(|(t, _)| t).collect();
            let assigned: Vec<usize> = (0..n).filter(|&s| sets.assigned(w, s)).collect();
            assert_eq!(probed, assigned, "witness {w}, threshold {threshold}");
        }
    }
}

#[test]
fn every_set_rotates_one_witness_at_a_time_and_in_turn() {
    let mesh = mesh_of(&fleet(3, 30, 2), &[]);
    let config = settings(8, 6);
    let mut changes = 0;
    let mut ever = vec![BTreeSet::new(); mesh.server_count()];
    let hours = 48;
    let mut previous: Option<WitnessSets> = None;
    for h in 0..hours {
        let now = NOW + h * HOUR;
        let sets = WitnessSets::derive(&mesh, &all_reporting_at(&mesh, now), &config, now);
        for (s, seen) in ever.iter_mut().enumerate() {
            let set = sets.set_of(s).expect("a set");
            seen.extend(set.iter().copied());
            let rotated = sets.rotated_at_ms(s).expect("sets");
            assert!(
                rotated <= now && now - rotated < HOUR,
                "rotated within the hour"
            );
            if let Some(before) = previous.as_ref().and_then(|p| p.set_of(s)) {
                let left = before.iter().filter(|w| !set.contains(w)).count();
                assert!(
                    left <= 1,
                    "{left} witnesses of server {s} left in one rotation"
                );
                changes += left;
            }
        }
        previous = Some(sets);
    }
    // One witness an hour per set, and every candidate a country keeps
    // (2 per slot, and one more) takes its turn: no fixed set hides a
    // fault for long.
    assert_eq!(changes, (hours as usize - 1) * mesh.server_count());
    let pools = mesh.witness_pools(6);
    for (s, seen) in ever.iter().enumerate() {
        let kept: usize = pools
            .classes(s)
            .iter()
            .map(|c| c.members.iter().flatten().count())
            .sum();
        assert_eq!(
            seen.len(),
            kept,
            "server {s} had every witness of its classes"
        );
    }
}

#[test]
fn an_hour_moves_each_set_once_and_each_agent_s_targets_about_twice() {
    // Minute by minute, as agents see their configs: a rotation moves one
    // witness out of a set and one in, so an hour changes the targets of
    // about two agents per server, not more.
    let mesh = mesh_of(&fleet(5, 60, 2), &[]);
    let config = settings(8, 12);
    let n = mesh.server_count();
    let mut previous = WitnessSets::derive(&mesh, &all_reporting_at(&mesh, NOW), &config, NOW);
    let (mut agent_changes, mut set_changes) = (0, 0);
    for minute in 1..=60 {
        let now = NOW + minute * 60_000;
        let sets = WitnessSets::derive(&mesh, &all_reporting_at(&mesh, now), &config, now);
        agent_changes += (0..n)
            .filter(|&w| sets.targets_of(w) != previous.targets_of(w))
            .count();
        set_changes += (0..n)
            .filter(|&s| sets.set_of(s) != previous.set_of(s))
            .count();
        previous = sets;
    }
    assert!(
        set_changes <= n,
        "{set_changes} set changes in an hour for {n} sets"
    );
    assert!(
        agent_changes <= 2 * n,
        "{agent_changes} agents' targets changed in an hour ({n} servers)"
    );
}

#[test]
fn the_same_moment_gives_the_same_sets() {
    let mesh = mesh_of(&fleet(5, 20, 3), &[]);
    let evidence = all_reporting(&mesh);
    let a = WitnessSets::derive(&mesh, &evidence, &settings(8, 12), NOW);
    let b = WitnessSets::derive(&mesh.clone(), &evidence, &settings(8, 12), NOW + 1);
    assert_eq!(a.set_of(7), b.set_of(7));
}

#[test]
fn silent_witnesses_are_replaced_and_no_set_is_left_empty() {
    let mesh = mesh_of(&fleet(4, 25, 2), &[]);
    let mut evidence = Evidence::new(&mesh);
    // Only every fifth server reports; the new ones have never reported.
    for s in (0..mesh.server_count()).filter(|s| s % 5 == 0) {
        evidence.record_report(s, NOW - 1_000, ok());
    }
    let sets = WitnessSets::derive(&mesh, &evidence, &settings(8, 12), NOW);
    for s in 0..mesh.server_count() {
        let set = sets.set_of(s).expect("a set");
        assert_eq!(set.len(), 12, "server {s}");
        let reporting = set.iter().filter(|&&w| w % 5 == 0).count();
        let others = 20 - usize::from(s % 5 == 0);
        assert_eq!(
            reporting,
            12.min(others),
            "server {s}: every witness that can report"
        );
    }
    // A fleet where nobody reported yet has full sets: the ones it keeps
    // once everyone reports (a fleet starting up does not reshuffle).
    let silent = WitnessSets::derive(&mesh, &Evidence::new(&mesh), &settings(8, 12), NOW);
    let reporting = WitnessSets::derive(&mesh, &all_reporting(&mesh), &settings(8, 12), NOW);
    for s in 0..mesh.server_count() {
        assert_eq!(silent.set_of(s).map(<[u32]>::len), Some(12));
        assert_eq!(silent.set_of(s), reporting.set_of(s), "server {s}");
    }
}

#[test]
fn a_starting_streak_asks_three_servers_outside_the_set_to_confirm() {
    let mesh = mesh_of(&fleet(4, 20, 2), &[]);
    let mut evidence = all_reporting(&mesh);
    let config = settings(8, 6);
    let target = 17;
    let calm = WitnessSets::derive(&mesh, &evidence, &config, NOW);
    assert!(calm.confirmers_of(target).is_empty());
    let set = calm.set_of(target).expect("a set").to_vec();
    let e = mesh.entry_points_of(target).start;
    let timing = StreakTiming {
        stale_after_ms: config.stale_after_ms(),
        knock_gap_ms: 0,
    };
    let failure = ProbeOutcome::handshake(NOW - 500, false, Some(ProbeError::Timeout));
    evidence.apply_probe(set[0] as usize, e, failure, NOW - 500, timing);
    let asked = WitnessSets::derive(&mesh, &evidence, &config, NOW);
    let confirmers = asked.confirmers_of(target);
    assert_eq!(confirmers.len(), INDIRECT_CONFIRMERS);
    for &c in confirmers {
        assert!(!set.contains(&c) && c as usize != target);
        assert!(asked.assigned(c as usize, target));
        let targets = asked.targets_of(c as usize).expect("targets");
        assert!(
            targets.contains(&(target as u32, true)),
            "probed as an indirect target"
        );
    }
    assert_ne!(
        asked.digest_of(confirmers[0] as usize),
        calm.digest_of(confirmers[0] as usize)
    );
    // One success ends the streak, and the confirmation with it.
    let success = ProbeOutcome::handshake(NOW - 400, true, None);
    evidence.apply_probe(set[0] as usize, e, success, NOW - 400, timing);
    let over = WitnessSets::derive(&mesh, &evidence, &config, NOW);
    assert!(over.confirmers_of(target).is_empty());
    assert_eq!(over, calm);
}

fn moved(a: &WitnessSets, a_mesh: &Mesh, b: &WitnessSets, b_mesh: &Mesh, id: &str) -> usize {
    let before = set_ids(a_mesh, a, id);
    let after = set_ids(b_mesh, b, id);
    before.difference(&after).count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A server joining or leaving moves at most two witnesses of any
    /// other set, so streaks survive fleet changes.
    #[test]
    fn a_fleet_change_moves_few_witnesses(
        countries in 2usize..6,
        per_country in 8usize..20,
        routes in 1usize..4,
        m in 3u32..10,
        pick in any::<prop::sample::Index>(),
    ) {
        let list = fleet(countries, per_country, routes);
        let mesh = mesh_of(&list, &[]);
        let config = settings(4, m);
        let sets = WitnessSets::derive(&mesh, &all_reporting(&mesh), &config, NOW);

        let gone = pick.index(list.len());
        let mut fewer = list.clone();
        let left = fewer.remove(gone).0;
        let fewer_mesh = mesh_of(&fewer, &[]);
        let fewer_sets = WitnessSets::derive(&fewer_mesh, &all_reporting(&fewer_mesh), &config, NOW);
        let mut more = list.clone();
        more.push(("new-1".into(), list[gone].1.clone(), list[gone].2.clone()));
        let more_mesh = mesh_of(&more, &[]);
        let more_sets = WitnessSets::derive(&more_mesh, &all_reporting(&more_mesh), &config, NOW);
        for (id, _, _) in list.iter().filter(|(id, _, _)| *id != left) {
            let was_in = usize::from(set_ids(&mesh, &sets, id).contains(&left));
            prop_assert!(moved(&sets, &mesh, &fewer_sets, &fewer_mesh, id) <= 2 + was_in, "{} lost {}", id, left);
            prop_assert!(moved(&sets, &mesh, &more_sets, &more_mesh, id) <= 2, "{} when new-1 joined", id);
        }
    }
}
