//! Notifications (PRODUCT.md R4): one message when a verifier sees a
//! server's address blocked, one when it clears — derived from recorded
//! status changes, so never more than one per incident.

use crate::store::{Endpoint, NewNotification};
use meshwatch::mesh::Mesh;
use meshwatch::verdict::{Verdict, VerdictChange};
use std::collections::HashMap;

/// The notifications a batch of recorded changes calls for.
pub fn for_changes(
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
                    server_id: c.server.to_string(),
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
                    server_id: c.server.to_string(),
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
