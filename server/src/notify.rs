//! Notifications (PRODUCT.md R4): one message when a verifier sees a
//! server's address blocked, one when it clears — derived from recorded
//! status changes, so never more than one per incident.

use crate::store::{Endpoint, NewNotification};
use meshwatch::mesh::Mesh;
use meshwatch::status::ServerStatus;
use meshwatch::verdict::{Verdict, VerdictChange};
use std::collections::HashMap;

impl NewNotification {
    /// The same message for another target.
    pub fn to(&self, recipient: &str) -> NewNotification {
        NewNotification {
            kind: self.kind,
            server_id: self.server_id.clone(),
            recipient: recipient.to_owned(),
            subject: self.subject.clone(),
            body: self.body.clone(),
        }
    }
}

/// "Send test email" from the panel: proves the delivery path works.
pub fn test_message(operator: &str) -> NewNotification {
    NewNotification {
        kind: "test",
        server_id: None,
        recipient: String::new(),
        subject: "meshwatch: test message".into(),
        body: format!(
            "This is a test message from your meshwatch panel, sent by {operator}.\n\
             \"Address blocked\" and \"cleared\" notifications will arrive the same way.\n"
        ),
    }
}

/// The notifications a batch of recorded changes calls for. When more than
/// half of the fleet leaves rotation at once, the per-server messages are
/// folded into one fleet-wide message (likewise for a mass clearing): an
/// outage of the operator's own network should not send a hundred emails.
///
/// Each message is queued once per target (email address, webhook URL).
pub fn for_changes(
    changes: &[VerdictChange],
    mesh: &Mesh,
    verdicts: &[Verdict],
    endpoints: &HashMap<String, Endpoint>,
    targets: &[String],
) -> Vec<NewNotification> {
    let recipient = "";
    let per_server = per_server(changes, mesh, verdicts, endpoints, recipient);
    let half = mesh.server_count() / 2;
    let left = changes.iter().filter(|c| left_rotation(c)).count();
    let returned = changes.iter().filter(|c| returned_to_rotation(c)).count();
    let (blocked, cleared): (Vec<_>, Vec<_>) =
        per_server.into_iter().partition(|n| n.kind == "blocked");
    let mut out = Vec::new();
    for (kind, group, moved, what) in [
        ("blocked", blocked, left, "left rotation"),
        ("cleared", cleared, returned, "returned to rotation"),
    ] {
        if moved > half && group.len() > 1 {
            out.push(fleet_wide(
                kind,
                &group,
                moved,
                mesh.server_count(),
                what,
                recipient,
            ));
        } else {
            out.extend(group);
        }
    }
    out.iter()
        .flat_map(|m| targets.iter().map(move |t| m.to(t)))
        .collect()
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

/// One message for many servers, filed under the first of them.
fn fleet_wide(
    kind: &'static str,
    group: &[NewNotification],
    moved: usize,
    fleet: usize,
    what: &str,
    recipient: &str,
) -> NewNotification {
    let details: Vec<String> = group.iter().map(|n| format!("- {}", n.subject)).collect();
    NewNotification {
        kind,
        server_id: group[0].server_id.clone(),
        recipient: recipient.to_owned(),
        subject: format!("meshwatch: {moved} of {fleet} servers {what} at once"),
        body: format!(
            "{moved} of your {fleet} servers {what} at the same moment — more likely a problem of your own \
             network or of the panel's view than {count} separate incidents.\n\n{}\n",
            details.join("\n"),
            count = group.len(),
        ),
    }
}

/// One message per server whose block started or cleared.
fn per_server(
    changes: &[VerdictChange],
    mesh: &Mesh,
    verdicts: &[Verdict],
    endpoints: &HashMap<String, Endpoint>,
    recipient: &str,
) -> Vec<NewNotification> {
    changes
        .iter()
        .filter(|c| c.became_blocked() || c.block_cleared())
        .filter_map(|c| {
            let s = mesh.server_index(&c.server)?;
            let server = mesh.server(s);
            let addresses: Vec<String> = server
                .entry_points
                .iter()
                .filter_map(|e| endpoints.get(e.as_str()))
                .map(|e| format!("{}:{}", e.host, e.port))
                .collect();
            let addresses = if addresses.is_empty() { "no entry points".to_owned() } else { addresses.join(", ") };
            let since = c.at.format("%Y-%m-%d %H:%M UTC");
            Some(if c.became_blocked() {
                let verifiers: Vec<String> = verdicts[s]
                    .blocked_by
                    .iter()
                    .map(|v| {
                        let country = mesh.server_index(v).map(|i| mesh.server(i).country.clone()).unwrap_or_default();
                        format!("{v} ({country})")
                    })
                    .collect();
                NewNotification {
                    kind: "blocked",
                    server_id: Some(c.server.to_string()),
                    recipient: recipient.to_owned(),
                    subject: format!("meshwatch: address of {} ({}) is blocked", server.name, server.id),
                    body: format!(
                        "The address of server {name} ({id}, {country}) — {addresses} — is blocked as seen by \\
                         the verifier {verifiers} since {since}.\\n\\n\\
                         Its entry points are no longer served while its route has alternatives.\\n\\
                         Advice: change this server's IP address; meshwatch will notice when it is reachable again.\\n",
                        name = server.name,
                        id = server.id,
                        country = server.country,
                        verifiers = verifiers.join(", "),
                    ),
                }
            } else {
                NewNotification {
                    kind: "cleared",
                    server_id: Some(c.server.to_string()),
                    recipient: recipient.to_owned(),
                    subject: format!("meshwatch: address of {} ({}) is reachable again", server.name, server.id),
                    body: format!(
                        "The block on server {} ({}) — {addresses} — cleared at {since}: the verifiers reach it \\
                         again and it is back in rotation.\\n",
                        server.name, server.id
                    ),
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshwatch::mesh::{MeshRoute, MeshServer};
    use meshwatch::{EntryPointId, RouteId, ServerId};

    fn mesh(n: usize) -> Mesh {
        let servers = (0..n)
            .map(|i| MeshServer {
                id: ServerId::parse(&format!("s{i}")).expect("slug"),
                name: format!("S{i}"),
                country: "DE".into(),
                verifier: false,
                routes: vec![RouteId::parse("de").expect("slug")],
                entry_points: vec![EntryPointId::parse(&format!("s{i}-ep")).expect("slug")],
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

    fn blocked(i: usize) -> VerdictChange {
        VerdictChange {
            server: ServerId::parse(&format!("s{i}")).expect("slug"),
            status: ServerStatus::Blocked,
            conditions: vec![ServerStatus::Blocked],
            previous: vec![ServerStatus::Healthy],
            at: chrono::Utc::now(),
        }
    }

    #[test]
    fn each_block_gets_its_own_message() {
        let m = mesh(6);
        let targets = [
            "ops@example.com".to_owned(),
            "https://hooks.example.com/x".to_owned(),
        ];
        let out = for_changes(
            &[blocked(0), blocked(1)],
            &m,
            &verdicts(&m),
            &HashMap::new(),
            &targets,
        );
        assert_eq!(out.len(), 4, "one per server and target");
        assert_eq!(out[1].recipient, "https://hooks.example.com/x");
        let out = for_changes(
            &[blocked(0), blocked(1)],
            &m,
            &verdicts(&m),
            &HashMap::new(),
            &targets[..1],
        );
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|n| n.kind == "blocked"));
    }

    #[test]
    fn more_than_half_the_fleet_at_once_is_one_fleet_wide_message() {
        let m = mesh(6);
        let changes: Vec<_> = (0..4).map(blocked).collect();
        let out = for_changes(
            &changes,
            &m,
            &verdicts(&m),
            &HashMap::new(),
            &["ops@example.com".to_owned()],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].subject,
            "meshwatch: 4 of 6 servers left rotation at once"
        );
        assert!(out[0].body.contains("S3 (s3)"), "{}", out[0].body);
    }
}
