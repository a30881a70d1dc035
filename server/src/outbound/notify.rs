//! Notifications (docs/PRODUCT.md R4): one message when a verifier sees a
//! server's address blocked, one when it clears — derived from recorded
//! status changes, so never more than one per incident. The words come
//! from the catalogue's templates ([`meshwatch_views::i18n::notice`]) in the
//! operator's language; this module gathers the facts they name.

mod target;

pub use target::{webhook_label, Target};

use crate::store::{Endpoint, NewNotification, NotificationView, Recipient};
use chrono::{DateTime, Utc};
use meshwatch::mesh::Mesh;
use meshwatch::network::BlockPlaces;
use meshwatch::status::ServerStatus;
use meshwatch::verdict::{Verdict, VerdictChange};
use meshwatch::{EntryPointId, ServerId};
use meshwatch_views::i18n::notice::{BlockEvent, Incident, Notice};
use meshwatch_views::i18n::Lang;
use meshwatch_views::views::{NotificationKind, ServerRef};
use std::collections::HashMap;

/// The outbox as people see it: each stored recipient by its target's
/// label (`webhook (host)`, `telegram (chat …)`, the address).
pub fn label_targets(mut rows: Vec<NotificationView>) -> Vec<NotificationView> {
    for row in &mut rows {
        let target = Target::from(Recipient {
            kind: row.target,
            address: std::mem::take(&mut row.to),
        });
        row.to = target.label().into_owned();
    }
    rows
}

impl NewNotification {
    /// The same message for another target.
    pub fn to(&self, target: &Target) -> NewNotification {
        NewNotification {
            kind: self.kind,
            server_id: self.server_id.clone(),
            target: target.columns(),
            subject: self.subject.clone(),
            body: self.body.clone(),
            created_at: self.created_at,
            block_kinds: self.block_kinds.clone(),
        }
    }

    /// A message not yet addressed (see [`NewNotification::to`]).
    fn unaddressed(
        kind: NotificationKind,
        server: &ServerId,
        notice: Notice,
        at: DateTime<Utc>,
    ) -> Self {
        NewNotification {
            kind,
            server_id: Some(server.clone()),
            target: Recipient::default(),
            subject: notice.subject,
            body: notice.body,
            created_at: at,
            block_kinds: Vec::new(),
        }
    }
}

/// The one message of a whole-fleet fault, for each target.
pub fn witness_fault(
    fault: meshwatch::verdict::WitnessFault,
    at: chrono::DateTime<chrono::Utc>,
    lang: Lang,
    targets: &[Target],
) -> Vec<NewNotification> {
    let notice = lang.witness_fault_notice(fault, at);
    let message = NewNotification {
        kind: NotificationKind::WitnessNetwork,
        server_id: None,
        target: Recipient::default(),
        subject: notice.subject,
        body: notice.body,
        created_at: at,
        block_kinds: Vec::new(),
    };
    targets.iter().map(|t| message.to(t)).collect()
}

/// "Send test email" from the panel: proves the delivery path works.
pub fn test_message(operator: &str, now: DateTime<Utc>) -> NewNotification {
    NewNotification {
        created_at: now,
        block_kinds: Vec::new(),
        kind: NotificationKind::Test,
        server_id: None,
        target: Recipient::default(),
        subject: "meshwatch: test message".into(),
        body: format!(
            "This is a test message from your meshwatch panel, sent by {operator}.\n\
             \"Address blocked\" and \"cleared\" notifications will arrive the same way.\n"
        ),
    }
}

/// The notifications a batch of recorded changes calls for, in `lang`.
/// When more than half of the fleet leaves rotation at once, the
/// per-server messages are folded into one fleet-wide message (likewise
/// for a mass clearing): an outage of the operator's own network should
/// not send a hundred emails.
///
/// Each message is queued once per target (email address, webhook).
pub fn for_changes(
    changes: &[VerdictChange],
    mesh: &Mesh,
    verdicts: &[Verdict],
    endpoints: &HashMap<EntryPointId, Endpoint>,
    lang: Lang,
    targets: &[Target],
) -> Vec<NewNotification> {
    let per_server = per_server(changes, mesh, verdicts, endpoints, lang);
    let half = mesh.server_count() / 2;
    let left = changes.iter().filter(|c| left_rotation(c)).count();
    let returned = changes.iter().filter(|c| returned_to_rotation(c)).count();
    let (blocked, cleared): (Vec<_>, Vec<_>) = per_server
        .into_iter()
        .partition(|n| n.kind == NotificationKind::Blocked);
    let mut out = Vec::new();
    for (event, group, moved) in [
        (BlockEvent::Started, blocked, left),
        (BlockEvent::Cleared, cleared, returned),
    ] {
        if moved > half && group.len() > 1 {
            let others = moved_without_message(changes, event, &group, mesh, lang);
            out.push(fleet_wide(
                lang,
                event,
                &group,
                &others,
                moved,
                mesh.server_count(),
            ));
        } else {
            out.extend(group);
        }
    }
    out.iter()
        .flat_map(|m| targets.iter().map(move |t| m.to(t)))
        .collect()
}

