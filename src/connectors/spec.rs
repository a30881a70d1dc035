//! A connector as the operator gives it and as the API shows it.

use crate::{ConnectorId, EntryPointId, ServerId, ServerStatus};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Connectors a panel keeps (each syncs every minute).
pub const MAX_CONNECTORS: usize = 16;
/// Longest panel address.
pub const MAX_URL_LEN: usize = 2048;
/// Longest token (`username:password` for panels that sign admins in).
pub const MAX_TOKEN_LEN: usize = 4096;
/// Longest host tag.
pub const MAX_TAG_LEN: usize = 64;

/// The panel a connector speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum PanelKind {
    #[serde(rename = "remnawave")]
    Remnawave,
    #[serde(rename = "pasarguard")]
    PasarGuard,
    #[serde(rename = "marzneshin")]
    Marzneshin,
    #[serde(rename = "marzban")]
    Marzban,
    #[serde(rename = "3x-ui")]
    ThreeXUi,
}

impl PanelKind {
    pub const ALL: [Self; 5] = [
        Self::Remnawave,
        Self::PasarGuard,
        Self::Marzneshin,
        Self::Marzban,
        Self::ThreeXUi,
    ];

    /// The API's name of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Remnawave => "remnawave",
            Self::PasarGuard => "pasarguard",
            Self::Marzneshin => "marzneshin",
            Self::Marzban => "marzban",
            Self::ThreeXUi => "3x-ui",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == raw)
    }

    /// How the panel is named in sentences ("Hidden in Remnawave").
    pub fn display_name(self) -> &'static str {
        match self {
            Self::Remnawave => "Remnawave",
            Self::PasarGuard => "PasarGuard",
            Self::Marzneshin => "Marzneshin",
            Self::Marzban => "Marzban",
            Self::ThreeXUi => "3x-ui",
        }
    }

    /// Panels that sign admins in take `username:password` as the token;
    /// the others an API token they issued.
    pub fn signs_in(self) -> bool {
        matches!(self, Self::PasarGuard | Self::Marzneshin | Self::Marzban)
    }

    /// Marzban's hosts carry no tags (docs/API.md: `tag` must be null there).
    /// PasarGuard's and Marzneshin's carry none in the versions read
    /// either, but a panel that sends `tags` has them matched.
    pub fn has_host_tags(self) -> bool {
        !matches!(self, Self::Marzban)
    }
}

/// Whether a connector changes its panel or only says what it would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ConnectorMode {
    Apply,
    DryRun,
}

impl ConnectorMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Apply => "apply",
            Self::DryRun => "dry_run",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Apply, Self::DryRun]
            .into_iter()
            .find(|m| m.as_str() == raw)
    }
}

/// How a connector's last sync went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ConnectorState {
    Ok,
    Error,
    /// Deleted: turning back on what meshwatch turned off, then gone.
    Removing,
}

impl ConnectorState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Removing => "removing",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Ok, Self::Error, Self::Removing]
            .into_iter()
            .find(|s| s.as_str() == raw)
    }
}

/// `PUT /api/v1/connectors/{id}`'s body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ConnectorSpec {
    pub kind: String,
    pub url: String,
    pub token: String,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub mode: Option<String>,
}

/// Why a connector is refused (422 with `code`); nothing is stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConnectorSpecError {
    pub code: &'static str,
    pub message: String,
}

fn refuse(code: &'static str, message: impl Into<String>) -> ConnectorSpecError {
    ConnectorSpecError {
        code,
        message: message.into(),
    }
}

/// A connector checked: what the store keeps (the token sealed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedConnector {
    pub kind: PanelKind,
    /// Without a trailing `/`.
    pub url: String,
    pub token: String,
    pub tag: Option<String>,
    pub mode: ConnectorMode,
}

impl ConnectorSpec {
    /// Checks every field; `mode` defaults to `dry_run`, so a connector
    /// first shows what it would do.
    pub fn check(&self) -> Result<CheckedConnector, ConnectorSpecError> {
        let kind = PanelKind::parse(&self.kind).ok_or_else(|| {
            refuse(
                "invalid_kind",
                "kind: must be remnawave, pasarguard, marzneshin, marzban or 3x-ui",
            )
        })?;
        let url = self.url.trim_end_matches('/');
        let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
        let host_ok = url
            .split_once("://")
            .map(|(_, rest)| !rest.is_empty() && !rest.contains(char::is_whitespace))
            .unwrap_or(false);
        if !scheme_ok || !host_ok || url.len() > MAX_URL_LEN {
            return Err(refuse(
                "invalid_url",
                format!("url: must be an http(s) address of at most {MAX_URL_LEN} characters"),
            ));
        }
        let token = self.token.as_str();
        if token.is_empty() || token.len() > MAX_TOKEN_LEN || token.chars().any(char::is_control) {
            return Err(refuse(
                "invalid_token",
                format!("token: must be 1 to {MAX_TOKEN_LEN} characters"),
            ));
        }
        if kind.signs_in() && !token.contains(':') {
            return Err(refuse(
                "invalid_token",
                format!(
                    "token: {} signs admins in, so the token is username:password",
                    kind.display_name()
                ),
            ));
        }
        let tag = match self.tag.as_deref() {
            None => None,
            Some(_) if !kind.has_host_tags() => {
                return Err(refuse(
                    "tag_unsupported",
                    format!("tag: {} hosts carry no tags", kind.display_name()),
                ))
            }
            Some(tag) if tag.is_empty() || tag.len() > MAX_TAG_LEN => {
                return Err(refuse(
                    "invalid_tag",
                    format!("tag: must be 1 to {MAX_TAG_LEN} characters"),
                ))
            }
            Some(tag) => Some(tag.to_owned()),
        };
        let mode = match self.mode.as_deref() {
            None => ConnectorMode::DryRun,
            Some(raw) => ConnectorMode::parse(raw)
                .ok_or_else(|| refuse("invalid_mode", "mode: must be apply or dry_run"))?,
        };
        Ok(CheckedConnector {
            kind,
            url: url.to_owned(),
            token: token.to_owned(),
            tag,
            mode,
        })
    }
}

