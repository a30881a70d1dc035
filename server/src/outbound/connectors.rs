//! Connected panels (docs/PRODUCT.md §7): meshwatch's rotation applied in the
//! panel an operator already runs, through that panel's own API. What to
//! change is decided by [`meshwatch::connectors::plan`]; each module here
//! speaks one panel's API, and [`Syncer`] carries the plan out.

mod http;
pub mod import;
mod marzban;
mod marzneshin;
mod pasarguard;
mod remnawave;
mod sign_in;
mod sync;
mod three_x_ui;

pub use http::PanelError;
pub use sync::{Rotation, Syncer};

use meshwatch::connectors::{ExternalHost, ExternalNode, PanelKind};
use serde_json::Value;

/// An Xray inbound's `port` as the panels that pass its config on give it:
/// a number, or a string holding one. A list or a range ("8080,8443",
/// "1000-2000") is `None`: such a host matches no entry point.
fn inbound_port(port: &Value) -> Option<u16> {
    match port {
        Value::Number(n) => u16::try_from(n.as_u64()?).ok(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The SNI a host sends, when it names exactly one (a string, or a list of
/// one); a list to pick from, a wildcard or none is `None`.
fn single_sni(sni: &Value) -> Option<String> {
    let one = match sni {
        Value::String(s) => s.as_str(),
        Value::Array(list) if list.len() == 1 => list[0].as_str()?,
        _ => return None,
    };
    let one = one.trim();
    (!one.is_empty() && !one.contains(['*', ',', ' ', '{'])).then(|| one.to_owned())
}

/// A node as a panel lists it in JSON (`name`, `address`), under the id the
/// panel's hosts name it by; `None` when a field is missing.
fn json_node(node: &Value, external_id: Option<String>) -> Option<ExternalNode> {
    Some(ExternalNode {
        external_id: external_id?,
        name: node["name"].as_str()?.to_owned(),
        address: node["address"].as_str()?.to_owned(),
        country: None,
    })
}

/// A client of one connected panel.
pub enum Panel {
    Remnawave(remnawave::Remnawave),
    PasarGuard(pasarguard::PasarGuard),
    Marzneshin(marzneshin::Marzneshin),
    Marzban(marzban::Marzban),
    ThreeXUi(three_x_ui::ThreeXUi),
}

impl Panel {
    /// The client for a panel of `kind` at `url`, signing in with `token`.
    pub fn new(kind: PanelKind, url: &str, token: String) -> Result<Self, PanelError> {
        let http = http::PanelHttp::new(url)?;
        Ok(match kind {
            PanelKind::Remnawave => Self::Remnawave(remnawave::Remnawave::new(http, token)),
            PanelKind::PasarGuard => Self::PasarGuard(pasarguard::PasarGuard::new(http, &token)),
            PanelKind::Marzneshin => Self::Marzneshin(marzneshin::Marzneshin::new(http, &token)),
            PanelKind::Marzban => Self::Marzban(marzban::Marzban::new(http, &token)),
            PanelKind::ThreeXUi => Self::ThreeXUi(three_x_ui::ThreeXUi::new(http, token)),
        })
    }

    /// Every host the panel lists.
    pub async fn hosts(&self) -> Result<Vec<ExternalHost>, PanelError> {
        match self {
            Self::Remnawave(p) => p.hosts().await,
            Self::PasarGuard(p) => p.hosts().await,
            Self::Marzneshin(p) => p.hosts().await,
            Self::Marzban(p) => p.hosts().await,
            Self::ThreeXUi(p) => p.hosts().await,
        }
    }

    /// The panel's nodes, and its hosts with their protocol and node: what
    /// an import proposes a fleet from.
    pub async fn nodes_and_hosts(
        &self,
    ) -> Result<(Vec<ExternalNode>, Vec<ExternalHost>), PanelError> {
        match self {
            Self::Remnawave(p) => p.nodes_and_hosts().await,
            Self::PasarGuard(p) => p.nodes_and_hosts().await,
            Self::Marzneshin(p) => p.nodes_and_hosts().await,
            Self::Marzban(p) => p.nodes_and_hosts().await,
            Self::ThreeXUi(p) => p.nodes_and_hosts().await,
        }
    }

    /// Turns the hosts with these ids on (`true`) or off.
    pub async fn set_enabled(&self, ids: &[String], enabled: bool) -> Result<(), PanelError> {
        if ids.is_empty() {
            return Ok(());
        }
        match self {
            Self::Remnawave(p) => p.set_enabled(ids, enabled).await,
            Self::PasarGuard(p) => p.set_enabled(ids, enabled).await,
            Self::Marzneshin(p) => p.set_enabled(ids, enabled).await,
            Self::Marzban(p) => p.set_enabled(ids, enabled).await,
            Self::ThreeXUi(p) => p.set_enabled(ids, enabled).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::inbound_port;
    use serde_json::json;

    #[test]
    fn an_inbound_port_is_a_number_or_a_string_holding_one() {
        assert_eq!(inbound_port(&json!(443)), Some(443));
        assert_eq!(inbound_port(&json!(" 8443 ")), Some(8443));
        assert_eq!(inbound_port(&json!("8080,8443")), None);
        assert_eq!(inbound_port(&json!("1000-2000")), None);
        assert_eq!(inbound_port(&json!(70000)), None);
        assert_eq!(inbound_port(&json!(null)), None);
    }
}
