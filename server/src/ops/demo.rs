//! `MESHWATCH_DEMO=1`: a demo fleet in five countries and a demo operator,
//! so a newcomer has something to look at. Entry points sit on loopback
//! addresses (127.0.10.x), never on real interfaces: a VLESS (TLS) one on
//! every server, and a Hysteria2 (QUIC) one on the same address and port
//! on one server per country. [`live`] runs a real agent for each server
//! and scripts network faults between them.

pub mod live;
pub mod panel_stand_in;

use crate::crypto::secrets::{self, TokenHash};
use crate::ops::config::DemoMode;
use crate::store::Store;
use meshwatch::account::TokenScope;
use meshwatch::agent_api::Metrics;
use meshwatch::fleet::{EntryPointDoc, FleetDocument, RouteDoc, ServerDoc, UserDoc};
use meshwatch::settings::Settings;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

pub const DEMO_OPERATOR: &str = "demo";

/// The operator API token the demo makes (anew at every start, like the
/// demo operator's password) and prints: `admin` scope.
pub const DEMO_API_TOKEN_NAME: &str = "demo";
/// ... and its `fleet` one, for scripts that only provision.
pub const DEMO_FLEET_TOKEN_NAME: &str = "demo-fleet";

/// (id, name, country, route)
const SERVERS: [(&str, &str, &str, &str); 10] = [
    ("de-1", "Frankfurt 1", "DE", "germany"),
    ("de-2", "Frankfurt 2", "DE", "germany"),
    ("de-3", "Berlin 1", "DE", "germany"),
    ("nl-1", "Amsterdam 1", "NL", "netherlands"),
    ("nl-2", "Amsterdam 2", "NL", "netherlands"),
    ("fi-1", "Helsinki 1", "FI", "finland"),
    ("fi-2", "Helsinki 2", "FI", "finland"),
    ("us-1", "New York 1", "US", "usa"),
    ("us-2", "Dallas 1", "US", "usa"),
    ("jp-1", "Tokyo 1", "JP", "japan"),
];

const ROUTES: [(&str, &str, Option<i64>); 5] = [
    ("germany", "Germany", Some(2)),
    ("netherlands", "Netherlands", None),
    ("finland", "Finland", None),
    ("usa", "United States", Some(1)),
    ("japan", "Japan", None),
];

const USERS: [(&str, &str, &[&str]); 4] = [
    ("alice", "Alice", &["germany", "netherlands"]),
    ("bob", "Bob", &["germany", "usa"]),
    ("carol", "Carol", &["finland", "japan"]),
    ("dave", "Dave", &["netherlands", "usa", "japan"]),
];

/// Where demo server `index` listens and probes from.
pub fn address_of(index: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 10, index as u8 + 1))
}

/// The SNI of every demo entry point.
pub const DEMO_SNI: &str = "www.example.com";

/// The demo verifier's control SNI (the lab answers any name).
pub const DEMO_CONTROL_SNI: &str = "ya.ru";

/// The TLS entry points' TCP port, and the QUIC ones' UDP port.
pub const DEMO_PORT: u16 = 4443;

/// The servers that also serve Hysteria2, one per country, so that a QUIC
/// block shows beside working TCP. Helsinki 1 keeps its one entry point:
/// the browser journeys read its pair-failure cause as the only one.
pub const QUIC_SERVERS: [&str; 5] = ["de-1", "nl-1", "fi-2", "us-2", "jp-1"];

pub fn serves_quic(id: &str) -> bool {
    QUIC_SERVERS.contains(&id)
}

/// Fast enough that every status shows within two minutes of start.
pub fn settings() -> Settings {
    Settings {
        report_interval_s: 5,
        probe_interval_s: 5,
        probe_timeout_s: 2,
        stale_after_s: 20,
        failure_streak: 3,
        quorum: 2,
        unreliable_fraction: 0.5,
        ..Settings::default()
    }
}

