//! Read models shared by the panel's server functions and its pages.

use crate::server_list::{count, Paging};
use chrono::{DateTime, Utc};
use meshwatch::agent_api::Metrics;
use meshwatch::balance::Placement;
use meshwatch::fleet::Protocol;
use meshwatch::ids::{EntryPointId, RouteId, ServerId, UserId};
use meshwatch::status::ServerStatus;
use meshwatch::verdict::{MeshCell, Verdict};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One entry point as the panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryPointSummary {
    pub id: EntryPointId,
    pub protocol: Protocol,
    pub host: String,
    pub port: u16,
    pub sni: Option<String>,
}

/// A server row of the servers list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerSummary {
    pub id: ServerId,
    pub name: String,
    /// ISO 3166 alpha-2, upper case.
    pub country: String,
    pub routes: Vec<RouteId>,
    pub verifier: bool,
    /// A verifier's network, if named.
    #[serde(default)]
    pub verifier_network: Option<meshwatch::network::NetworkLabel>,
    /// A verifier's control SNI and addresses (§8).
    #[serde(default)]
    pub verifier_controls: meshwatch::controls::ControlTargets,
    pub entry_points: Vec<EntryPointSummary>,
}

/// A server with its current verdict, as the servers list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerListItem {
    /// Shared with the list it was paged from: a page copies no server,
    /// and a kept row (`app`'s render memo) compares it by address first.
    pub server: Arc<ServerSummary>,
    pub status: ServerStatus,
    /// No report younger than `stale_after`.
    pub stale: bool,
}

pub use crate::server_list::{FilterKeys, ServerFilter, ServersPage};

/// A user row of the users list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserSummary {
    pub id: UserId,
    pub name: String,
    pub routes: Vec<RouteId>,
}

impl UserSummary {
    /// What the users search looks in: id, name and routes, lower case,
    /// one per line.
    pub fn search_text(&self) -> String {
        [self.id.as_str(), self.name.as_str()]
            .into_iter()
            .chain(self.routes.iter().map(RouteId::as_str))
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Every user with their [`UserSummary::search_text`], built once and
/// searched by every users page.
#[derive(Debug, Clone, Default)]
pub struct SearchableUsers {
    users: Vec<(UserSummary, String)>,
}

impl SearchableUsers {
    pub fn new(users: Vec<UserSummary>) -> Self {
        Self {
            users: users
                .into_iter()
                .map(|u| {
                    let text = u.search_text();
                    (u, text)
                })
                .collect(),
        }
    }

    /// The `page`th slice (1-based, clamped) of the users matching `query`.
    pub fn page(&self, query: &str, page: u32) -> UsersPage {
        let needle = query.trim().to_lowercase();
        let matching: Vec<&UserSummary> = self
            .users
            .iter()
            .filter(|(_, text)| needle.is_empty() || text.split('\n').any(|h| h.contains(&needle)))
            .map(|(user, _)| user)
            .collect();
        let paging = Paging::of(matching.len(), UsersPage::SIZE, page);
        UsersPage {
            search: query.to_owned(),
            total: count(matching.len()),
            users: matching
                .into_iter()
                .skip(paging.skip)
                .take(UsersPage::SIZE)
                .cloned()
                .collect(),
            page: paging.page,
            pages: paging.pages,
        }
    }
}

/// One page of the users list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsersPage {
    pub users: Vec<UserSummary>,
    /// The search it answers.
    pub search: String,
    /// Users matching the search.
    pub total: u32,
    /// 1-based; `pages` is at least 1.
    pub page: u32,
    pub pages: u32,
}

impl UsersPage {
    pub const SIZE: usize = 50;
}

/// A route with how many servers it groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteSummary {
    pub id: RouteId,
    pub name: String,
    pub servers_per_user: Option<u32>,
    pub server_count: u32,
}

/// What the signed-in operator sees of themself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperatorView {
    pub username: String,
}

