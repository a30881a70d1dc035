//! The read model: what pages, the APIs and subscriptions read — the
//! verdict snapshot, and the fleet data that changes only with the fleet
//! (entry points, users, servers), kept per fleet so that serving them
//! costs no store read. It only reads: the snapshot is the evaluator's to
//! write (see [`super::Evaluator::snapshot`]).

use super::per_fleet::PerFleet;
use super::serving::Serving;
use super::snapshot::SharedSnapshot;
use crate::crypto::secrets::TokenHash;
use crate::store::{Endpoint, Store, StoreError};
use meshwatch::mesh::Mesh;
use meshwatch::settings::Settings;
use meshwatch::verdict::{Verdict, WitnessFault};
use meshwatch::{EntryPointId, RouteId, ServerId, UserId};
use meshwatch_views::server_list::ListedServers;
use meshwatch_views::views::{
    CountryOpinion, MeshMatrix, SearchableUsers, ServerSummary, SetWitness, UserSummary,
    WitnessSetRow, WitnessSetsPage, MAX_SETS_SHOWN,
};
use std::collections::HashMap;
use std::sync::Arc;

/// Every entry point's connection details, read for one mesh.
pub type Endpoints = Arc<HashMap<EntryPointId, Endpoint>>;

/// A user with their routes, and their subscription token when known.
pub type KeptUser = Arc<(UserSummary, Option<String>)>;

/// The user holding a subscription token, with their proxy credential
/// (`None` when its sealed value does not open with this panel's key).
pub type Subscriber = Arc<(UserSummary, Option<String>)>;

pub struct ReadModel {
    snapshot: SharedSnapshot,
    store: Store,
    endpoints: PerFleet<(), Endpoints>,
    users: PerFleet<UserId, KeptUser>,
    subscribers: PerFleet<TokenHash, Subscriber>,
    servers: PerFleet<ServerId, Arc<ServerSummary>>,
    listed_servers: PerFleet<(), Arc<ListedServers>>,
    searchable_users: PerFleet<(), Arc<SearchableUsers>>,
    route_names: PerFleet<(), RouteNames>,
    /// The last matrix built.
    matrix: PerSnapshot<Arc<MeshMatrix>>,
    /// Whether the witnesses look faulty: every server card says so, and
    /// finding out walks every witness.
    witness_fault: PerSnapshot<Option<WitnessFault>>,
}

/// A value derived from the snapshot, kept with the snapshot version it
/// was derived from.
struct PerSnapshot<T>(std::sync::Mutex<Option<(u64, T)>>);

impl<T> Default for PerSnapshot<T> {
    fn default() -> Self {
        Self(std::sync::Mutex::new(None))
    }
}

impl<T: Clone> PerSnapshot<T> {
    /// The value kept, if derived from `version`.
    fn of(&self, version: u64) -> Option<T> {
        match &*self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            Some((kept, value)) if *kept == version => Some(value.clone()),
            _ => None,
        }
    }

    fn keep(&self, version: u64, value: T) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((version, value));
    }
}

/// What one agent probes (see [`ReadModel::agent_peers`]).
pub struct AgentPeers {
    /// Its config's version (`ETag` and `fleet_version`).
    pub version: u64,
    pub peers: Vec<meshwatch::agent_api::Peer>,
}

/// Every route's display name, by id.
pub type RouteNames = Arc<HashMap<RouteId, String>>;

impl ReadModel {
    /// Serves `snapshot` (see [`super::Evaluator::snapshot`]), reading the
    /// per-fleet data from `store`.
    pub fn new(snapshot: SharedSnapshot, store: Store) -> Self {
        Self {
            snapshot,
            store,
            endpoints: PerFleet::default(),
            users: PerFleet::default(),
            subscribers: PerFleet::default(),
            servers: PerFleet::default(),
            listed_servers: PerFleet::default(),
            searchable_users: PerFleet::default(),
            route_names: PerFleet::default(),
            matrix: PerSnapshot::default(),
            witness_fault: PerSnapshot::default(),
        }
    }

    /// The version of what agents are told to probe: their config's `ETag`.
    pub fn fleet_version(&self) -> u64 {
        self.snapshot.read().fleet_version
    }