/// A host as the connected panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExternalHost {
    /// The panel's own id (for Marzban, tag|remark|address|port).
    pub external_id: String,
    pub remark: String,
    /// Where apps dial it: address and port (the host's, or its inbound's
    /// when it has none). Several where the panel allows that (PasarGuard's
    /// address list, a 3x-ui host group); none when no port is known (then
    /// it matches nothing). It matches when one of them does.
    pub endpoints: Vec<(String, u16)>,
    pub tags: Vec<String>,
    pub enabled: bool,
    /// Its inbound's protocol, when it is one meshwatch probes (import).
    #[serde(default)]
    pub protocol: Option<crate::fleet::Protocol>,
    /// The SNI apps send, when the host sets one (import).
    #[serde(default)]
    pub sni: Option<String>,
    /// The node the panel links it to, by the node's id (import).
    #[serde(default)]
    pub node: Option<String>,
}

/// A host meshwatch turned off, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnedOff {
    pub external_id: String,
    pub server_id: ServerId,
    pub entry_point_id: EntryPointId,
    /// The server's status when it was turned off.
    pub status: ServerStatus,
    pub since: DateTime<Utc>,
}

/// What `GET /api/v1/connectors` shows of one (docs/API.md). The token never.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConnectorView {
    pub id: ConnectorId,
    pub kind: PanelKind,
    pub url: String,
    pub tag: Option<String>,
    pub mode: ConnectorMode,
    /// Always `(hidden)`.
    pub token: String,
    pub state: ConnectorState,
    pub last_sync_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub hosts: Vec<super::MatchedHost>,
    pub pending: Vec<super::PendingChange>,
    /// The hosts meshwatch turned off: server, status, since.
    pub turned_off: Vec<TurnedOff>,
}

/// A connected panel that hides a server's hosts: the server card says
/// "Hidden in Remnawave (rw) since …".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HiddenIn {
    pub connector: ConnectorId,
    pub kind: PanelKind,
    pub since: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: &str, token: &str, tag: Option<&str>) -> ConnectorSpec {
        ConnectorSpec {
            kind: kind.into(),
            url: "http://127.0.0.1:3000/".into(),
            token: token.into(),
            tag: tag.map(str::to_owned),
            mode: None,
        }
    }

    #[test]
    fn a_new_connector_starts_in_dry_run_with_its_url_trimmed() {
        let checked = spec("remnawave", "tok", None).check().expect("valid");
        assert_eq!(checked.mode, ConnectorMode::DryRun);
        assert_eq!(checked.url, "http://127.0.0.1:3000");
    }

    #[test]
    fn each_refusal_has_its_code() {
        let code = |s: ConnectorSpec| s.check().expect_err("refused").code;
        assert_eq!(code(spec("xui", "t", None)), "invalid_kind");
        assert_eq!(code(spec("marzban", "no-colon", None)), "invalid_token");
        assert_eq!(code(spec("remnawave", "", None)), "invalid_token");
        assert_eq!(code(spec("marzban", "a:b", Some("T"))), "tag_unsupported");
        assert_eq!(code(spec("remnawave", "t", Some(""))), "invalid_tag");
        let mut bad_url = spec("remnawave", "t", None);
        bad_url.url = "ftp://panel".into();
        assert_eq!(code(bad_url), "invalid_url");
        let mut bad_mode = spec("remnawave", "t", None);
        bad_mode.mode = Some("maybe".into());
        assert_eq!(code(bad_mode), "invalid_mode");
    }

    #[test]
    fn only_marzban_refuses_a_tag() {
        for kind in PanelKind::ALL {
            let token = if kind.signs_in() { "a:b" } else { "t" };
            let checked = spec(kind.as_str(), token, Some("MESHWATCH")).check();
            assert_eq!(checked.is_ok(), kind != PanelKind::Marzban, "{kind:?}");
        }
    }

    #[test]
    fn kinds_and_modes_read_back_as_the_api_names_them() {
        for kind in PanelKind::ALL {
            assert_eq!(PanelKind::parse(kind.as_str()), Some(kind));
            let json = serde_json::to_string(&kind).expect("json");
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
        assert_eq!(
            serde_json::to_string(&ConnectorMode::DryRun).expect("json"),
            "\"dry_run\""
        );
    }
}
