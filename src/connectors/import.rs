//! A fleet document proposed from a connected panel's nodes and hosts
//! (docs/API.md `POST /api/v1/connectors/{id}/import`), so nothing is typed
//! twice. Pure: it reads what the panel lists and what meshwatch knows, and
//! proposes; the operator reviews the document and applies it.
//!
//! - A server per node that has hosts. A host belongs to the node the panel
//!   links it to, else to the node with its address; a host that belongs
//!   to no node becomes a server of its own address.
//! - An entry point per host address and port, with the host's protocol.
//! - A host already in the fleet (an entry point with its address and port)
//!   proposes nothing: its server is listed as known.
//! - A server's country is its node's, when the panel gives one; else `XX`,
//!   for the operator to set. A country's route is proposed with it.

use super::ExternalHost;
use crate::fleet::{EntryPointDoc, FleetDocument, Protocol, RouteDoc, ServerDoc};
use crate::ServerId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// The country given to a server whose node has none.
pub const UNKNOWN_COUNTRY: &str = "XX";

/// A node (a VPN server the panel manages) as the panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalNode {
    pub external_id: String,
    pub name: String,
    /// The node's own address (where the panel reaches it).
    pub address: String,
    /// A two-letter code, when the panel keeps one (Remnawave).
    pub country: Option<String>,
}

/// What meshwatch holds already, as the import needs it.
#[derive(Debug, Clone, Default)]
pub struct FleetNow {
    pub server_ids: HashSet<String>,
    pub route_ids: HashSet<String>,
    pub entry_point_ids: HashSet<String>,
    /// Every entry point's lowercased host and port, with its server.
    pub entry_points: Vec<(String, u16, ServerId)>,
}

/// Why a host proposes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Neither the host nor its inbound has a single port.
    NoPort,
    /// Its inbound's protocol is none meshwatch probes.
    NoProtocol,
    /// Its address is a template or a list, not a host name or IP.
    NotAnAddress,
}

/// A host left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedHost {
    pub external_id: String,
    pub remark: String,
    pub reason: SkipReason,
}

/// A host already in the fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownHost {
    pub external_id: String,
    pub remark: String,
    pub server_id: ServerId,
}

/// The proposal: the document to `PUT`, and what it leaves out.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Proposal {
    pub document: FleetDocument,
    pub known: Vec<KnownHost>,
    pub skipped: Vec<SkippedHost>,
}

/// One server being built: its name, country and entry points.
struct Draft {
    name: String,
    country: Option<String>,
    entry_points: Vec<(Protocol, String, u16, Option<String>)>,
}

