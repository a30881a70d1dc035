//! The noise run: a fleet whose agents probe what the panel tells them
//! (every other server, or their witness sets' targets), each probe
//! failing by chance with probability `p` (iid), plus a script of real
//! faults. After every round the panel evaluates, as its tick does; the
//! run records every server's verdict per round. Shared by the noise
//! tests (`tests/noise.rs`) and the comparison bench (`benches/noise.rs`).

use meshwatch::evidence::{Evidence, ProbeError, ProbeOutcome, SelfCheck, StreakTiming};
use meshwatch::ids::{EntryPointId, RouteId, ServerId};
use meshwatch::mesh::{Mesh, MeshRoute, MeshServer};
use meshwatch::rules::evaluate;
use meshwatch::settings::Settings;
use meshwatch::status::ServerStatus;

pub const START_MS: i64 = 1_800_000_000_000;
const COUNTRIES: [&str; 8] = ["de", "nl", "fi", "se", "us", "jp", "fr", "pl"];

/// What goes wrong with one server for a stretch of rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// Its agent reports the VPN service down (and probes of it fail).
    Down,
    /// Every probe of it fails, from everywhere (a routing outage).
    Unreachable,
    /// The verifier's probes of it fail; everyone else reaches it.
    Blocked,
}

impl FaultKind {
    /// The verdict the fault must produce.
    pub fn verdict(self) -> ServerStatus {
        match self {
            FaultKind::Down => ServerStatus::Unavailable,
            FaultKind::Unreachable => ServerStatus::Unreachable,
            FaultKind::Blocked => ServerStatus::Blocked,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Fault {
    pub server: usize,
    pub kind: FaultKind,
    /// Rounds `from..to`.
    pub from: usize,
    pub to: usize,
}

pub struct Run {
    /// Normal servers; one verifier is added at the end.
    pub servers: usize,
    pub settings: Settings,
    /// Chance that one probe fails by itself.
    pub p: f64,
    pub rounds: usize,
    pub faults: Vec<Fault>,
    pub seed: u64,
}

/// Per round, every server's verdict: its status and whether it is in rotation.
pub type Verdicts = Vec<Vec<(ServerStatus, bool)>>;

/// What a run found.
pub struct Outcome {
    pub verdicts: Verdicts,
    /// Probe results sent, over the whole run.
    pub probes: u64,
    /// A verdict that takes a server out or marks it unreachable, blocked
    /// or unavailable while no fault touched it in the last
    /// `failure_streak + 1` rounds: `(round, server, status)`.
    pub false_verdicts: Vec<(usize, usize, ServerStatus)>,
    /// Per fault, the rounds from its start to its verdict (`None`: never).
    pub detection: Vec<Option<usize>>,
}

impl Run {
    pub fn mesh(&self) -> Mesh {
        let route = |c: usize| RouteId::parse(COUNTRIES[c % COUNTRIES.len()]).expect("slug");
        let mut servers: Vec<MeshServer> = (0..self.servers)
            .map(|i| MeshServer {
                id: ServerId::parse(&format!("s{i}")).expect("slug"),
                name: format!("s{i}"),
                country: COUNTRIES[i % COUNTRIES.len()].to_uppercase(),
                verifier: false,
                network: None,
                controls: Default::default(),
                routes: vec![route(i)],
                entry_points: vec![EntryPointId::parse(&format!("s{i}-ep"))
                    .expect("slug")
                    .into()],
            })
            .collect();
        servers.push(MeshServer {
            id: ServerId::parse("verifier").expect("slug"),
            name: "verifier".into(),
            country: "RU".into(),
            verifier: true,
            network: None,
            controls: Default::default(),
            routes: vec![route(0)],
            entry_points: vec![EntryPointId::parse("verifier-ep").expect("slug").into()],
        });
        let routes = COUNTRIES
            .iter()
            .map(|c| MeshRoute {
                id: RouteId::parse(c).expect("slug"),
                servers_per_user: None,
            })
            .collect();
        Mesh::new(servers, routes)
    }

    fn fault(&self, server: usize, round: usize) -> Option<FaultKind> {
        self.faults
            .iter()
            .find(|f| f.server == server && (f.from..f.to).contains(&round))
            .map(|f| f.kind)
    }

    pub fn play(&self) -> Outcome {
        let mesh = self.mesh();
        let n = mesh.server_count();
        let verifier = n - 1;
        let mut evidence = Evidence::new(&mesh);
        let interval_ms = i64::from(self.settings.probe_interval_s) * 1000;
        let timing = StreakTiming {
            stale_after_ms: self.settings.stale_after_ms(),
            knock_gap_ms: interval_ms / 2,
        };
        let mut random = self.seed;
        let mut chance = move || {
            random = random.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = random;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        // What the agents were last told to probe: the panel's previous
        // evaluation (before the first report, of an empty fleet's evidence).
        let mut told = evaluate(&mesh, &evidence, &self.settings, START_MS)
            .sets()
            .clone();
        let mut outcome = Outcome {
            verdicts: Vec::with_capacity(self.rounds),
            probes: 0,
            false_verdicts: Vec::new(),
            detection: vec![None; self.faults.len()],
        };
        for round in 0..self.rounds {
            let now = START_MS + round as i64 * interval_ms;
            for w in 0..n {
                let down = self.fault(w, round) == Some(FaultKind::Down);
                let check = SelfCheck {
                    listener_ok: true,
                    service_ok: !down,
                    detail: None,
                };
                evidence.record_report(w, now, check);
                let targets: Vec<usize> = match told.targets_of(w) {
                    Some(list) => list.iter().map(|&(t, _)| t as usize).collect(),
                    None => (0..n).filter(|&t| t != w).collect(),
                };
                for t in targets {
                    let fails = match self.fault(t, round) {
                        Some(FaultKind::Down | FaultKind::Unreachable) => true,
                        Some(FaultKind::Blocked) => w == verifier,
                        None => false,
                    } || chance() < self.p;
                    for e in mesh.entry_points_of(t) {
                        let probe = ProbeOutcome::handshake(
                            now,
                            !fails,
                            fails.then_some(ProbeError::Timeout),
                        );
                        evidence.apply_probe(w, e, probe, now, timing);
                        outcome.probes += 1;
                    }
                }
            }
            let evaluation = evaluate(&mesh, &evidence, &self.settings, now);
            let verdicts: Vec<(ServerStatus, bool)> = evaluation
                .verdicts()
                .iter()
                .map(|v| (v.status, v.in_rotation))
                .collect();
            self.judge(round, &verdicts, &mut outcome);
            told = evaluation.sets().clone();
            outcome.verdicts.push(verdicts);
        }
        outcome
    }

    fn judge(&self, round: usize, verdicts: &[(ServerStatus, bool)], outcome: &mut Outcome) {
        let lag = self.settings.failure_streak as usize + 1;
        for (s, &(status, in_rotation)) in verdicts.iter().enumerate() {
            let touched = (round.saturating_sub(lag)..=round).any(|r| self.fault(s, r).is_some());
            let alarming = !in_rotation
                || matches!(
                    status,
                    ServerStatus::Unreachable | ServerStatus::Blocked | ServerStatus::Unavailable
                );
            if alarming && !touched {
                outcome.false_verdicts.push((round, s, status));
            }
        }
        for (k, fault) in self.faults.iter().enumerate() {
            let shown = verdicts[fault.server].0 == fault.kind.verdict();
            if shown && outcome.detection[k].is_none() && (fault.from..fault.to).contains(&round) {
                outcome.detection[k] = Some(round - fault.from);
            }
        }
    }
}

/// A server's verdict as the comparison of sets against the full mesh
/// reads it: R3's pair marks are per pair, and sets probe fewer pairs
/// (by design), so a pair mark reads as healthy here.
pub fn server_verdict((status, in_rotation): (ServerStatus, bool)) -> (ServerStatus, bool) {
    match status {
        ServerStatus::EntryPointsUnavailable => (ServerStatus::Healthy, in_rotation),
        other => (other, in_rotation),
    }
}

/// A fault script for `servers` normal servers over `rounds`: each kind
/// on a few servers, starting and ending at staggered rounds.
pub fn fault_script(servers: usize, rounds: usize) -> Vec<Fault> {
    let kinds = [FaultKind::Down, FaultKind::Unreachable, FaultKind::Blocked];
    (0..9)
        .map(|k| {
            let from = 5 + k * rounds / 12;
            Fault {
                server: (k * 7919 + 3) % servers,
                kind: kinds[k % 3],
                from,
                to: (from + rounds / 4).min(rounds),
            }
        })
        .collect()
}
