//! One test per sentence of docs/API.md "Connected panels" that the plan
//! decides, and a property test of never-empty.

use super::*;
use proptest::prelude::*;

fn sid(s: &str) -> ServerId {
    ServerId::parse(s).expect("id")
}

fn host(id: &str, address: &str, port: u16, enabled: bool) -> ExternalHost {
    ExternalHost {
        external_id: id.into(),
        remark: id.into(),
        endpoints: vec![(address.into(), port)],
        tags: vec![],
        enabled,
        protocol: None,
        sni: None,
        node: None,
    }
}

fn entry(host: &str, port: u16, server: &str) -> KnownEntryPoint {
    KnownEntryPoint {
        host: host.into(),
        port,
        server: sid(server),
        entry_point: EntryPointId::parse(&format!("{server}-ep")).expect("id"),
    }
}

/// de-1 and de-2 on route de, one host each.
struct Case {
    hosts: Vec<ExternalHost>,
    tag: Option<&'static str>,
    served: Vec<&'static str>,
    ours: Vec<&'static str>,
}

fn run(case: &Case) -> Plan {
    let entry_points = [
        entry("de-1.example", 443, "de-1"),
        entry("198.51.100.2", 443, "de-2"),
    ];
    let served = case.served.iter().map(|s| sid(s)).collect();
    let ours = case.ours.iter().map(|s| s.to_string()).collect();
    let routes = [vec![sid("de-1"), sid("de-2")]];
    plan(&PlanInput {
        hosts: &case.hosts,
        tag: case.tag,
        entry_points: &entry_points,
        served: &served,
        turned_off: &ours,
        routes: &routes,
    })
}

fn changes(plan: &Plan) -> Vec<(&str, HostChange)> {
    plan.changes
        .iter()
        .map(|c| (c.external_id.as_str(), c.change))
        .collect()
}

#[test]
fn a_host_whose_server_is_out_of_rotation_is_turned_off() {
    let plan = run(&Case {
        hosts: vec![
            host("h1", "de-1.example", 443, true),
            host("h2", "198.51.100.2", 443, true),
        ],
        tag: None,
        served: vec!["de-2"],
        ours: vec![],
    });
    assert_eq!(changes(&plan), [("h1", HostChange::Disable)]);
}

#[test]
fn a_host_matches_by_address_case_insensitively_and_port() {
    let plan = run(&Case {
        hosts: vec![
            host("h1", "DE-1.Example", 443, true),
            host("other-port", "de-1.example", 8443, true),
            host("h2", "198.51.100.2", 443, true),
        ],
        tag: None,
        served: vec!["de-2"],
        ours: vec![],
    });
    assert_eq!(changes(&plan), [("h1", HostChange::Disable)]);
    let matched: Vec<&str> = plan
        .matched
        .iter()
        .map(|h| h.external_id.as_str())
        .collect();
    assert_eq!(matched, ["h1", "h2"], "only matched hosts are listed");
}

#[test]
fn a_host_with_several_addresses_matches_by_any_of_them() {
    let mut two = host("h1", "cdn.example", 443, true);
    two.endpoints.push(("de-1.example".into(), 443));
    let plan = run(&Case {
        hosts: vec![two, host("h2", "198.51.100.2", 443, true)],
        tag: None,
        served: vec!["de-2"],
        ours: vec![],
    });
    assert_eq!(changes(&plan), [("h1", HostChange::Disable)]);
    assert_eq!(plan.matched[0].address, "de-1.example");
}

#[test]
fn a_host_without_a_port_matches_nothing() {
    let mut portless = host("h1", "de-1.example", 443, true);
    portless.endpoints.clear();
    let plan = run(&Case {
        hosts: vec![portless, host("h2", "198.51.100.2", 443, true)],
        tag: None,
        served: vec!["de-2"],
        ours: vec![],
    });
    assert!(plan.changes.is_empty());
}

#[test]
fn with_a_tag_only_hosts_carrying_it_are_matched() {
    let tagged = |mut h: ExternalHost| {
        h.tags = vec!["MESHWATCH".into()];
        h
    };
    let plan = run(&Case {
        hosts: vec![
            host("h1-untagged", "198.51.100.2", 443, true),
            tagged(host("h1", "de-1.example", 443, true)),
            tagged(host("h2", "198.51.100.2", 443, true)),
        ],
        tag: Some("MESHWATCH"),
        served: vec!["de-1"],
        ours: vec![],
    });
    assert_eq!(changes(&plan), [("h2", HostChange::Disable)]);
    assert_eq!(plan.matched.len(), 2);
}

#[test]
fn a_host_meshwatch_turned_off_is_turned_on_when_its_server_is_back() {
    let plan = run(&Case {
        hosts: vec![
            host("h1", "de-1.example", 443, false),
            host("h2", "198.51.100.2", 443, true),
        ],
        tag: None,
        served: vec!["de-1", "de-2"],
        ours: vec!["h1"],
    });
    assert_eq!(changes(&plan), [("h1", HostChange::Enable)]);
}