fn kind_of(event: BlockEvent) -> NotificationKind {
    match event {
        BlockEvent::Started => NotificationKind::Blocked,
        BlockEvent::Cleared => NotificationKind::Cleared,
    }
}

fn out_of_rotation(conditions: &[ServerStatus]) -> bool {
    conditions.iter().any(|c| c.takes_out_of_rotation())
}

fn left_rotation(c: &VerdictChange) -> bool {
    out_of_rotation(&c.conditions) && !c.previous.is_empty() && !out_of_rotation(&c.previous)
}

fn returned_to_rotation(c: &VerdictChange) -> bool {
    !out_of_rotation(&c.conditions) && out_of_rotation(&c.previous)
}

/// The servers that moved with `event` but have no message of their own
/// in `group` (they left rotation for another reason, or returned from
/// one), each as "Name (id): status".
fn moved_without_message(
    changes: &[VerdictChange],
    event: BlockEvent,
    group: &[NewNotification],
    mesh: &Mesh,
    lang: Lang,
) -> Vec<String> {
    let moved = |c: &VerdictChange| match event {
        BlockEvent::Started => left_rotation(c),
        BlockEvent::Cleared => returned_to_rotation(c),
    };
    changes
        .iter()
        .filter(|c| moved(c))
        .filter(|c| {
            !group
                .iter()
                .any(|n| n.server_id.as_ref() == Some(&c.server))
        })
        .map(|c| {
            let name = mesh
                .server_index(&c.server)
                .map_or_else(|| c.server.to_string(), |s| mesh.server(s).name.clone());
            format!("{name} ({}): {}", c.server, lang.status(c.status))
        })
        .collect()
}

/// One message for many servers, filed under the first of them. It names
/// every server it folds, and carries each folded message whole (the
/// addresses and the advice of each block), so that nothing is lost.
fn fleet_wide(
    lang: Lang,
    event: BlockEvent,
    group: &[NewNotification],
    others: &[String],
    moved: usize,
    fleet: usize,
) -> NewNotification {
    let subjects: Vec<String> = group.iter().map(|n| n.subject.clone()).collect();
    let notice = lang.fleet_wide_notice(event, moved, fleet, &subjects);
    let mut body = notice.body;
    for other in others {
        body.push_str(&format!("- {other}\n"));
    }
    for message in group {
        body.push_str(&format!("\n{}\n\n{}", message.subject, message.body));
    }
    NewNotification {
        block_kinds: Vec::new(),
        kind: kind_of(event),
        server_id: group.first().and_then(|n| n.server_id.clone()),
        target: Recipient::default(),
        subject: notice.subject,
        body,
        // The first incident's time (a group has several).
        created_at: group.iter().map(|n| n.created_at).min().unwrap_or_default(),
    }
}

fn server_ref(mesh: &Mesh, s: usize) -> ServerRef {
    let server = mesh.server(s);
    ServerRef {
        id: server.id.clone(),
        name: server.name.clone(),
        country: server.country.clone(),
    }
}

/// `host:port` of each entry point of server `s`, each once, in order
/// (an IPv6 host in brackets, as clients write it).
pub fn addresses(
    mesh: &Mesh,
    s: usize,
    endpoints: &HashMap<EntryPointId, Endpoint>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in mesh
        .server(s)
        .entry_points
        .iter()
        .filter_map(|e| endpoints.get(&e.id))
    {
        let address = if e.host.contains(':') {
            format!("[{}]:{}", e.host, e.port)
        } else {
            format!("{}:{}", e.host, e.port)
        };
        if !out.contains(&address) {
            out.push(address);
        }
    }
    out
}

