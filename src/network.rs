//! Verifiers per network (docs/PRODUCT.md §6): blocking differs by ISP, and
//! between mobile and home networks, within one country, so a verifier
//! may carry the name of the network it probes from ("MTS mobile"). R4 is
//! still judged per verifier; the label tells the operator *where* an
//! address is blocked and where it is still reached.

use crate::ids::ServerId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest network label, in characters.
pub const MAX_NETWORK_LABEL_CHARS: usize = 64;

/// A verifier's network as the operator names it: 1 to
/// [`MAX_NETWORK_LABEL_CHARS`] characters, no control characters, spaces
/// around it trimmed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct NetworkLabel(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetworkLabelError {
    #[error("the network label is empty")]
    Empty,
    #[error("the network label is longer than {MAX_NETWORK_LABEL_CHARS} characters")]
    TooLong,
    #[error("the network label contains a control character")]
    ControlCharacter,
}

impl NetworkLabel {
    pub fn parse(raw: &str) -> Result<NetworkLabel, NetworkLabelError> {
        let label = raw.trim();
        if label.is_empty() {
            Err(NetworkLabelError::Empty)
        } else if label.chars().count() > MAX_NETWORK_LABEL_CHARS {
            Err(NetworkLabelError::TooLong)
        } else if label.chars().any(char::is_control) {
            Err(NetworkLabelError::ControlCharacter)
        } else {
            Ok(NetworkLabel(label.to_owned()))
        }
    }

    /// An optional label as a form sends it: blank is none.
    pub fn parse_optional(raw: &str) -> Result<Option<NetworkLabel>, NetworkLabelError> {
        if raw.trim().is_empty() {
            Ok(None)
        } else {
            NetworkLabel::parse(raw).map(Some)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for NetworkLabel {
    type Error = NetworkLabelError;
    fn try_from(raw: String) -> Result<Self, Self::Error> {
        NetworkLabel::parse(&raw)
    }
}

impl From<NetworkLabel> for String {
    fn from(label: NetworkLabel) -> String {
        label.0
    }
}

impl fmt::Display for NetworkLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A verifier and the network it probes from: one entry of a server's
/// `blocked_on` (R4 holds for it) or `still_reached_by` list (docs/API.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerifierOnNetwork {
    pub verifier: ServerId,
    pub network: Option<NetworkLabel>,
}

/// A verifier's block of a server and the network it probes from: one
/// entry of a server's `blocked_on` (docs/API.md "Block kinds").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlockOnNetwork {
    pub verifier: ServerId,
    pub network: Option<NetworkLabel>,
    pub kind: crate::verdict::BlockKind,
    /// `protocol`: the transport whose entry points fail there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<crate::fleet::Transport>,
    /// `throttled`: bytes received before the transfers froze.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frozen_after_bytes: Option<u64>,
}

impl BlockOnNetwork {
    /// The verifier and its network, as the place lists name them.
    pub fn on_network(&self) -> VerifierOnNetwork {
        VerifierOnNetwork {
            verifier: self.verifier.clone(),
            network: self.network.clone(),
        }
    }
}

/// Where the verifiers in `list` probe from, as a note names it: each
/// one's network, or the verifier itself (`name`) when it has none; each
/// place once, in order.
pub fn places(list: &[VerifierOnNetwork], name: impl Fn(&ServerId) -> String) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in list {
        let place = v
            .network
            .as_ref()
            .map_or_else(|| name(&v.verifier), |n| n.to_string());
        if !out.contains(&place) {
            out.push(place);
        }
    }
    out
}

/// Where a server's block holds and where it is still reached, as notes
/// name them (each a network, or a verifier without one): only while it is
/// blocked and some verifier names its network.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockPlaces {
    pub blocked_on: Vec<String>,
    pub still_reached_from: Vec<String>,
}

impl BlockPlaces {
    /// `verdict`'s places; `name` names a verifier (by its mesh index)
    /// that names no network.
    pub fn of(
        mesh: &crate::mesh::Mesh,
        verdict: &crate::verdict::Verdict,
        name: impl Fn(usize) -> String,
    ) -> Option<BlockPlaces> {
        // Most servers are not blocked: they cost no lookup (the user
        // card and the subscription ask for every server they name).
        if verdict.blocked_by.is_empty() {
            return None;
        }
        let blocked_on = mesh.on_networks(&verdict.blocked_by);
        let reached = mesh.on_networks(&verdict.still_reached_by);
        if !any_named(&[&blocked_on, &reached]) {
            return None;
        }
        let name = |id: &ServerId| mesh.server_index(id).map_or_else(|| id.to_string(), &name);
        Some(BlockPlaces {
            blocked_on: places(&blocked_on, name),
            still_reached_from: places(&reached, name),
        })
    }
}

