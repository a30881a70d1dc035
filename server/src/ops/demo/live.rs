//! The live demo fleet: for each demo server a TLS listener on its own
//! loopback address (its "VPN entry point"), a QUIC listener on the same
//! address and port where it serves Hysteria2, and a real meshwatch agent —
//! the agent's own code, run as a task of this process with its own sockets,
//! probing the others from its own source address and reporting to this
//! panel over HTTP like any agent.
//!
//! A script then breaks things the way the world does, at the network layer
//! (a path filter in front of the listeners) or by stopping a service or an
//! agent — never by writing reports — so every status of docs/PRODUCT.md shows
//! within two minutes, heals, and comes back on a [`CYCLE`].

use super::{address_of, serves_quic, DEMO_PORT, SERVERS};
use crate::ops::config::DemoMode;
use meshwatch_agent::lab::{Cut, LabListener, LabQuicListener, PathFilter};
use meshwatch_agent::{self as agent, AgentCounters, AgentSettings, ServiceCheck};
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// One round of the script; faults heal in its last minute and recur.
pub const CYCLE: Duration = Duration::from_secs(300);

/// Something that goes wrong in the demo, and what the panel then shows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// The VPN service stops: its ports close (TCP and UDP) and the agent's
    /// service check fails → Server unavailable.
    ServiceDown { server: String },
    /// The agent dies without a word; the server keeps serving → No data,
    /// stale, and it stays in rotation (silence is not a verdict).
    AgentSilent { server: String },
    /// Paths from these witnesses to the target are cut: TCP as `how`
    /// says, UDP dropped.
    Cut {
        witnesses: Vec<String>,
        target: String,
        #[serde(default = "blackhole")]
        how: CutKind,
    },
    /// UDP from these witnesses to the target is dropped and TCP gets
    /// through, as where QUIC is blocked wholesale → the target's Hysteria2
    /// entry point is Not available, its TLS one is fine.
    QuicBlocked {
        witnesses: Vec<String>,
        target: String,
    },
    /// Every path out of this witness is cut (a broken uplink) → it can't
    /// reach most servers, so its votes are discarded (unreliable witness).
    Isolated { server: String },
    /// ClientHellos from these witnesses naming the target's SNI are reset,
    /// other SNIs pass → a verifier among them sees the SNI filtered (§8).
    SniFiltered {
        witnesses: Vec<String>,
        target: String,
    },
    /// Answers from the target to these witnesses stop after `after_bytes`,
    /// the connection left open → a verifier's transfers freeze while its
    /// handshakes succeed: throttled (§8).
    Frozen {
        witnesses: Vec<String>,
        target: String,
        #[serde(default = "sixteen_kb")]
        after_bytes: usize,
    },
}

fn sixteen_kb() -> usize {
    16 * 1024
}

/// How a cut path behaves (the lab's [`Cut`], nameable in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CutKind {
    Reset,
    Blackhole,
}

fn blackhole() -> CutKind {
    CutKind::Blackhole
}

impl From<CutKind> for Cut {
    fn from(kind: CutKind) -> Cut {
        match kind {
            CutKind::Reset => Cut::Reset,
            CutKind::Blackhole => Cut::Blackhole,
        }
    }
}

impl Fault {
    /// Every server the fault names.
    fn servers(&self) -> Vec<&str> {
        match self {
            Fault::ServiceDown { server }
            | Fault::AgentSilent { server }
            | Fault::Isolated { server } => vec![server.as_str()],
            Fault::Cut {
                witnesses, target, ..
            }
            | Fault::QuicBlocked { witnesses, target }
            | Fault::SniFiltered { witnesses, target }
            | Fault::Frozen {
                witnesses, target, ..
            } => witnesses
                .iter()
                .map(String::as_str)
                .chain([target.as_str()])
                .collect(),
        }
    }
}

/// A fault to switch on or off, as `POST /api/v1/demo/faults` takes it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct FaultRequest {
    #[serde(flatten)]
    pub fault: Fault,
    pub active: bool,
}

/// Switches demo faults by hand (the browser tests use it).
#[derive(Clone)]
pub struct DemoControl(tokio::sync::mpsc::UnboundedSender<(Fault, bool)>);