/// The verifiers a message names. A block names those that see it; a
/// clearing, the verifiers whose word counts now (fresh, not suspended),
/// which reach the server again.
fn verifiers(mesh: &Mesh, verdicts: &[Verdict], s: usize, event: BlockEvent) -> Vec<ServerRef> {
    match event {
        BlockEvent::Started => verdicts[s]
            .blocked_by
            .iter()
            .filter_map(|v| mesh.server_index(v))
            .map(|v| server_ref(mesh, v))
            .collect(),
        BlockEvent::Cleared => (0..mesh.server_count())
            .filter(|&v| v != s && mesh.server(v).verifier)
            .filter(|&v| !verdicts[v].stale && !verdicts[v].suspended_verifier)
            .map(|v| server_ref(mesh, v))
            .collect(),
    }
}

/// One message per server whose block started or cleared.
fn per_server(
    changes: &[VerdictChange],
    mesh: &Mesh,
    verdicts: &[Verdict],
    endpoints: &HashMap<EntryPointId, Endpoint>,
    lang: Lang,
) -> Vec<NewNotification> {
    changes
        .iter()
        .filter_map(|c| {
            let event = if c.became_blocked() {
                BlockEvent::Started
            } else if c.block_cleared() {
                BlockEvent::Cleared
            } else {
                return None;
            };
            let s = mesh.server_index(&c.server)?;
            // Where it is blocked, for a block that started (§6).
            let places = (event == BlockEvent::Started)
                .then(|| {
                    BlockPlaces::of(mesh, &verdicts[s], |v| {
                        format!("{} ({})", mesh.server(v).name, mesh.server(v).id)
                    })
                })
                .flatten()
                .unwrap_or_default();
            let incident = Incident {
                event,
                server: server_ref(mesh, s),
                addresses: addresses(mesh, s, endpoints),
                verifiers: verifiers(mesh, verdicts, s, event),
                at: c.at,
                blocked_on: places.blocked_on,
                still_reached_from: places.still_reached_from,
                blocks: match event {
                    BlockEvent::Started => mesh.blocks_on_networks(&verdicts[s].blocks),
                    BlockEvent::Cleared => Vec::new(),
                },
                snis: mesh
                    .server(s)
                    .entry_points
                    .iter()
                    .filter_map(|e| endpoints.get(&e.id)?.sni.clone())
                    .collect(),
            };
            Some(NewNotification {
                block_kinds: match event {
                    BlockEvent::Started => verdicts[s].block_kinds(),
                    BlockEvent::Cleared => Vec::new(),
                },
                ..NewNotification::unaddressed(
                    kind_of(event),
                    &c.server,
                    lang.incident_notice(&incident),
                    c.at,
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshwatch::fleet::Protocol;
    use meshwatch::mesh::{MeshRoute, MeshServer};
    use meshwatch::RouteId;

    fn mesh(n: usize) -> Mesh {
        let servers = (0..n)
            .map(|i| MeshServer {
                id: ServerId::parse(&format!("s{i}")).expect("slug"),
                name: format!("S{i}"),
                country: "DE".into(),
                verifier: false,
                network: None,
                controls: Default::default(),
                routes: vec![RouteId::parse("de").expect("slug")],
                entry_points: vec![EntryPointId::parse(&format!("s{i}-ep"))
                    .expect("slug")
                    .into()],
            })
            .collect();
        Mesh::new(
            servers,
            vec![MeshRoute {
                id: RouteId::parse("de").expect("slug"),
                servers_per_user: None,
            }],
        )
    }

    fn verdicts(mesh: &Mesh) -> Vec<Verdict> {
        let evidence = meshwatch::evidence::Evidence::new(mesh);
        meshwatch::rules::evaluate(mesh, &evidence, &Default::default(), 0).into_verdicts()
    }

    fn endpoints(n: usize) -> HashMap<EntryPointId, Endpoint> {
        (0..n)
            .map(|i| {
                let id = EntryPointId::parse(&format!("s{i}-ep")).expect("slug");
                let endpoint = Endpoint {
                    id: id.clone(),
                    name: format!("S{i}"),
                    protocol: Protocol::Vless,
                    host: format!("203.0.113.{i}"),
                    port: 443,
                    sni: None,
                    params: Default::default(),
                };
                (id, endpoint)
            })
            .collect()
    }

    fn change(i: usize, now: &[ServerStatus], before: &[ServerStatus]) -> VerdictChange {
        VerdictChange {
            server: ServerId::parse(&format!("s{i}")).expect("slug"),
            status: now[0],
            conditions: now.to_vec(),
            previous: before.to_vec(),
            calm_previous: before.to_vec(),
            at: chrono::Utc::now(),
        }
    }

    fn blocked(i: usize) -> VerdictChange {
        change(i, &[ServerStatus::Blocked], &[ServerStatus::Healthy])
    }

    fn targets() -> Vec<Target> {
        vec![
            Target::Email("ops@example.com".to_owned()),
            Target::Webhook("webhook (hooks.example.com)".to_owned()),
        ]
    }

    #[test]
    fn each_block_gets_its_own_message() {
        let m = mesh(6);
        let out = for_changes(
            &[blocked(0), blocked(1)],
            &m,
            &verdicts(&m),
            &endpoints(6),
            Lang::En,
            &targets(),
        );
        assert_eq!(out.len(), 4, "one per server and target");
        assert_eq!(out[1].target, targets()[1].columns());
        let out = for_changes(
            &[blocked(0), blocked(1)],
            &m,
            &verdicts(&m),
            &endpoints(6),
            Lang::En,
            &targets()[..1],
        );
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|n| n.kind == NotificationKind::Blocked));
    }

    #[test]
    fn a_block_message_names_the_server_its_country_and_addresses_with_real_line_breaks() {
        let m = mesh(6);
        let out = for_changes(
            &[blocked(2)],
            &m,
            &verdicts(&m),
            &endpoints(6),
            Lang::En,
            &targets()[..1],
        );
        let message = &out[0];
        assert_eq!(message.subject, "meshwatch: address of S2 (s2) is blocked");
        let lines: Vec<&str> = message.body.lines().collect();
        assert!(lines.contains(&"Server: S2 (s2)"), "{}", message.body);
        assert!(lines.contains(&"Country: DE"), "{}", message.body);
        assert!(
            lines.contains(&"Addresses: 203.0.113.2:443"),
            "{}",
            message.body
        );
        assert!(!message.body.contains('\\'), "{}", message.body);
        assert!(message.body.contains("change this server's IP address"));
    }

    #[test]
    fn messages_speak_the_operator_s_language() {
        let m = mesh(6);
        let cleared = change(3, &[ServerStatus::Healthy], &[ServerStatus::Blocked]);
        let out = for_changes(
            &[cleared],
            &m,
            &verdicts(&m),
            &endpoints(6),
            Lang::Pt,
            &targets()[..1],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, NotificationKind::Cleared);
        assert_eq!(
            out[0].subject,
            "meshwatch: o endereço de S3 (s3) voltou a ser acessível"
        );
        assert!(
            out[0].body.lines().any(|l| l == "País: DE"),
            "{}",
            out[0].body
        );
    }

    #[test]
    fn more_than_half_the_fleet_at_once_is_one_fleet_wide_message() {
        let m = mesh(6);
        let changes: Vec<_> = (0..4).map(blocked).collect();
        let out = for_changes(
            &changes,
            &m,
            &verdicts(&m),
            &endpoints(6),
            Lang::En,
            &targets()[..1],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].subject,
            "meshwatch: 4 of 6 servers left rotation at once"
        );
        assert!(out[0].body.contains("S3 (s3)"), "{}", out[0].body);
        assert!(!out[0].body.contains('\\'), "{}", out[0].body);
    }

    #[test]
    fn a_fold_names_every_server_it_folds_and_keeps_every_block_message_whole() {
        let m = mesh(6);
        let unavailable = |i| change(i, &[ServerStatus::Unavailable], &[ServerStatus::Healthy]);
        let changes = vec![blocked(0), blocked(1), unavailable(2), unavailable(3)];
        let out = for_changes(
            &changes,
            &m,
            &verdicts(&m),
            &endpoints(6),
            Lang::En,
            &targets()[..1],
        );
        assert_eq!(out.len(), 1, "{out:?}");
        let body = &out[0].body;
        assert!(body.contains("4 of your 6 servers left rotation"), "{body}");
        for named in ["S2 (s2): Server unavailable", "S3 (s3): Server unavailable"] {
            assert!(body.contains(named), "{named} in {body}");
        }
        for i in 0..2 {
            let alone = for_changes(
                &[blocked(i)],
                &m,
                &verdicts(&m),
                &endpoints(6),
                Lang::En,
                &targets()[..1],
            );
            assert!(body.contains(&alone[0].subject), "{body}");
            assert!(
                body.contains(&alone[0].body),
                "block {i}'s message is whole in {body}"
            );
        }
    }

    #[test]
    fn an_ipv6_address_is_written_in_brackets() {
        let m = mesh(1);
        let mut endpoints = endpoints(1);
        if let Some(e) = endpoints.get_mut(&EntryPointId::parse("s0-ep").expect("slug")) {
            e.host = "2001:db8::1".into();
        }
        assert_eq!(addresses(&m, 0, &endpoints), ["[2001:db8::1]:443"]);
    }
}
