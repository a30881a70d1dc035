//! Share links (`vless://`, `vmess://`, `trojan://`, `ss://`,
//! `hysteria2://`, `tuic://`) as v2rayN, v2rayNG, Hiddify and Streisand read
//! them.

use super::Endpoint;
use base64::Engine as _;
use meshwatch::fleet::Protocol;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Everything but unreserved characters (RFC 3986) is escaped.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn enc(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// A param's value as link text (strings as they are, others as JSON).
fn param_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `host` as it goes into a URL authority (IPv6 in brackets).
fn authority(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Query string from defaults overridden by the entry point's params.
fn query(ep: &Endpoint, defaults: &[(&str, String)]) -> String {
    let mut pairs: Vec<(String, String)> = defaults
        .iter()
        .filter(|(k, _)| !ep.params.contains_key(*k))
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    pairs.extend(
        ep.params
            .iter()
            .filter(|(k, _)| k.as_str() != "method")
            .map(|(k, v)| (k.clone(), param_text(v))),
    );
    pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn tls_defaults(ep: &Endpoint) -> Vec<(&'static str, String)> {
    vec![
        ("security", "tls".to_owned()),
        ("sni", ep.sni.clone().unwrap_or_default()),
    ]
}

/// The Shadowsocks cipher: `params.method`, else a modern AEAD default.
pub fn ss_method(ep: &Endpoint) -> String {
    ep.params
        .get("method")
        .map(param_text)
        .unwrap_or_else(|| "chacha20-ietf-poly1305".to_owned())
}

pub fn share_link(ep: &Endpoint, credential: &str) -> String {
    let name = enc(&ep.name);
    let at = authority(&ep.host, ep.port);
    match ep.protocol {
        Protocol::Vless => {
            let mut defaults = vec![
                ("encryption", "none".to_owned()),
                ("type", "tcp".to_owned()),
            ];
            defaults.extend(tls_defaults(ep));
            format!(
                "vless://{}@{at}?{}#{name}",
                enc(credential),
                query(ep, &defaults)
            )
        }
        Protocol::Trojan => format!(
            "trojan://{}@{at}?{}#{name}",
            enc(credential),
            query(ep, &tls_defaults(ep))
        ),
        Protocol::Hysteria2 => format!(
            "hysteria2://{}@{at}?{}#{name}",
            enc(credential),
            query(ep, &[("sni", ep.sni.clone().unwrap_or_default())])
        ),
        Protocol::Tuic => format!(
            "tuic://{}:{}@{at}?{}#{name}",
            enc(credential),
            enc(credential),
            query(
                ep,
                &[
                    ("sni", ep.sni.clone().unwrap_or_default()),
                    ("congestion_control", "bbr".to_owned()),
                    ("alpn", "h3".to_owned()),
                ]
            )
        ),
        Protocol::Shadowsocks => {
            let user_info = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(format!("{}:{credential}", ss_method(ep)));
            format!("ss://{user_info}@{at}#{name}")
        }
        Protocol::Vmess => {
            // v2rayN's vmess format: base64 of a JSON object.
            let mut config = serde_json::json!({
                "v": "2", "ps": ep.name, "add": ep.host, "port": ep.port.to_string(),
                "id": credential, "aid": "0", "scy": "auto", "net": "tcp", "type": "none",
                "tls": "tls", "sni": ep.sni.clone().unwrap_or_default(),
            });
            if let Some(obj) = config.as_object_mut() {
                for (k, v) in &ep.params {
                    obj.insert(k.clone(), serde_json::Value::String(param_text(v)));
                }
            }
            format!(
                "vmess://{}",
                base64::engine::general_purpose::STANDARD.encode(config.to_string())
            )
        }
    }
}

pub fn all(endpoints: &[Endpoint], credential: &str) -> Vec<String> {
    endpoints
        .iter()
        .map(|e| share_link(e, credential))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ep(protocol: Protocol) -> Endpoint {
        Endpoint {
            id: meshwatch::EntryPointId::parse("de-1-x").expect("slug"),
            name: "Frankfurt 1".into(),
            protocol,
            host: "203.0.113.10".into(),
            port: 443,
            sni: Some("www.example.com".into()),
            params: serde_json::Map::new(),
        }
    }

    #[test]
    fn vless_links_carry_the_credential_tls_and_the_server_name() {
        let link = share_link(&ep(Protocol::Vless), "4f1c2a9e-0000-4000-8000-000000000001");
        assert_eq!(
            link,
            "vless://4f1c2a9e-0000-4000-8000-000000000001@203.0.113.10:443?encryption=none&type=tcp&security=tls&sni=www.example.com#Frankfurt%201"
        );
    }

    #[test]
    fn params_override_defaults_and_are_escaped() {
        let mut e = ep(Protocol::Vless);
        e.params.insert("security".into(), json!("reality"));
        e.params.insert("pbk".into(), json!("a+b/c="));
        let link = share_link(&e, "u");
        assert!(link.contains("security=reality"), "{link}");
        assert!(!link.contains("security=tls"), "{link}");
        assert!(link.contains("pbk=a%2Bb%2Fc%3D"), "{link}");
    }

    #[test]
    fn every_protocol_has_its_scheme() {
        for (protocol, scheme) in [
            (Protocol::Vless, "vless://"),
            (Protocol::Vmess, "vmess://"),
            (Protocol::Trojan, "trojan://"),
            (Protocol::Shadowsocks, "ss://"),
            (Protocol::Hysteria2, "hysteria2://"),
            (Protocol::Tuic, "tuic://"),
        ] {
            assert!(
                share_link(&ep(protocol), "secret").starts_with(scheme),
                "{protocol}"
            );
        }
    }

    #[test]
    fn shadowsocks_user_info_is_method_and_password_in_base64() {
        let link = share_link(&ep(Protocol::Shadowsocks), "pw");
        let encoded = link
            .trim_start_matches("ss://")
            .split('@')
            .next()
            .expect("user info");
        let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(encoded)
            .expect("base64");
        assert_eq!(decoded, b"chacha20-ietf-poly1305:pw");
    }

    #[test]
    fn ipv6_hosts_are_bracketed() {
        let mut e = ep(Protocol::Trojan);
        e.host = "2001:db8::1".into();
        assert!(share_link(&e, "pw").contains("@[2001:db8::1]:443?"));
    }
}
