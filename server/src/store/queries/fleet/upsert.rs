//! The fleet upsert: one transaction, one function per entity (routes,
//! servers, route lists, entry points, users, removals), and one place
//! where a write that clashes with what is stored becomes the API's
//! conflict or rejection ([`Clash`]); the transaction then writes nothing.

use super::{remove_server_in, Store, StoreError, Tx};
use crate::crypto::secrets::{new_token, TokenHash};
use crate::store::sealed_columns::SealedColumns;
use crate::store::types::GeneratedTokens;
use chrono::Utc;
use meshwatch::fleet::{EntryPoint, Fleet, FleetError, Route, Server, User};
use meshwatch::{EntryPointId, RouteId, ServerId, Slug, UserId};

use std::collections::HashSet;

/// A fleet write that clashes with what is stored, by what the API says
/// of it: the one place these codes and messages are written.
enum Clash<'a> {
    /// A route a server or user names is neither in the document nor stored.
    UnknownRoute(FleetError),
    /// A server's agent token is another server's.
    AgentToken(&'a ServerId),
    /// A user's subscription token is another user's.
    SubToken(&'a UserId),
    /// An entry point id is another server's.
    EntryPoint {
        id: &'a EntryPointId,
        owner: ServerId,
    },
    /// `remove.servers[at]` names no server.
    NoServer { at: usize, id: &'a ServerId },
    /// `remove.users[at]` names no user.
    NoUser { at: usize, id: &'a UserId },
}

impl From<Clash<'_>> for StoreError {
    fn from(clash: Clash<'_>) -> Self {
        match clash {
            Clash::UnknownRoute(err) => StoreError::Rejected {
                code: err.code,
                message: err.message,
            },
            Clash::AgentToken(server) => StoreError::Conflict {
                code: "token_conflict",
                message: format!(
                    "servers: the agent_token of {:?} is already used by another server",
                    server.as_str()
                ),
            },
            Clash::SubToken(user) => StoreError::Conflict {
                code: "token_conflict",
                message: format!(
                    "users: the sub_token of {:?} is already used by another user",
                    user.as_str()
                ),
            },
            Clash::EntryPoint { id, owner } => StoreError::Conflict {
                code: "entry_point_conflict",
                message: format!(
                    "entry point {:?} belongs to server {:?}; ids are unique across the fleet",
                    id.as_str(),
                    owner.as_str()
                ),
            },
            Clash::NoServer { at, id } => StoreError::Rejected {
                code: "unknown_id",
                message: format!("remove.servers[{at}]: no server {:?}", id.as_str()),
            },
            Clash::NoUser { at, id } => StoreError::Rejected {
                code: "unknown_id",
                message: format!("remove.users[{at}]: no user {:?}", id.as_str()),
            },
        }
    }
}

/// The one mapper of a failed fleet statement: a violated UNIQUE or
/// FOREIGN KEY constraint is `clash`; any other failure stays a database
/// error.
fn clash_or(err: sqlx::Error, clash: Clash<'_>) -> StoreError {
    let violated = matches!(&err, sqlx::Error::Database(db)
        if db.is_unique_violation() || db.is_foreign_key_violation());
    if violated {
        clash.into()
    } else {
        err.into()
    }
}

impl Store {
    /// Upserts a validated fleet in one transaction: everything or nothing.
    ///
    /// Lists inside a server or user (routes, entry points) are replaced by
    /// the document's. Tokens absent from the document keep their stored
    /// value, or are generated for new servers and users.
    pub async fn apply_fleet(&self, fleet: &Fleet) -> Result<GeneratedTokens, StoreError> {
        let mut tx = self.write().await?;
        refuse_unknown_routes(&mut tx, fleet).await?;
        for route in &fleet.routes {
            upsert_route(&mut tx, route).await?;
        }
        let mut generated = GeneratedTokens::default();
        for server in &fleet.servers {
            if let Some(token) = upsert_server(&mut tx, server).await? {
                generated.agent_tokens.insert(server.id.clone(), token);
            }
            replace_routes(&mut tx, &SERVER_ROUTES, &server.id.0, &server.routes).await?;
            replace_entry_points(&mut tx, &server.id, &server.entry_points).await?;
        }
        for chunk in fleet.users.chunks(ROWS_PER_STATEMENT) {
            generated
                .sub_tokens
                .extend(upsert_users(&mut tx, &self.sealed, chunk).await?);
        }
        // Unknown ids are refused (docs/API.md), and then nothing is written.
        remove_servers(&mut tx, &fleet.remove_servers).await?;
        remove_users(&mut tx, &fleet.remove_users).await?;
        tx.commit().await?;
        Ok(generated)
    }
}

/// Refuses a document whose servers or users name a route it does not
/// define and the store does not hold, before anything is written.
async fn refuse_unknown_routes(tx: &mut Tx, fleet: &Fleet) -> Result<(), StoreError> {
    let known: HashSet<RouteId> = sqlx::query_scalar::<_, String>("SELECT id FROM routes")
        .fetch_all(&mut **tx)
        .await?
        .iter()
        .filter_map(|id| RouteId::parse(id).ok())
        .collect();
    match fleet.unknown_route(&known) {
        Some(err) => Err(Clash::UnknownRoute(err).into()),
        None => Ok(()),
    }
}

async fn upsert_route(tx: &mut Tx, route: &Route) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO routes (id, name, servers_per_user) VALUES ($1, $2, $3)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name,
                                       servers_per_user = excluded.servers_per_user",
    )
    .bind(&route.id)
    .bind(&route.name)
    .bind(route.servers_per_user.map(i64::from))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Whether `sql` (selecting by the id `$1`) finds a row.
async fn row_exists(tx: &mut Tx, sql: &'static str, id: &Slug) -> Result<bool, StoreError> {
    // `SELECT 1`: a 32-bit integer on PostgreSQL.
    Ok(sqlx::query_scalar::<_, i32>(sql)
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?
        .is_some())
}

/// Upserts one server; returns the agent token generated for a new server
/// the document gives none.
async fn upsert_server(tx: &mut Tx, server: &Server) -> Result<Option<String>, StoreError> {
    let exists = row_exists(tx, "SELECT 1 FROM servers WHERE id = $1", &server.id.0).await?;
    let generated = (server.agent_token.is_none() && !exists).then(new_token);
    let token_hash = server
        .agent_token
        .as_deref()
        .or(generated.as_deref())
        .map(TokenHash::of);
    let token_hash = token_hash.as_ref().map(TokenHash::as_str);
    // Upsert by hand: the NOT NULL of the token is checked before ON
    // CONFLICT, and an existing server may keep its token (NULL here).
    let controls = server
        .controls
        .as_ref()
        .map(|c| serde_json::to_string(c).map_err(|e| super::corrupt("control addresses", e)))
        .transpose()?;
    let control_sni = server.control_sni.clone().flatten().map(String::from);
    let written = if exists {
        sqlx::query(
            "UPDATE servers SET name = $1, country = $2, verifier = COALESCE($3, verifier),
                agent_token_hash = COALESCE($4, agent_token_hash),
                verifier_control_sni = CASE WHEN $5 THEN $6 ELSE verifier_control_sni END,
                verifier_controls = COALESCE($7, verifier_controls)
             WHERE id = $8",
        )
        .bind(&server.name)
        .bind(&server.country)
        .bind(server.verifier)
        .bind(token_hash)
        .bind(server.control_sni.is_some())
        .bind(control_sni)
        .bind(controls)
        .bind(&server.id)
        .execute(&mut **tx)
        .await
    } else {
        sqlx::query(
            "INSERT INTO servers (id, name, country, verifier, agent_token_hash, created_at,
                verifier_control_sni, verifier_controls)
             VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, '[]'))",
        )
        .bind(&server.id)
        .bind(&server.name)
        .bind(&server.country)
        .bind(server.verifier.unwrap_or(false))
        .bind(token_hash)
        .bind(Utc::now())
        .bind(control_sni)
        .bind(controls)
        .execute(&mut **tx)
        .await
    };
    written.map_err(|err| clash_or(err, Clash::AgentToken(&server.id)))?;
    Ok(generated)
}

