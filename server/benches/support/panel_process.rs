//! A panel as its own process (the release binary), so what is measured
//! of it — CPU time, memory — is the panel's alone, and what the benches
//! send it as agents would.

use super::ADMIN;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_meshwatch-server");

/// One panel process (killed when dropped).
pub struct Replica {
    pub child: Child,
    pub base: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start_replica(database_url: &str, name: &str, dir: &std::path::Path) -> Replica {
    let mut cmd = Command::new(BIN);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn,meshwatch_server=info")
        .env("NO_COLOR", "1")
        .env("MESHWATCH_DATABASE_URL", database_url)
        .env("MESHWATCH_LISTEN", "127.0.0.1:0")
        .env("MESHWATCH_ADMIN_TOKEN", ADMIN)
        .env("MESHWATCH_REPLICA", name)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if database_url.starts_with("postgres") {
        cmd.env("MESHWATCH_SECRET_KEY", "11".repeat(32));
    }
    let mut child = cmd.spawn().expect("the panel starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let base = loop {
        let line = lines
            .next()
            .expect("the panel says where it listens")
            .expect("a line");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.trim().to_owned();
        }
    };
    // Keep draining its output.
    std::thread::spawn(move || for _ in lines.by_ref() {});
    Replica { child, base }
}

/// CPU time (user + system) of process `pid` so far, from `/proc`.
pub fn cpu_of(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at state;
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after ')'.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

pub fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// The report of server `w` for round `round`: one result per peer of
/// a full mesh of `n` (as older agents send).
pub fn report(n: usize, w: usize, round: usize, at: &str) -> Vec<u8> {
    report_to(round * n + w, w, at, (0..n).filter(|&t| t != w))
}

/// Report number `number` of server `w`: one result for each of
/// `targets` (server indices). About 1 % of the pairs fail, the same ones
/// every round (as a real fleet's blocked or broken paths do).
pub fn report_to(
    number: usize,
    w: usize,
    at: &str,
    targets: impl Iterator<Item = usize>,
) -> Vec<u8> {
    use std::fmt::Write;
    let mut body = String::with_capacity(4096);
    let _ = write!(
        body,
        r#"{{"report_id":"00000000-0000-4000-8000-{number:012}","agent_version":"soak","sent_at":"{at}","self_check":{{"listener_ok":true,"service_ok":true}},"metrics":{{"cpu_pct":3.5,"connections":120}},"probes":["#,
    );
    for (k, t) in targets.enumerate() {
        if k > 0 {
            body.push(',');
        }
        let ok = !(w * 31 + t * 17).is_multiple_of(97);
        if ok {
            let _ = write!(
                body,
                r#"{{"entry_point_id":"s{t}-ep","at":"{at}","ok":true,"latency_ms":35}}"#
            );
        } else {
            let _ = write!(
                body,
                r#"{{"entry_point_id":"s{t}-ep","at":"{at}","ok":false,"error":"timeout"}}"#
            );
        }
    }
    body.push_str("]}");
    body.into_bytes()
}

/// What agent `w` is told to probe, as a real agent learns it: its
/// config's version and its peers' server indices (servers `s<i>`).
pub async fn agent_targets(http: &reqwest::Client, base: &str, w: usize) -> (u64, Vec<usize>) {
    let config: serde_json::Value = http
        .get(format!("{base}/api/agent/v1/config"))
        .bearer_auth(super::agent_token(w))
        .send()
        .await
        .expect("the config answers")
        .json()
        .await
        .expect("a config");
    let mut targets: Vec<usize> = config["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .filter_map(|p| p["server_id"].as_str()?.strip_prefix('s')?.parse().ok())
        .collect();
    targets.sort_unstable();
    targets.dedup();
    (config["fleet_version"].as_u64().unwrap_or(0), targets)
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