/// The demo fleet; `agent_tokens` (server id → token) are set when given.
pub fn fleet_with_tokens(agent_tokens: &HashMap<String, String>) -> FleetDocument {
    let mut fleet = fleet();
    for server in &mut fleet.servers {
        server.agent_token = agent_tokens.get(&server.id).cloned();
    }
    fleet
}

pub fn fleet() -> FleetDocument {
    FleetDocument {
        routes: ROUTES
            .iter()
            .map(|(id, name, per_user)| RouteDoc {
                id: (*id).into(),
                name: (*name).into(),
                servers_per_user: *per_user,
            })
            .collect(),
        servers: SERVERS
            .iter()
            .enumerate()
            .map(|(i, (id, name, country, route))| ServerDoc {
                id: (*id).into(),
                name: (*name).into(),
                country: (*country).into(),
                routes: vec![(*route).into()],
                agent_token: None,
                // The Tokyo box sits far from the others: a natural verifier.
                verifier: Some(*id == "jp-1"),
                control_sni: None,
                controls: None,
                entry_points: [
                    ("vless", "vless", true),
                    ("hy2", "hysteria2", serves_quic(id)),
                ]
                .into_iter()
                .filter(|(.., served)| *served)
                .map(|(suffix, protocol, _)| EntryPointDoc {
                    id: format!("{id}-{suffix}"),
                    protocol: protocol.into(),
                    host: address_of(i).to_string(),
                    port: i64::from(DEMO_PORT),
                    sni: Some(DEMO_SNI.into()),
                    params: Default::default(),
                })
                .collect(),
            })
            .collect(),
        users: USERS
            .iter()
            .map(|(id, name, routes)| UserDoc {
                id: (*id).into(),
                name: (*name).into(),
                routes: routes.iter().map(|r| (*r).into()).collect(),
                sub_token: None,
                credential: None,
            })
            .collect(),
        remove: Default::default(),
    }
}

