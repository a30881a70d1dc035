//! PasarGuard (v3.0.0 and later), through its published source in
//! github.com/PasarGuard/panel (read at v5.2.1, e81877c0):
//! - `app/routers/admin.py` `admin_token`: `POST /api/admin/token`, the
//!   OAuth2 password form → `{"access_token", "token_type"}`;
//! - `app/routers/host.py` `get_hosts`: `GET /api/hosts?offset=&limit=`
//!   (`limit=0`: every host) → a bare array of `BaseHost`
//!   (`app/models/host.py`: `id`, `remark`, `address` — a list —, `port`
//!   or null, `inbound_tag`, `is_disabled`; no tags);
//! - `app/routers/host.py`: `POST /api/hosts/bulk/disable|enable`
//!   `{"ids": [int]}` (`BulkHostSelection`, not empty) → `{"hosts",
//!   "count"}`; 404 when an id is unknown, and nothing changes then.
//!   Before v3.0.0 there are no bulk routes: meshwatch says so rather than
//!   rewrite whole hosts with `PUT /api/host/{id}` (a full replacement that
//!   loses two mux settings on the way back);
//! - `app/routers/core.py`: `GET /api/cores` → `{"cores": [{"config":
//!   {"inbounds": [{"tag", "port"}]}}]}`, the port a host without one takes
//!   (`app/core/hosts.py`), and the inbound's `protocol` (import);
//! - `app/routers/node.py` `get_nodes`: `GET /api/nodes?offset=&limit=` →
//!   `{"nodes": [{"id", "name", "address"}], "total"}` (import; a host
//!   belongs to the node with its address: hosts name no node).

use super::http::{PanelError, PanelHttp};
use super::sign_in::SignedIn;
use meshwatch::connectors::{ExternalHost, ExternalNode};
use meshwatch::fleet::Protocol;
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

pub struct PasarGuard {
    session: SignedIn,
}

#[derive(Deserialize)]
struct Host {
    id: Option<i64>,
    #[serde(default)]
    remark: String,
    #[serde(default)]
    address: Vec<String>,
    port: Option<u16>,
    inbound_tag: Option<String>,
    #[serde(default)]
    is_disabled: bool,
    /// Not in the versions read; used when a panel sends them.
    #[serde(default)]
    tags: Vec<String>,
    /// A list of SNIs (one is picked per subscription), or none.
    #[serde(default)]
    sni: Value,
}

#[derive(Deserialize)]
struct Nodes {
    nodes: Vec<Node>,
    total: u64,
}

#[derive(Deserialize)]
struct Node {
    id: i64,
    name: String,
    address: String,
}

/// The largest page of nodes meshwatch asks for.
const NODES_PAGE: u64 = 100;

#[derive(Deserialize)]
struct Cores {
    cores: Vec<Core>,
}

#[derive(Deserialize)]
struct Core {
    config: Value,
}

impl PasarGuard {
    pub fn new(http: PanelHttp, credentials: &str) -> Self {
        Self {
            session: SignedIn::new(http, "/api/admin/token", credentials),
        }
    }

    async fn listed_hosts(&self) -> Result<Vec<Host>, PanelError> {
        let http = self.session.http();
        let answer = self
            .session
            .send("GET /api/hosts", || {
                http.request(Method::GET, "/api/hosts")
                    .query(&[("offset", "0"), ("limit", "0")])
            })
            .await?;
        answer.json()
    }

    pub async fn hosts(&self) -> Result<Vec<ExternalHost>, PanelError> {
        let hosts = self.listed_hosts().await?;
        let inbounds = if hosts.iter().any(|h| h.port.is_none()) {
            self.inbounds().await?
        } else {
            HashMap::new()
        };
        Ok(hosts
            .into_iter()
            .filter_map(|h| external(h, &inbounds))
            .collect())
    }

