//! 3x-ui (v3.4.0 and later: managed hosts), through its published source in
//! github.com/MHSanaei/3x-ui (read at main 02002dc1, and tags v3.4.2,
//! v3.5.0, v3.6.0):
//! - `internal/web/controller/api.go` `checkAPIAuth`: `Authorization:
//!   Bearer` with an API token (v3.0.0+; it skips the CSRF check); an
//!   unknown token is answered 404 like an unknown route;
//! - `internal/web/controller/host.go`: `GET /panel/api/hosts/list` and
//!   `POST /panel/api/hosts/bulk/setEnable` `{"ids": […], "enable": bool}`,
//!   every answer wrapped as `{"success", "msg", "obj"}`
//!   (`internal/web/entity/entity.go`) — a refusal is HTTP 200 with
//!   `success: false`. From v3.5.0 a host is a group (`entity.HostGroup`:
//!   string `groupId`, `hosts` as "addr", "addr:port" or "[v6]:port",
//!   `port` 0 for the inbound's, `inboundIds`, `isDisabled`, `tags`);
//!   v3.4.x lists rows (`model.Host`: integer `id`, `address`, `port`,
//!   `inboundId`);
//! - `internal/web/controller/inbound.go`: `GET /panel/api/inbounds/list`
//!   (`id`, `port`, `protocol`), the port of a host that has none, and
//!   (import) a host's protocol;
//! - `internal/web/controller/node.go`: `GET /panel/api/nodes/list` →
//!   `NodeView`s (`internal/web/service/node_contract.go`: `guid`, `name`,
//!   `address`), a host's node being its first of `nodeGuids` (import);
//! - `internal/web/controller/server.go`: `GET /panel/api/server/status`,
//!   which every version has: it tells a refused token from a panel
//!   without managed hosts.
//!
//! A 3x-ui without managed hosts is refused with a clear message: turning
//! a server off there would mean stopping its inbound, which meshwatch
//! never does.

use super::http::{PanelError, PanelHttp};
use meshwatch::connectors::{ExternalHost, ExternalNode};
use meshwatch::fleet::Protocol;
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

pub struct ThreeXUi {
    http: PanelHttp,
    token: String,
}

#[derive(Deserialize)]
struct Envelope {
    success: bool,
    #[serde(default)]
    msg: String,
    #[serde(default)]
    obj: Value,
}

impl ThreeXUi {
    pub fn new(http: PanelHttp, token: String) -> Self {
        Self { http, token }
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.http.request(method, path).bearer_auth(&self.token)
    }

    /// The `obj` of a successful answer.
    async fn call(&self, call: &str, request: RequestBuilder) -> Result<Value, PanelError> {
        let envelope: Envelope = self.http.send(call, request).await?.json()?;
        if !envelope.success {
            return Err(PanelError::new(format!(
                "{call}: refused: {}",
                envelope.msg
            )));
        }
        Ok(envelope.obj)
    }

    async fn listed_hosts(&self) -> Result<Vec<Value>, PanelError> {
        let call = "GET /panel/api/hosts/list";
        let listed = match self
            .call(call, self.request(Method::GET, "/panel/api/hosts/list"))
            .await
        {
            Err(e) if e.status() == Some(StatusCode::NOT_FOUND) => {
                return Err(self.why_no_hosts().await)
            }
            other => other?,
        };
        Ok(listed.as_array().cloned().unwrap_or_default())
    }

    pub async fn hosts(&self) -> Result<Vec<ExternalHost>, PanelError> {
        let items = self.listed_hosts().await?;
        let needs_ports = items.iter().any(|h| h["port"].as_u64().unwrap_or(0) == 0);
        let inbounds = if needs_ports {
            self.inbounds().await?
        } else {
            HashMap::new()
        };
        Ok(items.iter().filter_map(|h| host(h, &inbounds)).collect())
    }