/// The demo's connected panel (its stand-in starts with the live demo),
/// applying: a server out of rotation has its host turned off there.
async fn connect_demo_panel(store: &Store) -> anyhow::Result<()> {
    use meshwatch::connectors::{ConnectorMode, ConnectorSpec};
    let spec = ConnectorSpec {
        kind: "remnawave".into(),
        url: format!("http://{}", panel_stand_in::ADDRESS),
        token: panel_stand_in::TOKEN.into(),
        tag: None,
        mode: Some(ConnectorMode::Apply.as_str().into()),
    };
    let checked = spec
        .check()
        .map_err(|e| anyhow::anyhow!("demo panel: {e}"))?;
    let id = meshwatch::ConnectorId::parse(panel_stand_in::CONNECTOR)?;
    match store.put_connector(&id, &checked, chrono::Utc::now()).await {
        // Being removed from an earlier run: it goes once its hosts are on.
        Ok(_) | Err(crate::store::StoreError::Conflict { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// What seeding hands to the live demo and to the operator.
pub struct Seeded {
    pub password: String,
    /// A fresh `admin` operator API token, stored hashed as [`DEMO_API_TOKEN_NAME`].
    pub api_token: String,
    /// A fresh `fleet` one, as [`DEMO_FLEET_TOKEN_NAME`].
    pub fleet_token: String,
    /// Server id → the agent token set for this run.
    pub agent_tokens: HashMap<String, String>,
}

/// The network of the demo's verifier, jp-1.
pub const DEMO_VERIFIER_NETWORK: &str = "NTT home fiber";

/// Seeds the demo fleet with fresh agent tokens (the demo's own agents
/// get them; users' subscription tokens are kept), the demo's fast verdict
/// settings, the demo operator's password and a fresh API token.
pub async fn seed(store: &Store, password: Option<String>) -> anyhow::Result<Seeded> {
    let agent_tokens: HashMap<String, String> = SERVERS
        .iter()
        .map(|(id, ..)| ((*id).to_string(), secrets::new_token()))
        .collect();
    let fleet = fleet_with_tokens(&agent_tokens)
        .validate()
        .map_err(|e| anyhow::anyhow!("demo fleet: {}", e.message))?;
    store.apply_fleet(&fleet).await?;
    // The verifier names the network it probes from (§6), as an operator's
    // would (set at each demo start, as the fleet is).
    let tokyo = meshwatch::ServerId::parse("jp-1")?;
    let network = meshwatch::network::NetworkLabel::parse(DEMO_VERIFIER_NETWORK)?;
    store
        .set_verifier(
            &tokyo,
            &meshwatch::controls::VerifierMark {
                control_sni: Some(Some(meshwatch::controls::ControlSni::parse(
                    DEMO_CONTROL_SNI,
                )?)),
                ..meshwatch::controls::VerifierMark::toggle(true, Some(Some(network)))
            },
        )
        .await?;
    store.save_settings(&settings()).await?;
    plan_demo_maintenance(store).await?;
    add_demo_action(store).await?;
    connect_demo_panel(store).await?;
    let password = password.unwrap_or_else(secrets::new_password);
    let hash = secrets::hash_password_off_thread(password.clone()).await?;
    store.upsert_operator(DEMO_OPERATOR, &hash).await?;
    let api_token = secrets::new_token();
    store
        .upsert_api_token(
            DEMO_API_TOKEN_NAME,
            &TokenHash::of(&api_token),
            TokenScope::Admin,
        )
        .await?;
    let fleet_token = secrets::new_token();
    store
        .upsert_api_token(
            DEMO_FLEET_TOKEN_NAME,
            &TokenHash::of(&fleet_token),
            TokenScope::Fleet,
        )
        .await?;
    let now_ms = chrono::Utc::now().timestamp_millis();
    for (i, (id, ..)) in SERVERS.iter().enumerate() {
        let server = meshwatch::ServerId::parse(id)?;
        store
            .backfill_metrics(&server, &past_day(i, now_ms))
            .await?;
    }
    Ok(Seeded {
        password,
        api_token,
        fleet_token,
        agent_tokens,
    })
}

/// The demo's planned maintenance (§6): Helsinki 2's weekly kernel
/// updates, first due three days after the demo's first start, so the
/// cards and the Routes page show a window without taking a server out
/// while one looks. Planned once: a restart keeps what the operator did.
async fn plan_demo_maintenance(store: &Store) -> anyhow::Result<()> {
    use chrono::{Duration, DurationRound};
    if !store.maintenance_windows().await?.is_empty() {
        return Ok(());
    }
    let now = chrono::Utc::now();
    let start = (now + Duration::days(3)).duration_trunc(Duration::hours(1))?;
    let plan = meshwatch::maintenance::MaintenancePlan {
        servers: vec![meshwatch::ServerId::parse("fi-2")?],
        routes: Vec::new(),
        start,
        end: start + Duration::hours(2),
        weekly: true,
        note: DEMO_MAINTENANCE_NOTE.into(),
    }
    .validate(now)?;
    store.plan_maintenance(&plan, now).await?;
    Ok(())
}

/// The demo's action (§6): a harmless local command on every block,
/// which says what a real one (see `deploy/actions`) would do, from the
/// event's variables. Added once: a restart keeps what the operator did.
async fn add_demo_action(store: &Store) -> anyhow::Result<()> {
    if !store.actions().await?.is_empty() {
        return Ok(());
    }
    let spec = meshwatch::actions::ActionSpec {
        name: DEMO_ACTION.into(),
        on: meshwatch::actions::ActionEvent::Blocked,
        after_minutes: 0,
        command: Some(vec![
            crate::ops::config::DEMO_ACTION_COMMANDS.into(),
            "A real action would give this blocked server a new address now (see deploy/actions)."
                .into(),
        ]),
        http: None,
        // As a real address-changing action is registered: a new address
        // fixes only these kinds (§8).
        kinds: Some(meshwatch::actions::IP_ROTATION_KINDS.to_vec()),
    };
    store
        .create_action(&spec.validate()?, chrono::Utc::now())
        .await?;
    Ok(())
}

/// The name of the demo's action.
pub const DEMO_ACTION: &str = "Announce the block (demo)";

/// The note of the demo's weekly window.
pub const DEMO_MAINTENANCE_NOTE: &str = "Weekly kernel updates";

/// What `make run` leaves on the screen once the demo panel serves: where
/// it is, how to sign in and call the API, and what to look at first.
pub struct Welcome {
    pub password: String,
    /// The `admin` token, and the `fleet` one.
    pub api_token: String,
    pub fleet_token: String,
    pub mode: DemoMode,
    /// `MESHWATCH_STATUS_PAGE`: the public status page is served.
    pub status_page: bool,
}

impl Welcome {
    /// The lines to print, for a panel listening on `panel`.
    pub fn lines(&self, panel: SocketAddr) -> Vec<String> {
        let ip = match panel.ip() {
            ip if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            ip => ip,
        };
        let url = format!("http://{}", SocketAddr::new(ip, panel.port()));
        let token = &self.api_token;
        let mut lines = vec![
            String::new(),
            format!("meshwatch is running: {url}"),
            format!("  sign in:    {DEMO_OPERATOR} / {}", self.password),
            format!("  API token:  {token}   (admin: actions, tokens, settings)"),
            format!("              curl -H 'Authorization: Bearer {token}' {url}/api/v1/servers"),
            format!(
                "  fleet token: {}   (fleet: the fleet document, verifiers, maintenance)",
                self.fleet_token
            ),
        ];
        lines.push(format!(
            "  connected:  a Remnawave stand-in at http://{} (token {}): Settings → Connected panels",
            panel_stand_in::ADDRESS,
            panel_stand_in::TOKEN
        ));
        if self.status_page {
            lines.push(format!(
                "  status:     {url}/status (public, for your customers; JSON at /status.json)"
            ));
        }
        lines.extend(match self.mode {
            DemoMode::Scripted => [
                format!("  try first:  open {url}/ and leave the servers list on screen: within a minute de-2"),
                "              turns \"Server unavailable\" and nl-2 \"Unreachable from your servers\" without a".into(),
                "              reload; click one to see why. Faults heal after 220 s and recur every 5 minutes.".into(),
            ],
            DemoMode::Manual => [
                format!("  try first:  open {url}/, then stop de-2's VPN service and watch it turn \"Server unavailable\":"),
                format!("              curl -X POST {url}/api/v1/demo/faults -H 'Authorization: Bearer {token}' \\"),
                "                -H 'Content-Type: application/json' -d '{\"fault\":\"service_down\",\"server\":\"de-2\",\"active\":true}'".into(),
            ],
        });
        lines
    }
}

/// A made-up past day of metrics for demo server `index`, every 5 minutes
/// up to a minute before `now_ms`, so its charts have a day to show from
/// the first start (the real agents' samples follow). A daily curve with
/// its evening peak, a per-server level and a little deterministic jitter.
pub fn past_day(index: usize, now_ms: i64) -> Vec<(i64, Metrics)> {
    const STEP_MS: i64 = 5 * 60 * 1000;
    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    let level = 0.6 + 0.1 * (index % 5) as f64;
    (1..=288)
        .rev()
        .map(|k| {
            let at = now_ms - 60_000 - k * STEP_MS;
            let hour = (at.rem_euclid(86_400_000) as f64) / 3_600_000.0;
            // 0 at 08:00, 1 at 20:00 UTC: VPN traffic peaks in the evening.
            let daily = 0.5 - 0.5 * ((hour - 8.0) / 24.0 * std::f64::consts::TAU).cos();
            let jitter = ((at / STEP_MS + index as i64 * 7919).rem_euclid(97) as f64) / 97.0;
            let load = level * (0.15 + 0.7 * daily) + 0.1 * jitter;
            let metrics = Metrics {
                cpu_pct: Some(100.0 * load.min(1.0)),
                mem_used_bytes: Some(((1.2 + 1.6 * load) * GIB) as u64),
                mem_total_bytes: Some((4.0 * GIB) as u64),
                disk_used_bytes: Some(
                    ((18.0 + index as f64 + (288 - k) as f64 * 0.002) * GIB) as u64,
                ),
                disk_total_bytes: Some((80.0 * GIB) as u64),
                net_rx_rate_bps: Some(4.0e6 * load),
                net_tx_rate_bps: Some(3.5e6 * load),
                connections: Some((400.0 * load) as u64),
                load1: Some(2.0 * load),
                ..Metrics::default()
            };
            (at, metrics)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_demo_welcome_names_the_address_the_sign_in_and_the_api_token() {
        let welcome = super::Welcome {
            password: "pw-123".into(),
            api_token: "tok-456".into(),
            fleet_token: "tok-789".into(),
            mode: crate::ops::config::DemoMode::Scripted,
            status_page: true,
        };
        let lines = welcome.lines("0.0.0.0:3000".parse().expect("address"));
        let text = lines.join("\n");
        assert!(text.contains("meshwatch is running: http://127.0.0.1:3000\n"));
        assert!(text.contains("sign in:    demo / pw-123\n"));
        assert!(text.contains("API token:  tok-456   (admin"));
        assert!(text.contains("fleet token: tok-789   (fleet"));
        assert!(text.contains("Bearer tok-456' http://127.0.0.1:3000/api/v1/servers"));
        assert!(lines.last().is_some_and(|l| l.contains("every 5 minutes")));
        assert!(text.contains("status:     http://127.0.0.1:3000/status (public"));
        let manual = super::Welcome {
            mode: crate::ops::config::DemoMode::Manual,
            status_page: false,
            ..welcome
        };
        let text = manual
            .lines("127.0.0.1:3124".parse().expect("address"))
            .join("\n");
        assert!(text.contains("http://127.0.0.1:3124/api/v1/demo/faults"));
        assert!(!text.contains("/status"), "no status page, no line for it");
    }

    #[test]
    fn the_demo_past_day_is_a_day_of_sane_samples() {
        let now = 1_800_000_000_000;
        let day = super::past_day(3, now);
        assert_eq!(day.len(), 288);
        assert!(day.windows(2).all(|w| w[0].0 < w[1].0), "oldest first");
        assert!(day[0].0 >= now - 86_400_000 - 60_000 && day[287].0 < now);
        for (_, m) in &day {
            let cpu = m.cpu_pct.expect("cpu");
            assert!((0.0..=100.0).contains(&cpu));
            assert!(m.mem_used_bytes < m.mem_total_bytes);
            assert!(m.disk_used_bytes < m.disk_total_bytes);
        }
        let cpus: Vec<f64> = day.iter().filter_map(|(_, m)| m.cpu_pct).collect();
        let (lo, hi) = cpus
            .iter()
            .fold((100.0f64, 0.0f64), |(l, h), c| (l.min(*c), h.max(*c)));
        assert!(hi - lo > 20.0, "the day has a visible curve: {lo}..{hi}");
    }

    #[test]
    fn the_demo_fleet_is_valid() {
        let fleet = super::fleet().validate().expect("valid demo fleet");
        assert_eq!(fleet.servers.len(), 10);
        let countries: std::collections::HashSet<_> =
            fleet.servers.iter().map(|s| &s.country).collect();
        assert!(countries.len() >= 4);
        assert!(fleet.unknown_route(&Default::default()).is_none());
        assert_eq!(super::settings().validate(), Ok(()));
        let quic: Vec<_> = fleet
            .servers
            .iter()
            .filter(|s| {
                s.entry_points
                    .iter()
                    .any(|e| e.protocol == meshwatch::fleet::Protocol::Hysteria2)
            })
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(quic, super::QUIC_SERVERS);
        assert!(fleet
            .servers
            .iter()
            .all(|s| s.entry_points[0].id.as_str().ends_with("-vless")));
    }
}
