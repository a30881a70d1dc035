//! What a sync changes in a connected panel, from the panel's hosts and
//! meshwatch's rotation. Pure: the same hosts and rotation give the same
//! plan, so a sync that failed half-way is simply planned again.

use super::ExternalHost;
use crate::{EntryPointId, ServerId};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Turning a host off or on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum HostChange {
    Disable,
    Enable,
}

/// One change a sync makes (or, in dry run, would make).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PendingChange {
    pub external_id: String,
    pub change: HostChange,
    pub server_id: ServerId,
    pub entry_point_id: EntryPointId,
}

/// A host of the panel that belongs to one of meshwatch's entry points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchedHost {
    pub external_id: String,
    pub remark: String,
    pub address: String,
    pub port: u16,
    pub server_id: ServerId,
    pub entry_point_id: EntryPointId,
    pub enabled: bool,
    pub turned_off_by_meshwatch: bool,
}

/// An entry point a host may match: its `host` and `port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownEntryPoint {
    pub host: String,
    pub port: u16,
    pub server: ServerId,
    pub entry_point: EntryPointId,
}

pub struct PlanInput<'a> {
    pub hosts: &'a [ExternalHost],
    /// Only hosts carrying this tag are matched.
    pub tag: Option<&'a str>,
    pub entry_points: &'a [KnownEntryPoint],
    /// The servers users are served now: in rotation, or serving as their
    /// route's best available (never-empty counts them in).
    pub served: &'a HashSet<ServerId>,
    /// The hosts meshwatch turned off (its own record).
    pub turned_off: &'a HashSet<String>,
    /// Every route's servers, best first: the one its rotation would fall
    /// back to leads. A route's last matched host that is on stays on.
    pub routes: &'a [Vec<ServerId>],
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub matched: Vec<MatchedHost>,
    /// Hosts turned on first, then hosts turned off: when the pick moves,
    /// the new host is on before the old one goes off.
    pub changes: Vec<PendingChange>,
    /// Hosts meshwatch recorded as turned off that are on again (an
    /// operator turned one on, or meshwatch's own "on" landed before its
    /// record was cleared) or gone from the panel: the record goes, the
    /// host stays as it is.
    pub forget: Vec<String>,
}

/// What a sync does, given the panel's hosts and meshwatch's rotation.
pub fn plan(input: &PlanInput<'_>) -> Plan {
    let by_address: HashMap<(String, u16), &KnownEntryPoint> = input
        .entry_points
        .iter()
        .map(|e| ((e.host.to_ascii_lowercase(), e.port), e))
        .collect();
    let mut plan = Plan::default();
    for host in input.hosts {
        if let Some(tag) = input.tag {
            if !host.tags.iter().any(|t| t == tag) {
                continue;
            }
        }
        let Some(((address, port), entry)) = host.endpoints.iter().find_map(|(a, p)| {
            by_address
                .get(&(a.to_ascii_lowercase(), *p))
                .map(|e| ((a, *p), *e))
        }) else {
            continue;
        };
        let ours = input.turned_off.contains(&host.external_id);
        let served = input.served.contains(&entry.server);
        let change = match (served, host.enabled, ours) {
            (false, true, _) => Some(HostChange::Disable),
            (true, false, true) => Some(HostChange::Enable),
            _ => None,
        };
        if host.enabled && ours && change.is_none() {
            plan.forget.push(host.external_id.clone());
        }
        if let Some(change) = change {
            plan.changes.push(PendingChange {
                external_id: host.external_id.clone(),
                change,
                server_id: entry.server.clone(),
                entry_point_id: entry.entry_point.clone(),
            });
        }
        plan.matched.push(MatchedHost {
            external_id: host.external_id.clone(),
            remark: host.remark.clone(),
            address: address.clone(),
            port,
            server_id: entry.server.clone(),
            entry_point_id: entry.entry_point.clone(),
            enabled: host.enabled,
            turned_off_by_meshwatch: !host.enabled && ours,
        });
    }
    // A host meshwatch turned off that the panel no longer has (the
    // operator deleted it): nothing is left to turn back on.
    plan.forget.extend(
        input
            .turned_off
            .iter()
            .filter(|id| !input.hosts.iter().any(|h| &h.external_id == *id))
            .cloned(),
    );
    plan.forget.sort();
    keep_every_route_served(&mut plan, input.routes);
    // Stable: hosts keep the panel's order within each kind of change.
    plan.changes
        .sort_by_key(|c| c.change == HostChange::Disable);
    plan
}

/// Never-empty in the panel: a route whose matched hosts would all be off
/// keeps on the hosts of its best server that has one on now.
fn keep_every_route_served(plan: &mut Plan, routes: &[Vec<ServerId>]) {
    for servers in routes {
        let of_route: Vec<&MatchedHost> = plan
            .matched
            .iter()
            .filter(|h| servers.contains(&h.server_id))
            .collect();
        let on_after =
            |h: &MatchedHost| match plan.changes.iter().find(|c| c.external_id == h.external_id) {
                Some(c) => c.change == HostChange::Enable,
                None => h.enabled,
            };
        if of_route.is_empty() || of_route.iter().any(|h| on_after(h)) {
            continue;
        }
        let keep = servers.iter().find(|s| {
            of_route.iter().any(|h| {
                &h.server_id == *s
                    && plan
                        .changes
                        .iter()
                        .any(|c| c.external_id == h.external_id && c.change == HostChange::Disable)
            })
        });
        if let Some(keep) = keep.cloned() {
            plan.changes
                .retain(|c| !(c.server_id == keep && c.change == HostChange::Disable));
        }
    }
}

#[cfg(test)]
mod tests;