/// An operator API token as the settings page lists it; its secret is
/// shown once, at creation, and never stored in clear.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiTokenView {
    pub name: String,
    pub scope: meshwatch::account::TokenScope,
    pub created_at: DateTime<Utc>,
}

/// A freshly created API token: the only time its secret is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewApiToken {
    pub name: String,
    pub scope: meshwatch::account::TokenScope,
    pub token: String,
}

/// A server as other views name it: "Frankfurt 1 (DE)".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRef {
    pub id: ServerId,
    pub name: String,
    pub country: String,
}

/// Everything a server card shows; the verdict is the engine's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerCard {
    pub server: ServerSummary,
    pub verdict: Verdict,
    pub stale_after_s: u32,
    /// What the fresh reliable witnesses that probe it say, by country:
    /// who still reaches it and who fails to (R2's k).
    pub opinions: Vec<CountryOpinion>,
    /// The routes that serve it as their best available: out of
    /// rotation, it is still in their subscriptions (never-empty, §3).
    pub best_available_of: Vec<RouteId>,
    /// Every other server the card names (causes, verifiers).
    pub named: Vec<ServerRef>,
    /// The verifiers that see its address blocked, and the fresh ones
    /// that still reach it, each with its network (§6).
    pub blocked_on: Vec<meshwatch::network::VerifierOnNetwork>,
    pub still_reached_by: Vec<meshwatch::network::VerifierOnNetwork>,
    /// Every verifier's block with its kind and network (§8).
    #[serde(default)]
    pub blocks: Vec<meshwatch::network::BlockOnNetwork>,
    /// The metrics of its latest report.
    pub metrics: Option<Metrics>,
    /// Its metrics over the last 24 h.
    pub charts: crate::chart::MetricCharts,
    /// Its status changes, newest first (the last 30 days, at most 50).
    pub history: Vec<(DateTime<Utc>, ServerStatus)>,
    /// Uptime over 24 h, 7 d and 30 d, maintenance apart.
    pub uptime: [crate::uptime::Uptime; 3],
    /// The maintenance windows that apply to it and have not ended, by
    /// start (the one holding first).
    pub maintenance: Vec<meshwatch::maintenance::MaintenanceWindow>,
    /// Its latest action runs, newest first.
    pub action_runs: Vec<meshwatch::actions::ActionRun>,
    /// The connected panels that hide its hosts now (§7).
    pub hidden_in: Vec<meshwatch::connectors::HiddenIn>,
    /// Most witnesses can't reach most servers: this card's view of the
    /// mesh says more about the witnesses' network than about the server.
    pub witness_fault: Option<meshwatch::verdict::WitnessFault>,
    /// The panel's clock when the card was made (ages are shown from it).
    pub now: DateTime<Utc>,
}

impl ServerCard {
    /// "Frankfurt 1 (DE)" for a server the card names, else its id.
    pub fn label(&self, id: &ServerId) -> String {
        self.named
            .iter()
            .find(|s| &s.id == id)
            .map_or_else(|| id.to_string(), |s| format!("{} ({})", s.name, s.country))
    }
}

/// What the witnesses of one country say about a server: the names of
/// those that reach it and of those that fail to, each list joined for
/// reading ("de-1, de-2"; empty when none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountryOpinion {
    pub country: String,
    pub reaching: String,
    pub failing: String,
}

