//! The fleet as the operator provisions it (`PUT /api/v1/fleet`): the wire
//! document, its validation and the validated model the store writes.

use crate::ids::{EntryPointId, RouteId, ServerId, Slug, SlugError, UserId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};
use std::fmt;

/// The VPN protocols an entry point may speak (share-link schemes of docs/API.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Vless,
    Vmess,
    Trojan,
    #[serde(alias = "ss")]
    Shadowsocks,
    Hysteria2,
    Tuic,
}

impl Protocol {
    pub const ALL: [Protocol; 6] = [
        Protocol::Vless,
        Protocol::Vmess,
        Protocol::Trojan,
        Protocol::Shadowsocks,
        Protocol::Hysteria2,
        Protocol::Tuic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Vless => "vless",
            Protocol::Vmess => "vmess",
            Protocol::Trojan => "trojan",
            Protocol::Shadowsocks => "shadowsocks",
            Protocol::Hysteria2 => "hysteria2",
            Protocol::Tuic => "tuic",
        }
    }

    /// Accepts the wire names, including the `ss` alias.
    pub fn from_wire(raw: &str) -> Option<Self> {
        if raw == "ss" {
            return Some(Protocol::Shadowsocks);
        }
        Self::ALL.into_iter().find(|p| p.as_str() == raw)
    }
}

/// What carries a protocol's connections: the unit a censor blocks
/// wholesale on a network (PRODUCT.md §8 `protocol`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// TCP with TLS (VLESS, VMess, Trojan, Shadowsocks).
    #[default]
    Tcp,
    /// QUIC over UDP (Hysteria2, TUIC).
    Quic,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Quic => "quic",
        }
    }
}