pub fn propose(nodes: &[ExternalNode], hosts: &[ExternalHost], now: &FleetNow) -> Proposal {
    let mut proposal = Proposal::default();
    // Keyed by node id, or by the address of a host with no node; ordered,
    // so the same panel proposes the same document.
    let mut drafts: BTreeMap<String, Draft> = BTreeMap::new();
    let mut taken: HashSet<(String, u16)> = HashSet::new();
    for host in hosts {
        let skip = |reason| SkippedHost {
            external_id: host.external_id.clone(),
            remark: host.remark.clone(),
            reason,
        };
        if host.endpoints.is_empty() {
            proposal.skipped.push(skip(SkipReason::NoPort));
            continue;
        }
        let Some(protocol) = host.protocol else {
            proposal.skipped.push(skip(SkipReason::NoProtocol));
            continue;
        };
        if let Some((_, _, server)) = host.endpoints.iter().find_map(|(address, port)| {
            let address = address.to_ascii_lowercase();
            now.entry_points
                .iter()
                .find(|(h, p, _)| *h == address && p == port)
        }) {
            proposal.known.push(KnownHost {
                external_id: host.external_id.clone(),
                remark: host.remark.clone(),
                server_id: server.clone(),
            });
            continue;
        }
        if !host.endpoints.iter().all(|(a, _)| is_address(a)) {
            proposal.skipped.push(skip(SkipReason::NotAnAddress));
            continue;
        }
        let first = host.endpoints[0].0.to_ascii_lowercase();
        let node = host
            .node
            .as_ref()
            .and_then(|id| nodes.iter().find(|n| &n.external_id == id))
            .or_else(|| {
                nodes
                    .iter()
                    .find(|n| n.address.eq_ignore_ascii_case(&first))
            });
        let (key, name, country) = match node {
            // A node without a name is called by its host's address.
            Some(n) if n.name.trim().is_empty() => (
                format!("node:{}", n.external_id),
                first.clone(),
                n.country.clone(),
            ),
            Some(n) => (
                format!("node:{}", n.external_id),
                n.name.clone(),
                n.country.clone(),
            ),
            None => (format!("address:{first}"), first.clone(), None),
        };
        let draft = drafts.entry(key).or_insert_with(|| Draft {
            name,
            country,
            entry_points: Vec::new(),
        });
        for (address, port) in &host.endpoints {
            let address = address.to_ascii_lowercase();
            if taken.insert((address.clone(), *port)) {
                draft
                    .entry_points
                    .push((protocol, address, *port, host.sni.clone()));
            }
        }
    }

    let mut server_ids = now.server_ids.clone();
    let mut entry_point_ids = now.entry_point_ids.clone();
    let mut new_routes: BTreeMap<String, String> = BTreeMap::new();
    for draft in drafts.into_values() {
        let id = unique(slug_of(&draft.name, "server"), &mut server_ids);
        let country = draft
            .country
            .map(|c| c.trim().to_ascii_uppercase())
            .filter(|c| c.len() == 2 && c.chars().all(|c| c.is_ascii_uppercase()))
            .filter(|c| c != UNKNOWN_COUNTRY);
        let routes = match &country {
            Some(code) => {
                let route = code.to_ascii_lowercase();
                if !now.route_ids.contains(&route) {
                    new_routes.insert(route.clone(), code.clone());
                }
                vec![route]
            }
            None => Vec::new(),
        };
        let entry_points = draft
            .entry_points
            .into_iter()
            .map(|(protocol, host, port, sni)| EntryPointDoc {
                id: unique(
                    format!("{id}-{}-{port}", protocol.as_str()),
                    &mut entry_point_ids,
                ),
                protocol: protocol.as_str().to_owned(),
                host,
                port: i64::from(port),
                sni: sni.filter(|s| is_address(s)),
                params: serde_json::Map::new(),
            })
            .collect();
        proposal.document.servers.push(ServerDoc {
            id,
            name: truncate(&draft.name),
            country: country.unwrap_or_else(|| UNKNOWN_COUNTRY.to_owned()),
            routes,
            agent_token: None,
            verifier: None,
            control_sni: None,
            controls: None,
            entry_points,
        });
    }
    proposal.document.routes = new_routes
        .into_iter()
        .map(|(id, name)| RouteDoc {
            id,
            name,
            servers_per_user: None,
        })
        .collect();
    proposal
}

/// A host name or an IP address, as the fleet takes it (not a template
/// such as Marzban's `{SERVER_IP}`, nor a list).
fn is_address(raw: &str) -> bool {
    !raw.is_empty()
        && raw.len() <= 253
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_'))
}

/// A slug made from a name: lowercase letters and digits, other runs
/// turned into one `-`; `fallback` when nothing is left.
fn slug_of(name: &str, fallback: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_end_matches('-').chars().take(48).collect();
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        fallback.to_owned()
    } else {
        slug.to_owned()
    }
}

/// `wanted`, or `wanted-2`, `wanted-3`… : the first not in `taken`, which
/// it then joins.
fn unique(wanted: String, taken: &mut HashSet<String>) -> String {
    let mut candidate = wanted.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{wanted}-{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// A name the fleet takes (at most [`crate::fleet::MAX_NAME_LEN`]
/// characters).
fn truncate(name: &str) -> String {
    name.trim()
        .chars()
        .take(crate::fleet::MAX_NAME_LEN)
        .collect()
}

#[cfg(test)]
mod tests;
