//! The fleet as the rules engine sees it: servers and entry points indexed
//! densely, so evidence and verdicts are plain vectors.

use crate::ids::{EntryPointId, RouteId, ServerId};
use std::collections::HashMap;
use std::ops::Range;

/// One server of the mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshServer {
    pub id: ServerId,
    /// ISO 3166 alpha-2.
    pub country: String,
    pub verifier: bool,
    pub routes: Vec<RouteId>,
    pub entry_points: Vec<EntryPointId>,
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
    server_index: HashMap<ServerId, usize>,
    ep_index: HashMap<EntryPointId, usize>,
    /// Server indices of each route, in fleet order.
    route_servers: Vec<Vec<usize>>,
}

impl Mesh {
    pub fn new(servers: Vec<MeshServer>, routes: Vec<MeshRoute>) -> Self {
        let mut ep_ranges = Vec::with_capacity(servers.len());
        let mut ep_owner = Vec::new();
        let mut ep_ids = Vec::new();
        for (s, server) in servers.iter().enumerate() {
            let start = ep_ids.len();
            for ep in &server.entry_points {
                ep_ids.push(ep.clone());
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
        Self {
            servers,
            routes,
            ep_ranges,
            ep_owner,
            ep_ids,
            server_index,
            ep_index,
            route_servers,
        }
    }

    pub fn server_count(&self) -> usize {
        self.servers.len()
    }

    pub fn entry_point_count(&self) -> usize {
        self.ep_ids.len()
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

    pub fn owner_of(&self, e: usize) -> usize {
        self.ep_owner[e]
    }

    pub fn server_index(&self, id: &ServerId) -> Option<usize> {
        self.server_index.get(id).copied()
    }

    pub fn entry_point_index(&self, id: &EntryPointId) -> Option<usize> {
        self.ep_index.get(id).copied()
    }

    pub fn route_index(&self, id: &RouteId) -> Option<usize> {
        self.routes.iter().position(|r| &r.id == id)
    }

    /// Server indices of route `r`.
    pub fn servers_of_route(&self, r: usize) -> &[usize] {
        &self.route_servers[r]
    }
}
