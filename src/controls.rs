//! A verifier's control targets (docs/PRODUCT.md §8): a control SNI that
//! its network is known to reach, which tells SNI filtering apart from an
//! address block, and a few domestic addresses, which tell an allowlist
//! or a shutdown of its whole network apart from blocks of the fleet.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The most control addresses a verifier takes.
pub const MAX_CONTROLS: usize = 8;

/// The longest DNS name, in characters.
const MAX_HOSTNAME_CHARS: usize = 253;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("{0:?} is not a DNS name (letters, digits, hyphens and dots, at most 253 characters)")]
    NotAHostname(String),
    #[error("{0:?} is not host:port (a DNS name or an IP address, and a port from 1 to 65535)")]
    NotAnAddress(String),
    #[error("at most {MAX_CONTROLS} control addresses")]
    TooMany,
}

/// The SNI a verifier retries a failed handshake with: a DNS name, kept in
/// lower case.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ControlSni(String);

impl ControlSni {
    pub fn parse(raw: &str) -> Result<Self, ControlError> {
        let name = raw.trim().trim_end_matches('.').to_ascii_lowercase();
        if is_hostname(&name) {
            Ok(ControlSni(name))
        } else {
            Err(ControlError::NotAHostname(raw.to_owned()))
        }
    }

    /// An optional control SNI as a form or a document sends it: blank
    /// is none (it clears a stored one).
    pub fn parse_optional(raw: &str) -> Result<Option<Self>, ControlError> {
        if raw.trim().is_empty() {
            Ok(None)
        } else {
            Self::parse(raw).map(Some)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn is_hostname(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_HOSTNAME_CHARS
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// One domestic control address, `host:port` (an IPv6 host in brackets).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ControlAddress {
    host: String,
    port: u16,
}

impl ControlAddress {
    pub fn parse(raw: &str) -> Result<Self, ControlError> {
        let bad = || ControlError::NotAnAddress(raw.to_owned());
        let (host, port) = raw.trim().rsplit_once(':').ok_or_else(bad)?;
        let port: u16 = port.parse().ok().filter(|p| *p > 0).ok_or_else(bad)?;
        let host = if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            v6.parse::<std::net::Ipv6Addr>().map_err(|_| bad())?;
            v6.to_owned()
        } else if host.parse::<std::net::Ipv4Addr>().is_ok() {
            host.to_owned()
        } else {
            ControlSni::parse(host).map_err(|_| bad())?.0
        };
        Ok(ControlAddress { host, port })
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn port(&self) -> u16 {
        self.port
    }
}

/// A verifier's control targets, as stored and shown.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ControlTargets {
    pub control_sni: Option<ControlSni>,
    pub controls: Vec<ControlAddress>,
}

impl ControlTargets {
    /// At most [`MAX_CONTROLS`] addresses, each valid, duplicates dropped.
    pub fn parse_controls(raw: &[String]) -> Result<Vec<ControlAddress>, ControlError> {
        if raw.len() > MAX_CONTROLS {
            return Err(ControlError::TooMany);
        }
        let mut out: Vec<ControlAddress> = Vec::with_capacity(raw.len());
        for r in raw {
            let address = ControlAddress::parse(r)?;
            if !out.contains(&address) {
                out.push(address);
            }
        }
        Ok(out)
    }
}

/// A change of a server's verifier mark; `None` keeps a field as it is
/// (`Some(None)` clears an optional one).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VerifierMark {
    pub enabled: bool,
    pub network: Option<Option<crate::network::NetworkLabel>>,
    pub control_sni: Option<Option<ControlSni>>,
    pub controls: Option<Vec<ControlAddress>>,
}

impl VerifierMark {
    /// On or off, and the network label; the control targets kept.
    pub fn toggle(enabled: bool, network: Option<Option<crate::network::NetworkLabel>>) -> Self {
        Self {
            enabled,
            network,
            ..Self::default()
        }
    }
}

macro_rules! string_newtype {
    ($t:ty) => {
        impl TryFrom<String> for $t {
            type Error = ControlError;
            fn try_from(raw: String) -> Result<Self, Self::Error> {
                <$t>::parse(&raw)
            }
        }
        impl From<$t> for String {
            fn from(value: $t) -> String {
                value.to_string()
            }
        }
    };
}
string_newtype!(ControlSni);
string_newtype!(ControlAddress);

impl fmt::Display for ControlSni {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for ControlAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_sni_is_a_dns_name_in_lower_case() {
        assert_eq!(
            ControlSni::parse(" Ya.RU. ").expect("name").as_str(),
            "ya.ru"
        );
        for bad in [
            "",
            "ya ru",
            "-ya.ru",
            "ya..ru",
            "ya.ru:443",
            &"a".repeat(254),
        ] {
            assert!(ControlSni::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_control_address_is_host_and_port() {
        for (raw, shown) in [
            ("ya.ru:443", "ya.ru:443"),
            ("77.88.55.242:443", "77.88.55.242:443"),
            ("[2a02:6b8::2:242]:443", "[2a02:6b8::2:242]:443"),
        ] {
            assert_eq!(ControlAddress::parse(raw).expect(raw).to_string(), shown);
        }
        for bad in [
            "ya.ru",
            "ya.ru:0",
            "ya.ru:65536",
            ":443",
            "2a02:6b8::2:242:443",
            "ya ru:443",
        ] {
            assert!(ControlAddress::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn at_most_eight_controls_and_each_once() {
        let nine: Vec<String> = (1..=9).map(|i| format!("10.0.0.{i}:443")).collect();
        assert_eq!(
            ControlTargets::parse_controls(&nine),
            Err(ControlError::TooMany)
        );
        let twice = ["ya.ru:443".to_owned(), "YA.ru:443".to_owned()];
        assert_eq!(
            ControlTargets::parse_controls(&twice).expect("valid").len(),
            1
        );
    }
}
