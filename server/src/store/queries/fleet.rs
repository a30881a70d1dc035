//! The fleet: routes, servers with their entry points and route lists,
//! users with theirs, and the verifier mark. Written by one upsert
//! ([`Store::apply_fleet`]); read as summaries for pages, as the mesh for
//! the engine, as peers for agents and as endpoints for subscriptions.
//! The lists inside a server or user come aggregated as JSON by the
//! database (its dialect's JSON array aggregate), so a card or a
//! subscription is one statement.

mod upsert;

use super::{corrupt, Store, StoreError, Tx};
use crate::crypto::secrets::TokenHash;
use crate::store::types::{Endpoint, Params};
use meshwatch::agent_api::VerifierChecks;
use meshwatch::controls::{ControlSni, ControlTargets, VerifierMark};
use meshwatch::fleet::Protocol;
use meshwatch::mesh::{MeshEntryPoint, MeshRoute, MeshServer};
use meshwatch::network::NetworkLabel;
use meshwatch::{EntryPointId, RouteId, ServerId, UserId};
use meshwatch_views::views::{EntryPointSummary, ServerSummary, UserSummary};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The columns of an entry point that say how to connect to it.
#[derive(sqlx::FromRow)]
struct AddressColumns {
    protocol: String,
    host: String,
    port: i64,
    sni: Option<String>,
    params: String,
}

/// [`AddressColumns`] decoded.
struct Address {
    protocol: Protocol,
    host: String,
    port: u16,
    sni: Option<String>,
    params: Params,
}

impl TryFrom<AddressColumns> for Address {
    type Error = StoreError;

    fn try_from(row: AddressColumns) -> Result<Self, StoreError> {
        Ok(Address {
            protocol: protocol(&row.protocol)?,
            host: row.host,
            port: port(row.port)?,
            sni: row.sni,
            params: serde_json::from_str(&row.params).map_err(|e| corrupt("params", e))?,
        })
    }
}

fn protocol(raw: &str) -> Result<Protocol, StoreError> {
    Protocol::from_wire(raw).ok_or_else(|| corrupt("protocol", raw))
}

fn port(raw: i64) -> Result<u16, StoreError> {
    u16::try_from(raw).map_err(|e| corrupt("port", e))
}

/// An entry point with its server's name.
#[derive(sqlx::FromRow)]
struct EndpointRow {
    id: EntryPointId,
    name: String,
    #[sqlx(flatten)]
    address: AddressColumns,
}

impl TryFrom<EndpointRow> for Endpoint {
    type Error = StoreError;

    fn try_from(row: EndpointRow) -> Result<Self, StoreError> {
        let address = Address::try_from(row.address)?;
        Ok(Endpoint {
            id: row.id,
            name: row.name,
            protocol: address.protocol,
            host: address.host,
            port: address.port,
            sni: address.sni,
            params: address.params,
        })
    }
}

#[derive(sqlx::FromRow)]
struct RouteRow {
    id: RouteId,
    servers_per_user: Option<i64>,
}

impl From<RouteRow> for MeshRoute {
    fn from(row: RouteRow) -> Self {
        MeshRoute {
            id: row.id,
            servers_per_user: row.servers_per_user.and_then(|k| u32::try_from(k).ok()),
        }
    }
}

/// The transfer check's cadence (§8: at least every 4th round).
pub const TRANSFER_EVERY_ROUNDS: u32 = 4;

/// A verifier's control targets as stored.
fn control_targets(
    control_sni: Option<String>,
    controls: &str,
) -> Result<ControlTargets, StoreError> {
    Ok(ControlTargets {
        control_sni: control_sni
            .as_deref()
            .map(ControlSni::parse)
            .transpose()
            .map_err(|e| corrupt("control SNI", e))?,
        controls: serde_json::from_str(controls).map_err(|e| corrupt("control addresses", e))?,
    })
}

/// A server with its routes and entry points as JSON arrays (see
/// `select_servers`).
#[derive(sqlx::FromRow)]
struct ServerRow {
    id: ServerId,
    name: String,
    country: String,
    verifier: bool,
    verifier_network: Option<String>,
    verifier_control_sni: Option<String>,
    verifier_controls: String,
    routes: String,
    entry_points: String,
}

