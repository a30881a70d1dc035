//! Balancing (docs/PRODUCT.md §3): which servers each user's subscription serves
//! now, given the verdicts.
//!
//! Assignment is stable: servers are ranked per user by rendezvous hashing
//! (user × server), so a user keeps the same servers while they are
//! healthy, a healed server returns to the users it had, and one server
//! flapping does not reshuffle anyone else.

use crate::ids::{EntryPointId, RouteId, ServerId, UserId};
use crate::mesh::Mesh;
use crate::status::ServerStatus;
use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;

mod placement;
pub use placement::Placement;

/// One row of a user's server list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssignmentRow {
    pub server_id: ServerId,
    pub status: ServerStatus,
    pub in_subscription: bool,
    /// The server serving in this one's place while it is out of rotation.
    pub replaced_by: Option<ServerId>,
    /// Set on a replacement: the out-of-rotation server it stands in for.
    pub replaces: Option<ServerId>,
}

/// What one route serves one user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteServing {
    pub route: RouteId,
    pub rows: Vec<AssignmentRow>,
    /// Servers whose entry points the subscription carries, in order.
    pub serving: Vec<ServerId>,
    /// Entry points to serve: unmarked ones first, pair-marked after.
    pub entry_points: Vec<EntryPointId>,
    /// Every server of the route is out: serving the best available one.
    pub best_available: bool,
}

/// How a user ranks a server: a stable 64-bit hash (FNV-1a, then a
/// SplitMix64 finaliser to spread the bits), so the same user and server
/// always rank the same, on every build.
#[cfg(test)]
pub(crate) fn rendezvous_score(user: &UserId, server: &ServerId) -> u64 {
    UserScores::of(user).score(server)
}

/// A user's side of the rendezvous score (FNV-1a of the user's id and
/// 0xff, then of the server's id, then SplitMix64's finaliser), hashed
/// once for every server of a route.
struct UserScores(u64);

impl UserScores {
    fn of(user: &UserId) -> Self {
        let h = fnv1a(0xcbf2_9ce4_8422_2325, user.as_str().as_bytes());
        UserScores(fnv1a(h, &[0xff]))
    }

    fn score(&self, server: &ServerId) -> u64 {
        let mut h = fnv1a(self.0, server.as_str().as_bytes());
        h ^= h >> 30;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 27;
        h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    }
}

fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Replacement preference among servers in rotation: healthy first.
fn replacement_class(status: ServerStatus) -> u8 {
    match status {
        ServerStatus::Healthy => 0,
        ServerStatus::EntryPointsUnavailable => 1,
        _ => 2,
    }
}

/// What the user's subscription serves on each of their routes.
pub fn assign(
    mesh: &Mesh,
    verdicts: &[Verdict],
    user: &UserId,
    routes: &[RouteId],
) -> Vec<RouteServing> {
    routes
        .iter()
        .filter_map(|r| mesh.route_index(r))
        .map(|r| assign_route(mesh, verdicts, user, r))
        .collect()
}

