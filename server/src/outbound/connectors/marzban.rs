//! Marzban (0.8.x), through its published source in
//! github.com/Gozargah/Marzban (read at v0.8.4, 7f396db3; the host API is
//! the same across 0.8.0–0.8.4):
//! - `app/routers/admin.py` `admin_token`: `POST /api/admin/token`, the
//!   OAuth2 password form → `{"access_token", "token_type"}`;
//! - `app/routers/system.py` `get_hosts` / `modify_hosts`: `GET|PUT
//!   /api/hosts`, one document mapping each inbound tag to its list of
//!   `ProxyHost` (`app/models/proxy.py`) — hosts have no id. A `PUT`
//!   replaces the lists of the tags it names and keeps the others
//!   (`app/db/crud.py` `update_hosts`); both want a sudo admin;
//! - `app/routers/system.py` `get_inbounds`: `GET /api/inbounds` →
//!   protocol → `[{"tag", "port", …}]`, the port of a host whose `port` is
//!   null, and (import) a host's protocol;
//! - `app/routers/node.py` `get_nodes`: `GET /api/nodes` → `[{"id",
//!   "name", "address", …}]` (import; hosts name no node, so a host
//!   belongs to the node with its address).
//!
//! Turning a host off is therefore a read-modify-write of its tag's list:
//! meshwatch reads the document again just before writing and compares
//! the lists it will write with the ones its plan was made from. If the
//! operator changed one meanwhile, nothing is written and the sync fails
//! (to be planned again on the new lists); otherwise it sends back exactly
//! the lists as read, with only `is_disabled` changed on its hosts.

use super::http::{PanelError, PanelHttp};
use super::sign_in::SignedIn;
use meshwatch::connectors::{ExternalHost, ExternalNode};
use meshwatch::fleet::Protocol;
use reqwest::Method;
use serde_json::{Map, Value};
use std::collections::HashMap;
use tokio::sync::Mutex;

pub struct Marzban {
    session: SignedIn,
    /// The document the last plan was made from (or the last write left).
    read: Mutex<Option<Map<String, Value>>>,
}

/// A host's id, which Marzban does not have: its tag, remark, address
/// and port (docs/API.md "Connected panels").
fn host_id(tag: &str, host: &Value) -> String {
    let port = host["port"]
        .as_u64()
        .map(|p| p.to_string())
        .unwrap_or_default();
    format!(
        "{tag}|{}|{}|{port}",
        host["remark"].as_str().unwrap_or_default(),
        host["address"].as_str().unwrap_or_default()
    )
}

impl Marzban {
    pub fn new(http: PanelHttp, credentials: &str) -> Self {
        Self {
            session: SignedIn::new(http, "/api/admin/token", credentials),
            read: Mutex::new(None),
        }
    }

    async fn document(&self) -> Result<Map<String, Value>, PanelError> {
        let http = self.session.http();
        let answer = self
            .session
            .send("GET /api/hosts", || http.request(Method::GET, "/api/hosts"))
            .await?;
        answer.json()
    }

    pub async fn hosts(&self) -> Result<Vec<ExternalHost>, PanelError> {
        let document = self.document().await?;
        let needs_ports = document
            .values()
            .flat_map(|list| list.as_array().into_iter().flatten())
            .any(|h| h["port"].is_null());
        let inbounds = if needs_ports {
            self.inbounds().await?
        } else {
            HashMap::new()
        };
        let hosts = external(&document, &inbounds);
        *self.read.lock().await = Some(document);
        Ok(hosts)
    }

    /// Nodes, and hosts with their protocol, for the import.
    pub async fn nodes_and_hosts(
        &self,
    ) -> Result<(Vec<ExternalNode>, Vec<ExternalHost>), PanelError> {
        let document = self.document().await?;
        let inbounds = self.inbounds().await?;
        let http = self.session.http();
        let answer = self
            .session
            .send("GET /api/nodes", || http.request(Method::GET, "/api/nodes"))
            .await?;
        let listed: Vec<Value> = answer.json()?;
        let nodes = listed
            .iter()
            .filter_map(|n| super::json_node(n, n["id"].as_i64().map(|id| id.to_string())))
            .collect();
        Ok((nodes, external(&document, &inbounds)))
    }

    /// Inbound tag → port (a range or a list is none) and protocol.
    async fn inbounds(
        &self,
    ) -> Result<HashMap<String, (Option<u16>, Option<Protocol>)>, PanelError> {
        let http = self.session.http();
        let answer = self
            .session
            .send("GET /api/inbounds", || {
                http.request(Method::GET, "/api/inbounds")
            })
            .await?;
        let by_protocol: Map<String, Value> = answer.json()?;
        Ok(by_protocol
            .iter()
            .flat_map(|(protocol, list)| {
                let protocol = Protocol::from_wire(protocol);
                list.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(move |inbound| {
                        let port = super::inbound_port(&inbound["port"]);
                        Some((inbound["tag"].as_str()?.to_owned(), (port, protocol)))
                    })
            })
            .collect())
    }

    pub async fn set_enabled(&self, ids: &[String], enabled: bool) -> Result<(), PanelError> {
        let mut read = self.read.lock().await;
        let now = self.document().await?;
        let planned_from = read.clone().unwrap_or_else(|| now.clone());
        let mut body = Map::new();
        for (tag, list) in &now {
            let Some(hosts) = list.as_array() else {
                continue;
            };
            if !hosts.iter().any(|h| ids.contains(&host_id(tag, h))) {
                continue;
            }
            if planned_from.get(tag) != Some(list) {
                return Err(PanelError::new(format!(
                    "GET /api/hosts: the hosts of {tag} changed since they were read (an \
                     operator's edit?): nothing was written; the next sync plans again"
                )));
            }
            let changed: Vec<Value> = hosts
                .iter()
                .map(|h| {
                    let mut h = h.clone();
                    if ids.contains(&host_id(tag, &h)) {
                        h["is_disabled"] = Value::Bool(!enabled);
                    }
                    h
                })
                .collect();
            body.insert(tag.clone(), Value::Array(changed));
        }
        if body.is_empty() {
            return Ok(());
        }
        let http = self.session.http();
        let answer = self
            .session
            .send("PUT /api/hosts", || {
                http.request(Method::PUT, "/api/hosts").json(&body)
            })
            .await?;
        *read = Some(answer.json()?);
        Ok(())
    }
}

/// The hosts of `document` as meshwatch sees them, with their inbound's
/// port (when they have none) and protocol.
fn external(
    document: &Map<String, Value>,
    inbounds: &HashMap<String, (Option<u16>, Option<Protocol>)>,
) -> Vec<ExternalHost> {
    document
        .iter()
        .flat_map(|(tag, list)| {
            let inbound = inbounds.get(tag).copied();
            list.as_array().into_iter().flatten().map(move |h| {
                let port = h["port"]
                    .as_u64()
                    .and_then(|p| u16::try_from(p).ok())
                    .or_else(|| inbound.and_then(|i| i.0));
                let address = h["address"].as_str().unwrap_or_default().to_owned();
                ExternalHost {
                    external_id: host_id(tag, h),
                    remark: h["remark"].as_str().unwrap_or_default().to_owned(),
                    endpoints: port.map(|p| (address, p)).into_iter().collect(),
                    tags: Vec::new(),
                    // Subscriptions skip a host only when it is truthy.
                    enabled: h["is_disabled"] != Value::Bool(true),
                    protocol: inbound.and_then(|i| i.1),
                    sni: super::single_sni(&h["sni"]),
                    node: None,
                }
            })
        })
        .collect()
}
