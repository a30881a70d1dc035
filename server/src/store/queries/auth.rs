//! Operators, sessions and API tokens. Only hashes of secrets are stored.

use super::{Store, StoreError};
use crate::crypto::secrets::TokenHash;
use crate::store::types::OperatorCredentials;
use chrono::{DateTime, Utc};
use meshwatch::account::TokenScope;
use meshwatch_views::views::{ApiTokenView, OperatorView};

/// A live session: whose, and until when.
#[derive(sqlx::FromRow)]
struct SessionRow {
    username: String,
    expires_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct ApiTokenRow {
    name: String,
    scope: String,
    created_at: DateTime<Utc>,
}

impl TryFrom<ApiTokenRow> for ApiTokenView {
    type Error = StoreError;

    fn try_from(row: ApiTokenRow) -> Result<Self, StoreError> {
        Ok(ApiTokenView {
            name: row.name,
            scope: scope(&row.scope)?,
            created_at: row.created_at,
        })
    }
}

fn scope(raw: &str) -> Result<TokenScope, StoreError> {
    TokenScope::from_wire(raw).ok_or_else(|| super::corrupt("token scope", raw))
}

impl Store {
    /// Creates the operator, or replaces the password of an existing one.
    /// Returns whether the operator is new.
    pub async fn upsert_operator(
        &self,
        username: &str,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let existed = sqlx::query_scalar::<_, i32>("SELECT 1 FROM operators WHERE username = $1")
            .bind(username)
            .fetch_optional(&mut *tx)
            .await?
            .is_some();
        sqlx::query(
            "INSERT INTO operators (username, password_hash, created_at) VALUES ($1, $2, $3)
             ON CONFLICT(username) DO UPDATE SET password_hash = excluded.password_hash",
        )
        .bind(username)
        .bind(password_hash)
        .bind(Utc::now())
        .execute(&mut *tx)
        .await?;
        if existed {
            // A new password ends every session opened with the old one.
            sqlx::query(
                "DELETE FROM sessions WHERE operator_id = (SELECT id FROM operators WHERE username = $1)",
            )
            .bind(username)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(!existed)
    }

    pub async fn operator_credentials(
        &self,
        username: &str,
    ) -> Result<Option<OperatorCredentials>, StoreError> {
        Ok(sqlx::query_as::<_, OperatorCredentials>(
            "SELECT id, password_hash FROM operators WHERE username = $1",
        )
        .bind(username)
        .fetch_optional(&self.reader)
        .await?)
    }

    pub async fn create_session(
        &self,
        operator_id: i64,
        token: &TokenHash,
        expires_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        let now = Utc::now();
        // Housekeeping rides along with sign-ins rather than needing a timer.
        sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO sessions (token_hash, operator_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(token.as_str())
        .bind(operator_id)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The operator of a live session and when the session expires.
    pub async fn session(
        &self,
        token: &TokenHash,
        now: DateTime<Utc>,
    ) -> Result<Option<(OperatorView, DateTime<Utc>)>, StoreError> {
        let row = sqlx::query_as::<_, SessionRow>(
            "SELECT o.username, s.expires_at FROM sessions s JOIN operators o ON o.id = s.operator_id
             WHERE s.token_hash = $1 AND s.expires_at > $2",
        )
        .bind(token.as_str())
        .bind(now)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|row| {
            let operator = OperatorView {
                username: row.username,
            };
            (operator, row.expires_at)
        }))
    }

    pub async fn delete_session(&self, token: &TokenHash) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores (or re-keys) the named operator API token, of `scope`.
    pub async fn upsert_api_token(
        &self,
        name: &str,
        token: &TokenHash,
        scope: TokenScope,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO api_tokens (name, token_hash, created_at, scope) VALUES ($1, $2, $3, $4)
             ON CONFLICT(name) DO UPDATE SET token_hash = excluded.token_hash, scope = excluded.scope",
        )
        .bind(name)
        .bind(token.as_str())
        .bind(Utc::now())
        .bind(scope.as_str())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn api_token_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM api_tokens")
            .fetch_one(&self.reader)
            .await?)
    }

    /// The scope of the operator API token with this hash, if one exists.
    /// Agent tokens live in another table and never match here.
    pub async fn api_token_scope(
        &self,
        token: &TokenHash,
    ) -> Result<Option<TokenScope>, StoreError> {
        sqlx::query_scalar::<_, String>("SELECT scope FROM api_tokens WHERE token_hash = $1")
            .bind(token.as_str())
            .fetch_optional(&self.reader)
            .await?
            .map(|raw| scope(&raw))
            .transpose()
    }
}

impl Store {
    /// Replaces an operator's password, ends every other session of
    /// theirs and revokes the API tokens their sessions created: whoever
    /// knew the old password is signed out and loses what they made with
    /// it; the operator who changed it stays signed in. Returns the names
    /// of the tokens revoked.
    pub async fn change_password(
        &self,
        operator_id: i64,
        password_hash: &str,
        keep: &TokenHash,
    ) -> Result<Vec<String>, StoreError> {
        let mut tx = self.write().await?;
        let revoked: Vec<String> =
            sqlx::query_scalar("DELETE FROM api_tokens WHERE created_by = $1 RETURNING name")
                .bind(operator_id)
                .fetch_all(&mut *tx)
                .await?;
        sqlx::query("UPDATE operators SET password_hash = $1 WHERE id = $2")
            .bind(password_hash)
            .bind(operator_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE operator_id = $1 AND token_hash <> $2")
            .bind(operator_id)
            .bind(keep.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(revoked)
    }

    /// The operator API tokens by name (their secrets are not kept).
    pub async fn api_tokens(&self) -> Result<Vec<ApiTokenView>, StoreError> {
        sqlx::query_as::<_, ApiTokenRow>(
            "SELECT name, scope, created_at FROM api_tokens ORDER BY name",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(ApiTokenView::try_from)
        .collect()
    }

    /// Stores a new named token; false (and nothing written) when the name
    /// is taken, so a typo never re-keys a token scripts depend on.
    pub async fn create_api_token(
        &self,
        name: &str,
        token: &TokenHash,
        scope: TokenScope,
        created_by: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let created = sqlx::query(
            "INSERT INTO api_tokens (name, token_hash, created_at, scope, created_by)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT(name) DO NOTHING",
        )
        .bind(name)
        .bind(token.as_str())
        .bind(Utc::now())
        .bind(scope.as_str())
        .bind(created_by)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(created)
    }

    /// Deletes a token; false when no token has that name.
    pub async fn revoke_api_token(&self, name: &str) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let gone = sqlx::query("DELETE FROM api_tokens WHERE name = $1")
            .bind(name)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(gone)
    }
}