impl DemoControl {
    /// Errors name an unknown server or a stopped demo.
    pub fn apply(&self, request: FaultRequest) -> Result<(), String> {
        if let Some(unknown) = request
            .fault
            .servers()
            .into_iter()
            .find(|id| !SERVERS.iter().any(|(s, ..)| s == id))
        {
            return Err(format!("{unknown:?} is not a demo server"));
        }
        self.0
            .send((request.fault, request.active))
            .map_err(|_| "the demo fleet has stopped".to_string())
    }
}

struct Scheduled {
    fault: Fault,
    /// Active from..until seconds into each cycle.
    from_s: u64,
    until_s: u64,
}

fn script() -> Vec<Scheduled> {
    vec![
        // Unreachable from your servers: two German servers and one in the
        // US lose the path to Amsterdam 2 (quorum is 2).
        Scheduled {
            fault: Fault::Cut {
                witnesses: names(&["de-1", "de-3", "us-1"]),
                target: "nl-2".into(),
                how: CutKind::Blackhole,
            },
            from_s: 10,
            until_s: 200,
        },
        // Some entry points not available: only Dallas can't reach Helsinki 1.
        Scheduled {
            fault: Fault::Cut {
                witnesses: names(&["us-2"]),
                target: "fi-1".into(),
                how: CutKind::Blackhole,
            },
            from_s: 10,
            until_s: 220,
        },
        // Server unavailable.
        Scheduled {
            fault: Fault::ServiceDown {
                server: "de-2".into(),
            },
            from_s: 15,
            until_s: 150,
        },
        // No data from server.
        Scheduled {
            fault: Fault::AgentSilent {
                server: "fi-2".into(),
            },
            from_s: 20,
            until_s: 170,
        },
        // Address blocked: the Tokyo verifier gets resets from Berlin 1.
        Scheduled {
            fault: Fault::Cut {
                witnesses: names(&["jp-1"]),
                target: "de-3".into(),
                how: CutKind::Reset,
            },
            from_s: 25,
            until_s: 190,
        },
        // Unreliable witness: New York 1 loses its uplink.
        Scheduled {
            fault: Fault::Isolated {
                server: "us-1".into(),
            },
            from_s: 30,
            until_s: 180,
        },
        // §8's kinds on the Tokyo verifier's network, beside its address
        // block of Berlin 1: New York 1's SNI is filtered,
        Scheduled {
            fault: Fault::SniFiltered {
                witnesses: names(&["jp-1"]),
                target: "us-1".into(),
            },
            from_s: 40,
            until_s: 200,
        },
        // connections to Dallas 1 freeze after 16 KB,
        Scheduled {
            fault: Fault::Frozen {
                witnesses: names(&["jp-1"]),
                target: "us-2".into(),
                after_bytes: sixteen_kb(),
            },
            from_s: 45,
            until_s: 205,
        },
        // and QUIC to Frankfurt 1 is dropped (its VLESS works).
        Scheduled {
            fault: Fault::QuicBlocked {
                witnesses: names(&["jp-1"]),
                target: "de-1".into(),
            },
            from_s: 50,
            until_s: 210,
        },
        // QUIC blocked: Berlin 1 can't reach Amsterdam 1's Hysteria2, while
        // its VLESS works.
        Scheduled {
            fault: Fault::QuicBlocked {
                witnesses: names(&["de-3"]),
                target: "nl-1".into(),
            },
            from_s: 35,
            until_s: 210,
        },
    ]
}

fn names(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|id| (*id).to_string()).collect()
}

struct DemoServer {
    id: &'static str,
    ip: IpAddr,
    address: SocketAddr,
    settings: AgentSettings,
    service: Arc<AtomicBool>,
    listener: Option<LabListener>,
    /// Its Hysteria2 entry point (on `address`, over UDP), if it has one.
    quic: Option<LabQuicListener>,
    agent: Option<JoinHandle<()>>,
}

/// The running demo; dropping it stops every listener and agent.
pub struct LiveDemo {
    task: JoinHandle<()>,
    /// The connected panel's stand-in.
    stand_in: JoinHandle<()>,
    control: DemoControl,
}

impl LiveDemo {
    pub fn control(&self) -> DemoControl {
        self.control.clone()
    }
}

impl Drop for LiveDemo {
    fn drop(&mut self) {
        self.task.abort();
        self.stand_in.abort();
    }
}