impl Protocol {
    pub fn transport(self) -> Transport {
        match self {
            Protocol::Hysteria2 | Protocol::Tuic => Transport::Quic,
            Protocol::Vless | Protocol::Vmess | Protocol::Trojan | Protocol::Shadowsocks => {
                Transport::Tcp
            }
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `PUT /api/v1/fleet` body, exactly as docs/API.md writes it. Unknown fields are
/// rejected; ids stay strings here so that validation can name the bad field.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct FleetDocument {
    #[serde(default)]
    pub routes: Vec<RouteDoc>,
    #[serde(default)]
    pub servers: Vec<ServerDoc>,
    #[serde(default)]
    pub users: Vec<UserDoc>,
    /// Servers and users that leave the fleet (an unknown id is refused,
    /// like every unknown id of the API).
    #[serde(default)]
    pub remove: RemoveDoc,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RemoveDoc {
    #[serde(default)]
    pub servers: Vec<String>,
    #[serde(default)]
    pub users: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RouteDoc {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers_per_user: Option<i64>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ServerDoc {
    pub id: String,
    pub name: String,
    pub country: String,
    #[serde(default)]
    pub routes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifier: Option<bool>,
    /// A verifier's control SNI (§8): absent keeps it, `""` clears it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_sni: Option<String>,
    /// A verifier's control addresses (§8): absent keeps them, `[]`
    /// clears them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controls: Option<Vec<String>>,
    #[serde(default)]
    pub entry_points: Vec<EntryPointDoc>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct EntryPointDoc {
    pub id: String,
    pub protocol: String,
    pub host: String,
    pub port: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sni: Option<String>,
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UserDoc {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub routes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
}

/// A rejected fleet document: a stable `code` for scripts and a message that
/// names the offending field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FleetError {
    pub code: &'static str,
    pub message: String,
}

impl FleetError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub id: RouteId,
    pub name: String,
    pub servers_per_user: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EntryPoint {
    pub id: EntryPointId,
    pub protocol: Protocol,
    pub host: String,
    pub port: u16,
    pub sni: Option<String>,
    pub params: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub id: ServerId,
    pub name: String,
    pub country: String,
    pub routes: Vec<RouteId>,
    pub agent_token: Option<String>,
    pub verifier: Option<bool>,
    /// `None` keeps what is stored; `Some(None)` clears it.
    pub control_sni: Option<Option<crate::controls::ControlSni>>,
    /// `None` keeps what is stored.
    pub controls: Option<Vec<crate::controls::ControlAddress>>,
    pub entry_points: Vec<EntryPoint>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct User {
    pub id: UserId,
    pub name: String,
    pub routes: Vec<RouteId>,
    pub sub_token: Option<String>,
    pub credential: Option<String>,
}

/// A fleet document that passed every check that needs no database.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fleet {
    pub routes: Vec<Route>,
    pub servers: Vec<Server>,
    pub users: Vec<User>,
    pub remove_servers: Vec<ServerId>,
    pub remove_users: Vec<UserId>,
}

/// Tokens and credentials are secrets chosen by config management: long
/// enough not to be guessed, printable, no whitespace.
const MIN_TOKEN_LEN: usize = 16;
const MAX_TOKEN_LEN: usize = 256;
pub const MAX_NAME_LEN: usize = 200;

fn slug<T>(raw: &str, path: &str, wrap: impl FnOnce(Slug) -> T) -> Result<T, FleetError> {
    Slug::parse(raw).map(wrap).map_err(|e: SlugError| {
        FleetError::new(
            "invalid_id",
            format!(
                "{path}: {raw:?} is not a valid id ({e}; ids match [a-z0-9][a-z0-9_-]{{0,63}})"
            ),
        )
    })
}

fn name(raw: &str, path: &str) -> Result<String, FleetError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed.chars().count() > MAX_NAME_LEN {
        return Err(FleetError::new(
            "invalid_field",
            format!("{path}: must be 1 to {MAX_NAME_LEN} characters"),
        ));
    }
    Ok(trimmed.to_owned())
}

fn secret(raw: &Option<String>, path: &str) -> Result<Option<String>, FleetError> {
    let Some(raw) = raw else { return Ok(None) };
    let printable = raw.chars().all(|c| c.is_ascii_graphic());
    if !(MIN_TOKEN_LEN..=MAX_TOKEN_LEN).contains(&raw.len()) || !printable {
        return Err(FleetError::new(
            "invalid_field",
            format!(
                "{path}: must be {MIN_TOKEN_LEN} to {MAX_TOKEN_LEN} printable ASCII characters without spaces"
            ),
        ));
    }
    Ok(Some(raw.clone()))
}

fn host(raw: &str, path: &str) -> Result<String, FleetError> {
    let ok = !raw.is_empty()
        && raw.len() <= 253
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_'));
    if !ok {
        return Err(FleetError::new(
            "invalid_field",
            format!("{path}: {raw:?} is not a host name or IP address"),
        ));
    }
    Ok(raw.to_owned())
}

/// Remembers ids already seen in one namespace so duplicates are reported
/// with both positions.
struct Seen<'a> {
    what: &'static str,
    first_at: std::collections::HashMap<&'a str, String>,
}

impl<'a> Seen<'a> {
    fn new(what: &'static str) -> Self {
        Self {
            what,
            first_at: Default::default(),
        }
    }

    fn insert(&mut self, id: &'a str, path: String) -> Result<(), FleetError> {
        if let Some(first) = self.first_at.get(id) {
            return Err(FleetError::new(
                "duplicate_id",
                format!("{path}: {} id {id:?} is already used at {first}", self.what),
            ));
        }
        self.first_at.insert(id, path);
        Ok(())
    }

    fn contains(&self, id: &str) -> bool {
        self.first_at.contains_key(id)
    }
}

/// The ids of `remove.<list>`: slugs, none of them also upserted by the
/// same document (`upserted`).
fn removals<T>(
    raw: &[String],
    list: &str,
    upserted: &Seen<'_>,
    wrap: impl Fn(Slug) -> T,
) -> Result<Vec<T>, FleetError> {
    raw.iter()
        .enumerate()
        .map(|(i, id)| {
            let at = format!("remove.{list}[{i}]");
            if upserted.contains(id) {
                return Err(FleetError::new(
                    "invalid_field",
                    format!(
                        "{at}: {} {id:?} is both upserted and removed",
                        upserted.what
                    ),
                ));
            }
            slug(id, &at, &wrap)
        })
        .collect()
}

fn route_refs(raw: &[String], path: &str) -> Result<Vec<RouteId>, FleetError> {
    let mut seen = Seen::new("route");
    raw.iter()
        .enumerate()
        .map(|(i, r)| {
            let at = format!("{path}[{i}]");
            seen.insert(r, at.clone())?;
            slug(r, &at, RouteId)
        })
        .collect()
}

impl FleetDocument {
    /// Every check that needs nothing but the document itself. Route
    /// references are checked against the store by [`Fleet::unknown_route`].
    pub fn validate(&self) -> Result<Fleet, FleetError> {
        let mut route_ids = Seen::new("route");
        let routes = self
            .routes
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let at = format!("routes[{i}]");
                route_ids.insert(&r.id, format!("{at}.id"))?;
                let servers_per_user = match r.servers_per_user {
                    None => None,
                    Some(n) if (1..=i64::from(u32::MAX)).contains(&n) => Some(n as u32),
                    Some(n) => {
                        return Err(FleetError::new(
                            "invalid_field",
                            format!("{at}.servers_per_user: {n} must be at least 1"),
                        ))
                    }
                };
                Ok(Route {
                    id: slug(&r.id, &format!("{at}.id"), RouteId)?,
                    name: name(&r.name, &format!("{at}.name"))?,
                    servers_per_user,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;

        let mut server_ids = Seen::new("server");
        let mut entry_point_ids = Seen::new("entry point");
        let mut servers = Vec::with_capacity(self.servers.len());
        for (i, s) in self.servers.iter().enumerate() {
            let at = format!("servers[{i}]");
            server_ids.insert(&s.id, format!("{at}.id"))?;
            let mut entry_points = Vec::with_capacity(s.entry_points.len());
            for (j, e) in s.entry_points.iter().enumerate() {
                let ep = format!("{at}.entry_points[{j}]");
                entry_point_ids.insert(&e.id, format!("{ep}.id"))?;
                entry_points.push(e.validate(&ep)?);
            }
            let country = s.country.trim().to_ascii_uppercase();
            if country.len() != 2 || !country.chars().all(|c| c.is_ascii_uppercase()) {
                return Err(FleetError::new(
                    "invalid_field",
                    format!(
                        "{at}.country: {:?} is not a two-letter country code",
                        s.country
                    ),
                ));
            }
            servers.push(Server {
                id: slug(&s.id, &format!("{at}.id"), ServerId)?,
                name: name(&s.name, &format!("{at}.name"))?,
                country,
                routes: route_refs(&s.routes, &format!("{at}.routes"))?,
                agent_token: secret(&s.agent_token, &format!("{at}.agent_token"))?,
                verifier: s.verifier,
                control_sni: s
                    .control_sni
                    .as_deref()
                    .map(crate::controls::ControlSni::parse_optional)
                    .transpose()
                    .map_err(|e| {
                        FleetError::new("invalid_controls", format!("{at}.control_sni: {e}"))
                    })?,
                controls: s
                    .controls
                    .as_deref()
                    .map(crate::controls::ControlTargets::parse_controls)
                    .transpose()
                    .map_err(|e| {
                        FleetError::new("invalid_controls", format!("{at}.controls: {e}"))
                    })?,
                entry_points,
            });
        }

        let mut user_ids = Seen::new("user");
        let users = self
            .users
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let at = format!("users[{i}]");
                user_ids.insert(&u.id, format!("{at}.id"))?;
                let credential = match &u.credential {
                    Some(c) if c.is_empty() || c.len() > MAX_TOKEN_LEN || c.chars().any(char::is_whitespace) => {
                        return Err(FleetError::new(
                            "invalid_field",
                            format!("{at}.credential: must be 1 to {MAX_TOKEN_LEN} characters without spaces"),
                        ))
                    }
                    other => other.clone(),
                };
                Ok(User {
                    id: slug(&u.id, &format!("{at}.id"), UserId)?,
                    name: name(&u.name, &format!("{at}.name"))?,
                    routes: route_refs(&u.routes, &format!("{at}.routes"))?,
                    sub_token: secret(&u.sub_token, &format!("{at}.sub_token"))?,
                    credential,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;

        let remove_servers = removals(&self.remove.servers, "servers", &server_ids, ServerId)?;
        let remove_users = removals(&self.remove.users, "users", &user_ids, UserId)?;

        Ok(Fleet {
            routes,
            servers,
            users,
            remove_servers,
            remove_users,
        })
    }
}

impl EntryPointDoc {
    fn validate(&self, at: &str) -> Result<EntryPoint, FleetError> {
        let protocol = Protocol::from_wire(&self.protocol).ok_or_else(|| {
            let known: Vec<_> = Protocol::ALL.iter().map(|p| p.as_str()).collect();
            FleetError::new(
                "invalid_field",
                format!(
                    "{at}.protocol: {:?} is not one of {}",
                    self.protocol,
                    known.join(", ")
                ),
            )
        })?;
        let port = u16::try_from(self.port)
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| {
                FleetError::new(
                    "invalid_port",
                    format!("{at}.port: {} is not a port (1-65535)", self.port),
                )
            })?;
        let sni = match &self.sni {
            Some(sni) => Some(host(sni, &format!("{at}.sni"))?),
            None => None,
        };
        if self.params.contains_key("transfer_path") && transfer_path(&self.params).is_none() {
            return Err(FleetError::new(
                "invalid_field",
                format!(
                    "{at}.params.transfer_path: an absolute path (\"/big.bin\") of visible \
                     ASCII, at most {MAX_TRANSFER_PATH_BYTES} bytes"
                ),
            ));
        }
        Ok(EntryPoint {
            id: slug(&self.id, &format!("{at}.id"), EntryPointId)?,
            protocol,
            host: host(&self.host, &format!("{at}.host"))?,
            port,
            sni,
            params: self.params.clone(),
        })
    }
}

impl Fleet {
    /// The first route reference that is neither defined in this document
    /// nor already known to the store, as an `unknown_route` error.
    pub fn unknown_route(&self, known: &HashSet<RouteId>) -> Option<FleetError> {
        let defined: BTreeSet<&RouteId> = self.routes.iter().map(|r| &r.id).collect();
        let servers = self
            .servers
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.routes.iter().map(move |r| (format!("servers[{i}]"), r)));
        let users = self
            .users
            .iter()
            .enumerate()
            .flat_map(|(i, u)| u.routes.iter().map(move |r| (format!("users[{i}]"), r)));
        servers
            .chain(users)
            .find(|(_, r)| !defined.contains(r) && !known.contains(r))
            .map(|(at, r)| {
                FleetError::new(
                    "unknown_route",
                    format!("{at}.routes: route {:?} is not defined", r.as_str()),
                )
            })
    }
}

/// Whether an entry point hides its handshake from anyone without its
/// obfuscation key (Hysteria2's `params.obfs`, e.g. `salamander`): then no
/// plain probe can tell a blocked address from a healthy one.
pub fn is_obfuscated(
    protocol: Protocol,
    params: &serde_json::Map<String, serde_json::Value>,
) -> bool {
    protocol == Protocol::Hysteria2
        && params
            .get("obfs")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|obfs| !obfs.trim().is_empty() && !obfs.eq_ignore_ascii_case("none"))
}

/// The longest `params.transfer_path`, in bytes.
pub const MAX_TRANSFER_PATH_BYTES: usize = 1024;

/// The HTTPS path a verifier's transfer check fetches through an entry
/// point's TLS (`params.transfer_path`, docs/API.md "Block kinds"): an
/// absolute path of visible ASCII; `None` (the agent fetches `/`) when
/// absent or not such a path.
pub fn transfer_path(params: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    params
        .get("transfer_path")
        .and_then(serde_json::Value::as_str)
        .filter(|p| {
            p.starts_with('/')
                && p.len() <= MAX_TRANSFER_PATH_BYTES
                && p.bytes().all(|b| b.is_ascii_graphic())
        })
        .map(str::to_owned)
}

/// The ALPN protocols an agent must offer to probe an entry point the way
/// its app connects, where the entry point chooses them: TUIC's
/// `params.alpn`, written as share links write it (`"h3,spdy/3.1"`) or as
/// a list. `None` leaves the protocol's default (Hysteria2's apps always
/// offer `h3`).
pub fn probe_alpn(
    protocol: Protocol,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Option<Vec<String>> {
    if protocol != Protocol::Tuic {
        return None;
    }
    let names: Vec<String> = match params.get("alpn")? {
        serde_json::Value::String(list) => list.split(',').map(str::to_owned).collect(),
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
        _ => return None,
    };
    let names: Vec<String> = names
        .into_iter()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .collect();
    (!names.is_empty()).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_hysteria2_entry_point_with_obfs_is_obfuscated() {
        let params = |v: serde_json::Value| v.as_object().cloned().expect("object");
        assert!(is_obfuscated(
            Protocol::Hysteria2,
            &params(json!({"obfs": "salamander", "obfs-password": "x"}))
        ));
        assert!(!is_obfuscated(
            Protocol::Hysteria2,
            &params(json!({"obfs": "none"}))
        ));
        assert!(!is_obfuscated(Protocol::Hysteria2, &params(json!({}))));
        assert!(!is_obfuscated(
            Protocol::Tuic,
            &params(json!({"obfs": "salamander"}))
        ));
    }

    fn doc(value: serde_json::Value) -> FleetDocument {
        serde_json::from_value(value).expect("document shape")
    }

    fn api_example() -> serde_json::Value {
        json!({
            "routes": [{"id": "de", "name": "Germany", "servers_per_user": 2}],
            "servers": [{"id": "de-1", "name": "Frankfurt 1", "country": "DE",
                         "routes": ["de"], "agent_token": "optional-token-0123456789", "verifier": false,
                         "entry_points": [{"id": "de-1-vless", "protocol": "vless",
                                           "host": "203.0.113.10", "port": 443,
                                           "sni": "www.example.com", "params": {}}]}],
            "users": [{"id": "alice", "name": "Alice", "routes": ["de"],
                       "credential": "4f1c2a9e-0000-4000-8000-000000000001"}]
        })
    }

    fn error_of(value: serde_json::Value) -> FleetError {
        doc(value).validate().expect_err("must be rejected")
    }

    #[test]
    fn the_api_example_is_valid() {
        let fleet = doc(api_example()).validate().expect("valid");
        assert_eq!(fleet.servers[0].entry_points[0].port, 443);
        assert_eq!(fleet.routes[0].servers_per_user, Some(2));
        assert_eq!(fleet.unknown_route(&HashSet::new()), None);
    }

    #[test]
    fn a_transfer_path_is_an_absolute_path_of_visible_ascii() {
        let mut v = api_example();
        v["servers"][0]["entry_points"][0]["params"] = json!({"transfer_path": "/big.bin"});
        let fleet = doc(v.clone()).validate().expect("valid");
        assert_eq!(
            transfer_path(&fleet.servers[0].entry_points[0].params).as_deref(),
            Some("/big.bin")
        );
        for bad in [
            json!("big.bin"),
            json!("/a b"),
            json!(3),
            json!(format!("/{}", "x".repeat(1024))),
        ] {
            v["servers"][0]["entry_points"][0]["params"] = json!({"transfer_path": bad});
            let e = error_of(v.clone());
            assert!(e.message.contains("params.transfer_path"), "{bad}: {e}");
        }
    }

    #[test]
    fn control_targets_in_the_document_name_the_field() {
        let mut v = api_example();
        v["servers"][0]["control_sni"] = json!("ya ru");
        let e = error_of(v.clone());
        assert_eq!(e.code, "invalid_controls");
        assert!(e.message.starts_with("servers[0].control_sni"), "{e}");
        v["servers"][0]["control_sni"] = json!("");
        v["servers"][0]["controls"] = json!(["ya.ru:443"]);
        let fleet = doc(v).validate().expect("valid");
        assert_eq!(fleet.servers[0].control_sni, Some(None), "blank clears");
        assert_eq!(fleet.servers[0].controls.as_ref().map(Vec::len), Some(1));
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let mut v = api_example();
        v["servers"][0]["colour"] = json!("blue");
        assert!(serde_json::from_value::<FleetDocument>(v).is_err());
    }

    #[test]
    fn bad_slugs_name_the_field() {
        let mut v = api_example();
        v["servers"][0]["id"] = json!("Frankfurt 1");
        let e = error_of(v);
        assert_eq!(e.code, "invalid_id");
        assert!(e.message.starts_with("servers[0].id"), "{}", e.message);
    }

    #[test]
    fn duplicate_ids_are_rejected_in_every_namespace() {
        let mut v = api_example();
        v["routes"] = json!([{"id": "de", "name": "A"}, {"id": "de", "name": "B"}]);
        assert_eq!(error_of(v).code, "duplicate_id");

        let mut v = api_example();
        let server = v["servers"][0].clone();
        let mut other = server.clone();
        other["entry_points"][0]["id"] = json!("other");
        v["servers"] = json!([server, other]);
        assert_eq!(error_of(v).code, "duplicate_id");

        let mut v = api_example();
        let mut second = v["servers"][0].clone();
        second["id"] = json!("de-2");
        second
            .as_object_mut()
            .expect("object")
            .remove("agent_token");
        v["servers"].as_array_mut().expect("array").push(second);
        let e = error_of(v);
        assert_eq!(e.code, "duplicate_id");
        assert!(e.message.contains("entry point"), "{}", e.message);

        let mut v = api_example();
        v["users"][0]["routes"] = json!(["de", "de"]);
        assert_eq!(error_of(v).code, "duplicate_id");
    }

    #[test]
    fn ports_outside_1_to_65535_are_rejected() {
        for port in [0, -1, 65536, 100_000] {
            let mut v = api_example();
            v["servers"][0]["entry_points"][0]["port"] = json!(port);
            let e = error_of(v);
            assert_eq!(e.code, "invalid_port", "port {port}");
        }
    }

    #[test]
    fn unknown_routes_are_found_unless_the_store_knows_them() {
        let mut v = api_example();
        v["routes"] = json!([]);
        let fleet = doc(v).validate().expect("syntactically valid");
        let e = fleet.unknown_route(&HashSet::new()).expect("unknown");
        assert_eq!(e.code, "unknown_route");
        let known = HashSet::from([RouteId::parse("de").expect("slug")]);
        assert_eq!(fleet.unknown_route(&known), None);
    }

    #[test]
    fn other_fields_are_checked() {
        let cases = [
            ("/servers/0/country", json!("Germany")),
            ("/servers/0/name", json!("  ")),
            ("/servers/0/agent_token", json!("short")),
            (
                "/servers/0/entry_points/0/protocol",
                json!("carrier-pigeon"),
            ),
            ("/servers/0/entry_points/0/host", json!("bad host")),
            ("/routes/0/servers_per_user", json!(0)),
            ("/users/0/credential", json!("")),
        ];
        for (pointer, value) in cases {
            let mut v = api_example();
            *v.pointer_mut(pointer).expect("pointer exists") = value;
            let e = error_of(v);
            assert_eq!(e.code, "invalid_field", "{pointer}: {e:?}");
        }
    }

    #[test]
    fn country_codes_are_normalised_to_upper_case() {
        let mut v = api_example();
        v["servers"][0]["country"] = json!("de");
        assert_eq!(doc(v).validate().expect("valid").servers[0].country, "DE");
    }

    #[test]
    fn tuic_takes_its_probe_alpn_from_params_as_links_or_lists_write_it() {
        let params = |value: serde_json::Value| value.as_object().cloned().expect("object");
        let h3_spdy = Some(vec!["h3".to_owned(), "spdy/3.1".to_owned()]);
        assert_eq!(
            probe_alpn(Protocol::Tuic, &params(json!({"alpn": "h3, spdy/3.1"}))),
            h3_spdy
        );
        assert_eq!(
            probe_alpn(Protocol::Tuic, &params(json!({"alpn": ["h3", "spdy/3.1"]}))),
            h3_spdy
        );
        for unset in [
            json!({}),
            json!({"alpn": ""}),
            json!({"alpn": 3}),
            json!({"alpn": []}),
        ] {
            assert_eq!(probe_alpn(Protocol::Tuic, &params(unset)), None);
        }
        assert_eq!(
            probe_alpn(Protocol::Hysteria2, &params(json!({"alpn": "h2"}))),
            None,
            "Hysteria2 apps offer h3 whatever the params say"
        );
    }
}