    /// The version of `server`'s agent config (its `ETag`).
    pub fn config_version(&self, server: &ServerId) -> u64 {
        self.snapshot.read().config_version(server)
    }

    /// What `server`'s agent probes now, and its config's version: every
    /// entry point of every other server, or beyond the witness set
    /// threshold those of its targets (a verifier's: every normal
    /// server's). Built from the fleet data kept per fleet: an agent's
    /// config costs no store read and grows with its targets, not the fleet.
    pub async fn agent_peers(&self, server: &ServerId) -> Result<AgentPeers, StoreError> {
        let endpoints = self.endpoints().await?;
        let state = self.snapshot.read();
        let version = state.config_version(server);
        let mesh = &state.mesh;
        let sets = state.evaluation.sets();
        let Some(w) = mesh.server_index(server) else {
            return Ok(AgentPeers {
                version,
                peers: Vec::new(),
            });
        };
        let peers = sets
            .probed_by(w)
            .flat_map(|(t, indirect)| {
                let id = &mesh.server(t).id;
                mesh.entry_points_of(t)
                    .filter_map(|e| endpoints.get(mesh.entry_point_id(e)))
                    .map(move |endpoint| endpoint.peer(id, indirect))
            })
            .collect();
        Ok(AgentPeers { version, peers })
    }

    pub fn settings(&self) -> Settings {
        self.snapshot.read().settings
    }

    pub fn mesh(&self) -> Arc<Mesh> {
        self.snapshot.read().mesh.clone()
    }

    /// Works on the current verdicts in place (no copy of the fleet's
    /// verdicts for a page that needs a few of them).
    pub fn with_verdicts<R>(&self, f: impl FnOnce(&Mesh, &[Verdict]) -> R) -> R {
        let state = self.snapshot.read();
        f(&state.mesh, state.evaluation.verdicts())
    }

    /// Works on the current evaluation in place: its verdicts, and who
    /// watches whom.
    pub fn with_evaluation<R>(
        &self,
        f: impl FnOnce(&Mesh, &meshwatch::rules::Evaluation) -> R,
    ) -> R {
        let state = self.snapshot.read();
        f(&state.mesh, &state.evaluation)
    }

    /// The current verdict of one server, with the mesh that indexes it.
    pub fn verdict(&self, id: &ServerId) -> Option<(Arc<Mesh>, usize, Verdict)> {
        let state = self.snapshot.read();
        let (i, verdict) = state.verdict(id)?;
        Some((state.mesh.clone(), i, verdict.clone()))
    }

    /// What one user is served now (see [`Serving`]).
    pub fn serving(&self, user: &UserSummary) -> Serving {
        self.with_verdicts(|mesh, verdicts| Serving::of(mesh, verdicts, user))
    }

    /// One server's verdict and what the fresh reliable witnesses that
    /// probe it say, by country (for its card only).
    pub fn server_card(&self, id: &ServerId) -> Option<CardEvidence> {
        // One lock: the index must belong to the evaluation it reads.
        let state = self.snapshot.read();
        let (i, verdict) = state.verdict(id)?;
        let mesh = &state.mesh;
        let witness = |w: usize| (mesh.country_of(w), mesh.server(w).name.as_str());
        let reaching = state.evaluation.seeing_witnesses(mesh, i).map(witness);
        let failing = verdict
            .quorum
            .failing_witnesses
            .iter()
            .filter_map(|id| mesh.server_index(id))
            .map(witness);
        let opinions = CountryOpinion::group(mesh.countries(), reaching, failing);
        let verdicts = state.evaluation.verdicts();
        let best_available_of = mesh
            .server(i)
            .routes
            .iter()
            .filter(|route| {
                mesh.route_index(route)
                    .and_then(|r| meshwatch::balance::route_fallback(mesh, verdicts, r))
                    == Some(i)
            })
            .cloned()
            .collect();
        Some(CardEvidence {
            mesh: mesh.clone(),
            verdict: verdict.clone(),
            opinions,
            best_available_of,
        })
    }

