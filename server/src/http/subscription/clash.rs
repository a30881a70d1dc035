//! Clash.Meta / mihomo YAML (`?format=clash`), serialised with serde.

use super::links::ss_method;
use super::Endpoint;
use crate::http::api::ApiError;
use axum::http::StatusCode;
use meshwatch::fleet::Protocol;
use serde::Serialize;

#[derive(Serialize)]
struct Proxy {
    name: String,
    #[serde(rename = "type")]
    kind: &'static str,
    server: String,
    port: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    uuid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    password: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cipher: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    servername: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sni: Option<String>,
    udp: bool,
}

#[derive(Serialize)]
struct Group {
    name: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    proxies: Vec<String>,
}

#[derive(Serialize)]
struct Document {
    proxies: Vec<Proxy>,
    #[serde(rename = "proxy-groups")]
    proxy_groups: Vec<Group>,
    rules: Vec<&'static str>,
}

fn proxy(ep: &Endpoint, credential: &str) -> Proxy {
    let name = format!("{} ({})", ep.name, ep.id);
    let sni = ep.sni.clone();
    let mut p = Proxy {
        name,
        kind: "vless",
        server: ep.host.clone(),
        port: ep.port,
        uuid: None,
        password: None,
        cipher: None,
        tls: None,
        servername: None,
        sni: None,
        udp: true,
    };
    match ep.protocol {
        Protocol::Vless | Protocol::Vmess => {
            p.kind = if ep.protocol == Protocol::Vless {
                "vless"
            } else {
                "vmess"
            };
            p.uuid = Some(credential.to_owned());
            p.tls = Some(true);
            p.servername = sni;
            if ep.protocol == Protocol::Vmess {
                p.cipher = Some("auto".to_owned());
            }
        }
        Protocol::Trojan => {
            p.kind = "trojan";
            p.password = Some(credential.to_owned());
            p.sni = sni;
        }
        Protocol::Shadowsocks => {
            p.kind = "ss";
            p.password = Some(credential.to_owned());
            p.cipher = Some(ss_method(ep));
        }
        Protocol::Hysteria2 => {
            p.kind = "hysteria2";
            p.password = Some(credential.to_owned());
            p.sni = sni;
        }
        Protocol::Tuic => {
            p.kind = "tuic";
            p.uuid = Some(credential.to_owned());
            p.password = Some(credential.to_owned());
            p.sni = sni;
        }
    }
    p
}

pub fn document(endpoints: &[Endpoint], credential: &str) -> Result<String, ApiError> {
    let proxies: Vec<Proxy> = endpoints.iter().map(|e| proxy(e, credential)).collect();
    let names = proxies.iter().map(|p| p.name.clone()).collect();
    let doc = Document {
        proxies,
        proxy_groups: vec![Group {
            name: "meshwatch",
            kind: "select",
            proxies: names,
        }],
        rules: vec!["MATCH,meshwatch"],
    };
    serde_yaml_ng::to_string(&doc).map_err(|e| {
        tracing::error!(error = %e, "cannot write Clash YAML");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "cannot write the subscription",
        )
    })
}
