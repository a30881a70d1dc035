//! A small fleet to state rules against: each server has one entry point
//! (`<id>-ep`, or more with `entry_points`) and one route per country.

use crate::evidence::{Check, Evidence, ProbeError, ProbeOutcome, SelfCheck, Stage, StreakTiming};
use crate::ids::{EntryPointId, RouteId, ServerId};
use crate::mesh::{Mesh, MeshRoute, MeshServer};
use crate::rules::{evaluate, Evaluation};
use crate::settings::Settings;
use crate::verdict::Verdict;

pub const NOW: i64 = 1_800_000_000_000;

pub struct World {
    pub mesh: Mesh,
    pub evidence: Evidence,
    pub settings: Settings,
    pub now: i64,
    /// The agents' clock for probe times; only its order matters.
    agent_clock: i64,
}

pub fn sid(id: &str) -> ServerId {
    ServerId::parse(id).expect("server slug")
}

/// `(id, country, verifier, entry points)`.
pub fn world_with(servers: &[(&str, &str, bool, usize)]) -> World {
    let mut routes: Vec<MeshRoute> = Vec::new();
    let mesh_servers = servers
        .iter()
        .map(|(id, country, verifier, eps)| {
            let route = RouteId::parse(&country.to_lowercase()).expect("route slug");
            if !routes.iter().any(|r| r.id == route) {
                routes.push(MeshRoute {
                    id: route.clone(),
                    servers_per_user: None,
                });
            }
            MeshServer {
                id: sid(id),
                name: (*id).to_owned(),
                country: (*country).to_owned(),
                verifier: *verifier,
                network: None,
                controls: Default::default(),
                routes: vec![route],
                entry_points: (0..*eps)
                    .map(|i| {
                        let suffix = if i == 0 {
                            "ep".to_owned()
                        } else {
                            format!("ep{i}")
                        };
                        EntryPointId::parse(&format!("{id}-{suffix}"))
                            .expect("ep slug")
                            .into()
                    })
                    .collect(),
            }
        })
        .collect();
    let mesh = Mesh::new(mesh_servers, routes);
    World {
        evidence: Evidence::new(&mesh),
        mesh,
        settings: Settings::default(),
        now: NOW,
        agent_clock: NOW - 3_600_000,
    }
}

/// `(id, country)` normal servers with one entry point each.
pub fn world(servers: &[(&str, &str)]) -> World {
    let spec: Vec<_> = servers.iter().map(|(id, c)| (*id, *c, false, 1)).collect();
    world_with(&spec)
}

impl World {
    pub fn index(&self, id: &str) -> usize {
        self.mesh.server_index(&sid(id)).expect("known server")
    }

    pub fn report_at(&mut self, id: &str, received_ms: i64, listener_ok: bool, service_ok: bool) {
        let s = self.index(id);
        self.evidence.record_report(
            s,
            received_ms,
            SelfCheck {
                listener_ok,
                service_ok,
                detail: None,
            },
        );
    }

    /// Every server reports OK now.
    pub fn all_report_ok(&mut self) {
        for s in 0..self.mesh.server_count() {
            let id = self.mesh.server(s).id.to_string();
            self.report_at(&id, self.now, true, true);
        }
    }

    /// One result received now. The helpers' results stand for probe
    /// rounds each received a probe interval apart, so the knock gap is
    /// not applied to them; [`World::probe_received`] applies it.
    fn probe_entry_point(&mut self, w: usize, e: usize, ok: bool) {
        let timing = StreakTiming {
            knock_gap_ms: 0,
            ..self.settings.streak_timing()
        };
        self.apply_result(w, e, ok, self.now, timing);
    }

    fn apply_result(
        &mut self,
        w: usize,
        e: usize,
        ok: bool,
        received_ms: i64,
        timing: StreakTiming,
    ) {
        self.agent_clock += 1_000;
        let probe =
            ProbeOutcome::handshake(self.agent_clock, ok, (!ok).then_some(ProbeError::Timeout));
        self.evidence.apply_probe(w, e, probe, received_ms, timing);
    }

    /// `witness` probes every entry point of `target` once, the result
    /// received at `received_ms`, under the settings' receipt-time rules.
    pub fn probe_received(&mut self, witness: &str, target: &str, ok: bool, received_ms: i64) {
        let (w, t) = (self.index(witness), self.index(target));
        let timing = self.settings.streak_timing();
        for e in self.mesh.entry_points_of(t) {
            self.apply_result(w, e, ok, received_ms, timing);
        }
    }

