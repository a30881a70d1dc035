//! The servers list: its filter (free text and facets), the keys the
//! filter reads, and the list's pages. The panel filters on the server with
//! these rules and the browser filters the rows it already has with the
//! same ones, so both always agree.

use crate::views::{ServerListItem, ServerSummary};
use meshwatch::ids::RouteId;
use meshwatch::status::ServerStatus;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Joins the values of a key list (a search box yields no newline).
const KEY_SEPARATOR: &str = "\n";

/// Servers on one page of the list: a page renders in well under a
/// millisecond of the panel's time, whatever the fleet's size.
pub const SERVERS_PER_PAGE: usize = 100;

/// What the free text looks in: id, name, country, routes and entry point
/// hosts, lower case, one per line. The status wording is matched apart,
/// as it changes without the fleet changing.
pub fn search_text(server: &ServerSummary) -> String {
    [
        server.id.as_str(),
        server.name.as_str(),
        server.country.as_str(),
    ]
    .into_iter()
    .chain(server.routes.iter().map(RouteId::as_str))
    .chain(server.entry_points.iter().map(|e| e.host.as_str()))
    .map(str::to_lowercase)
    .collect::<Vec<_>>()
    .join(KEY_SEPARATOR)
}

/// A listed server as the filter sees it (what a row of the page carries
/// for the browser's filter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterKeys {
    /// See [`search_text`].
    pub text: String,
    /// The status's wire name (`blocked`, …).
    pub status: String,
    pub country: String,
    /// Route ids, one per line.
    pub routes: String,
}

impl ServerListItem {
    /// What the servers filter looks at.
    pub fn filter_keys(&self) -> FilterKeys {
        FilterKeys {
            text: search_text(&self.server),
            status: self.status.as_str().to_owned(),
            country: self.server.country.clone(),
            routes: self
                .server
                .routes
                .iter()
                .map(RouteId::as_str)
                .collect::<Vec<_>>()
                .join(KEY_SEPARATOR),
        }
    }

    /// Whether a free-text filter matches (see [`ServerFilter`]).
    pub fn matches(&self, text: &str) -> bool {
        ServerFilter {
            text: text.to_owned(),
            ..ServerFilter::default()
        }
        .admits(&self.filter_keys())
    }
}

/// The servers list's filter: free text (case-insensitive, any field or
/// the status wording) and status, country and route facets; empty means
/// any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ServerFilter {
    pub text: String,
    pub status: String,
    pub country: String,
    pub route: String,
}

impl ServerFilter {
    /// Whether the filter admits a row with these keys.
    pub fn admits(&self, keys: &FilterKeys) -> bool {
        let Some(status) = ServerStatus::from_wire(&keys.status) else {
            return false;
        };
        self.prepared().admits(
            &keys.text,
            status,
            &keys.country,
            keys.routes.split(KEY_SEPARATOR),
        )
    }

    /// The filter ready to test many servers (the free text lowered once).
    pub fn prepared(&self) -> PreparedFilter<'_> {
        let needle = self.text.trim().to_lowercase();
        let wording =
            ServerStatus::ALL.map(|s| crate::i18n::caption_en(s).to_lowercase().contains(&needle));
        PreparedFilter {
            filter: self,
            needle,
            wording,
        }
    }

    /// Whether the filter admits every server.
    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
            && self.status.is_empty()
            && self.country.is_empty()
            && self.route.is_empty()
    }
}

/// A [`ServerFilter`] with its free text lowered, for testing many servers.
pub struct PreparedFilter<'a> {
    filter: &'a ServerFilter,
    needle: String,
    /// Whether each status's wording (in `ServerStatus::ALL` order)
    /// contains the free text.
    wording: [bool; ServerStatus::ALL.len()],
}

impl PreparedFilter<'_> {
    /// Whether the filter admits a server whose [`search_text`] is `text`.
    pub fn admits<'r>(
        &self,
        text: &str,
        status: ServerStatus,
        country: &str,
        mut routes: impl Iterator<Item = &'r str>,
    ) -> bool {
        let f = self.filter;
        let worded = ServerStatus::ALL
            .iter()
            .position(|s| *s == status)
            .is_some_and(|i| self.wording[i]);
        (self.needle.is_empty()
            || worded
            || text.split(KEY_SEPARATOR).any(|h| h.contains(&self.needle)))
            && (f.status.is_empty() || status.as_str() == f.status)
            && (f.country.is_empty() || country == f.country)
            && (f.route.is_empty() || routes.any(|r| r == f.route))
    }
}

/// Which slice of a list one page shows: pages are 1-based, a page past
/// the end shows the last, and an empty list still has one (empty) page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub page: u32,
    pub pages: u32,
    /// Items before the page.
    pub skip: usize,
}

