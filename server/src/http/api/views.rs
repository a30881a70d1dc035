//! The JSON views of docs/API.md, built from the engine's verdicts.

use crate::engine::Serving;
use meshwatch::balance::Placement;
use meshwatch::controls::{ControlAddress, ControlSni};
use meshwatch::mesh::Mesh;
use meshwatch::network::{BlockOnNetwork, NetworkLabel, VerifierOnNetwork};
use meshwatch::status::ServerStatus;
use meshwatch::verdict::{EntryPointVerdict, Verdict, WitnessFigure};
use meshwatch::witness_sets::WitnessSets;
use serde::Serialize;

#[derive(Serialize, utoipa::ToSchema)]
pub struct SelfCheckView {
    pub listener_ok: bool,
    pub service_ok: bool,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct UnreachableView {
    pub failing: u32,
    pub of: u32,
    pub failing_witnesses: Vec<String>,
}

/// Who watches a server beyond the witness set threshold
/// (docs/concepts/witness-sets.md).
#[derive(Serialize, utoipa::ToSchema)]
pub struct WitnessSetView {
    /// Its set, by id.
    pub witnesses: Vec<String>,
    /// Servers outside the set confirming a starting failure streak.
    pub confirmers: Vec<String>,
    /// When the set last rotated.
    pub rotated_at: chrono::DateTime<chrono::Utc>,
}

impl WitnessSetView {
    /// Server `s`'s set; `None` while every server probes every other,
    /// and for a verifier.
    pub fn of(mesh: &Mesh, sets: &WitnessSets, s: usize) -> Option<Self> {
        let ids = |list: &[u32]| -> Vec<String> {
            list.iter()
                .map(|&w| mesh.server(w as usize).id.to_string())
                .collect()
        };
        Some(Self {
            witnesses: ids(sets.set_of(s)?),
            confirmers: ids(sets.confirmers_of(s)),
            rotated_at: meshwatch::evidence::from_ms(sets.rotated_at_ms(s)?),
        })
    }
}

/// `ServerView` of docs/API.md.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ServerView {
    pub id: String,
    pub name: String,
    pub country: String,
    pub verifier: bool,
    /// The network a verifier probes from, if named.
    pub verifier_network: Option<NetworkLabel>,
    /// A verifier's control SNI (§8), if set.
    pub verifier_control_sni: Option<ControlSni>,
    /// A verifier's domestic control addresses (§8).
    pub verifier_controls: Vec<ControlAddress>,
    /// A verifier that cannot reach its control addresses: its network is
    /// in an allowlist or shutdown mode, and its verdicts are suspended.
    pub verifier_controls_unreachable: bool,
    pub status: ServerStatus,
    pub conditions: Vec<ServerStatus>,
    pub in_rotation: bool,
    pub stale: bool,
    pub last_report_at: Option<chrono::DateTime<chrono::Utc>>,
    pub self_check: Option<SelfCheckView>,
    pub unreachable: Option<UnreachableView>,
    pub unreliable_witness: Option<WitnessFigure>,
    pub blocked_by: Vec<String>,
    /// Every verifier's block of it, of any kind (§8), with its network.
    pub blocked_on: Vec<BlockOnNetwork>,
    /// The fresh verifiers that reach it, with their networks.
    pub still_reached_by: Vec<VerifierOnNetwork>,
    pub entry_points: Vec<EntryPointVerdict>,
    /// The window holding now, if one does (§6).
    pub maintenance: Option<MaintenanceRef>,
    /// Who watches it, beyond the witness set threshold.
    pub witness_set: Option<WitnessSetView>,
}

/// The maintenance window a server is in, and when it ends.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MaintenanceRef {
    pub id: meshwatch::maintenance::MaintenanceId,
    pub until: chrono::DateTime<chrono::Utc>,
}

impl ServerView {
    pub fn new(
        mesh: &Mesh,
        index: usize,
        verdict: &Verdict,
        witness_set: Option<WitnessSetView>,
    ) -> Self {
        let server = mesh.server(index);
        Self {
            id: server.id.to_string(),
            name: server.name.clone(),
            country: server.country.clone(),
            verifier: server.verifier,
            verifier_network: server.network.clone(),
            verifier_control_sni: server.controls.control_sni.clone(),
            verifier_controls: server.controls.controls.clone(),
            verifier_controls_unreachable: verdict.controls_unreachable,
            status: verdict.status,
            conditions: verdict.conditions.clone(),
            in_rotation: verdict.in_rotation,
            stale: verdict.stale,
            last_report_at: verdict.last_report_at,
            self_check: verdict.self_check.as_ref().map(|c| SelfCheckView {
                listener_ok: c.listener_ok,
                service_ok: c.service_ok,
            }),
            unreachable: verdict
                .has(ServerStatus::Unreachable)
                .then(|| UnreachableView {
                    failing: verdict.quorum.failing,
                    of: verdict.quorum.of,
                    failing_witnesses: verdict
                        .quorum
                        .failing_witnesses
                        .iter()
                        .map(|w| w.to_string())
                        .collect(),
                }),
            unreliable_witness: verdict.unreliable_witness,
            blocked_by: verdict.blocked_by.iter().map(|v| v.to_string()).collect(),
            blocked_on: mesh.blocks_on_networks(&verdict.blocks),
            still_reached_by: mesh.on_networks(&verdict.still_reached_by),
            entry_points: verdict.entry_points.clone(),
            maintenance: verdict
                .maintenance
                .filter(|m| m.active)
                .map(|m| MaintenanceRef {
                    id: m.id,
                    until: m.until,
                }),
            witness_set,
        }
    }
}

/// One row of `GET /api/v1/users/{id}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct UserServerView {
    pub server_id: String,
    pub status: ServerStatus,
    pub caption: String,
    pub in_subscription: bool,
    pub replaced_by: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct UserView {
    pub id: String,
    pub servers: Vec<UserServerView>,
}

/// The product wording of docs/PRODUCT.md §5 in English, with "k of n"
/// (`failing` of `of` witnesses) for unreachable servers; empty for
/// healthy ones.
pub fn caption(status: ServerStatus, failing: u32, of: u32) -> String {
    match status {
        ServerStatus::Unreachable => format!(
            "{} — {failing} of {of} of your servers can't reach it",
            meshwatch_views::i18n::caption_en(ServerStatus::Unreachable),
        ),
        other => meshwatch_views::i18n::caption_en(other).to_owned(),
    }
}

impl UserView {
    pub fn new(id: &str, serving: &Serving) -> Self {
        let servers = serving
            .routes
            .iter()
            .flat_map(|r| r.servers.iter())
            .map(|s| UserServerView {
                server_id: s.server.id.to_string(),
                status: s.status,
                caption: caption(s.status, s.failing, s.of),
                in_subscription: s.placement.in_subscription(),
                replaced_by: match &s.placement {
                    Placement::ReplacedBy(by) => Some(by.id.to_string()),
                    _ => None,
                },
            })
            .collect();
        Self {
            id: id.to_owned(),
            servers,
        }
    }
}