    /// The verifiers under the mass block guard, as of the last evaluation.
    pub fn mass_blocks(&self) -> Vec<meshwatch::verdict::MassBlock> {
        let state = self.snapshot.read();
        state.evaluation.mass_blocks(&state.mesh)
    }

    /// Most witnesses can't reach most servers, as of the last evaluation.
    pub fn witness_fault(&self) -> Option<WitnessFault> {
        let state = self.snapshot.read();
        let version = state.version();
        self.witness_fault.of(version).unwrap_or_else(|| {
            let fault = state.evaluation.witness_fault();
            self.witness_fault.keep(version, fault);
            fault
        })
    }

    /// A mark that moves whenever the server's latest report or status
    /// history grows in the store. It moves after the write, so whatever is
    /// read from the store after taking it is at least that new.
    pub fn written(&self, id: &ServerId) -> u64 {
        self.snapshot.read().written(id)
    }

    /// Every entry point's connection details (subscriptions, the user
    /// card's preview, notifications), read once per fleet change.
    pub async fn endpoints(&self) -> Result<Endpoints, StoreError> {
        let read = async { self.store.endpoints().await.map(|e| Some(Arc::new(e))) };
        let kept = self.endpoints.get_or_read(self.mesh(), (), read).await?;
        Ok(kept.unwrap_or_default())
    }

    /// A user with their routes and subscription token, read once per
    /// fleet change; `None` for an unknown user.
    pub async fn user(&self, id: &UserId) -> Result<Option<KeptUser>, StoreError> {
        let read = async { self.store.user(id).await.map(|u| u.map(Arc::new)) };
        self.users.get_or_read(self.mesh(), id.clone(), read).await
    }

    /// The user holding a subscription token, read once per fleet change
    /// (users, their tokens and credentials change only with the fleet):
    /// an app's refresh costs no store read and no unsealing. `None` for an
    /// unknown token, which is not kept.
    pub async fn subscriber(&self, token: &TokenHash) -> Result<Option<Subscriber>, StoreError> {
        let read = async {
            self.store
                .user_for_sub_token(token)
                .await
                .map(|s| s.map(Arc::new))
        };
        self.subscribers
            .get_or_read(self.mesh(), token.clone(), read)
            .await
    }

    /// A server's fleet data (name, routes, entry points, verifier mark:
    /// every change to them reloads the fleet), read once per fleet change;
    /// `None` for an unknown server.
    pub async fn server(&self, id: &ServerId) -> Result<Option<Arc<ServerSummary>>, StoreError> {
        let read = async { self.store.server(id).await.map(|s| s.map(Arc::new)) };
        self.servers
            .get_or_read(self.mesh(), id.clone(), read)
            .await
    }

    /// Every server with what the list's filter reads (the servers list),
    /// read once per fleet change.
    pub async fn listed_servers(&self) -> Result<Arc<ListedServers>, StoreError> {
        let read = async {
            let servers = self.store.servers().await?;
            Ok::<_, StoreError>(Some(Arc::new(ListedServers::new(servers))))
        };
        let kept = self
            .listed_servers
            .get_or_read(self.mesh(), (), read)
            .await?;
        Ok(kept.unwrap_or_default())
    }

    /// Every user, ready to be searched (the users list), read once per
    /// fleet change.
    pub async fn searchable_users(&self) -> Result<Arc<SearchableUsers>, StoreError> {
        let read = async {
            let users = self.store.users().await?;
            Ok::<_, StoreError>(Some(Arc::new(SearchableUsers::new(users))))
        };
        let kept = self
            .searchable_users
            .get_or_read(self.mesh(), (), read)
            .await?;
        Ok(kept.unwrap_or_default())
    }

    /// Every route's name, read once per fleet change.
    pub async fn route_names(&self) -> Result<RouteNames, StoreError> {
        let read = async { self.store.route_names().await.map(|n| Some(Arc::new(n))) };
        let kept = self.route_names.get_or_read(self.mesh(), (), read).await?;
        Ok(kept.unwrap_or_default())
    }

