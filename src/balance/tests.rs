//! docs/PRODUCT.md §3, one test per sentence.

use super::assign;
use crate::ids::{RouteId, UserId};
use crate::rules::world::{sid, world, world_with, World};

fn uid(id: &str) -> UserId {
    UserId::parse(id).expect("user slug")
}

fn rid(id: &str) -> RouteId {
    RouteId::parse(id).expect("route slug")
}

/// Four German servers (route `de`), each user gets 2; plus two witnesses
/// elsewhere so quorums can form.
fn germany() -> World {
    let mut w = world(&[
        ("de-1", "DE"),
        ("de-2", "DE"),
        ("de-3", "DE"),
        ("de-4", "DE"),
        ("nl-1", "NL"),
        ("fi-1", "FI"),
    ])
    .servers_per_user("de", 2);
    w.healthy();
    w
}

fn serving(w: &World, user: &str) -> Vec<String> {
    let eval = w.evaluation();
    let routes = assign(&w.mesh, eval.verdicts(), &uid(user), &[rid("de")]);
    routes[0].serving.iter().map(|s| s.to_string()).collect()
}

fn make_unreachable(w: &mut World, target: &str) {
    w.probe("nl-1", target, false, 3);
    w.probe("fi-1", target, false, 3);
}

#[test]
fn servers_per_user_slots_are_filled_and_stable() {
    let w = germany();
    let first = serving(&w, "alice");
    assert_eq!(first.len(), 2);
    assert_eq!(
        serving(&w, "alice"),
        first,
        "the same user always gets the same servers"
    );
}

#[test]
fn without_servers_per_user_every_server_of_the_route_is_served() {
    let mut w = world(&[("de-1", "DE"), ("de-2", "DE"), ("de-3", "DE")]);
    w.healthy();
    assert_eq!(serving(&w, "bob").len(), 3);
}

#[test]
fn an_out_of_rotation_server_is_replaced_by_a_healthy_one_of_the_same_route() {
    let mut w = germany();
    let before = serving(&w, "alice");
    let out = before[0].clone();
    w.report_at(&out, w.now, false, true);
    let eval = w.evaluation();
    let routes = assign(&w.mesh, eval.verdicts(), &uid("alice"), &[rid("de")]);
    let route = &routes[0];
    assert!(!route.serving.contains(&sid(&out)));
    assert_eq!(route.serving.len(), 2, "the slot is refilled");
    let row = route
        .rows
        .iter()
        .find(|r| r.server_id == sid(&out))
        .expect("row of the out server");
    assert!(!row.in_subscription);
    let replacement = row.replaced_by.clone().expect("which server replaces it");
    assert!(route.serving.contains(&replacement));
    assert!(!before.contains(&replacement.to_string()));
    let stand_in = route
        .rows
        .iter()
        .find(|r| r.server_id == replacement)
        .expect("replacement row");
    assert_eq!(stand_in.replaces, Some(sid(&out)));
}

#[test]
fn a_healed_server_returns_to_the_users_it_had() {
    let mut w = germany();
    let before = serving(&w, "alice");
    w.report_at(&before[0], w.now, false, true);
    assert_ne!(serving(&w, "alice"), before);
    w.report_at(&before[0], w.now, true, true);
    assert_eq!(serving(&w, "alice"), before);
}

#[test]
fn flapping_does_not_reshuffle_other_users() {
    let mut w = germany();
    let users: Vec<String> = (0..40).map(|i| format!("user-{i}")).collect();
    let before: Vec<_> = users.iter().map(|u| serving(&w, u)).collect();
    w.report_at("de-3", w.now, false, true);
    for (u, old) in users.iter().zip(&before) {
        if !old.contains(&"de-3".to_owned()) {
            assert_eq!(
                &serving(&w, u),
                old,
                "{u} never had de-3 and keeps its servers"
            );
        }
    }
}

#[test]
fn silence_alone_never_removes_a_server() {
    let mut w = germany();
    let before = serving(&w, "alice");
    w.report_at(
        &before[0],
        w.now - w.settings.stale_after_ms() - 1,
        true,
        true,
    );
    assert_eq!(serving(&w, "alice"), before);
}

#[test]
fn a_route_is_never_emptied() {
    let mut w = germany();
    for s in ["de-1", "de-2", "de-3"] {
        w.report_at(s, w.now, false, false);
    }
    make_unreachable(&mut w, "de-4");
    let eval = w.evaluation();
    let routes = assign(&w.mesh, eval.verdicts(), &uid("alice"), &[rid("de")]);
    assert!(routes[0].best_available);
    assert_eq!(
        routes[0].serving,
        vec![sid("de-4")],
        "unreachable is less severe than unavailable"
    );
}

#[test]
fn the_best_available_prefers_the_most_recent_good_evidence() {
    let mut w = germany();
    for (i, s) in ["de-1", "de-2", "de-3", "de-4"].iter().enumerate() {
        w.report_at(s, w.now - 1000 * (4 - i as i64), false, true);
    }
    let eval = w.evaluation();
    let routes = assign(&w.mesh, eval.verdicts(), &uid("alice"), &[rid("de")]);
    assert_eq!(routes[0].serving, vec![sid("de-4")]);
}