    /// `witness` probes every entry point of `target` `times` times.
    pub fn probe(&mut self, witness: &str, target: &str, ok: bool, times: u32) {
        let (w, t) = (self.index(witness), self.index(target));
        for _ in 0..times {
            for e in self.mesh.entry_points_of(t) {
                self.probe_entry_point(w, e, ok);
            }
        }
    }

    /// `witness` probes one entry point (by index within `target`).
    pub fn probe_one(&mut self, witness: &str, target: &str, nth: usize, ok: bool, times: u32) {
        let (w, t) = (self.index(witness), self.index(target));
        let e = self.mesh.entry_points_of(t).nth(nth).expect("entry point");
        for _ in 0..times {
            self.probe_entry_point(w, e, ok);
        }
    }

    /// Everyone probes everyone once, successfully.
    pub fn all_reach_all(&mut self) {
        let n = self.mesh.server_count();
        for w in 0..n {
            for t in (0..n).filter(|&t| t != w) {
                for e in self.mesh.entry_points_of(t) {
                    self.probe_entry_point(w, e, true);
                }
            }
        }
    }

    /// A healthy, fully meshed fleet.
    pub fn healthy(&mut self) {
        self.all_report_ok();
        self.all_reach_all();
    }

    pub fn evaluation(&self) -> Evaluation {
        evaluate(&self.mesh, &self.evidence, &self.settings, self.now)
    }

    pub fn verdict(&self, id: &str) -> Verdict {
        self.evaluation().verdicts()[self.index(id)].clone()
    }
}

impl World {
    /// Makes entry point `nth` of `server` a QUIC one (the mesh is
    /// rebuilt, evidence kept).
    pub fn quic(mut self, server: &str, nth: usize) -> World {
        let mut servers = self.mesh.servers().to_vec();
        let s = self.index(server);
        servers[s].entry_points[nth].transport = crate::fleet::Transport::Quic;
        self.mesh = Mesh::new(servers, self.mesh.routes().to_vec());
        self
    }

    /// `witness` runs `check` on entry point `nth` of `target` `times`
    /// times (a round apart), each failing at `stage` unless `ok`.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        &mut self,
        witness: &str,
        target: &str,
        nth: usize,
        check: Check,
        outcome: Outcome,
        times: u32,
    ) {
        let (w, t) = (self.index(witness), self.index(target));
        let e = self.mesh.entry_points_of(t).nth(nth).expect("entry point");
        let timing = StreakTiming {
            knock_gap_ms: 0,
            ..self.settings.streak_timing()
        };
        for _ in 0..times {
            self.agent_clock += 1_000;
            let probe = outcome.at(self.agent_clock, check);
            if check == Check::Control {
                self.evidence.apply_control(w, probe, self.now, timing);
            } else {
                self.evidence.apply_probe(w, e, probe, self.now, timing);
            }
        }
    }
}

/// How one check ends, for [`World::check`].
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    Ok,
    /// Received this many bytes (transfers).
    OkBytes(u64),
    Fails(ProbeError, Stage),
    /// A transfer froze after this many bytes.
    Frozen(u64),
}

impl Outcome {
    fn at(self, at_ms: i64, check: Check) -> ProbeOutcome {
        let base = ProbeOutcome {
            check,
            ..ProbeOutcome::handshake(at_ms, true, None)
        };
        match self {
            Outcome::Ok => base,
            Outcome::OkBytes(bytes) => ProbeOutcome {
                bytes: Some(bytes),
                ..base
            },
            Outcome::Fails(error, stage) => ProbeOutcome {
                ok: false,
                error: Some(error),
                stage: Some(stage),
                ..base
            },
            Outcome::Frozen(bytes) => ProbeOutcome {
                ok: false,
                error: Some(ProbeError::Frozen),
                stage: Some(Stage::Transfer),
                bytes: Some(bytes),
                ..base
            },
        }
    }
}

impl World {
    /// Gives `route` a `servers_per_user` (the mesh is rebuilt, evidence kept).
    pub fn servers_per_user(mut self, route: &str, k: u32) -> World {
        let mut routes = self.mesh.routes().to_vec();
        for r in routes.iter_mut().filter(|r| r.id.as_str() == route) {
            r.servers_per_user = Some(k);
        }
        self.mesh = Mesh::new(self.mesh.servers().to_vec(), routes);
        self
    }
}

impl World {
    /// Plans maintenance windows (the mesh is rebuilt, evidence kept).
    pub fn with_windows(mut self, windows: Vec<crate::maintenance::MaintenanceWindow>) -> World {
        self.mesh = self.mesh.clone().with_maintenance(windows);
        self
    }
}
