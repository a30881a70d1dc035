//! Panels that sign admins in (PasarGuard, Marzneshin, Marzban): the
//! connector's token is `username:password`; meshwatch signs in with the
//! OAuth2 password form, keeps the access token for the next syncs, and
//! signs in again once when a call is refused with 401 (the panels have
//! no refresh endpoint; their tokens last a day by default).

use super::http::{Answer, PanelError, PanelHttp};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::Deserialize;
use tokio::sync::Mutex;

pub struct SignedIn {
    http: PanelHttp,
    /// `POST` here with the form signs in (`/api/admin/token`).
    token_path: &'static str,
    username: String,
    password: String,
    access: Mutex<Option<String>>,
}

#[derive(Deserialize)]
struct Token {
    access_token: String,
}

impl SignedIn {
    /// `credentials` is `username:password` (checked when the connector
    /// was saved: the first `:` splits them).
    pub fn new(http: PanelHttp, token_path: &'static str, credentials: &str) -> Self {
        let (username, password) = credentials.split_once(':').unwrap_or((credentials, ""));
        Self {
            http,
            token_path,
            username: username.to_owned(),
            password: password.to_owned(),
            access: Mutex::new(None),
        }
    }

    async fn sign_in(&self) -> Result<String, PanelError> {
        let call = format!("POST {}", self.token_path);
        let form = [
            ("grant_type", "password"),
            ("username", self.username.as_str()),
            ("password", self.password.as_str()),
        ];
        let answer = self
            .http
            .send(
                &call,
                self.http.request(Method::POST, self.token_path).form(&form),
            )
            .await
            .map_err(|e| match e.status() {
                Some(StatusCode::UNAUTHORIZED) => PanelError::new(format!(
                    "{call}: the panel refused the username or password (HTTP 401)"
                )),
                _ => e,
            })?;
        let token: Token = answer.json()?;
        Ok(token.access_token)
    }

    /// Sends the request `build` makes with the access token, signing in
    /// first if there is none and again once if the panel answers 401.
    pub async fn send(
        &self,
        call: &str,
        build: impl Fn() -> RequestBuilder,
    ) -> Result<Answer, PanelError> {
        let mut access = self.access.lock().await;
        let fresh = access.is_none();
        if fresh {
            *access = Some(self.sign_in().await?);
        }
        let token = access.clone().unwrap_or_default();
        match self.http.send(call, build().bearer_auth(&token)).await {
            Err(e) if e.status() == Some(StatusCode::UNAUTHORIZED) && !fresh => {
                let token = self.sign_in().await?;
                *access = Some(token.clone());
                self.http.send(call, build().bearer_auth(&token)).await
            }
            other => other,
        }
    }

    pub fn http(&self) -> &PanelHttp {
        &self.http
    }
}
