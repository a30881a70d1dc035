//! A censor on loopback, built from real parts (PRODUCT.md §8): an
//! nftables table in the test's own network namespace drops a server's
//! SYNs and UDP (an address block), another's UDP (a blocked protocol) and
//! a third's packets past 16 KB of an answer (`ct reply bytes`: a freeze);
//! a small TLS-aware middlebox resets ClientHellos naming a fourth's SNI.
//! Real agents probe real TLS and QUIC listeners through them; only the
//! verifier's paths are censored, so the witnesses' paths are the control.
//!
//! The test re-runs itself in new user and network namespaces (`unshare
//! --user --map-root-user --net`, which needs no root on the host), where
//! it is root of its own network, with Debian's nftables and iproute2: the
//! namespaces and the table go with the process.

use crate::agent::get;
use crate::helpers::{spawn_app, ADMIN_TOKEN};
use crate::live_agents::agent_binary;
use meshwatch_agent::lab::{peeked_sni, LabListener, LabQuicListener, PathFilter};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const INNER: &str = "censor::inside_a_censored_network";
const SNI: &str = "www.example.com";
/// How long the kinds may take to show: the freeze needs two frozen
/// transfers of 5 s each after the first transfer round.
const WAIT: Duration = Duration::from_secs(90);

#[test]
fn a_censor_of_nftables_and_an_sni_middlebox_is_told_apart_kind_by_kind() {
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "--"])
        // The namespace reaches no cluster outside it: the panel in there
        // uses SQLite, whichever backend the suite runs on (the censor
        // has nothing to do with the database).
        .env_remove("MESHWATCH_TEST_POSTGRES_URL")
        .arg(exe)
        .args([
            "--exact",
            INNER,
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .output()
        .expect("unshare runs (Debian's util-linux)");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(said.contains(&format!("test {INNER} ... ok")), "{said}");
}

fn ip(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 70, last))
}

fn run(program: &str, args: &[&str], stdin: Option<&str>) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    if let Some(text) = stdin {
        std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), text.as_bytes())
            .expect("written");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("ends");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The SNI middlebox: forwards `listen` to `upstream`, and resets a