    /// The reachability matrix, rows and columns by country, then name;
    /// built once per snapshot (the page and its picture share it).
    pub fn mesh_matrix(&self) -> Arc<MeshMatrix> {
        let (version, mesh, cells, failure_streak) = {
            let state = self.snapshot.read();
            if let Some(matrix) = self.matrix.of(state.version()) {
                return matrix;
            }
            let cells = state.evaluation.matrix(&state.mesh, &state.evidence);
            (
                state.version(),
                state.mesh.clone(),
                cells,
                state.settings.failure_streak,
            )
        };
        let n = mesh.servers().len();
        let mut order: Vec<usize> = (0..n).collect();
        in_mesh_page_order(&mesh, &mut order);
        let cells = order
            .iter()
            .flat_map(|&w| order.iter().map(move |&s| (w, s)))
            .map(|(w, s)| cells[w * n + s].to_char())
            .collect();
        let matrix = Arc::new(MeshMatrix {
            servers: order
                .iter()
                .map(|&i| super::server_ref_at(&mesh, i))
                .collect(),
            cells,
            failure_streak,
        });
        self.matrix.keep(version, matrix.clone());
        matrix
    }
}

/// Sorts servers as the mesh page lists them: by country, then name (then id).
fn in_mesh_page_order(mesh: &Mesh, servers: &mut [usize]) {
    servers.sort_by(|&a, &b| {
        let (a, b) = (mesh.server(a), mesh.server(b));
        (&a.country, &a.name, &a.id).cmp(&(&b.country, &b.name, &b.id))
    });
}

impl ReadModel {
    /// Whether the fleet is watched by witness sets now.
    pub fn uses_witness_sets(&self) -> bool {
        !self.snapshot.read().evaluation.sets().is_full()
    }

    /// The mesh page of a fleet watched by witness sets: the normal
    /// servers whose id, name or country contains `query` (in any case),
    /// by country then name, each with its set and confirmers and what
    /// each of them says of it now; `None` while every server probes
    /// every other (the page shows the matrix then).
    pub fn witness_sets(&self, query: &str) -> Option<WitnessSetsPage> {
        let state = self.snapshot.read();
        let (mesh, sets) = (&state.mesh, state.evaluation.sets());
        if sets.is_full() {
            return None;
        }
        let needle = query.trim().to_lowercase();
        let found = |s: usize| {
            let server = mesh.server(s);
            needle.is_empty()
                || [server.id.as_str(), &server.name, &server.country]
                    .iter()
                    .any(|text| text.to_lowercase().contains(&needle))
        };
        let mut matching: Vec<usize> = (0..mesh.server_count())
            .filter(|&s| sets.set_of(s).is_some() && found(s))
            .collect();
        in_mesh_page_order(mesh, &mut matching);
        let row = |s: usize| {
            let members = sets
                .set_of(s)
                .unwrap_or_default()
                .iter()
                .map(|&w| (w, false));
            let confirmers = sets.confirmers_of(s).iter().map(|&w| (w, true));
            WitnessSetRow {
                server: super::server_ref_at(mesh, s),
                rotated_at: meshwatch::evidence::from_ms(sets.rotated_at_ms(s).unwrap_or_default()),
                witnesses: members
                    .chain(confirmers)
                    .map(|(w, confirming)| SetWitness {
                        server: super::server_ref_at(mesh, w as usize),
                        confirming,
                        cell: state.evaluation.cell(mesh, &state.evidence, w as usize, s),
                    })
                    .collect(),
            }
        };
        Some(WitnessSetsPage {
            query: query.trim().to_owned(),
            matching: matching.len(),
            rows: matching
                .iter()
                .take(MAX_SETS_SHOWN)
                .map(|&s| row(s))
                .collect(),
            as_of: meshwatch::evidence::from_ms(state.evaluation.now_ms()),
            set_size: state.settings.witness_set_size,
            rotation_s: state.settings.witness_rotation_s,
            failure_streak: state.settings.failure_streak,
        })
    }
}

/// What the server card takes from one evaluation.
pub struct CardEvidence {
    pub mesh: Arc<Mesh>,
    pub verdict: Verdict,
    pub opinions: Vec<CountryOpinion>,
    /// The routes that serve it as their best available (every server of
    /// the route is out of rotation: the route is never emptied).
    pub best_available_of: Vec<meshwatch::RouteId>,
}