    /// Nodes, and hosts with their protocol, for the import.
    pub async fn nodes_and_hosts(
        &self,
    ) -> Result<(Vec<ExternalNode>, Vec<ExternalHost>), PanelError> {
        let hosts = self.listed_hosts().await?;
        let inbounds = self.inbounds().await?;
        let hosts = hosts
            .into_iter()
            .filter_map(|h| external(h, &inbounds))
            .collect();
        let http = self.session.http();
        let mut nodes = Vec::new();
        loop {
            let offset = nodes.len().to_string();
            let answer = self
                .session
                .send("GET /api/nodes", || {
                    http.request(Method::GET, "/api/nodes").query(&[
                        ("offset", offset.as_str()),
                        ("limit", &NODES_PAGE.to_string()),
                    ])
                })
                .await?;
            let page: Nodes = answer.json()?;
            let got = page.nodes.len();
            nodes.extend(page.nodes.into_iter().map(|n| ExternalNode {
                external_id: n.id.to_string(),
                name: n.name,
                address: n.address,
                country: None,
            }));
            if got == 0 || nodes.len() as u64 >= page.total {
                return Ok((nodes, hosts));
            }
        }
    }

    /// Inbound tag → port and protocol, from the cores' configs (a port
    /// given as a list or a range is none: such a host matches no entry
    /// point).
    async fn inbounds(
        &self,
    ) -> Result<HashMap<String, (Option<u16>, Option<Protocol>)>, PanelError> {
        let http = self.session.http();
        let answer = self
            .session
            .send("GET /api/cores", || http.request(Method::GET, "/api/cores"))
            .await?;
        let cores: Cores = answer.json()?;
        Ok(cores
            .cores
            .iter()
            .flat_map(|c| c.config["inbounds"].as_array().into_iter().flatten())
            .filter_map(|inbound| {
                let tag = inbound["tag"].as_str()?;
                let port = super::inbound_port(&inbound["port"]);
                let protocol = inbound["protocol"].as_str().and_then(Protocol::from_wire);
                Some((tag.to_owned(), (port, protocol)))
            })
            .collect())
    }

    pub async fn set_enabled(&self, ids: &[String], enabled: bool) -> Result<(), PanelError> {
        let ids: Vec<i64> = ids
            .iter()
            .map(|id| {
                id.parse()
                    .map_err(|_| PanelError::new(format!("{id} is not a PasarGuard host id")))
            })
            .collect::<Result<_, _>>()?;
        let path = if enabled {
            "/api/hosts/bulk/enable"
        } else {
            "/api/hosts/bulk/disable"
        };
        let call = format!("POST {path}");
        let http = self.session.http();
        self.session
            .send(&call, || {
                http.request(Method::POST, path)
                    .json(&json!({ "ids": ids }))
            })
            .await
            .map_err(|e| match e.status() {
                Some(StatusCode::NOT_FOUND) => PanelError::new(format!(
                    "{call}: HTTP 404 (a host was deleted meanwhile, or this PasarGuard is \
                     older than v3.0.0, which has no bulk host endpoints: upgrade it)"
                )),
                _ => e,
            })?;
        Ok(())
    }
}

/// A listed host as meshwatch sees it, its port (when it has none) and
/// protocol from its inbound.
fn external(
    h: Host,
    inbounds: &HashMap<String, (Option<u16>, Option<Protocol>)>,
) -> Option<ExternalHost> {
    let inbound = h.inbound_tag.as_ref().and_then(|t| inbounds.get(t));
    let port = h.port.or_else(|| inbound.and_then(|i| i.0));
    Some(ExternalHost {
        external_id: h.id?.to_string(),
        remark: h.remark,
        endpoints: port
            .map(|p| h.address.into_iter().map(|a| (a, p)).collect())
            .unwrap_or_default(),
        tags: h.tags,
        enabled: !h.is_disabled,
        protocol: inbound.and_then(|i| i.1),
        sni: super::single_sni(&h.sni),
        node: None,
    })
}