/// How many servers one network sees blocked: each blocked server counts
/// once for every network among the verifiers that see it (`None`: the
/// verifiers that name no network).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockedOnNetwork {
    pub network: Option<NetworkLabel>,
    pub servers: u32,
    /// Of those, how many per kind of block (§8), kinds in order; a
    /// server seen blocked in two ways there counts for each.
    #[serde(default)]
    pub kinds: Vec<(crate::verdict::BlockKind, u32)>,
}

/// The blocked servers among `servers` (indices into `mesh` and
/// `verdicts`), counted per network; the most blocked first, then by name.
/// Empty when nothing is blocked.
pub fn blocked_per_network(
    mesh: &crate::mesh::Mesh,
    verdicts: &[crate::verdict::Verdict],
    servers: impl IntoIterator<Item = usize>,
) -> Vec<BlockedOnNetwork> {
    let mut counts: std::collections::BTreeMap<Option<NetworkLabel>, u32> = Default::default();
    let mut kinds: std::collections::BTreeMap<
        (Option<NetworkLabel>, crate::verdict::BlockKind),
        u32,
    > = Default::default();
    for s in servers {
        let mut seen: Vec<(Option<NetworkLabel>, crate::verdict::BlockKind)> = mesh
            .blocks_on_networks(&verdicts[s].blocks)
            .into_iter()
            .filter(|b| b.kind.takes_out_of_rotation())
            .map(|b| (b.network, b.kind))
            .collect();
        seen.sort();
        seen.dedup();
        for key in seen {
            *kinds.entry(key).or_default() += 1;
        }
        let mut networks: Vec<Option<NetworkLabel>> = mesh
            .on_networks(&verdicts[s].blocked_by)
            .into_iter()
            .map(|v| v.network)
            .collect();
        networks.sort();
        networks.dedup();
        for network in networks {
            *counts.entry(network).or_default() += 1;
        }
    }
    let mut out: Vec<BlockedOnNetwork> = counts
        .into_iter()
        .map(|(network, servers)| BlockedOnNetwork {
            kinds: kinds
                .iter()
                .filter(|((n, _), _)| *n == network)
                .map(|((_, kind), count)| (*kind, *count))
                .collect(),
            network,
            servers,
        })
        .collect();
    // Named networks first, by count; the unnamed rest last.
    out.sort_by(|a, b| {
        (
            a.network.is_none(),
            std::cmp::Reverse(a.servers),
            &a.network,
        )
            .cmp(&(
                b.network.is_none(),
                std::cmp::Reverse(b.servers),
                &b.network,
            ))
    });
    out
}

/// Whether any verifier in the lists names its network: then notes say
/// where a block holds rather than which verifiers see it.
pub fn any_named(lists: &[&[VerifierOnNetwork]]) -> bool {
    lists.iter().any(|l| l.iter().any(|v| v.network.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_trimmed_and_bounded() {
        assert_eq!(
            NetworkLabel::parse("  MTS mobile ").map(|l| l.to_string()),
            Ok("MTS mobile".to_owned())
        );
        assert_eq!(NetworkLabel::parse(" "), Err(NetworkLabelError::Empty));
        let longest = "ы".repeat(MAX_NETWORK_LABEL_CHARS);
        assert!(
            NetworkLabel::parse(&longest).is_ok(),
            "counted in characters"
        );
        assert_eq!(
            NetworkLabel::parse(&format!("{longest}x")),
            Err(NetworkLabelError::TooLong)
        );
        assert_eq!(
            NetworkLabel::parse("MTS\nmobile"),
            Err(NetworkLabelError::ControlCharacter)
        );
        assert_eq!(NetworkLabel::parse_optional("  "), Ok(None));
    }

    #[test]
    fn places_are_networks_or_else_verifiers_each_once() {
        let on = |id: &str, network: Option<&str>| VerifierOnNetwork {
            verifier: ServerId::parse(id).expect("slug"),
            network: network.map(|n| NetworkLabel::parse(n).expect("label")),
        };
        let list = [
            on("ru-1", Some("MTS mobile")),
            on("ru-2", None),
            on("ru-3", Some("MTS mobile")),
        ];
        let named = places(&list, |id| format!("verifier {id}"));
        assert_eq!(named, ["MTS mobile", "verifier ru-2"]);
        assert!(any_named(&[&[], &list]));
        assert!(!any_named(&[&list[1..2]]));
    }

    #[test]
    fn a_label_is_json_text_and_checked_when_read() {
        let label = NetworkLabel::parse("Beeline").expect("valid");
        assert_eq!(serde_json::to_string(&label).expect("json"), "\"Beeline\"");
        assert!(serde_json::from_str::<NetworkLabel>("\"\"").is_err());
    }
}
