//! One test per rule of the import, and the proposal always validates.

use super::*;
use proptest::prelude::*;

fn host(id: &str, address: &str, port: Option<u16>, protocol: Option<Protocol>) -> ExternalHost {
    ExternalHost {
        external_id: id.into(),
        remark: format!("host {id}"),
        endpoints: port.map(|p| (address.to_owned(), p)).into_iter().collect(),
        tags: vec![],
        enabled: true,
        protocol,
        sni: None,
        node: None,
    }
}

fn node(id: &str, name: &str, address: &str, country: Option<&str>) -> ExternalNode {
    ExternalNode {
        external_id: id.into(),
        name: name.into(),
        address: address.into(),
        country: country.map(str::to_owned),
    }
}

const VLESS: Option<Protocol> = Some(Protocol::Vless);

#[test]
fn a_node_with_hosts_is_a_server_with_an_entry_point_per_host() {
    let nodes = [node("n1", "Frankfurt 1", "203.0.113.1", Some("DE"))];
    let hosts = [
        host("h1", "203.0.113.1", Some(443), VLESS),
        host("h2", "203.0.113.1", Some(8443), Some(Protocol::Trojan)),
    ];
    let p = propose(&nodes, &hosts, &FleetNow::default());
    assert_eq!(p.document.servers.len(), 1);
    let server = &p.document.servers[0];
    assert_eq!(server.id, "frankfurt-1");
    assert_eq!(server.name, "Frankfurt 1");
    assert_eq!(server.country, "DE");
    assert_eq!(server.routes, vec!["de"]);
    let eps: Vec<(&str, &str, i64)> = server
        .entry_points
        .iter()
        .map(|e| (e.id.as_str(), e.protocol.as_str(), e.port))
        .collect();
    assert_eq!(
        eps,
        vec![
            ("frankfurt-1-vless-443", "vless", 443),
            ("frankfurt-1-trojan-8443", "trojan", 8443)
        ]
    );
}

#[test]
fn a_host_goes_to_the_node_the_panel_links_it_to_before_the_one_with_its_address() {
    let nodes = [
        node("n1", "one", "198.51.100.1", None),
        node("n2", "two", "cdn.example", None),
    ];
    let mut linked = host("h1", "cdn.example", Some(443), VLESS);
    linked.node = Some("n1".into());
    let p = propose(&nodes, &[linked], &FleetNow::default());
    assert_eq!(p.document.servers[0].name, "one");
}

#[test]
fn a_host_of_no_node_is_a_server_of_its_address() {
    let p = propose(
        &[],
        &[host("h1", "VPN.Example.net", Some(443), VLESS)],
        &FleetNow::default(),
    );
    let server = &p.document.servers[0];
    assert_eq!(server.id, "vpn-example-net");
    assert_eq!(server.entry_points[0].host, "vpn.example.net");
}

#[test]
fn a_node_without_a_country_gets_xx_and_no_route() {
    let nodes = [node("n1", "a", "198.51.100.1", Some("XX"))];
    let p = propose(
        &nodes,
        &[host("h1", "198.51.100.1", Some(443), VLESS)],
        &FleetNow::default(),
    );
    assert_eq!(p.document.servers[0].country, UNKNOWN_COUNTRY);
    assert!(p.document.servers[0].routes.is_empty());
    assert!(p.document.routes.is_empty());
}

#[test]
fn a_country_route_is_proposed_only_when_meshwatch_lacks_it() {
    let nodes = [
        node("n1", "a", "198.51.100.1", Some("de")),
        node("n2", "b", "198.51.100.2", Some("NL")),
    ];
    let hosts = [
        host("h1", "198.51.100.1", Some(443), VLESS),
        host("h2", "198.51.100.2", Some(443), VLESS),
    ];
    let now = FleetNow {
        route_ids: ["nl".to_owned()].into(),
        ..FleetNow::default()
    };
    let p = propose(&nodes, &hosts, &now);
    let routes: Vec<&str> = p.document.routes.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(routes, vec!["de"]);
    assert_eq!(p.document.servers[1].routes, vec!["nl"]);
}