impl CountryOpinion {
    /// Groups witnesses, given as (country, name) with the country as its
    /// place in `countries` (a fleet's countries, in order), by country:
    /// countries in order, names in the order given, countries without a
    /// witness left out. A card lists up to every other server of the
    /// fleet: each name goes straight into its country's list.
    pub fn group<'a>(
        countries: &[String],
        reaching: impl IntoIterator<Item = (usize, &'a str)>,
        failing: impl IntoIterator<Item = (usize, &'a str)>,
    ) -> Vec<CountryOpinion> {
        fn add(list: &mut String, name: &str) {
            if !list.is_empty() {
                list.push_str(", ");
            }
            list.push_str(name);
        }
        let mut lists: Vec<Option<(String, String)>> = vec![None; countries.len()];
        for (country, name) in reaching {
            if let Some(list) = lists.get_mut(country) {
                add(&mut list.get_or_insert_with(Default::default).0, name);
            }
        }
        for (country, name) in failing {
            if let Some(list) = lists.get_mut(country) {
                add(&mut list.get_or_insert_with(Default::default).1, name);
            }
        }
        countries
            .iter()
            .zip(lists)
            .filter_map(|(country, lists)| {
                let (reaching, failing) = lists?;
                Some(CountryOpinion {
                    country: country.clone(),
                    reaching,
                    failing,
                })
            })
            .collect()
    }
}

/// One of a user's servers, as the user card lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserServer {
    pub server: ServerRef,
    pub status: ServerStatus,
    /// R2's figures, for "k of n of your servers can't reach it".
    pub failing: u32,
    pub of: u32,
    pub stale: bool,
    /// Where it stands in the user's subscription, naming the server that
    /// replaces it, that it stands in for, or the route's best available.
    pub placement: Placement<ServerRef>,
    /// Blocked, where verifiers name their networks: where (§6).
    #[serde(default)]
    pub blocked_where: Option<meshwatch::network::BlockPlaces>,
    /// The kinds of its blocks, each once (§8).
    #[serde(default)]
    pub block_kinds: Vec<meshwatch::verdict::BlockKind>,
}

/// What one of the user's routes serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRoute {
    pub route: RouteId,
    pub servers: Vec<UserServer>,
    /// Every server of the route is out: it serves the best available one.
    pub best_available: bool,
}

/// One entry point the subscription serves right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewEntry {
    pub server_name: String,
    pub entry_point: EntryPointSummary,
    /// Pair-marked (R3): still served, after the unmarked ones.
    pub marked: bool,
}

/// Everything a user card shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserCard {
    pub user: UserSummary,
    pub routes: Vec<UserRoute>,
    /// The full subscription URL, when the panel knows the token.
    pub subscription_url: Option<String>,
    /// Where its QR code image is (an SVG drawn by the server).
    pub qr_image: Option<String>,
    /// What the subscription serves now, in order.
    pub preview: Vec<PreviewEntry>,
}

/// The mesh of a fleet watched by witness sets (docs/concepts/witness-sets.md):
/// no witnesses × servers picture, but the servers a search matches, each
/// with its set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessSetsPage {
    /// The search, as typed (empty: every server).
    pub query: String,
    /// Normal servers the search matches; the first [`MAX_SETS_SHOWN`]
    /// are in `rows`.
    pub matching: usize,
    pub rows: Vec<WitnessSetRow>,
    /// The panel's clock when the page was read ("rotated 5 min ago").
    pub as_of: DateTime<Utc>,
    /// The settings the sets follow.
    pub set_size: u32,
    pub rotation_s: u32,
    pub failure_streak: u32,
}

/// The most sets the mesh page lists at once: a search narrows them.
pub const MAX_SETS_SHOWN: usize = 50;

/// One server and the witnesses that watch it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessSetRow {
    pub server: ServerRef,
    /// When its set last rotated (one witness replaced).
    pub rotated_at: DateTime<Utc>,
    /// Its set, then the servers confirming a starting streak.
    pub witnesses: Vec<SetWitness>,
}

/// One witness of a set, and what its evidence says of the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetWitness {
    pub server: ServerRef,
    /// Outside the set, asked to confirm a starting streak.
    pub confirming: bool,
    pub cell: MeshCell,
}

/// The reachability matrix of the whole fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshMatrix {
    /// Rows (witnesses) and columns (targets), by country then name.
    pub servers: Vec<ServerRef>,
    /// `MeshCell::to_char` of every cell, row-major in `servers` order.
    pub cells: String,
    pub failure_streak: u32,
}