/// connection from `censored` whose ClientHello names `sni`.
async fn middlebox(listen: SocketAddr, upstream: SocketAddr, censored: IpAddr, sni: &'static str) {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .expect("middlebox binds");
    tokio::spawn(async move {
        while let Ok((mut client, peer)) = listener.accept().await {
            tokio::spawn(async move {
                if peer.ip() == censored && peeked_sni(&client).await.as_deref() == Some(sni) {
                    let _ = client.set_zero_linger();
                    return;
                }
                if let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
}

struct Agents(Vec<Child>);

impl Drop for Agents {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by a_censor_of_nftables_and_an_sni_middlebox_is_told_apart_kind_by_kind in its own network namespace"]
async fn inside_a_censored_network() {
    // A fresh namespace's loopback is down; at its 64 KB MTU a byte-count
    // freeze would swallow the whole answer rather than stop it at 16 KB.
    run("ip", &["link", "set", "lo", "mtu", "1500", "up"], None);
    run(
        "sysctl",
        &["-qw", "net.netfilter.nf_conntrack_acct=1"],
        None,
    );

    let app = spawn_app().await;
    let filter = PathFilter::new();
    // a1 witnesses, v1 verifies from the censored network; b-ip, b-sni,
    // b-proto (TLS and QUIC) and b-freeze are censored there.
    let ids = ["a1", "v1", "b-ip", "b-sni", "b-proto", "b-freeze"];
    let mut listeners = Vec::new();
    let mut addresses = HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        let at = SocketAddr::new(ip(i as u8 + 1), 4443);
        listeners.push(
            LabListener::spawn(at, filter.clone())
                .await
                .expect("listener"),
        );
        addresses.insert(*id, at);
    }
    let _quic = LabQuicListener::spawn(addresses["b-proto"], filter.clone())
        .await
        .expect("QUIC listener");
    let front = SocketAddr::new(ip(50), 4443);
    middlebox(front, addresses["b-sni"], ip(2), SNI).await;

    let (v, freeze) = (ip(2), addresses["b-freeze"]);
    let table = format!(
        "table inet censor {{
            chain output {{
                type filter hook output priority filter; policy accept;
                ip saddr {v} ip daddr {b_ip} tcp flags & (syn | ack) == syn drop
                ip saddr {v} ip daddr {b_ip} meta l4proto udp drop
                ip saddr {v} ip daddr {b_proto} meta l4proto udp drop
                ip saddr {f_ip} ip daddr {v} tcp sport {f_port} ct reply bytes > 16384 drop
            }}
        }}",
        b_ip = addresses["b-ip"].ip(),
        b_proto = addresses["b-proto"].ip(),
        f_ip = freeze.ip(),
        f_port = freeze.port(),
    );
    run("nft", &["-f", "-"], Some(&table));

    let settings = app
        .client
        .put(app.url("/api/v1/settings"))
        .bearer_auth(ADMIN_TOKEN)
        .json(
            &json!({"report_interval_s": 1, "probe_interval_s": 1, "probe_timeout_s": 1,
                      "stale_after_s": 15, "failure_streak": 2, "quorum": 2}),
        )
        .send()
        .await
        .expect("settings");
    assert_eq!(settings.status(), 200);
    let entry = |id: &str, protocol: &str, at: SocketAddr| {
        json!({"id": format!("{id}-{protocol}"), "protocol": protocol, "host": at.ip().to_string(),
               "port": at.port(), "sni": SNI, "params": {"transfer_path": "/big.bin"}})
    };
    let servers: Vec<Value> = ids
        .iter()
        .map(|id| {
            let at = if *id == "b-sni" { front } else { addresses[id] };
            let mut eps = vec![entry(id, "vless", at)];
            if *id == "b-proto" {
                eps.push(entry(id, "hysteria2", at));
            }
            json!({"id": id, "name": id.to_uppercase(), "country": "NL", "routes": ["lab"],
                   "verifier": *id == "v1", "entry_points": eps})
        })
        .collect();
    let put: Value = app
        .put_fleet(&json!({"routes": [{"id": "lab", "name": "Lab"}], "servers": servers}))
        .await
        .json()
        .await
        .expect("fleet");
    let tokens: HashMap<String, String> =
        serde_json::from_value(put["agent_tokens"].clone()).expect("tokens");
    let marked = app
        .client
        .put(app.url("/api/v1/servers/v1/verifier"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"enabled": true, "network": "TSPU lab", "control_sni": "ya.ru"}))
        .send()
        .await
        .expect("verifier");
    assert_eq!(marked.status(), 200);

    let dir = tempfile::tempdir().expect("dir");
    let mut agents = Agents(Vec::new());
    for (i, id) in ids.iter().enumerate() {
        let config = dir.path().join(format!("{id}.toml"));
        std::fs::write(
            &config,
            format!(
                "panel_url = {:?}\ntoken = {:?}\nlistener = \"{}\"\nprobe_source = \"{}\"\n\
                 spool_dir = {:?}\nallow_private_targets = true\n[service]\ncommand = [\"true\"]\n",
                app.address,
                tokens[*id],
                addresses[id],
                ip(i as u8 + 1),
                dir.path().join(format!("{id}-spool")).display().to_string()
            ),
        )
        .expect("agent config");
        let log = std::fs::File::create(dir.path().join(format!("{id}.log"))).expect("log");
        agents.0.push(
            Command::new(agent_binary())
                .arg("--config")
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("agent starts"),
        );
    }

    let expected = [
        ("b-ip", "ip"),
        ("b-sni", "sni"),
        ("b-proto", "protocol"),
        ("b-freeze", "throttled"),
    ];
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let mut seen = Vec::new();
        for (id, _) in expected {
            let view = get(&app, &format!("/api/v1/servers/{id}")).await;
            let kinds: Vec<String> = view["blocked_on"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["kind"].as_str().map(str::to_owned))
                .collect();
            seen.push((id, kinds));
        }
        let done = expected
            .iter()
            .zip(&seen)
            .all(|((_, kind), (_, kinds))| kinds == &[kind.to_string()]);
        if done {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the kinds did not show within {WAIT:?}: {seen:?}\n{}",
            logs(dir.path(), &ids)
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let frozen = get(&app, "/api/v1/servers/b-freeze").await;
    let bytes = frozen["blocked_on"][0]["frozen_after_bytes"]
        .as_u64()
        .expect("bytes");
    assert!(
        (8 * 1024..=24 * 1024).contains(&bytes),
        "froze after about 16 KB: {bytes}"
    );
    assert_eq!(
        get(&app, "/api/v1/servers/b-proto").await["in_rotation"],
        true
    );

    // The control paths: every server is reached by the witness, and the
    // uncensored ones carry no verdict at all.
    for id in ["a1", "v1"] {
        let view = get(&app, &format!("/api/v1/servers/{id}")).await;
        assert_eq!(view["status"], "healthy", "{id}: {view:#}");
        assert_eq!(view["blocked_on"], json!([]), "{id}");
    }
    for (id, _) in expected {
        let view = get(&app, &format!("/api/v1/servers/{id}")).await;
        assert!(
            view["entry_points"]
                .as_array()
                .into_iter()
                .flatten()
                .all(|e| e["causes"]
                    .as_array()
                    .is_none_or(|c| c.iter().all(|c| c["from"] == "v1"))),
            "no witness but the verifier fails {id}: {view:#}"
        );
    }
    drop(agents);
}

fn logs(dir: &std::path::Path, ids: &[&str]) -> String {
    ids.iter()
        .map(|id| {
            let text = std::fs::read_to_string(dir.join(format!("{id}.log"))).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            format!(
                "--- {id}\n{}",
                lines[lines.len().saturating_sub(15)..].join("\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
