//! What one user is served now: the balancing's assignment with the
//! verdict figures each of its servers is shown with. Computed once from
//! one read of the verdicts, it feeds the user card, `GET /api/v1/users/{id}`
//! and the subscription itself (`/sub/{token}`), so the three never
//! disagree about a user.

use crate::store::Endpoint;
use meshwatch::balance::assign;
use meshwatch::mesh::Mesh;
use meshwatch::network::BlockPlaces;
use meshwatch::verdict::Verdict;
use meshwatch::{EntryPointId, ServerId};
use meshwatch_views::views::{ServerRef, UserRoute, UserServer, UserSummary};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Serving {
    /// The user's routes, each server the balancing placed with its
    /// verdict figures and where it stands in the subscription.
    pub routes: Vec<UserRoute>,
    /// The entry points the subscription carries, in order: unmarked
    /// ones first, route by route.
    entry_points: Vec<EntryPointId>,
    /// Those of them that are pair-marked (R3): still served, after the
    /// others.
    marked: HashSet<EntryPointId>,
}

/// A server as pages name it; `None` when the mesh does not know it.
pub fn server_ref(mesh: &Mesh, id: &ServerId) -> Option<ServerRef> {
    mesh.server_index(id).map(|i| server_ref_at(mesh, i))
}

/// The mesh's server `i` as pages name it.
pub fn server_ref_at(mesh: &Mesh, i: usize) -> ServerRef {
    let s = mesh.server(i);
    ServerRef {
        id: s.id.clone(),
        name: s.name.clone(),
        country: s.country.clone(),
    }
}

impl Serving {
    /// What `user` is served given `verdicts` (indexed by `mesh`).
    pub fn of(mesh: &Mesh, verdicts: &[Verdict], user: &UserSummary) -> Self {
        let assignment = assign(mesh, verdicts, &user.id, &user.routes);
        let marked = assignment
            .iter()
            .flat_map(|r| r.serving.iter())
            .filter_map(|s| mesh.server_index(s))
            .flat_map(|i| &verdicts[i].entry_points)
            .filter(|e| !e.available)
            .map(|e| e.id.clone())
            .collect();
        let routes = assignment
            .iter()
            .map(|r| UserRoute {
                route: r.route.clone(),
                best_available: r.best_available,
                servers: r
                    .rows
                    .iter()
                    .filter_map(|row| {
                        let verdict = &verdicts[mesh.server_index(&row.server_id)?];
                        Some(UserServer {
                            server: server_ref(mesh, &row.server_id)?,
                            status: row.status,
                            failing: verdict.quorum.failing,
                            of: verdict.quorum.of,
                            stale: verdict.stale,
                            placement: r.placement_of(row).map(|other| server_ref(mesh, &other))?,
                            block_kinds: {
                                let mut kinds: Vec<_> =
                                    verdict.blocks.iter().map(|b| b.kind).collect();
                                kinds.sort();
                                kinds.dedup();
                                kinds
                            },
                            blocked_where: BlockPlaces::of(mesh, verdict, |v| {
                                format!("{} ({})", mesh.server(v).name, mesh.server(v).country)
                            }),
                        })
                    })
                    .collect(),
            })
            .collect();
        let entry_points = assignment
            .into_iter()
            .flat_map(|r| r.entry_points)
            .collect();
        Self {
            routes,
            entry_points,
            marked,
        }
    }