    /// Nodes, and hosts with their protocol and node, for the import.
    pub async fn nodes_and_hosts(
        &self,
    ) -> Result<(Vec<ExternalNode>, Vec<ExternalHost>), PanelError> {
        let items = self.listed_hosts().await?;
        let inbounds = self.inbounds().await?;
        let listed = self
            .call(
                "GET /panel/api/nodes/list",
                self.request(Method::GET, "/panel/api/nodes/list"),
            )
            .await?;
        let nodes = listed
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| super::json_node(n, n["guid"].as_str().map(str::to_owned)))
            .collect();
        let hosts = items.iter().filter_map(|h| host(h, &inbounds)).collect();
        Ok((nodes, hosts))
    }

    /// A 404 on the hosts list: a token the panel refused (it answers
    /// unknown tokens with 404 too), or a 3x-ui older than managed hosts.
    async fn why_no_hosts(&self) -> PanelError {
        let status = self
            .call(
                "GET /panel/api/server/status",
                self.request(Method::GET, "/panel/api/server/status"),
            )
            .await;
        match status {
            Ok(_) => PanelError::new(
                "GET /panel/api/hosts/list: HTTP 404: this 3x-ui has no managed hosts (they \
                 came in v3.4.0): upgrade it. meshwatch never stops an inbound instead",
            ),
            Err(_) => PanelError::new(
                "GET /panel/api/hosts/list: HTTP 404: the panel refused the API token (3x-ui \
                 answers an unknown token with 404), or the address lacks the panel's base path",
            ),
        }
    }

    /// Inbound id → port and protocol.
    async fn inbounds(&self) -> Result<HashMap<i64, Inbound>, PanelError> {
        let listed = self
            .call(
                "GET /panel/api/inbounds/list",
                self.request(Method::GET, "/panel/api/inbounds/list"),
            )
            .await?;
        Ok(listed
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| {
                let inbound = Inbound {
                    port: i["port"].as_u64().and_then(|p| u16::try_from(p).ok()),
                    protocol: i["protocol"].as_str().and_then(Protocol::from_wire),
                };
                Some((i["id"].as_i64()?, inbound))
            })
            .collect())
    }

    pub async fn set_enabled(&self, ids: &[String], enabled: bool) -> Result<(), PanelError> {
        // v3.5+ ids are strings (group ids); v3.4 ids are integers.
        let ids: Vec<Value> = ids
            .iter()
            .map(|id| match id.strip_prefix('#') {
                Some(row) => row.parse::<i64>().map(Value::from).unwrap_or(json!(id)),
                None => json!(id),
            })
            .collect();
        let call = "POST /panel/api/hosts/bulk/setEnable";
        self.call(
            call,
            self.request(Method::POST, "/panel/api/hosts/bulk/setEnable")
                .json(&json!({ "ids": ids, "enable": enabled })),
        )
        .await?;
        Ok(())
    }
}

/// What a host takes from its inbound.
#[derive(Clone, Copy)]
struct Inbound {
    port: Option<u16>,
    protocol: Option<Protocol>,
}

/// A listed host: a v3.5+ group, or a v3.4 row (its id marked `#`).
fn host(item: &Value, inbounds: &HashMap<i64, Inbound>) -> Option<ExternalHost> {
    let own_port = item["port"]
        .as_u64()
        .and_then(|p| u16::try_from(p).ok())
        .filter(|&p| p != 0);
    let tags = item["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();
    let enabled = item["isDisabled"] != Value::Bool(true);
    let remark = item["remark"].as_str().unwrap_or_default().to_owned();
    let sni = super::single_sni(&item["sni"]);
    let node = item["nodeGuids"]
        .as_array()
        .and_then(|g| g.first())
        .and_then(|g| g.as_str())
        .map(str::to_owned);
    if let Some(group) = item["groupId"].as_str() {
        let inbound = item["inboundIds"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|i| inbounds.get(&i.as_i64()?).copied());
        let inbound_port = inbound.and_then(|i| i.port);
        let endpoints = item["hosts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| {
                let (address, port) = split_host(h.as_str()?);
                Some((address, port.or(own_port).or(inbound_port)?))
            })
            .collect();
        return Some(ExternalHost {
            external_id: group.to_owned(),
            remark,
            endpoints,
            tags,
            enabled,
            protocol: inbound.and_then(|i| i.protocol),
            sni,
            node,
        });
    }
    let id = item["id"].as_i64()?;
    let inbound = item["inboundId"]
        .as_i64()
        .and_then(|i| inbounds.get(&i).copied());
    let port = own_port.or_else(|| inbound.and_then(|i| i.port));
    let address = item["address"].as_str()?.to_owned();
    Some(ExternalHost {
        external_id: format!("#{id}"),
        remark,
        endpoints: port.map(|p| (address, p)).into_iter().collect(),
        tags,
        enabled,
        protocol: inbound.and_then(|i| i.protocol),
        sni,
        node,
    })
}

/// "addr", "addr:port" or "[v6]:port" → address and port.
fn split_host(raw: &str) -> (String, Option<u16>) {
    if let Some(rest) = raw.strip_prefix('[') {
        if let Some((v6, tail)) = rest.split_once(']') {
            let port = tail.strip_prefix(':').and_then(|p| p.parse().ok());
            return (v6.to_owned(), port);
        }
    }
    match raw.rsplit_once(':') {
        Some((address, port)) if !address.contains(':') => match port.parse() {
            Ok(port) => (address.to_owned(), Some(port)),
            Err(_) => (raw.to_owned(), None),
        },
        _ => (raw.to_owned(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::split_host;

    #[test]
    fn host_entries_split_into_address_and_port() {
        assert_eq!(split_host("de-1.example"), ("de-1.example".into(), None));
        assert_eq!(
            split_host("de-1.example:8443"),
            ("de-1.example".into(), Some(8443))
        );
        assert_eq!(
            split_host("[2001:db8::1]:443"),
            ("2001:db8::1".into(), Some(443))
        );
        assert_eq!(split_host("2001:db8::1"), ("2001:db8::1".into(), None));
    }
}