/// One element of [`ServerRow::entry_points`]: id, protocol, host, port, SNI.
type EntryPointJson = (EntryPointId, String, String, i64, Option<String>);

impl TryFrom<ServerRow> for ServerSummary {
    type Error = StoreError;

    fn try_from(row: ServerRow) -> Result<Self, StoreError> {
        let entry_points: Vec<EntryPointJson> =
            serde_json::from_str(&row.entry_points).map_err(|e| corrupt("entry points", e))?;
        Ok(ServerSummary {
            id: row.id,
            name: row.name,
            country: row.country,
            routes: route_ids(&row.routes)?,
            verifier: row.verifier,
            verifier_network: row
                .verifier_network
                .as_deref()
                .map(NetworkLabel::parse)
                .transpose()
                .map_err(|e| corrupt("verifier network", e))?,
            verifier_controls: control_targets(row.verifier_control_sni, &row.verifier_controls)?,
            entry_points: entry_points
                .into_iter()
                .map(|(id, protocol_name, host, port_number, sni)| {
                    Ok(EntryPointSummary {
                        id,
                        protocol: protocol(&protocol_name)?,
                        host,
                        port: port(port_number)?,
                        sni,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
        })
    }
}

/// A user with their routes as a JSON array (see `select_users`).
#[derive(sqlx::FromRow)]
struct UserRow {
    id: UserId,
    name: String,
    routes: String,
}

impl TryFrom<UserRow> for UserSummary {
    type Error = StoreError;

    fn try_from(row: UserRow) -> Result<Self, StoreError> {
        Ok(UserSummary {
            routes: route_ids(&row.routes)?,
            id: row.id,
            name: row.name,
        })
    }
}

/// A user with the sealed subscription token the card shows.
#[derive(sqlx::FromRow)]
struct UserCardRow {
    #[sqlx(flatten)]
    user: UserRow,
    sub_token: Option<String>,
}

/// A user with the (sealed) credential their subscription hands out.
#[derive(sqlx::FromRow)]
struct SubscriberRow {
    #[sqlx(flatten)]
    user: UserRow,
    credential: String,
}

/// A JSON array of route ids, in their order.
fn route_ids(json: &str) -> Result<Vec<RouteId>, StoreError> {
    serde_json::from_str(json).map_err(|e| corrupt("routes", e))
}

/// `SELECT` of [`ServerRow`]s, then `tail` (a filter, an order). One
/// statement per use rather than `$1 IS NULL OR s.id = $1`, which would
/// defeat the primary key: one card would scan the whole fleet.
fn select_servers(tail: &str) -> String {
    format!(
        "SELECT s.id, s.name, s.country, s.verifier, s.verifier_network, \
           s.verifier_control_sni, s.verifier_controls, \
           (SELECT {routes} FROM server_routes WHERE server_id = s.id) AS routes, \
           (SELECT {entry_points} FROM entry_points WHERE server_id = s.id) AS entry_points \
         FROM servers s {tail}",
        routes = Store::json_array_agg("route_id", "position"),
        entry_points = Store::json_array_agg(
            &Store::json_tuple("id, protocol, host, port, sni"),
            "position"
        ),
    )
}

/// `SELECT` of [`UserRow`]s and `more` columns of `users u`, then `tail`
/// (a filter, an order).
fn select_users(more: &str, tail: &str) -> String {
    format!(
        "SELECT u.id, u.name, \
           (SELECT {routes} FROM user_routes WHERE user_id = u.id) AS routes{more} \
         FROM users u {tail}",
        routes = Store::json_array_agg("route_id", "position"),
    )
}

// Built once per backend (this file is compiled once for each).
static ALL_SERVERS: LazyLock<String> = LazyLock::new(|| select_servers("ORDER BY s.id"));
static ONE_SERVER: LazyLock<String> = LazyLock::new(|| select_servers("WHERE s.id = $1"));
static ALL_USERS: LazyLock<String> = LazyLock::new(|| select_users("", "ORDER BY u.id"));
static USER_CARD: LazyLock<String> =
    LazyLock::new(|| select_users(", u.sub_token", "WHERE u.id = $1"));
static SUBSCRIBER: LazyLock<String> =
    LazyLock::new(|| select_users(", u.credential", "WHERE u.sub_token_hash = $1"));

impl Store {
    /// The server an agent token belongs to.
    pub async fn server_for_agent_token(
        &self,
        token: &TokenHash,
    ) -> Result<Option<ServerId>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT id FROM servers WHERE agent_token_hash = $1")
                .bind(token.as_str())
                .fetch_optional(&self.reader)
                .await?,
        )
    }

    /// Gives `server` a new agent token (the one it had stops working at
    /// once); `None` for an unknown server.
    pub async fn new_agent_token(&self, server: &ServerId) -> Result<Option<String>, StoreError> {
        let token = crate::crypto::secrets::new_token();
        let mut tx = self.write().await?;
        let updated = sqlx::query("UPDATE servers SET agent_token_hash = $1 WHERE id = $2")
            .bind(TokenHash::of(&token).as_str())
            .bind(server)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok((updated == 1).then_some(token))
    }

    /// Servers (with entry points and routes) and routes, in id order.
    pub async fn mesh_spec(&self) -> Result<(Vec<MeshServer>, Vec<MeshRoute>), StoreError> {
        let servers = self
            .servers()
            .await?
            .into_iter()
            .map(|s| MeshServer {
                verifier: s.verifier,
                network: s.verifier_network,
                controls: s.verifier_controls,
                id: s.id,
                name: s.name,
                country: s.country,
                routes: s.routes,
                entry_points: s
                    .entry_points
                    .into_iter()
                    .map(|e| MeshEntryPoint {
                        transport: e.protocol.transport(),
                        id: e.id,
                    })
                    .collect(),
            })
            .collect();
        let routes =
            sqlx::query_as::<_, RouteRow>("SELECT id, servers_per_user FROM routes ORDER BY id")
                .fetch_all(&self.reader)
                .await?
                .into_iter()
                .map(MeshRoute::from)
                .collect();
        Ok((servers, routes))
    }

    /// Every server with its routes and entry points, sorted by id.
    pub async fn servers(&self) -> Result<Vec<ServerSummary>, StoreError> {
        sqlx::query_as::<_, ServerRow>(ALL_SERVERS.as_str())
            .fetch_all(&self.reader)
            .await?
            .into_iter()
            .map(ServerSummary::try_from)
            .collect()
    }

    /// One server with its routes and entry points.
    pub async fn server(&self, id: &ServerId) -> Result<Option<ServerSummary>, StoreError> {
        sqlx::query_as::<_, ServerRow>(ONE_SERVER.as_str())
            .bind(id)
            .fetch_optional(&self.reader)
            .await?
            .map(ServerSummary::try_from)
            .transpose()
    }

    /// Marks or unmarks a verifier and sets what `mark` gives of its
    /// network label and control targets; false when the server does not
    /// exist.
    pub async fn set_verifier(
        &self,
        server: &ServerId,
        mark: &VerifierMark,
    ) -> Result<bool, StoreError> {
        let controls = mark
            .controls
            .as_ref()
            .map(|c| serde_json::to_string(c).map_err(|e| corrupt("control addresses", e)))
            .transpose()?;
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "UPDATE servers SET verifier = $1,
                verifier_network = CASE WHEN $2 THEN $3 ELSE verifier_network END,
                verifier_control_sni = CASE WHEN $4 THEN $5 ELSE verifier_control_sni END,
                verifier_controls = COALESCE($6, verifier_controls)
             WHERE id = $7",
        )
        .bind(mark.enabled)
        .bind(mark.network.is_some())
        .bind(mark.network.clone().flatten().map(String::from))
        .bind(mark.control_sni.is_some())
        .bind(mark.control_sni.clone().flatten().map(String::from))
        .bind(controls)
        .bind(server)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            > 0;
        tx.commit().await?;
        Ok(done)
    }

    /// What a verifier's agent checks besides handshakes; `None` for a
    /// server that is no verifier (or no server).
    pub async fn verifier_checks(
        &self,
        server: &ServerId,
    ) -> Result<Option<VerifierChecks>, StoreError> {
        let row: Option<(bool, Option<String>, String)> = sqlx::query_as(
            "SELECT verifier, verifier_control_sni, verifier_controls FROM servers WHERE id = $1",
        )
        .bind(server)
        .fetch_optional(&self.reader)
        .await?;
        let Some((true, control_sni, controls)) = row else {
            return Ok(None);
        };
        let targets = control_targets(control_sni, &controls)?;
        Ok(Some(VerifierChecks {
            control_sni: targets.control_sni.map(String::from),
            controls: targets.controls.into_iter().map(String::from).collect(),
            transfer_every: TRANSFER_EVERY_ROUNDS,
        }))
    }

    /// Takes a server out of the fleet; false when there is no such server.
    pub async fn remove_server(&self, server: &ServerId) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let removed = remove_server_in(&mut tx, server).await?;
        tx.commit().await?;
        Ok(removed)
    }