    /// The served entry points that `details` knows, in order: each with
    /// its connection details and whether it is pair-marked.
    pub fn entry_points<'a>(
        &'a self,
        details: &'a HashMap<EntryPointId, Endpoint>,
    ) -> impl Iterator<Item = (&'a EntryPointId, &'a Endpoint, bool)> + 'a {
        self.entry_points.iter().filter_map(|id| {
            let endpoint = details.get(id)?;
            Some((id, endpoint, self.marked.contains(id)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshwatch::balance::Placement;
    use meshwatch::evidence::{Evidence, SelfCheck};
    use meshwatch::fleet::Protocol;
    use meshwatch::mesh::{MeshRoute, MeshServer};
    use meshwatch::settings::Settings;
    use meshwatch::status::ServerStatus;
    use meshwatch::{RouteId, UserId};

    const NOW: i64 = 1_800_000_000_000;

    fn id<T>(parse: fn(&str) -> Result<T, meshwatch::ids::SlugError>, raw: &str) -> T {
        parse(raw).expect("slug")
    }

    /// Two German servers, one per user, each with one entry point.
    fn germany() -> Mesh {
        let servers = ["de-1", "de-2"]
            .iter()
            .map(|s| MeshServer {
                id: id(ServerId::parse, s),
                name: s.to_uppercase(),
                country: "DE".into(),
                verifier: false,
                network: None,
                controls: Default::default(),
                routes: vec![id(RouteId::parse, "de")],
                entry_points: vec![id(EntryPointId::parse, &format!("{s}-ep")).into()],
            })
            .collect();
        Mesh::new(
            servers,
            vec![MeshRoute {
                id: id(RouteId::parse, "de"),
                servers_per_user: Some(1),
            }],
        )
    }

    fn details(mesh: &Mesh) -> HashMap<EntryPointId, Endpoint> {
        mesh.servers()
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let ep = s.entry_points[0].id.clone();
                let endpoint = Endpoint {
                    id: ep.clone(),
                    name: s.name.clone(),
                    protocol: Protocol::Vless,
                    host: format!("203.0.113.{i}"),
                    port: 443,
                    sni: None,
                    params: Default::default(),
                };
                (ep, endpoint)
            })
            .collect()
    }

    /// Every server reported now; `down` says its listener is dead.
    fn verdicts(mesh: &Mesh, down: &[&str]) -> Vec<Verdict> {
        let mut evidence = Evidence::new(mesh);
        for s in 0..mesh.server_count() {
            let ok = !down.contains(&mesh.server(s).id.as_str());
            let check = SelfCheck {
                listener_ok: ok,
                service_ok: true,
                detail: None,
            };
            evidence.record_report(s, NOW, check);
        }
        meshwatch::rules::evaluate(mesh, &evidence, &Settings::default(), NOW).into_verdicts()
    }

    fn alice() -> UserSummary {
        UserSummary {
            id: id(UserId::parse, "alice"),
            name: "Alice".into(),
            routes: vec![id(RouteId::parse, "de")],
        }
    }

    #[test]
    fn a_user_is_served_the_entry_points_of_the_servers_the_card_shows_serving() {
        let mesh = germany();
        let serving = Serving::of(&mesh, &verdicts(&mesh, &[]), &alice());
        let details = details(&mesh);
        let served: Vec<_> = serving.entry_points(&details).collect();
        assert_eq!(served.len(), 1, "one server per user");
        let (ep, endpoint, marked) = served[0];
        assert!(!marked);
        assert_eq!(ep, &endpoint.id);
        let servers = &serving.routes[0].servers;
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].placement, Placement::Serving);
        assert_eq!(servers[0].status, ServerStatus::Healthy);
        assert_eq!(format!("{}-ep", servers[0].server.id), endpoint.id.as_str());
    }

    #[test]
    fn a_server_out_of_rotation_is_shown_replaced_and_its_stand_in_served() {
        let mesh = germany();
        let own = Serving::of(&mesh, &verdicts(&mesh, &[]), &alice()).routes[0].servers[0]
            .server
            .clone();
        let serving = Serving::of(&mesh, &verdicts(&mesh, &[own.id.as_str()]), &alice());
        let servers = &serving.routes[0].servers;
        assert_eq!(servers.len(), 2, "the user's own server and its stand-in");
        let Placement::ReplacedBy(stand_in) = &servers[0].placement else {
            panic!("{:?}", servers[0].placement);
        };
        assert_eq!(servers[0].server, own);
        assert_eq!(servers[1].placement, Placement::StandsInFor(own));
        let details = details(&mesh);
        let served: Vec<_> = serving.entry_points(&details).collect();
        assert_eq!(served.len(), 1);
        assert_eq!(served[0].1.id.as_str(), format!("{}-ep", stand_in.id));
    }

    #[test]
    fn entry_points_without_details_are_left_out() {
        let mesh = germany();
        let serving = Serving::of(&mesh, &verdicts(&mesh, &[]), &alice());
        assert_eq!(serving.entry_points(&HashMap::new()).count(), 0);
    }
}