fn assign_route(mesh: &Mesh, verdicts: &[Verdict], user: &UserId, r: usize) -> RouteServing {
    let route = &mesh.routes()[r];
    // Each score is a hash: computed once per server, not per comparison.
    let scores = UserScores::of(user);
    let mut ranked: Vec<(Reverse<u64>, usize)> = mesh
        .servers_of_route(r)
        .iter()
        .map(|&s| (Reverse(scores.score(&mesh.server(s).id)), s))
        .collect();
    let slots = route
        .servers_per_user
        .map_or(ranked.len(), |k| k as usize)
        .min(ranked.len());
    // Only the user's own servers need their order; the rest of a large
    // route is ranked only when a replacement (or the fallback) is needed.
    if slots < ranked.len() {
        ranked.select_nth_unstable(slots);
    }
    ranked[..slots].sort_unstable();
    let assigned: Vec<usize> = ranked[..slots].iter().map(|&(_, s)| s).collect();
    let mut rest_ranked = false;
    let mut rank_rest = |ranked: &mut Vec<(Reverse<u64>, usize)>| {
        if !rest_ranked {
            ranked[slots..].sort_unstable();
            rest_ranked = true;
        }
    };

    let needs_spare = assigned.iter().any(|&a| !verdicts[a].in_rotation);
    let mut spare: Vec<usize> = if needs_spare {
        rank_rest(&mut ranked);
        ranked[slots..]
            .iter()
            .map(|&(_, s)| s)
            .filter(|&s| verdicts[s].in_rotation)
            .collect()
    } else {
        Vec::new()
    };
    // Stable sort: rank order is kept within a class.
    spare.sort_by_key(|&s| replacement_class(verdicts[s].status));
    let mut spare = spare.into_iter();

    let row = |s: usize, in_subscription: bool| AssignmentRow {
        server_id: mesh.server(s).id.clone(),
        status: verdicts[s].status,
        in_subscription,
        replaced_by: None,
        replaces: None,
    };
    let mut rows = Vec::with_capacity(slots + 2);
    let mut serving = Vec::with_capacity(slots);
    for &a in &assigned {
        if verdicts[a].in_rotation {
            rows.push(row(a, true));
            serving.push(a);
        } else if let Some(c) = spare.next() {
            let mut out = row(a, false);
            out.replaced_by = Some(mesh.server(c).id.clone());
            let mut stand_in = row(c, true);
            stand_in.replaces = Some(mesh.server(a).id.clone());
            rows.push(out);
            rows.push(stand_in);
            serving.push(c);
        } else {
            rows.push(row(a, false));
        }
    }

    // A route is never emptied: apps would delete the servers.
    let mut best_available = false;
    if serving.is_empty() {
        rank_rest(&mut ranked);
        let ranked: Vec<usize> = ranked.iter().map(|&(_, s)| s).collect();
        if let Some(best) = best_available_server(verdicts, &ranked) {
            best_available = true;
            serving.push(best);
            match rows
                .iter_mut()
                .find(|row| row.server_id == mesh.server(best).id)
            {
                Some(existing) => existing.in_subscription = true,
                None => rows.push(row(best, true)),
            }
        }
    }

    let mut entry_points: Vec<(bool, EntryPointId)> = serving
        .iter()
        .flat_map(|&s| {
            verdicts[s]
                .entry_points
                .iter()
                .map(|e| (!e.available, e.id.clone()))
        })
        .collect();
    entry_points.sort_by_key(|(marked, _)| *marked);

    RouteServing {
        route: route.id.clone(),
        rows,
        serving: serving.iter().map(|&s| mesh.server(s).id.clone()).collect(),
        entry_points: entry_points.into_iter().map(|(_, e)| e).collect(),
        best_available,
    }
}

/// The server a route falls back to when every one of its servers is out
/// of rotation (the route is never emptied); `None` while any is in.
pub fn route_fallback(mesh: &Mesh, verdicts: &[Verdict], r: usize) -> Option<usize> {
    let servers = mesh.servers_of_route(r);
    if servers.iter().any(|&s| verdicts[s].in_rotation) {
        return None;
    }
    best_available_server(verdicts, servers)
}

/// Least severe status the evidence gives first (a maintenance window
/// aside), then one not in maintenance, then the most recent report, then
/// rank: a route whose servers are all in maintenance still serves.
fn best_available_server(verdicts: &[Verdict], ranked: &[usize]) -> Option<usize> {
    ranked
        .iter()
        .enumerate()
        .max_by_key(|(rank, &s)| fallback_key(verdicts, s, *rank))
        .map(|(_, &s)| s)
}

/// A route's servers (`ranked`, in the route's rank order) as its rotation
/// would pick them: those in rotation first, then as it would fall back.
/// A connected panel keeps the first one's host on when it must keep one.
pub fn best_first(verdicts: &[Verdict], ranked: &[usize]) -> Vec<usize> {
    let mut order: Vec<(usize, usize)> = ranked.iter().copied().enumerate().collect();
    order.sort_by_key(|&(rank, s)| {
        Reverse((verdicts[s].in_rotation, fallback_key(verdicts, s, rank)))
    });
    order.into_iter().map(|(_, s)| s).collect()
}

fn fallback_key(
    verdicts: &[Verdict],
    s: usize,
    rank: usize,
) -> (
    crate::ServerStatus,
    bool,
    Option<chrono::DateTime<chrono::Utc>>,
    Reverse<usize>,
) {
    (
        verdicts[s].derived_status(),
        !verdicts[s].in_maintenance(),
        verdicts[s].last_report_at,
        Reverse(rank),
    )
}

#[cfg(test)]
mod tests;