impl MeshMatrix {
    pub fn cell(&self, witness: usize, target: usize) -> MeshCell {
        let n = self.servers.len();
        self.cells
            .as_bytes()
            .get(witness * n + target)
            .and_then(|b| MeshCell::from_char(char::from(*b)))
            .unwrap_or(MeshCell::NotProbed)
    }
}

/// One server of a route, as the routes page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteServer {
    pub server: ServerRef,
    pub status: ServerStatus,
    pub in_rotation: bool,
    pub stale: bool,
}

/// A route: its servers, who is in rotation, and what it falls back to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteOverview {
    pub id: RouteId,
    pub name: String,
    pub servers_per_user: Option<u32>,
    /// Every server of the route while it has at most
    /// [`RouteOverview::LIST_MAX`]; beyond, only those out of rotation,
    /// and those in rotation while they are few enough to be named.
    pub servers: Vec<RouteServer>,
    /// Servers of the route, and how many of them are in rotation.
    pub total: u32,
    pub in_rotation: u32,
    /// Every server is out: subscriptions serve this one (best available).
    pub best_available: Option<ServerRef>,
    /// Its blocked servers, counted per verifier network (§6).
    #[serde(default)]
    pub blocked_per_network: Vec<meshwatch::network::BlockedOnNetwork>,
    /// Every server of it is in a maintenance window (it still serves its
    /// best available one; the page warns).
    #[serde(default)]
    pub all_in_maintenance: bool,
    /// The windows that name the route and have not ended, by start.
    #[serde(default)]
    pub maintenance: Vec<meshwatch::maintenance::MaintenanceWindow>,
}

impl RouteOverview {
    /// Up to this many servers a route lists every one of them.
    pub const LIST_MAX: usize = 12;
    /// Up to this many servers in rotation are named as the cover of one
    /// out of rotation.
    pub const NAMED_COVER_MAX: usize = 3;

    /// Whether the route is too big to list every server.
    pub fn is_big(&self) -> bool {
        self.total as usize > Self::LIST_MAX
    }

    /// Which of a route's servers its overview lists, given whether each
    /// is in rotation: every one of a small route; of a big one, those out
    /// of rotation, and those in rotation while they can be named.
    pub fn listed(in_rotation: &[bool]) -> impl Fn(usize) -> bool + '_ {
        let big = in_rotation.len() > Self::LIST_MAX;
        let named = in_rotation.iter().filter(|r| **r).count() <= Self::NAMED_COVER_MAX;
        move |i| !big || !in_rotation[i] || named
    }
}

/// The fleet at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overview {
    /// How many servers have each status (R5 order, zeros included).
    pub counts: Vec<(ServerStatus, u32)>,
    /// Servers whose last report is older than `stale_after`.
    pub stale: u32,
    /// The fleet's blocked servers, counted per verifier network (§6).
    #[serde(default)]
    pub blocked_per_network: Vec<meshwatch::network::BlockedOnNetwork>,
    /// Servers out of rotation, with why.
    pub out_of_rotation: Vec<(ServerRef, ServerStatus)>,
    /// Routes serving their best available server: (route name, server).
    pub best_available: Vec<(String, ServerRef)>,
    /// The latest status changes, newest first.
    pub latest_changes: Vec<(DateTime<Utc>, ServerRef, ServerStatus)>,
    /// Notifications not delivered: queued with no target configured.
    pub undelivered: u32,
    /// Notifications that failed for good.
    pub failed: u32,
    /// Most witnesses can't reach most servers (see [`WitnessFault`]).
    pub witness_fault: Option<meshwatch::verdict::WitnessFault>,
    /// Actions switched themselves off (the budget), until the operator
    /// switches them on again.
    #[serde(default)]
    pub actions_off: Option<meshwatch::actions::OffReason>,
    /// Verifiers under the mass block guard: their blocks' actions wait
    /// for the operator's word.
    #[serde(default)]
    pub mass_blocks: Vec<MassBlockView>,
    /// Connected panels whose syncs fail now (§7).
    #[serde(default)]
    pub connectors_failing: u32,
    /// Several replicas on one PostgreSQL database: which one this is and
    /// which one evaluates (`None` for the one panel of a SQLite database).
    pub replicas: Option<ReplicaRoles>,
    pub now: DateTime<Utc>,
}