/// A table of route lists: who holds the routes, in which order.
struct RouteList {
    clear: &'static str,
    add: &'static str,
}

const SERVER_ROUTES: RouteList = RouteList {
    clear: "DELETE FROM server_routes WHERE server_id = $1",
    add: "INSERT INTO server_routes (server_id, route_id, position) VALUES ($1, $2, $3)",
};

/// Replaces the routes of `owner` (a server or user id) in `list`.
async fn replace_routes(
    tx: &mut Tx,
    list: &RouteList,
    owner: &Slug,
    routes: &[RouteId],
) -> Result<(), StoreError> {
    sqlx::query(list.clear)
        .bind(owner)
        .execute(&mut **tx)
        .await?;
    for (position, route) in routes.iter().enumerate() {
        sqlx::query(list.add)
            .bind(owner)
            .bind(route)
            .bind(position as i64)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Replaces a server's entry points by `entry_points`, refusing any whose
/// id another server holds.
async fn replace_entry_points(
    tx: &mut Tx,
    server: &ServerId,
    entry_points: &[EntryPoint],
) -> Result<(), StoreError> {
    let keep: Vec<&EntryPointId> = entry_points.iter().map(|e| &e.id).collect();
    let stored: Vec<EntryPointId> =
        sqlx::query_scalar("SELECT id FROM entry_points WHERE server_id = $1")
            .bind(server)
            .fetch_all(&mut **tx)
            .await?;
    for gone in stored.iter().filter(|id| !keep.contains(id)) {
        sqlx::query("DELETE FROM entry_points WHERE id = $1")
            .bind(gone)
            .execute(&mut **tx)
            .await?;
    }
    for (position, entry_point) in entry_points.iter().enumerate() {
        upsert_entry_point(tx, server, position, entry_point).await?;
    }
    Ok(())
}

/// Upserts one entry point of `server`. The update applies only to the
/// server's own entry point: none comes back when the id is another's.
async fn upsert_entry_point(
    tx: &mut Tx,
    server: &ServerId,
    position: usize,
    entry_point: &EntryPoint,
) -> Result<(), StoreError> {
    let params = serde_json::Value::Object(entry_point.params.clone()).to_string();
    let written: Option<EntryPointId> = sqlx::query_scalar(
        "INSERT INTO entry_points (id, server_id, protocol, host, port, sni, params, position)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT(id) DO UPDATE SET protocol = excluded.protocol, host = excluded.host,
            port = excluded.port, sni = excluded.sni, params = excluded.params,
            position = excluded.position
         WHERE entry_points.server_id = excluded.server_id
         RETURNING id",
    )
    .bind(&entry_point.id)
    .bind(server)
    .bind(entry_point.protocol.as_str())
    .bind(&entry_point.host)
    .bind(i64::from(entry_point.port))
    .bind(&entry_point.sni)
    .bind(params)
    .bind(position as i64)
    .fetch_optional(&mut **tx)
    .await?;
    if written.is_some() {
        return Ok(());
    }
    let owner: ServerId = sqlx::query_scalar("SELECT server_id FROM entry_points WHERE id = $1")
        .bind(&entry_point.id)
        .fetch_one(&mut **tx)
        .await?;
    Err(Clash::EntryPoint {
        id: &entry_point.id,
        owner,
    }
    .into())
}

/// Rows per multi-row statement. Five values a row keeps each statement
/// far below both backends' bound-parameter limits (SQLite 32,766,
/// PostgreSQL 65,535), and the statement texts few (one per chunk size).
const ROWS_PER_STATEMENT: usize = 500;

/// `($1, $2, $3), ($4, $5, $6)`: `rows` groups of `width` placeholders.
fn value_rows(rows: usize, width: usize) -> String {
    (0..rows)
        .map(|row| {
            let cells: Vec<String> = (1..=width)
                .map(|c| format!("${}", row * width + c))
                .collect();
            format!("({})", cells.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A user's row as written: what the document gives, tokens generated for
/// a new user that has none, secrets sealed.
struct UserRow<'a> {
    user: &'a User,
    generated: Option<String>,
    token_hash: Option<TokenHash>,
    sealed_token: Option<String>,
    credential: Option<String>,
}

impl<'a> UserRow<'a> {
    fn new(sealed: &SealedColumns, user: &'a User, exists: bool) -> Result<Self, StoreError> {
        let generated = (user.sub_token.is_none() && !exists).then(new_token);
        let token = user.sub_token.as_deref().or(generated.as_deref());
        let credential = match (&user.credential, exists) {
            (Some(given), _) => Some(given.clone()),
            (None, false) => Some(uuid::Uuid::new_v4().to_string()),
            (None, true) => None,
        };
        Ok(Self {
            user,
            token_hash: token.map(TokenHash::of),
            sealed_token: token.map(|t| sealed.seal(&user.id, t)).transpose()?,
            credential: credential
                .map(|c| sealed.seal_credential(&user.id, &c))
                .transpose()?,
            generated,
        })
    }
}

/// Upserts a chunk of users and replaces their route lists, a statement
/// for many rows at a time: the stored ones found in one query, the new
/// ones inserted together. Returns the subscription tokens generated for
/// new users the document gives none.
async fn upsert_users(
    tx: &mut Tx,
    sealed: &SealedColumns,
    users: &[User],
) -> Result<Vec<(UserId, String)>, StoreError> {
    let ids: Vec<&UserId> = users.iter().map(|u| &u.id).collect();
    let sql = format!(
        "SELECT id FROM users WHERE id IN {}",
        value_rows(1, ids.len())
    );
    let mut query = sqlx::query_scalar::<_, UserId>(&sql);
    for id in &ids {
        query = query.bind(*id);
    }
    let stored: HashSet<UserId> = query.fetch_all(&mut **tx).await?.into_iter().collect();
    let mut new_rows = Vec::new();
    let mut generated = Vec::new();
    for user in users {
        let exists = stored.contains(&user.id);
        let row = UserRow::new(sealed, user, exists)?;
        if let Some(token) = &row.generated {
            generated.push((user.id.clone(), token.clone()));
        }
        if exists {
            update_user(tx, &row).await?;
        } else {
            new_rows.push(row);
        }
    }
    insert_users(tx, &new_rows).await?;
    replace_user_routes(tx, users).await?;
    Ok(generated)
}

async fn update_user(tx: &mut Tx, row: &UserRow<'_>) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE users SET name = $1, sub_token_hash = COALESCE($2, sub_token_hash),
            sub_token = COALESCE($3, sub_token), credential = COALESCE($4, credential)
         WHERE id = $5",
    )
    .bind(&row.user.name)
    .bind(row.token_hash.as_ref().map(TokenHash::as_str))
    .bind(&row.sealed_token)
    .bind(&row.credential)
    .bind(&row.user.id)
    .execute(&mut **tx)
    .await
    .map_err(|err| clash_or(err, Clash::SubToken(&row.user.id)))?;
    Ok(())
}

/// The new users, many rows to a statement. A statement that clashes is
/// undone (its savepoint) and its rows written one by one, so the error
/// names the user whose token is another's.
async fn insert_users(tx: &mut Tx, rows: &[UserRow<'_>]) -> Result<(), StoreError> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut savepoint = sqlx::Acquire::begin(&mut **tx).await?;
    if insert_user_rows(&mut savepoint, rows).await.is_ok() {
        savepoint.commit().await?;
        return Ok(());
    }
    savepoint.rollback().await?;
    for row in rows {
        insert_user_rows(tx, std::slice::from_ref(row))
            .await
            .map_err(|err| clash_or(err, Clash::SubToken(&row.user.id)))?;
    }
    Ok(())
}

/// One statement inserting `rows`.
async fn insert_user_rows(
    connection: &mut <Tx as std::ops::Deref>::Target,
    rows: &[UserRow<'_>],
) -> Result<(), sqlx::Error> {
    let sql = format!(
        "INSERT INTO users (id, name, sub_token_hash, sub_token, credential) VALUES {}",
        value_rows(rows.len(), 5)
    );
    let mut query = sqlx::query(&sql);
    for row in rows {
        query = query
            .bind(&row.user.id)
            .bind(&row.user.name)
            .bind(row.token_hash.as_ref().map(TokenHash::as_str))
            .bind(&row.sealed_token)
            .bind(&row.credential);
    }
    query.execute(connection).await.map(drop)
}

/// The users' route lists, replaced: one delete, then the new lists many
/// rows to a statement.
async fn replace_user_routes(tx: &mut Tx, users: &[User]) -> Result<(), StoreError> {
    let sql = format!(
        "DELETE FROM user_routes WHERE user_id IN {}",
        value_rows(1, users.len())
    );
    let mut delete = sqlx::query(&sql);
    for user in users {
        delete = delete.bind(&user.id);
    }
    delete.execute(&mut **tx).await?;
    let rows: Vec<(&UserId, &RouteId, i64)> = users
        .iter()
        .flat_map(|u| {
            u.routes
                .iter()
                .enumerate()
                .map(move |(position, route)| (&u.id, route, position as i64))
        })
        .collect();
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO user_routes (user_id, route_id, position) VALUES {}",
            value_rows(chunk.len(), 3)
        );
        let mut insert = sqlx::query(&sql);
        for (user, route, position) in chunk {
            insert = insert.bind(*user).bind(*route).bind(*position);
        }
        insert.execute(&mut **tx).await?;
    }
    Ok(())
}

async fn remove_servers(tx: &mut Tx, servers: &[ServerId]) -> Result<(), StoreError> {
    for (at, id) in servers.iter().enumerate() {
        if !remove_server_in(tx, id).await? {
            return Err(Clash::NoServer { at, id }.into());
        }
    }
    Ok(())
}

async fn remove_users(tx: &mut Tx, users: &[UserId]) -> Result<(), StoreError> {
    for (at, id) in users.iter().enumerate() {
        let removed = sqlx::query("DELETE FROM users WHERE id = $1")
            .bind(id)
            .execute(&mut **tx)
            .await?
            .rows_affected();
        if removed == 0 {
            return Err(Clash::NoUser { at, id }.into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::{Connection, SqliteConnection};

    fn server(id: &str) -> ServerId {
        ServerId::parse(id).expect("a server id")
    }

    /// The error of a statement that violates `constraint` (or of one
    /// that fails otherwise, for `None`).
    async fn failed(constraint: Option<&str>) -> sqlx::Error {
        let mut conn = SqliteConnection::connect("sqlite::memory:")
            .await
            .expect("opens");
        sqlx::query(
            "PRAGMA foreign_keys = ON;
             CREATE TABLE parent (id TEXT PRIMARY KEY);
             CREATE TABLE child (token TEXT UNIQUE, parent TEXT REFERENCES parent(id));
             INSERT INTO child (token) VALUES ('taken');",
        )
        .execute(&mut conn)
        .await
        .expect("set up");
        let sql = match constraint {
            Some("unique") => "INSERT INTO child (token) VALUES ('taken')",
            Some(_) => "INSERT INTO child (parent) VALUES ('nobody')",
            None => "INSERT INTO nowhere VALUES (1)",
        };
        sqlx::query(sql)
            .execute(&mut conn)
            .await
            .expect_err("fails")
    }

    fn conflict(err: StoreError) -> (&'static str, String) {
        match err {
            StoreError::Conflict { code, message } | StoreError::Rejected { code, message } => {
                (code, message)
            }
            other => panic!("not a clash: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_violated_unique_or_foreign_key_constraint_is_the_clash() {
        let id = server("de-1");
        for constraint in ["unique", "foreign key"] {
            let err = clash_or(failed(Some(constraint)).await, Clash::AgentToken(&id));
            assert!(matches!(err, StoreError::Conflict { .. }), "{constraint}");
            assert_eq!(
                conflict(err),
                (
                    "token_conflict",
                    r#"servers: the agent_token of "de-1" is already used by another server"#
                        .to_owned()
                ),
                "{constraint}"
            );
        }
    }

    #[tokio::test]
    async fn any_other_failure_stays_a_database_error() {
        let id = server("de-1");
        let err = clash_or(failed(None).await, Clash::AgentToken(&id));
        assert!(matches!(err, StoreError::Database(_)), "{err:?}");
    }

    #[test]
    fn each_clash_keeps_its_code_and_words() {
        let (de1, nl1) = (server("de-1"), server("nl-1"));
        let user = UserId::parse("alice").expect("a user id");
        let entry_point = EntryPointId::parse("de-1-vless").expect("an entry point id");
        let cases: [(Clash, bool, &str, &str); 5] = [
            (
                Clash::SubToken(&user),
                true,
                "token_conflict",
                r#"users: the sub_token of "alice" is already used by another user"#,
            ),
            (
                Clash::EntryPoint {
                    id: &entry_point,
                    owner: de1.clone(),
                },
                true,
                "entry_point_conflict",
                r#"entry point "de-1-vless" belongs to server "de-1"; ids are unique across the fleet"#,
            ),
            (
                Clash::NoServer { at: 1, id: &nl1 },
                false,
                "unknown_id",
                r#"remove.servers[1]: no server "nl-1""#,
            ),
            (
                Clash::NoUser { at: 0, id: &user },
                false,
                "unknown_id",
                r#"remove.users[0]: no user "alice""#,
            ),
            (
                Clash::UnknownRoute(FleetError {
                    code: "unknown_route",
                    message: "servers[0].routes: route \"xx\" is not defined".into(),
                }),
                false,
                "unknown_route",
                "servers[0].routes: route \"xx\" is not defined",
            ),
        ];
        for (clash, is_conflict, code, message) in cases {
            let err = StoreError::from(clash);
            assert_eq!(
                matches!(err, StoreError::Conflict { .. }),
                is_conflict,
                "{code}"
            );
            assert_eq!(conflict(err), (code, message.to_owned()));
        }
    }
}