impl Paging {
    pub fn of(total: usize, per_page: usize, asked: u32) -> Paging {
        let pages = total.div_ceil(per_page).max(1);
        let page = (asked.max(1) as usize).min(pages);
        Paging {
            page: count(page),
            pages: count(pages),
            skip: (page - 1) * per_page,
        }
    }
}

/// A count as the pages carry it.
pub fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One page of the servers list, filtered on the panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServersPage {
    /// The page's servers, sorted by id.
    pub servers: Vec<ServerListItem>,
    /// The filter it answers.
    pub filter: ServerFilter,
    /// Servers the filter admits.
    pub matched: u32,
    /// Servers in the fleet.
    pub fleet: u32,
    /// 1-based; `pages` is at least 1.
    pub page: u32,
    pub pages: u32,
    /// What the country and route facets offer: every value in the fleet.
    pub countries: Vec<String>,
    pub routes: Vec<RouteId>,
}

/// A server's status, and whether its evidence is stale.
type ServerState = (ServerStatus, bool);

/// The fleet's servers with their [`search_text`] and the facets' values,
/// built once per fleet change and paged by every servers list request.
#[derive(Debug, Clone, Default)]
pub struct ListedServers {
    /// Sorted by id.
    servers: Vec<(Arc<ServerSummary>, String)>,
    countries: Vec<String>,
    routes: Vec<RouteId>,
}

impl ListedServers {
    pub fn new(mut servers: Vec<ServerSummary>) -> Self {
        servers.sort_by(|a, b| a.id.cmp(&b.id));
        let mut countries: Vec<String> = servers.iter().map(|s| s.country.clone()).collect();
        countries.sort();
        countries.dedup();
        let mut routes: Vec<RouteId> = servers.iter().flat_map(|s| s.routes.clone()).collect();
        routes.sort();
        routes.dedup();
        Self {
            servers: servers
                .into_iter()
                .map(|s| {
                    let text = search_text(&s);
                    (Arc::new(s), text)
                })
                .collect(),
            countries,
            routes,
        }
    }