/// Binds every demo entry point (an error if one is taken — another demo
/// may be running) and starts the agents and the fault script.
pub async fn start(
    panel: SocketAddr,
    agent_tokens: &HashMap<String, String>,
    mode: DemoMode,
) -> anyhow::Result<LiveDemo> {
    let panel_ip = match panel.ip() {
        ip if ip.is_unspecified() => IpAddr::from([127, 0, 0, 1]),
        ip => ip,
    };
    let panel_url = format!("http://{}", SocketAddr::new(panel_ip, panel.port()));
    let filter = PathFilter::new();
    let mut servers = Vec::new();
    for (index, (id, ..)) in SERVERS.iter().enumerate() {
        let ip = address_of(index);
        let address = SocketAddr::new(ip, DEMO_PORT);
        let listener = LabListener::spawn(address, filter.clone())
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "demo fleet: cannot listen on {address} ({e}); is another demo running?"
                )
            })?;
        let quic = if serves_quic(id) {
            let quic = LabQuicListener::spawn(address, filter.clone())
                .await
                .map_err(|e| {
                    anyhow::anyhow!(
                        "demo fleet: cannot listen on UDP {address} ({e}); is another demo running?"
                    )
                })?;
            Some(quic)
        } else {
            None
        };
        let token = agent_tokens
            .get(*id)
            .ok_or_else(|| anyhow::anyhow!("demo fleet: no agent token for {id}"))?;
        let service = Arc::new(AtomicBool::new(true));
        let settings = AgentSettings {
            panel_url: panel_url.clone(),
            token: token.clone(),
            listener: address,
            service: ServiceCheck::Embedded(service.clone()),
            probe_concurrency: 16,
            probe_source: Some(ip),
            panel_ca_pem: None,
            spool_dir: None,
            max_queued_reports: 60,
            config_refresh: Duration::from_secs(60),
            clock_offset: chrono::Duration::zero(),
            // The demo's peers are on 127.0.10.x, which agents otherwise refuse.
            allow_private_targets: true,
        };
        let mut server = DemoServer {
            id,
            ip,
            address,
            settings,
            service,
            listener: Some(listener),
            quic,
            agent: None,
        };
        server.start_agent();
        servers.push(server);
    }
    tracing::info!(
        servers = servers.len(),
        cycle_s = CYCLE.as_secs(),
        ?mode,
        "demo fleet: agents running on 127.0.10.x"
    );
    let stand_in = super::panel_stand_in::start().await?;
    let (sender, commands) = tokio::sync::mpsc::unbounded_channel();
    let scripted = mode == DemoMode::Scripted;
    let task = tokio::spawn(run(servers, filter, scripted, commands));
    Ok(LiveDemo {
        task,
        stand_in,
        control: DemoControl(sender),
    })
}

impl DemoServer {
    fn start_agent(&mut self) {
        let settings = self.settings.clone();
        let id = self.id;
        self.agent = Some(tokio::spawn(async move {
            let counters = Arc::new(AgentCounters::default());
            if let Err(e) = agent::run(settings, counters, std::future::pending()).await {
                tracing::error!(server = id, "demo agent stopped: {e:#}");
            }
        }));
    }
}

/// Runs the script (when `scripted`) and applies faults asked for by hand.
async fn run(
    mut servers: Vec<DemoServer>,
    filter: PathFilter,
    scripted: bool,
    mut commands: tokio::sync::mpsc::UnboundedReceiver<(Fault, bool)>,
) {
    let script = script();
    let started = tokio::time::Instant::now();
    let mut applied = vec![false; script.len()];
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = tick.tick(), if scripted => {
                let t = started.elapsed().as_secs() % CYCLE.as_secs();
                for (i, step) in script.iter().enumerate() {
                    let active = (step.from_s..step.until_s).contains(&t);
                    if active != applied[i] {
                        apply(&mut servers, &filter, &step.fault, active).await;
                        applied[i] = active;
                    }
                }
            }
            Some((fault, active)) = commands.recv() => {
                apply(&mut servers, &filter, &fault, active).await;
            }
        }
    }
}

/// The entry point address of `target` and the source addresses of the
/// `witnesses` that are demo servers (a fault's network paths); `None` for
/// an unknown target.
fn paths(
    servers: &[DemoServer],
    witnesses: &[String],
    target: &str,
) -> Option<(SocketAddr, Vec<IpAddr>)> {
    let find = |id: &str| servers.iter().find(|s| s.id == id);
    let target = find(target)?.address;
    let sources = witnesses
        .iter()
        .filter_map(|w| find(w))
        .map(|s| s.ip)
        .collect();
    Some((target, sources))
}

