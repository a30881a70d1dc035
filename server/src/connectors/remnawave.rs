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
//! - `src/common/middlewares/proxy-check.middleware.ts`: outside development
//!   mode a request without `X-Forwarded-For` and `X-Forwarded-Proto: https`
//!   is dropped without an answer, so a connector calling the backend
//!   directly (beside meshwatch, not through its proxy) sends both.

use super::http::{PanelError, PanelHttp};
use meshwatch::connectors::ExternalHost;
use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

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

    pub async fn hosts(&self) -> Result<Vec<ExternalHost>, PanelError> {
        let call = "GET /api/hosts";
        let answer = self
            .http
            .send(call, self.request(Method::GET, "/api/hosts"))
            .await?;
        let hosts: Hosts = answer.json()?;
        Ok(hosts
            .response
            .into_iter()
            .map(|h| ExternalHost {
                external_id: h.uuid,
                remark: h.remark,
                endpoints: h.port.map(|p| (h.address, p)).into_iter().collect(),
                tags: h.tags.unwrap_or_else(|| h.tag.into_iter().collect()),
                enabled: !h.is_disabled,
            })
            .collect())
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