    /// The `page`th page (1-based, clamped) of the servers `filter`
    /// admits, each with its status and staleness from `verdict_of`
    /// (`None`: not evaluated yet, so no data).
    pub fn page(
        &self,
        filter: &ServerFilter,
        page: u32,
        verdict_of: impl Fn(&ServerSummary) -> Option<ServerState>,
    ) -> ServersPage {
        let verdict =
            |server: &ServerSummary| verdict_of(server).unwrap_or((ServerStatus::NoData, true));
        // No filter: every server is admitted, and only the page's own
        // verdicts are read.
        let admitted: Vec<(&Arc<ServerSummary>, Option<ServerState>)> = if filter.is_empty() {
            self.servers
                .iter()
                .map(|(server, _)| (server, None))
                .collect()
        } else {
            let prepared = filter.prepared();
            self.servers
                .iter()
                .filter_map(|(server, text)| {
                    let (status, stale) = verdict(server);
                    prepared
                        .admits(
                            text,
                            status,
                            &server.country,
                            server.routes.iter().map(RouteId::as_str),
                        )
                        .then_some((server, Some((status, stale))))
                })
                .collect()
        };
        let paging = Paging::of(admitted.len(), SERVERS_PER_PAGE, page);
        ServersPage {
            matched: count(admitted.len()),
            servers: admitted
                .into_iter()
                .skip(paging.skip)
                .take(SERVERS_PER_PAGE)
                .map(|(server, known)| {
                    let (status, stale) = known.unwrap_or_else(|| verdict(server));
                    ServerListItem {
                        server: server.clone(),
                        status,
                        stale,
                    }
                })
                .collect(),
            filter: filter.clone(),
            fleet: count(self.servers.len()),
            page: paging.page,
            pages: paging.pages,
            countries: self.countries.clone(),
            routes: self.routes.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::EntryPointSummary;
    use meshwatch::fleet::Protocol;
    use meshwatch::ids::{EntryPointId, ServerId};

    fn server() -> ServerSummary {
        ServerSummary {
            id: ServerId::parse("de-1").expect("slug"),
            name: "Frankfurt 1".into(),
            country: "DE".into(),
            routes: vec![RouteId::parse("germany").expect("slug")],
            verifier: false,
            verifier_network: None,
            verifier_controls: Default::default(),
            entry_points: vec![EntryPointSummary {
                id: EntryPointId::parse("de-1-vless").expect("slug"),
                protocol: Protocol::Vless,
                host: "203.0.113.10".into(),
                port: 443,
                sni: None,
            }],
        }
    }

    fn item(status: ServerStatus) -> ServerListItem {
        ServerListItem {
            server: Arc::new(server()),
            status,
            stale: false,
        }
    }

    #[test]
    fn the_filter_matches_any_visible_field_ignoring_case() {
        let s = item(ServerStatus::Healthy);
        for hit in ["", "  ", "frank", "DE-1", "de", "GERM", "203.0.113"] {
            assert!(s.matches(hit), "{hit:?} should match");
        }
        for miss in ["paris", "nl", "198.51"] {
            assert!(!s.matches(miss), "{miss:?} should not match");
        }
    }

    #[test]
    fn the_filter_also_matches_the_status_wording() {
        let blocked = item(ServerStatus::Blocked);
        assert!(blocked.matches("blocked"));
        assert!(blocked.matches("frank"));
        assert!(!blocked.matches("no data"));
        assert!(!item(ServerStatus::Healthy).matches("blocked"));
    }

    #[test]
    fn the_facets_admit_only_their_status_country_and_route() {
        let keys = item(ServerStatus::Blocked).filter_keys();
        let admits = |status: &str, country: &str, route: &str| {
            ServerFilter {
                text: String::new(),
                status: status.into(),
                country: country.into(),
                route: route.into(),
            }
            .admits(&keys)
        };
        assert!(admits("", "", ""));
        assert!(admits("blocked", "DE", "germany"));
        assert!(!admits("healthy", "", ""));
        assert!(!admits("", "NL", ""));
        assert!(!admits("", "", "germ"), "a route facet is the whole id");
    }

    #[test]
    fn the_prepared_filter_agrees_with_the_row_keys() {
        let s = item(ServerStatus::Unavailable);
        for text in ["", "frank", "unavail", "paris", "germany"] {
            let filter = ServerFilter {
                text: text.into(),
                ..ServerFilter::default()
            };
            let prepared = filter.prepared().admits(
                &search_text(&s.server),
                s.status,
                &s.server.country,
                s.server.routes.iter().map(RouteId::as_str),
            );
            assert_eq!(prepared, filter.admits(&s.filter_keys()), "{text:?}");
        }
    }

    #[test]
    fn the_servers_list_is_filtered_then_paged() {
        let fleet: Vec<ServerSummary> = (0..250)
            .map(|i| ServerSummary {
                id: ServerId::parse(&format!("s{i:03}")).expect("slug"),
                name: format!("Server {i}"),
                country: if i % 2 == 0 { "DE" } else { "NL" }.into(),
                routes: vec![RouteId::parse(if i % 2 == 0 { "de" } else { "nl" }).expect("slug")],
                ..server()
            })
            .rev()
            .collect();
        let listed = ListedServers::new(fleet);
        let blocked = |s: &ServerSummary| {
            Some(if s.id.as_str() == "s007" {
                (ServerStatus::Blocked, false)
            } else {
                (ServerStatus::Healthy, false)
            })
        };
        let all = listed.page(&ServerFilter::default(), 3, blocked);
        assert_eq!(
            (all.matched, all.fleet, all.page, all.pages),
            (250, 250, 3, 3)
        );
        assert_eq!(all.servers.len(), 50);
        assert_eq!(all.servers[0].server.id.as_str(), "s200", "sorted by id");
        assert_eq!(all.countries, ["DE", "NL"]);
        let dutch = ServerFilter {
            country: "NL".into(),
            ..ServerFilter::default()
        };
        let page = listed.page(&dutch, 2, blocked);
        assert_eq!((page.matched, page.pages, page.servers.len()), (125, 2, 25));
        assert!(page.servers.iter().all(|s| s.server.country == "NL"));
        let worded = ServerFilter {
            text: "Blocked".into(),
            ..ServerFilter::default()
        };
        let found = listed.page(&worded, 1, blocked);
        assert_eq!(found.matched, 1);
        assert_eq!(found.servers[0].status, ServerStatus::Blocked);
        let unknown = listed.page(&ServerFilter::default(), 1, |_| None);
        assert_eq!(
            (unknown.servers[0].status, unknown.servers[0].stale),
            (ServerStatus::NoData, true),
            "a server the engine has not seen yet has no data"
        );
    }

    #[test]
    fn paging_clamps_to_the_list() {
        assert_eq!(
            Paging::of(250, 100, 1),
            Paging {
                page: 1,
                pages: 3,
                skip: 0
            }
        );
        assert_eq!(Paging::of(250, 100, 3).skip, 200);
        assert_eq!(Paging::of(250, 100, 9).page, 3, "past the end: the last");
        assert_eq!(Paging::of(250, 100, 0).page, 1);
        assert_eq!(
            Paging::of(0, 100, 2),
            Paging {
                page: 1,
                pages: 1,
                skip: 0
            }
        );
    }
}