#[test]
fn a_host_already_in_the_fleet_proposes_nothing_and_names_its_server() {
    let now = FleetNow {
        entry_points: vec![(
            "de-1.example".into(),
            443,
            ServerId::parse("de-1").expect("id"),
        )],
        ..FleetNow::default()
    };
    let p = propose(&[], &[host("h1", "DE-1.example", Some(443), VLESS)], &now);
    assert!(p.document.servers.is_empty());
    assert_eq!(p.known[0].server_id.as_str(), "de-1");
}

#[test]
fn hosts_without_a_port_a_protocol_or_an_address_are_skipped_with_the_reason() {
    let hosts = [
        host("h1", "a.example", None, VLESS),
        host("h2", "a.example", Some(443), None),
        host("h3", "{SERVER_IP}", Some(443), VLESS),
    ];
    let p = propose(&[], &hosts, &FleetNow::default());
    let reasons: Vec<SkipReason> = p.skipped.iter().map(|s| s.reason).collect();
    assert_eq!(
        reasons,
        vec![
            SkipReason::NoPort,
            SkipReason::NoProtocol,
            SkipReason::NotAnAddress
        ]
    );
    assert!(p.document.servers.is_empty());
}

#[test]
fn ids_never_collide_with_the_fleet_or_each_other() {
    let nodes = [
        node("n1", "Node", "198.51.100.1", None),
        node("n2", "node", "198.51.100.2", None),
    ];
    let hosts = [
        host("h1", "198.51.100.1", Some(443), VLESS),
        host("h2", "198.51.100.2", Some(443), VLESS),
    ];
    let now = FleetNow {
        server_ids: ["node".to_owned()].into(),
        entry_point_ids: ["node-2-vless-443".to_owned()].into(),
        ..FleetNow::default()
    };
    let p = propose(&nodes, &hosts, &now);
    let ids: Vec<&str> = p.document.servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, vec!["node-2", "node-3"]);
    assert_eq!(
        p.document.servers[0].entry_points[0].id,
        "node-2-vless-443-2"
    );
}

#[test]
fn a_name_with_nothing_to_slug_still_gets_an_id() {
    let nodes = [node("n1", "Франкфурт", "198.51.100.1", None)];
    let p = propose(
        &nodes,
        &[host("h1", "198.51.100.1", Some(443), VLESS)],
        &FleetNow::default(),
    );
    assert_eq!(p.document.servers[0].id, "server");
    assert_eq!(p.document.servers[0].name, "Франкфурт");
}

proptest! {
    /// Whatever the panel lists, the proposal is a document `PUT
    /// /api/v1/fleet` takes (its routes defined in it, or known).
    #[test]
    fn the_proposal_always_validates(
        names in proptest::collection::vec("[ -~]{0,70}", 0..6),
        ports in proptest::collection::vec(any::<u16>(), 0..8),
        country in proptest::option::of("[A-Za-z]{0,3}"),
    ) {
        let nodes: Vec<ExternalNode> = names
            .iter()
            .enumerate()
            .map(|(i, n)| node(&format!("n{i}"), n, &format!("198.51.100.{i}"), country.as_deref()))
            .collect();
        let hosts: Vec<ExternalHost> = ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                host(&format!("h{i}"), &format!("198.51.100.{}", i % 7), Some(*p).filter(|p| *p != 0), VLESS)
            })
            .collect();
        let p = propose(&nodes, &hosts, &FleetNow::default());
        let fleet = p.document.validate();
        prop_assert!(fleet.is_ok(), "{:?}", fleet.err());
        let fleet = fleet.expect("valid");
        prop_assert!(fleet.unknown_route(&HashSet::new()).is_none());
    }
}
