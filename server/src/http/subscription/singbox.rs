//! sing-box outbounds (`?format=singbox`), built as JSON values.

use super::links::ss_method;
use super::Endpoint;
use meshwatch::fleet::Protocol;
use serde_json::{json, Value};

fn tls(ep: &Endpoint) -> Value {
    json!({"enabled": true, "server_name": ep.sni.clone().unwrap_or_else(|| ep.host.clone()), "insecure": false})
}

/// A unique tag per outbound: apps key profiles by it.
fn tag(ep: &Endpoint) -> String {
    format!("{} ({})", ep.name, ep.id)
}

fn outbound(ep: &Endpoint, credential: &str) -> Value {
    let base = json!({"tag": tag(ep), "server": ep.host, "server_port": ep.port});
    let extra = match ep.protocol {
        Protocol::Vless => json!({"type": "vless", "uuid": credential, "tls": tls(ep)}),
        Protocol::Vmess => {
            json!({"type": "vmess", "uuid": credential, "security": "auto", "alter_id": 0, "tls": tls(ep)})
        }
        Protocol::Trojan => json!({"type": "trojan", "password": credential, "tls": tls(ep)}),
        Protocol::Shadowsocks => {
            json!({"type": "shadowsocks", "method": ss_method(ep), "password": credential})
        }
        Protocol::Hysteria2 => json!({"type": "hysteria2", "password": credential, "tls": tls(ep)}),
        Protocol::Tuic => json!({"type": "tuic", "uuid": credential, "password": credential,
                                 "congestion_control": "bbr", "tls": tls(ep)}),
    };
    let mut merged = base;
    if let (Some(m), Some(e)) = (merged.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    merged
}

pub fn document(endpoints: &[Endpoint], credential: &str) -> String {
    let mut outbounds: Vec<Value> = endpoints.iter().map(|e| outbound(e, credential)).collect();
    let tags: Vec<String> = endpoints.iter().map(tag).collect();
    outbounds.insert(
        0,
        json!({"type": "selector", "tag": "meshwatch", "outbounds": tags, "default": tags.first()}),
    );
    outbounds.push(json!({"type": "direct", "tag": "direct"}));
    json!({"outbounds": outbounds, "route": {"final": "meshwatch"}}).to_string()
}
