//! The fleet as the rules engine sees it: servers and entry points indexed
//! densely, so evidence and verdicts are plain vectors.

use crate::controls::ControlTargets;
use crate::evidence::Evidence;
use crate::fleet::Transport;
use crate::ids::{EntryPointId, RouteId, ServerId};
use crate::maintenance::{self, InMaintenance, MaintenanceWindow};
use crate::network::{BlockOnNetwork, NetworkLabel, VerifierOnNetwork};
use crate::verdict::VerifierBlock;
use crate::witness_sets::Pools;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::ops::Range;

/// One server of the mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshServer {
    pub id: ServerId,
    pub name: String,
    /// ISO 3166 alpha-2.
    pub country: String,
    pub verifier: bool,
    /// The network a verifier probes from ("MTS mobile"), if named.
    pub network: Option<NetworkLabel>,
    /// A verifier's control SNI and addresses (§8).
    pub controls: ControlTargets,
    pub routes: Vec<RouteId>,
    pub entry_points: Vec<MeshEntryPoint>,
}

/// One entry point as the rules see it: its id and what carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshEntryPoint {
    pub id: EntryPointId,
    pub transport: Transport,
}

impl From<EntryPointId> for MeshEntryPoint {
    /// A TCP entry point (most are).
    fn from(id: EntryPointId) -> Self {
        Self {
            id,
            transport: Transport::Tcp,
        }
    }
}

/// One route and how many of its servers each user gets.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshRoute {
    pub id: RouteId,
    pub servers_per_user: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    servers: Vec<MeshServer>,
    routes: Vec<MeshRoute>,
    /// Entry points of server `s` are `entry_points[ep_ranges[s]]`.
    ep_ranges: Vec<Range<usize>>,
    ep_owner: Vec<usize>,
    ep_ids: Vec<EntryPointId>,
    ep_transport: Vec<Transport>,
    server_index: HashMap<ServerId, usize>,
    ep_index: HashMap<EntryPointId, usize>,
    /// Server indices of each route, in fleet order.
    route_servers: Vec<Vec<usize>>,
    /// Route indices of each server.
    server_routes: Vec<Vec<usize>>,
    /// The fleet's countries, in order, and each server's place among them.
    countries: Vec<String>,
    country_of: Vec<usize>,
    /// The maintenance windows, and the ones that apply to each server
    /// (by name or through one of its routes), as indices into them.
    windows: Vec<MaintenanceWindow>,
    windows_of: Vec<Vec<usize>>,
    /// The witness pools, computed the first time sets are used.
    pools: PoolCache,
}

/// The mesh's witness pools for the last set size asked: derived from
/// the mesh alone, so two meshes are equal whether or not either
/// computed them yet.
#[derive(Debug, Default)]
struct PoolCache(std::sync::Mutex<Option<std::sync::Arc<Pools>>>);

impl Clone for PoolCache {
    fn clone(&self) -> Self {
        Self(std::sync::Mutex::new(self.get()))
    }
}

