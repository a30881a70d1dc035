//! Marzneshin (v0.7), through its published source in
//! github.com/marzneshin/marzneshin (read at d3b25e23):
//! - `app/routes/admin.py` `admin_token`: `POST /api/admins/token`, the
//!   OAuth2 password form → `{"access_token", "is_sudo", "token_type"}`;
//!   the host routes want a sudo admin (`app/routes/inbounds.py`);
//! - `app/routes/inbounds.py` `get_hosts`: `GET /api/inbounds/hosts?page=&size=`
//!   (size at most 100) → `{"items", "total", "page", "size", "pages"}`,
//!   hosts as `InboundHostResponse` (`app/models/proxy.py`: `id`,
//!   `remark`, `address`, `port` or null, `inbound_id`, `is_disabled`; no
//!   tags);
//! - `PUT /api/inbounds/hosts/{id}` with a whole `InboundHost`: a full
//!   replacement (`app/db/crud.py` `update_host` sets every field, an
//!   omitted `service_ids` unlinks the services), so meshwatch reads the
//!   host (`GET /api/inbounds/hosts/{id}`) just before, and sends it back
//!   as read with only `is_disabled` changed;
//! - `GET /api/inbounds?page=&size=` → inbounds whose `config` is a JSON
//!   string with the `port` a host without one takes (`app/utils/share.py`),
//!   and each inbound's `protocol` and `node` (import);
//! - `app/routes/node.py` `get_nodes`: `GET /api/nodes?page=&size=` →
//!   `{"items": [{"id", "name", "address"}], …}` (import).

use super::http::{PanelError, PanelHttp};
use super::sign_in::SignedIn;
use meshwatch::connectors::{ExternalHost, ExternalNode};
use meshwatch::fleet::Protocol;
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;

/// Marzneshin's largest page.
const PAGE_SIZE: u32 = 100;

pub struct Marzneshin {
    session: SignedIn,
}

#[derive(Deserialize)]
struct Page<T> {
    items: Vec<T>,
    pages: u32,
}

#[derive(Deserialize)]
struct Host {
    id: i64,
    #[serde(default)]
    remark: String,
    address: String,
    port: Option<u16>,
    inbound_id: Option<i64>,
    is_disabled: Option<bool>,
    /// Not in the versions read; used when a panel sends them.
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    sni: Value,
}

#[derive(Deserialize)]
struct Inbound {
    id: i64,
    config: String,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    node: Option<InboundNode>,
}

#[derive(Deserialize)]
struct InboundNode {
    id: i64,
}

#[derive(Deserialize)]
struct Node {
    id: i64,
    name: String,
    address: String,
}

/// What a host takes from its inbound: the port, protocol and node.
#[derive(Default, Clone)]
struct FromInbound {
    port: Option<u16>,
    protocol: Option<Protocol>,
    node: Option<String>,
}

impl Marzneshin {
    pub fn new(http: PanelHttp, credentials: &str) -> Self {
        Self {
            session: SignedIn::new(http, "/api/admins/token", credentials),
        }
    }

    /// Every item of a paged list at `path`.
    async fn all_pages<T: serde::de::DeserializeOwned>(
        &self,
        path: &'static str,
    ) -> Result<Vec<T>, PanelError> {
        let http = self.session.http();
        let call = format!("GET {path}");
        let mut items = Vec::new();
        let mut page = 1;
        loop {
            let answer = self
                .session
                .send(&call, || {
                    http.request(Method::GET, path)
                        .query(&[("page", page), ("size", PAGE_SIZE)])
                })
                .await?;
            let got: Page<T> = answer.json()?;
            items.extend(got.items);
            if page >= got.pages {
                return Ok(items);
            }
            page += 1;
        }
    }

    pub async fn hosts(&self) -> Result<Vec<ExternalHost>, PanelError> {
        let hosts: Vec<Host> = self.all_pages("/api/inbounds/hosts").await?;
        let inbounds = if hosts.iter().any(|h| h.port.is_none()) {
            self.inbounds().await?
        } else {
            HashMap::new()
        };
        Ok(hosts.into_iter().map(|h| external(h, &inbounds)).collect())
    }

    /// Nodes, and hosts with their protocol and node, for the import.
    pub async fn nodes_and_hosts(
        &self,
    ) -> Result<(Vec<ExternalNode>, Vec<ExternalHost>), PanelError> {
        let hosts: Vec<Host> = self.all_pages("/api/inbounds/hosts").await?;
        let inbounds = self.inbounds().await?;
        let nodes: Vec<Node> = self.all_pages("/api/nodes").await?;
        let nodes = nodes
            .into_iter()
            .map(|n| ExternalNode {
                external_id: n.id.to_string(),
                name: n.name,
                address: n.address,
                country: None,
            })
            .collect();
        let hosts = hosts.into_iter().map(|h| external(h, &inbounds)).collect();
        Ok((nodes, hosts))
    }

    async fn inbounds(&self) -> Result<HashMap<i64, FromInbound>, PanelError> {
        let inbounds: Vec<Inbound> = self.all_pages("/api/inbounds").await?;
        Ok(inbounds
            .into_iter()
            .map(|i| {
                let config: Value = serde_json::from_str(&i.config).unwrap_or_default();
                let protocol = i
                    .protocol
                    .as_deref()
                    .or(config["protocol"].as_str())
                    .and_then(Protocol::from_wire);
                let from = FromInbound {
                    port: super::inbound_port(&config["port"]),
                    protocol,
                    node: i.node.map(|n| n.id.to_string()),
                };
                (i.id, from)
            })
            .collect())
    }

    /// One `PUT` per host, each sending back the host as just read with
    /// only `is_disabled` changed. A host deleted meanwhile is skipped.
    pub async fn set_enabled(&self, ids: &[String], enabled: bool) -> Result<(), PanelError> {
        let http = self.session.http();
        for id in ids {
            let path = format!("/api/inbounds/hosts/{id}");
            let read = self
                .session
                .send("GET /api/inbounds/hosts/{id}", || {
                    http.request(Method::GET, &path)
                })
                .await;
            let mut host: Value = match read {
                Err(e) if e.status() == Some(StatusCode::NOT_FOUND) => continue,
                other => other?.json()?,
            };
            let Some(fields) = host.as_object_mut() else {
                return Err(PanelError::new(
                    "GET /api/inbounds/hosts/{id}: the answer is not a host",
                ));
            };
            fields.remove("id");
            fields.insert("is_disabled".into(), Value::Bool(!enabled));
            self.session
                .send("PUT /api/inbounds/hosts/{id}", || {
                    http.request(Method::PUT, &path).json(&host)
                })
                .await?;
        }
        Ok(())
    }
}

/// A listed host as meshwatch sees it, with what it takes from its inbound.
fn external(h: Host, inbounds: &HashMap<i64, FromInbound>) -> ExternalHost {
    let from = h
        .inbound_id
        .and_then(|i| inbounds.get(&i))
        .cloned()
        .unwrap_or_default();
    ExternalHost {
        external_id: h.id.to_string(),
        remark: h.remark,
        endpoints: h
            .port
            .or(from.port)
            .map(|p| (h.address, p))
            .into_iter()
            .collect(),
        tags: h.tags,
        // NULL hides the host from subscriptions too (`is_disabled IS false`).
        enabled: h.is_disabled == Some(false),
        protocol: from.protocol,
        sni: super::single_sni(&h.sni),
        node: from.node,
    }
}