async fn apply(servers: &mut [DemoServer], filter: &PathFilter, fault: &Fault, active: bool) {
    let index = |id: &str| servers.iter().position(|s| s.id == id);
    match fault {
        Fault::ServiceDown { server: id } => {
            let Some(i) = index(id) else { return };
            let server = &mut servers[i];
            server.service.store(!active, Ordering::Relaxed);
            if active {
                server.listener = None;
                server.quic = None;
                tracing::info!(server = id, "demo: the VPN service stops");
            } else {
                let address = server.address;
                server.listener =
                    relisten(address, || LabListener::spawn(address, filter.clone())).await;
                if serves_quic(server.id) {
                    server.quic =
                        relisten(address, || LabQuicListener::spawn(address, filter.clone())).await;
                }
                tracing::info!(server = id, "demo: the VPN service is back");
            }
        }
        Fault::AgentSilent { server: id } => {
            let Some(i) = index(id) else { return };
            let server = &mut servers[i];
            if active {
                if let Some(agent) = server.agent.take() {
                    agent.abort();
                }
                tracing::info!(server = id, "demo: the agent goes silent");
            } else {
                server.start_agent();
                tracing::info!(server = id, "demo: the agent is back");
            }
        }
        Fault::Cut {
            witnesses,
            target,
            how,
        } => {
            let Some((target, sources)) = paths(servers, witnesses, target) else {
                return;
            };
            for source in sources {
                if active {
                    filter.cut(target, source, (*how).into());
                } else {
                    filter.restore(target, source);
                }
            }
            tracing::info!(?witnesses, %target, active, "demo: paths cut or restored");
        }
        Fault::QuicBlocked { witnesses, target } => {
            let Some((target, sources)) = paths(servers, witnesses, target) else {
                return;
            };
            for source in sources {
                if active {
                    filter.block_udp(target, source);
                } else {
                    filter.unblock_udp(target, source);
                }
            }
            tracing::info!(?witnesses, %target, active, "demo: QUIC blocked or let through");
        }
        Fault::SniFiltered { witnesses, target } => {
            let Some((target, sources)) = paths(servers, witnesses, target) else {
                return;
            };
            for source in sources {
                if active {
                    filter.block_sni(target, source, super::DEMO_SNI);
                } else {
                    filter.unblock_sni(target, source);
                }
            }
            tracing::info!(?witnesses, %target, active, "demo: SNI filtered or let through");
        }
        Fault::Frozen {
            witnesses,
            target,
            after_bytes,
        } => {
            let Some((target, sources)) = paths(servers, witnesses, target) else {
                return;
            };
            for source in sources {
                if active {
                    filter.freeze_after(target, source, *after_bytes);
                } else {
                    filter.unfreeze(target, source);
                }
            }
            tracing::info!(?witnesses, %target, active, "demo: connections frozen or let through");
        }
        Fault::Isolated { server: id } => {
            let Some(source) = index(id).map(|i| servers[i].ip) else {
                return;
            };
            for target in servers.iter().filter(|s| s.id != id) {
                if active {
                    filter.cut(target.address, source, Cut::Blackhole);
                } else {
                    filter.restore(target.address, source);
                }
            }
            tracing::info!(server = id, active, "demo: uplink cut or restored");
        }
    }
}

/// Listens again where a stopped service listened (the port may take a
/// moment to be free: a QUIC listener first lets its connections go).
async fn relisten<L, F>(address: SocketAddr, listen: impl Fn() -> F) -> Option<L>
where
    F: Future<Output = std::io::Result<L>>,
{
    for _ in 0..50 {
        match listen().await {
            Ok(listener) => return Some(listener),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    tracing::error!(%address, "demo: cannot listen again");
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_names_only_demo_servers_and_heals_within_each_cycle() {
        let known = |id: &str| SERVERS.iter().any(|(s, ..)| *s == id);
        for step in &script() {
            assert!(step.from_s < step.until_s && step.until_s < CYCLE.as_secs());
            // Everything is broken within two minutes of start.
            assert!(step.from_s <= 60);
            let ids = step.fault.servers();
            assert!(ids.iter().all(|id| known(id)), "{ids:?}");
            if let Fault::QuicBlocked { target, .. } = &step.fault {
                assert!(serves_quic(target), "{target} has no QUIC entry point");
            }
        }
    }
}