impl PoolCache {
    fn get(&self) -> Option<std::sync::Arc<Pools>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

impl PartialEq for PoolCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Mesh {
    pub fn new(servers: Vec<MeshServer>, routes: Vec<MeshRoute>) -> Self {
        let n = servers.len();
        let mut ep_ranges = Vec::with_capacity(servers.len());
        let mut ep_owner = Vec::new();
        let mut ep_ids = Vec::new();
        let mut ep_transport = Vec::new();
        for (s, server) in servers.iter().enumerate() {
            let start = ep_ids.len();
            for ep in &server.entry_points {
                ep_ids.push(ep.id.clone());
                ep_transport.push(ep.transport);
                ep_owner.push(s);
            }
            ep_ranges.push(start..ep_ids.len());
        }
        let server_index = servers
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.clone(), i))
            .collect();
        let ep_index = ep_ids
            .iter()
            .enumerate()
            .map(|(i, e)| (e.clone(), i))
            .collect();
        let route_servers = routes
            .iter()
            .map(|r| {
                servers
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.routes.contains(&r.id))
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        let route_position: HashMap<&RouteId, usize> =
            routes.iter().enumerate().map(|(i, r)| (&r.id, i)).collect();
        let server_routes = servers
            .iter()
            .map(|s| {
                s.routes
                    .iter()
                    .filter_map(|r| route_position.get(r).copied())
                    .collect()
            })
            .collect();
        let mut countries: Vec<String> = servers.iter().map(|s| s.country.clone()).collect();
        countries.sort();
        countries.dedup();
        let country_of = servers
            .iter()
            .map(|s| countries.binary_search(&s.country).unwrap_or_default())
            .collect();
        Self {
            servers,
            routes,
            ep_ranges,
            ep_owner,
            ep_ids,
            ep_transport,
            server_index,
            ep_index,
            route_servers,
            server_routes,
            countries,
            country_of,
            windows: Vec::new(),
            windows_of: vec![Vec::new(); n],
            pools: PoolCache::default(),
        }
    }

    /// The mesh with these maintenance windows; servers and routes a
    /// window names that are not in the mesh are passed over.
    pub fn with_maintenance(mut self, windows: Vec<MaintenanceWindow>) -> Self {
        let mut windows_of = vec![Vec::new(); self.servers.len()];
        for (k, window) in windows.iter().enumerate() {
            let named = window
                .plan
                .servers
                .iter()
                .filter_map(|id| self.server_index(id));
            let by_route = window
                .plan
                .routes
                .iter()
                .filter_map(|r| self.route_index(r))
                .flat_map(|r| self.route_servers[r].iter().copied());
            for s in named.chain(by_route) {
                if !windows_of[s].contains(&k) {
                    windows_of[s].push(k);
                }
            }
        }
        self.windows = windows;
        self.windows_of = windows_of;
        self
    }

    /// Every maintenance window, as stored.
    pub fn windows(&self) -> &[MaintenanceWindow] {
        &self.windows
    }

    /// The maintenance windows that apply to server `s`.
    pub fn windows_of(&self, s: usize) -> impl Iterator<Item = &MaintenanceWindow> {
        self.windows_of[s].iter().map(|&k| &self.windows[k])
    }

    /// What maintenance does to server `s` at `at` (see [`maintenance::state_of`]).
    pub fn maintenance_at(&self, s: usize, at: DateTime<Utc>) -> Option<InMaintenance> {
        maintenance::state_of(self.windows_of(s), at)
    }

    /// Every country of the fleet, once each, in order.
    pub fn countries(&self) -> &[String] {
        &self.countries
    }

    /// Where server `s`'s country is in [`Mesh::countries`].
    pub fn country_of(&self, s: usize) -> usize {
        self.country_of[s]
    }

    pub fn server_count(&self) -> usize {
        self.servers.len()
    }

    pub fn entry_point_count(&self) -> usize {
        self.ep_ids.len()
    }

    /// `verifiers` (ids), each with the network it probes from; ids not
    /// in the mesh are left out.
    pub fn blocks_on_networks(&self, blocks: &[VerifierBlock]) -> Vec<BlockOnNetwork> {
        blocks
            .iter()
            .map(|b| BlockOnNetwork {
                verifier: b.verifier.clone(),
                network: self
                    .server_index(&b.verifier)
                    .and_then(|v| self.servers[v].network.clone()),
                kind: b.kind,
                transport: b.transport,
                frozen_after_bytes: b.frozen_after_bytes,
            })
            .collect()
    }

    /// `verifiers` (ids), each with the network it probes from.
    pub fn on_networks(&self, verifiers: &[ServerId]) -> Vec<VerifierOnNetwork> {
        verifiers
            .iter()
            .filter_map(|id| self.server_index(id))
            .map(|v| VerifierOnNetwork {
                verifier: self.servers[v].id.clone(),
                network: self.servers[v].network.clone(),
            })
            .collect()
    }