#[test]
fn a_host_the_operator_turned_off_is_never_turned_on() {
    let plan = run(&Case {
        hosts: vec![
            host("h1", "de-1.example", 443, false),
            host("h2", "198.51.100.2", 443, true),
        ],
        tag: None,
        served: vec!["de-1", "de-2"],
        ours: vec![],
    });
    assert!(plan.changes.is_empty());
    assert!(!plan.matched[0].turned_off_by_meshwatch);
}

#[test]
fn a_host_meshwatch_turned_off_stays_off_while_its_server_is_out() {
    let plan = run(&Case {
        hosts: vec![
            host("h1", "de-1.example", 443, false),
            host("h2", "198.51.100.2", 443, true),
        ],
        tag: None,
        served: vec!["de-2"],
        ours: vec!["h1"],
    });
    assert!(plan.changes.is_empty());
    assert!(plan.matched[0].turned_off_by_meshwatch);
}

#[test]
fn a_record_of_a_host_that_is_on_again_is_forgotten() {
    let plan = run(&Case {
        hosts: vec![
            host("h1", "de-1.example", 443, true),
            host("h2", "198.51.100.2", 443, true),
        ],
        tag: None,
        served: vec!["de-1", "de-2"],
        ours: vec!["h1"],
    });
    assert!(plan.changes.is_empty());
    assert_eq!(plan.forget, ["h1"]);
}

#[test]
fn a_record_of_a_host_deleted_in_the_panel_is_forgotten() {
    let plan = run(&Case {
        hosts: vec![host("h2", "198.51.100.2", 443, true)],
        tag: None,
        served: vec!["de-1", "de-2"],
        ours: vec!["gone"],
    });
    assert!(plan.changes.is_empty());
    assert_eq!(plan.forget, ["gone"]);
}

#[test]
fn a_routes_last_host_on_stays_on_when_its_served_server_has_no_host() {
    // de-2, the best available, has no host in the panel: de-1's host is
    // the route's last one on, so it stays on.
    let plan = run(&Case {
        hosts: vec![host("h1", "de-1.example", 443, true)],
        tag: None,
        served: vec!["de-2"],
        ours: vec![],
    });
    assert!(plan.changes.is_empty(), "{:?}", plan.changes);
}

#[test]
fn when_the_pick_moves_the_new_host_goes_on_before_the_old_one_goes_off() {
    let plan = run(&Case {
        hosts: vec![
            host("h1", "de-1.example", 443, true),
            host("h2", "198.51.100.2", 443, false),
        ],
        tag: None,
        served: vec!["de-2"],
        ours: vec!["h2"],
    });
    assert_eq!(
        changes(&plan),
        [("h2", HostChange::Enable), ("h1", HostChange::Disable)]
    );
}

proptest! {
    /// Whatever the hosts and the rotation, a route with a matched host
    /// on keeps one on after the plan, and no host the operator turned
    /// off is turned on.
    #[test]
    fn never_empty_and_never_the_operators_choice(
        enabled in proptest::collection::vec(any::<bool>(), 4),
        ours in proptest::collection::vec(any::<bool>(), 4),
        served in proptest::collection::vec(any::<bool>(), 4),
    ) {
        let servers = ["a-1", "a-2", "b-1", "b-2"];
        let entry_points: Vec<KnownEntryPoint> = servers
            .iter()
            .map(|s| entry(&format!("{s}.example"), 443, s))
            .collect();
        let hosts: Vec<ExternalHost> = servers
            .iter()
            .zip(&enabled)
            .map(|(s, &on)| host(&format!("h-{s}"), &format!("{s}.example"), 443, on))
            .collect();
        let served: HashSet<ServerId> = servers
            .iter()
            .zip(&served)
            .filter(|(_, &in_)| in_)
            .map(|(s, _)| sid(s))
            .collect();
        let turned_off: HashSet<String> = servers
            .iter()
            .zip(&ours)
            .filter(|(_, &o)| o)
            .map(|(s, _)| format!("h-{s}"))
            .collect();
        let routes = [vec![sid("a-1"), sid("a-2")], vec![sid("b-1"), sid("b-2")]];
        let plan = plan(&PlanInput {
            hosts: &hosts,
            tag: None,
            entry_points: &entry_points,
            served: &served,
            turned_off: &turned_off,
            routes: &routes,
        });
        let on_after = |h: &ExternalHost| plan
            .changes
            .iter()
            .find(|c| c.external_id == h.external_id)
            .map(|c| c.change == HostChange::Enable)
            .unwrap_or(h.enabled);
        for pair in hosts.chunks(2) {
            if pair.iter().any(|h| h.enabled) {
                prop_assert!(pair.iter().any(on_after), "{:?}", plan.changes);
            }
        }
        for c in &plan.changes {
            if c.change == HostChange::Enable {
                prop_assert!(turned_off.contains(&c.external_id));
            }
        }
    }
}
