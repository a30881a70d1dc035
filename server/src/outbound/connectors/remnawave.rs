//! Remnawave (backend 2.x and 3.x), through its published contract in
//! github.com/remnawave/backend (read at 3.3.2, 347e6de1):
//! - `libs/contract/commands/hosts/get-all.command.ts`: `GET /api/hosts` →
//!   `{"response": [Host]}`, the host schema in
//!   `libs/contract/models/hosts.schema.ts` (`uuid`, `remark`, `address`,
//!   `port`, `isDisabled`, `tags` since 2.8, a single `tag` before);
//! - `libs/contract/commands/hosts/bulk/{disable,enable}-many-hosts.command.ts`:
//!   `POST /api/hosts/bulk/disable|enable` `{"uuids": [...]}` (200 with the
//!   hosts in 2.x, 204 in 3.x; unknown uuids are ignored). meshwatch never
//!   uses `PATCH /api/hosts`: its `isDisabled` defaults to false
//!   (`update.command.ts`), so an update that leaves it out turns a host on;
//! - `src/modules/auth/strategies/jwt.strategy.ts`: `Authorization: Bearer`
//!   with an API token (Remnawave Settings → API Tokens);
//! - `libs/contract/commands/nodes/get-nodes.command.ts`: `GET /api/nodes`
//!   → `{"response": [Node]}` (`libs/contract/models/nodes.schema.ts`:
//!   `uuid`, `name`, `address`, `countryCode`, and `configProfile.
//!   activeInbounds[]` with each inbound's `uuid` and `type`), for the
//!   import: a host's protocol is its inbound's `type`, its node the one
//!   it is pinned to (`nodes`);
//! - `src/common/middlewares/proxy-check.middleware.ts`: outside development
//!   mode a request without `X-Forwarded-For` and `X-Forwarded-Proto: https`
//!   is dropped without an answer, so a connector calling the backend
//!   directly (beside meshwatch, not through its proxy) sends both.

use super::http::{PanelError, PanelHttp};
use meshwatch::connectors::{ExternalHost, ExternalNode};
use meshwatch::fleet::Protocol;
use reqwest::Method;
use serde::Deserialize;
use serde_json::json;
use std::collections::HashMap;

pub struct Remnawave {
    http: PanelHttp,
    token: String,
}

#[derive(Deserialize)]
struct Hosts {
    response: Vec<Host>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Host {
    uuid: String,
    #[serde(default)]
    remark: String,
    address: String,
    port: Option<u16>,
    is_disabled: bool,
    /// 2.8 and later.
    #[serde(default)]
    tags: Option<Vec<String>>,
    /// Before 2.8.
    #[serde(default)]
    tag: Option<String>,
    #[serde(default)]
    sni: Option<String>,
    #[serde(default)]
    inbound: Option<HostInbound>,
    /// The nodes it is pinned to (2.1.18 and later).
    #[serde(default)]
    nodes: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HostInbound {
    config_profile_inbound_uuid: Option<String>,
}

#[derive(Deserialize)]
struct Nodes {
    response: Vec<Node>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Node {
    uuid: String,
    name: String,
    address: String,
    #[serde(default)]
    country_code: Option<String>,
    #[serde(default)]
    config_profile: Option<NodeProfile>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeProfile {
    #[serde(default)]
    active_inbounds: Vec<ProfileInbound>,
}

#[derive(Deserialize)]
struct ProfileInbound {
    uuid: String,
    #[serde(rename = "type")]
    kind: String,
}

impl Remnawave {
    pub fn new(http: PanelHttp, token: String) -> Self {
        Self { http, token }
    }

    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, path)
            .bearer_auth(&self.token)
            .header("X-Forwarded-For", "127.0.0.1")
            .header("X-Forwarded-Proto", "https")
    }

    async fn listed_hosts(&self) -> Result<Vec<Host>, PanelError> {
        let call = "GET /api/hosts";
        let answer = self
            .http
            .send(call, self.request(Method::GET, "/api/hosts"))
            .await?;
        let hosts: Hosts = answer.json()?;
        Ok(hosts.response)
    }

    pub async fn hosts(&self) -> Result<Vec<ExternalHost>, PanelError> {
        let hosts = self.listed_hosts().await?;
        Ok(hosts
            .into_iter()
            .map(|h| external(h, &HashMap::new()))
            .collect())
    }

    /// Nodes, and hosts with their protocol and node, for the import.
    pub async fn nodes_and_hosts(
        &self,
    ) -> Result<(Vec<ExternalNode>, Vec<ExternalHost>), PanelError> {
        let hosts = self.listed_hosts().await?;
        let answer = self
            .http
            .send("GET /api/nodes", self.request(Method::GET, "/api/nodes"))
            .await?;
        let nodes: Nodes = answer.json()?;
        let protocols: HashMap<String, Protocol> = nodes
            .response
            .iter()
            .filter_map(|n| n.config_profile.as_ref())
            .flat_map(|p| &p.active_inbounds)
            .filter_map(|i| Some((i.uuid.clone(), Protocol::from_wire(&i.kind)?)))
            .collect();
        let hosts = hosts.into_iter().map(|h| external(h, &protocols)).collect();
        let nodes = nodes
            .response
            .into_iter()
            .map(|n| ExternalNode {
                external_id: n.uuid,
                name: n.name,
                address: n.address,
                country: n.country_code,
            })
            .collect();
        Ok((nodes, hosts))
    }

    pub async fn set_enabled(&self, uuids: &[String], enabled: bool) -> Result<(), PanelError> {
        let path = if enabled {
            "/api/hosts/bulk/enable"
        } else {
            "/api/hosts/bulk/disable"
        };
        let call = format!("POST {path}");
        self.http
            .send(
                &call,
                self.request(Method::POST, path)
                    .json(&json!({ "uuids": uuids })),
            )
            .await?;
        Ok(())
    }
}

/// A listed host as meshwatch sees it; `protocols` maps inbound uuids to
/// their protocol (empty for a sync, which needs none).
fn external(h: Host, protocols: &HashMap<String, Protocol>) -> ExternalHost {
    let inbound = h.inbound.and_then(|i| i.config_profile_inbound_uuid);
    ExternalHost {
        external_id: h.uuid,
        remark: h.remark,
        endpoints: h.port.map(|p| (h.address, p)).into_iter().collect(),
        tags: h.tags.unwrap_or_else(|| h.tag.into_iter().collect()),
        enabled: !h.is_disabled,
        protocol: inbound.and_then(|i| protocols.get(&i).copied()),
        sni: h.sni.filter(|s| !s.is_empty()),
        // Pinned to one node: that node's; to several, none in particular.
        node: match h.nodes.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        },
    }
}