    pub fn server(&self, s: usize) -> &MeshServer {
        &self.servers[s]
    }

    pub fn servers(&self) -> &[MeshServer] {
        &self.servers
    }

    pub fn routes(&self) -> &[MeshRoute] {
        &self.routes
    }

    /// Indices of the entry points of server `s`.
    pub fn entry_points_of(&self, s: usize) -> Range<usize> {
        self.ep_ranges[s].clone()
    }

    pub fn entry_point_id(&self, e: usize) -> &EntryPointId {
        &self.ep_ids[e]
    }

    pub fn transport_of(&self, e: usize) -> Transport {
        self.ep_transport[e]
    }

    pub fn owner_of(&self, e: usize) -> usize {
        self.ep_owner[e]
    }

    pub fn server_index(&self, id: &ServerId) -> Option<usize> {
        self.server_index.get(id).copied()
    }

    pub fn entry_point_index(&self, id: &EntryPointId) -> Option<usize> {
        self.ep_index.get(id).copied()
    }

    /// Rebuilds `evidence` (indexed by `old`) for this mesh, keeping every
    /// report and pair whose server and entry point still exist.
    pub fn carry_over(&self, old: &Mesh, evidence: &Evidence) -> Evidence {
        let mut carried = Evidence::new(self);
        let servers: Vec<(usize, usize)> = (0..old.server_count())
            .filter_map(|o| self.server_index(&old.server(o).id).map(|n| (o, n)))
            .collect();
        let eps: Vec<Option<usize>> = (0..old.entry_point_count())
            .map(|o| self.entry_point_index(old.entry_point_id(o)))
            .collect();
        for &(o, n) in &servers {
            if let Some(report) = evidence.report(o) {
                carried.record_report(n, report.received_ms, report.self_check.clone());
            }
            carried.restore_pairs(
                evidence
                    .pairs_of(o)
                    .filter_map(|(oe, pair)| eps[oe].map(|ne| (n, ne, *pair))),
            );
            carried.restore_controls(n, *evidence.controls(o));
        }
        for ((o, oe), transfer) in evidence.transfers() {
            let n = self.server_index(&old.server(o).id);
            let ne = self.entry_point_index(old.entry_point_id(oe));
            if let (Some(n), Some(ne)) = (n, ne) {
                carried.restore_transfer(n, ne, *transfer);
            }
        }
        carried
    }

    pub fn route_index(&self, id: &RouteId) -> Option<usize> {
        self.routes.iter().position(|r| &r.id == id)
    }

    /// Route indices of server `s`.
    pub fn routes_of(&self, s: usize) -> &[usize] {
        &self.server_routes[s]
    }

    /// Every normal server's witness pool for sets of `m` (see
    /// [`crate::witness_sets`]), computed once per mesh and set size.
    pub fn witness_pools(&self, m: usize) -> std::sync::Arc<Pools> {
        if let Some(pools) = self.pools.get().filter(|p| p.set_size() == m) {
            return pools;
        }
        let pools = std::sync::Arc::new(Pools::of(self, m));
        *self
            .pools
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(pools.clone());
        pools
    }

    /// Server indices of route `r`.
    pub fn servers_of_route(&self, r: usize) -> &[usize] {
        &self.route_servers[r]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_knows_its_place_among_the_fleets_countries() {
        let server = |id: &str, country: &str| MeshServer {
            id: ServerId::parse(id).expect("slug"),
            name: id.to_owned(),
            country: country.to_owned(),
            verifier: false,
            network: None,
            controls: Default::default(),
            routes: Vec::new(),
            entry_points: Vec::new(),
        };
        let mesh = Mesh::new(
            vec![
                server("se-1", "SE"),
                server("de-1", "DE"),
                server("de-2", "DE"),
            ],
            Vec::new(),
        );
        assert_eq!(mesh.countries(), ["DE", "SE"]);
        assert_eq!(
            (0..3).map(|s| mesh.country_of(s)).collect::<Vec<_>>(),
            [1, 0, 0]
        );
    }
}