#[test]
fn a_blocked_server_is_withheld_while_its_route_has_alternatives() {
    let mut w = world_with(&[
        ("de-1", "DE", false, 1),
        ("de-2", "DE", false, 1),
        ("nl-1", "NL", false, 1),
        ("ir-1", "IR", true, 1),
    ]);
    w.healthy();
    w.probe("ir-1", "de-1", false, 3);
    assert_eq!(serving(&w, "alice"), vec!["de-2".to_owned()]);
    w.probe("ir-1", "de-2", false, 3);
    assert_eq!(
        serving(&w, "alice").len(),
        1,
        "both blocked: the best available is still served"
    );
}

#[test]
fn pair_marked_entry_points_come_after_healthy_ones() {
    let mut w = world(&[("de-1", "DE"), ("de-2", "DE"), ("nl-1", "NL")]);
    w.healthy();
    let eval = w.evaluation();
    let unmarked = assign(&w.mesh, eval.verdicts(), &uid("alice"), &[rid("de")]);
    let first = unmarked[0].entry_points[0].clone();
    let first_server = if first.as_str().starts_with("de-1") {
        "de-1"
    } else {
        "de-2"
    };
    w.probe("nl-1", first_server, false, 3);
    let eval = w.evaluation();
    let marked = assign(&w.mesh, eval.verdicts(), &uid("alice"), &[rid("de")]);
    assert_eq!(marked[0].entry_points.len(), 2, "nothing is removed");
    assert_eq!(
        marked[0].entry_points[1], first,
        "the marked entry point moves last"
    );
}

#[test]
fn a_route_falls_back_only_when_every_server_is_out() {
    let mut w = crate::rules::world::world(&[("de-1", "DE"), ("de-2", "DE")]);
    w.healthy();
    let r = w
        .mesh
        .route_index(&crate::RouteId::parse("de").expect("route"))
        .expect("route de");
    assert_eq!(
        super::route_fallback(&w.mesh, &w.evaluation().into_verdicts(), r),
        None
    );
    w.report_at("de-1", w.now, false, true);
    assert_eq!(
        super::route_fallback(&w.mesh, &w.evaluation().into_verdicts(), r),
        None
    );
    w.report_at("de-2", w.now, false, true);
    assert!(super::route_fallback(&w.mesh, &w.evaluation().into_verdicts(), r).is_some());
}

mod ranking {
    use super::{rid, uid};
    use crate::balance::{assign, rendezvous_score};
    use crate::rules::world::world;
    use proptest::prelude::*;
    use std::cmp::Reverse;

    /// Users keep their servers across upgrades only if the score never
    /// changes: FNV-1a of "alice", 0xff, "de-1", then SplitMix64's finaliser.
    #[test]
    fn the_rendezvous_score_is_stable() {
        let server = crate::ServerId::parse("de-1").expect("slug");
        assert_eq!(
            rendezvous_score(&uid("alice"), &server),
            12_805_905_197_913_347_092
        );
    }

    proptest! {
        /// Whatever the size of the route and whichever servers are down,
        /// the user's own servers are the route's k best-ranked, and the
        /// stand-ins are the best-ranked servers still in rotation — what
        /// ranking the whole route would give.
        #[test]
        fn own_servers_and_stand_ins_follow_the_full_ranking(
            n in 2usize..14,
            k in 1u32..6,
            down in proptest::collection::vec(any::<bool>(), 14),
            user in "[a-z]{1,8}",
        ) {
            let names: Vec<String> = (1..=n).map(|i| format!("de-{i}")).collect();
            let servers: Vec<(&str, &str)> = names.iter().map(|s| (s.as_str(), "DE")).collect();
            let mut w = world(&servers).servers_per_user("de", k);
            w.healthy();
            for (name, &down) in names.iter().zip(&down) {
                if down {
                    let now = w.now;
                    w.report_at(name, now, true, false);
                }
            }
            let eval = w.evaluation();
            let verdicts = eval.verdicts();
            let user = uid(&user);
            let mut ranked: Vec<usize> = (0..n).map(|i| w.index(&names[i])).collect();
            ranked.sort_by_key(|&s| (Reverse(rendezvous_score(&user, &w.mesh.server(s).id)), s));
            let slots = (k as usize).min(n);
            let spares: Vec<usize> = ranked[slots..]
                .iter()
                .copied()
                .filter(|&s| verdicts[s].in_rotation)
                .collect();

            let route = &assign(&w.mesh, verdicts, &user, &[rid("de")])[0];
            let own: Vec<usize> = route
                .rows
                .iter()
                .filter(|r| r.replaces.is_none())
                .map(|r| w.index(r.server_id.as_str()))
                .collect();
            let stand_ins: Vec<usize> = route
                .rows
                .iter()
                .filter(|r| r.replaces.is_some())
                .map(|r| w.index(r.server_id.as_str()))
                .collect();
            let best_available = route.best_available;
            // A fallback row may follow when every server is out.
            prop_assert_eq!(&own[..slots], &ranked[..slots]);
            prop_assert!(best_available || own.len() == slots);
            prop_assert_eq!(&stand_ins[..], &spares[..stand_ins.len()]);
        }
    }
}