/// A mass block as the Overview shows it (see
/// [`meshwatch::verdict::MassBlock`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MassBlockView {
    pub verifier: ServerRef,
    pub network: Option<String>,
    pub blocked: u32,
    pub probed: u32,
    /// The operator's word so far, if any.
    pub decision: Option<meshwatch::actions::MassDecision>,
}

/// Which replica of the panel served the page, and which one evaluates
/// the verdicts (the last to take over; `None` before any has).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaRoles {
    pub this: String,
    pub evaluator: Option<String>,
}

/// What a notification is about. Stored in the outbox's `kind` column by
/// its [`as_str`](Self::as_str) name (the server's `sqlx::Type`, feature
/// `sqlx`, writes and reads the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(
    feature = "sqlx",
    derive(sqlx::Type),
    sqlx(type_name = "TEXT", rename_all = "snake_case")
)]
pub enum NotificationKind {
    Blocked,
    Cleared,
    Test,
    /// Most witnesses can't reach most servers (a whole-fleet fault).
    WitnessNetwork,
    /// Actions went past their budget and switched themselves off.
    ActionsOff,
    /// A connected panel stopped answering (once per outage).
    ConnectorFailed,
}

impl NotificationKind {
    pub const ALL: [NotificationKind; 6] = [
        NotificationKind::Blocked,
        NotificationKind::Cleared,
        NotificationKind::Test,
        NotificationKind::WitnessNetwork,
        NotificationKind::ActionsOff,
        NotificationKind::ConnectorFailed,
    ];

    /// The API's (and the outbox table's) name: `blocked`, `cleared`,
    /// `test`, `witness_network`.
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationKind::Blocked => "blocked",
            NotificationKind::Cleared => "cleared",
            NotificationKind::Test => "test",
            NotificationKind::WitnessNetwork => "witness_network",
            NotificationKind::ActionsOff => "actions_off",
            NotificationKind::ConnectorFailed => "connector_failed",
        }
    }

    /// Parses the stored name back.
    pub fn from_wire(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == raw)
    }
}

/// Where a notification is in its delivery. Stored in the outbox's `state`
/// column by its [`as_str`](Self::as_str) name (the server's `sqlx::Type`,
/// feature `sqlx`, writes and reads the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(
    feature = "sqlx",
    derive(sqlx::Type),
    sqlx(type_name = "TEXT", rename_all = "snake_case")
)]
pub enum DeliveryState {
    Queued,
    Sent,
    Failed,
}

impl DeliveryState {
    pub const ALL: [DeliveryState; 3] = [
        DeliveryState::Queued,
        DeliveryState::Sent,
        DeliveryState::Failed,
    ];

    /// The API's (and the outbox table's) name: `queued`, `sent`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Queued => "queued",
            DeliveryState::Sent => "sent",
            DeliveryState::Failed => "failed",
        }
    }

    /// Parses the stored name back.
    pub fn from_wire(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }
}

