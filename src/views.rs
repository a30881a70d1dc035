//! Read models shared by the panel's server functions and its pages.

use crate::fleet::Protocol;
use crate::ids::{EntryPointId, RouteId, ServerId, UserId};
use crate::status::ServerStatus;
use serde::{Deserialize, Serialize};

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
    pub entry_points: Vec<EntryPointSummary>,
}

impl ServerSummary {
    /// Whether a free-text filter (case-insensitive) matches this server's
    /// id, name, country, routes or entry point hosts.
    pub fn matches(&self, filter: &str) -> bool {
        let needle = filter.trim().to_lowercase();
        if needle.is_empty() {
            return true;
        }
        let hay = [self.id.as_str(), self.name.as_str(), self.country.as_str()]
            .into_iter()
            .chain(self.routes.iter().map(RouteId::as_str))
            .chain(self.entry_points.iter().map(|e| e.host.as_str()));
        hay.into_iter().any(|h| h.to_lowercase().contains(&needle))
    }
}

/// A server with its current verdict, as the servers list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerListItem {
    pub server: ServerSummary,
    pub status: ServerStatus,
    /// No report younger than `stale_after`.
    pub stale: bool,
}

impl ServerListItem {
    /// The server filter, also matching the status wording ("blocked", …).
    pub fn matches(&self, filter: &str) -> bool {
        let needle = filter.trim().to_lowercase();
        self.server.matches(filter) || self.status.caption_en().to_lowercase().contains(&needle)
    }
}

/// A user row of the users list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserSummary {
    pub id: UserId,
    pub name: String,
    pub routes: Vec<RouteId>,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> ServerSummary {
        ServerSummary {
            id: ServerId::parse("de-1").expect("slug"),
            name: "Frankfurt 1".into(),
            country: "DE".into(),
            routes: vec![RouteId::parse("germany").expect("slug")],
            verifier: false,
            entry_points: vec![EntryPointSummary {
                id: EntryPointId::parse("de-1-vless").expect("slug"),
                protocol: Protocol::Vless,
                host: "203.0.113.10".into(),
                port: 443,
                sni: None,
            }],
        }
    }

    #[test]
    fn the_filter_matches_any_visible_field_ignoring_case() {
        let s = server();
        for hit in ["", "  ", "frank", "DE-1", "de", "GERM", "203.0.113"] {
            assert!(s.matches(hit), "{hit:?} should match");
        }
        for miss in ["paris", "nl", "198.51"] {
            assert!(!s.matches(miss), "{miss:?} should not match");
        }
    }

    #[test]
    fn the_filter_also_matches_the_status_wording() {
        let item = ServerListItem {
            server: server(),
            status: ServerStatus::Blocked,
            stale: false,
        };
        assert!(item.matches("blocked"));
        assert!(item.matches("frank"));
        assert!(!item.matches("no data"));
    }
}