    /// One user with their routes, and their subscription token when the
    /// panel knows it (and its sealed value opens with this panel's key).
    pub async fn user(
        &self,
        id: &UserId,
    ) -> Result<Option<(UserSummary, Option<String>)>, StoreError> {
        let row = sqlx::query_as::<_, UserCardRow>(USER_CARD.as_str())
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        let Some(UserCardRow { user, sub_token }) = row else {
            return Ok(None);
        };
        let token = sub_token.and_then(|sealed| self.sealed.open(id, &sealed));
        Ok(Some((user.try_into()?, token)))
    }

    /// Every user with their routes, sorted by id.
    pub async fn users(&self) -> Result<Vec<UserSummary>, StoreError> {
        sqlx::query_as::<_, UserRow>(ALL_USERS.as_str())
            .fetch_all(&self.reader)
            .await?
            .into_iter()
            .map(UserSummary::try_from)
            .collect()
    }

    /// The user holding this subscription token, with their credential
    /// when its sealed value opens with this panel's key.
    pub async fn user_for_sub_token(
        &self,
        token: &TokenHash,
    ) -> Result<Option<(UserSummary, Option<String>)>, StoreError> {
        let row = sqlx::query_as::<_, SubscriberRow>(SUBSCRIBER.as_str())
            .bind(token.as_str())
            .fetch_optional(&self.reader)
            .await?;
        let Some(SubscriberRow { user, credential }) = row else {
            return Ok(None);
        };
        let user: UserSummary = user.try_into()?;
        let credential = self.sealed.open_credential(&user.id, &credential);
        Ok(Some((user, credential)))
    }