/// One row of the notification outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxItem {
    pub id: i64,
    pub kind: NotificationKind,
    pub server: Option<ServerId>,
    /// An email address or a webhook's label (`webhook (host)`, never its
    /// URL); empty when no target is configured.
    pub to: String,
    pub subject: String,
    pub state: DeliveryState,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names the outbox table holds (its CHECK constraints): existing
    /// databases keep working only while these stay byte for byte.
    const KIND_NAMES: [(NotificationKind, &str); 6] = [
        (NotificationKind::Blocked, "blocked"),
        (NotificationKind::Cleared, "cleared"),
        (NotificationKind::Test, "test"),
        (NotificationKind::WitnessNetwork, "witness_network"),
        (NotificationKind::ActionsOff, "actions_off"),
        (NotificationKind::ConnectorFailed, "connector_failed"),
    ];
    const STATE_NAMES: [(DeliveryState, &str); 3] = [
        (DeliveryState::Queued, "queued"),
        (DeliveryState::Sent, "sent"),
        (DeliveryState::Failed, "failed"),
    ];

    #[test]
    fn outbox_kinds_and_states_keep_their_stored_names() {
        assert_eq!(KIND_NAMES.map(|(k, _)| k), NotificationKind::ALL);
        assert_eq!(STATE_NAMES.map(|(s, _)| s), DeliveryState::ALL);
        for (kind, name) in KIND_NAMES {
            assert_eq!(kind.as_str(), name);
        }
        for (state, name) in STATE_NAMES {
            assert_eq!(state.as_str(), name);
        }
    }

    #[test]
    fn outbox_kinds_and_states_round_trip_their_stored_names() {
        for kind in NotificationKind::ALL {
            assert_eq!(NotificationKind::from_wire(kind.as_str()), Some(kind));
        }
        for state in DeliveryState::ALL {
            assert_eq!(DeliveryState::from_wire(state.as_str()), Some(state));
        }
        assert_eq!(NotificationKind::from_wire("Blocked"), None);
        assert_eq!(DeliveryState::from_wire("sending"), None);
    }

    #[test]
    fn witnesses_are_grouped_by_country_in_order() {
        let countries = ["DE", "FI", "NL", "SE"].map(String::from);
        let opinions = CountryOpinion::group(
            &countries,
            [(3, "se-1"), (0, "de-1"), (0, "de-2")],
            [(2, "nl-1"), (0, "de-3")],
        );
        let rows: Vec<(&str, &str, &str)> = opinions
            .iter()
            .map(|o| (o.country.as_str(), o.reaching.as_str(), o.failing.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("DE", "de-1, de-2", "de-3"),
                ("NL", "", "nl-1"),
                ("SE", "se-1", "")
            ]
        );
    }

    #[test]
    fn a_big_route_lists_what_is_out_of_rotation_and_the_cover_while_few() {
        let listed = |rotation: &[bool]| {
            let listed = RouteOverview::listed(rotation);
            (0..rotation.len())
                .filter(|i| listed(*i))
                .collect::<Vec<usize>>()
        };
        assert_eq!(
            listed(&[true, false, true]),
            [0, 1, 2],
            "a small route lists all"
        );
        let mut big = vec![true; 20];
        big[4] = false;
        assert_eq!(listed(&big), [4], "a big route lists what is out");
        let mut thin = vec![false; 20];
        thin[1] = true;
        thin[7] = true;
        assert_eq!(
            listed(&thin).len(),
            20,
            "two in rotation are named, so listed too"
        );
    }

    #[test]
    fn users_are_searched_and_paged() {
        let user = |i: usize| UserSummary {
            id: UserId::parse(&format!("user-{i:03}")).expect("id"),
            name: format!("User {i}"),
            routes: vec![
                RouteId::parse(if i.is_multiple_of(2) { "de" } else { "nl" }).expect("route"),
            ],
        };
        let all = SearchableUsers::new((0..120).map(user).collect());
        let first = all.page("", 1);
        assert_eq!((first.total, first.pages, first.users.len()), (120, 3, 50));
        let last = all.page("", 9);
        assert_eq!(
            (last.page, last.users.len()),
            (3, 20),
            "past the end clamps to the last page"
        );
        let dutch = all.page("NL", 1);
        assert_eq!(dutch.total, 60);
        let none = all.page("nobody", 1);
        assert_eq!((none.total, none.pages, none.users.len()), (0, 1, 0));
    }
}