    /// Route id → display name.
    pub async fn route_names(&self) -> Result<HashMap<RouteId, String>, StoreError> {
        Ok(
            sqlx::query_as::<_, (RouteId, String)>("SELECT id, name FROM routes")
                .fetch_all(&self.reader)
                .await?
                .into_iter()
                .collect(),
        )
    }

    /// Every entry point with its server's name, by entry point id.
    pub async fn endpoints(&self) -> Result<HashMap<EntryPointId, Endpoint>, StoreError> {
        sqlx::query_as::<_, EndpointRow>(
            "SELECT e.id, s.name, e.protocol, e.host, e.port, e.sni, e.params
             FROM entry_points e JOIN servers s ON s.id = e.server_id",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            let endpoint = Endpoint::try_from(row)?;
            Ok((endpoint.id.clone(), endpoint))
        })
        .collect()
    }
}

/// Takes a server out of its routes, the mesh, subscriptions and its
/// peers' agent config (its entry points go), and drops its evidence. Its
/// status history, metrics and notifications stay (they no longer cascade)
/// until retention prunes them.
async fn remove_server_in(tx: &mut Tx, server: &ServerId) -> Result<bool, StoreError> {
    sqlx::query(
        "DELETE FROM pair_states WHERE witness_id = $1
            OR entry_point_id IN (SELECT id FROM entry_points WHERE server_id = $1)",
    )
    .bind(server)
    .execute(&mut **tx)
    .await?;
    // Routes, entry points, the latest self-report and stored reports
    // cascade.
    let removed = sqlx::query("DELETE FROM servers WHERE id = $1")
        .bind(server)
        .execute(&mut **tx)
        .await?
        .rows_affected()
        > 0;
    Ok(removed)
}
