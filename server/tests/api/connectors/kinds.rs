//! The panels under test, each with its stand-in, as the shared tests see
//! them: the same five hosts in every panel, and the exact requests each
//! panel's API takes to turn hosts off and on.

use crate::fake_panels::{
    marzban, marzneshin, pasarguard, remnawave, three_x_ui, FakePanel, Recorded,
};
use serde_json::{json, Value};

/// The hosts every panel holds: de-1, de-2 (its port left to its inbound
/// where the panel allows that), nl-1 (turned off by the operator), nl-2,
/// and one meshwatch does not know.
pub const HOSTS: [(&str, u16, bool); 5] = [
    ("203.0.113.11", 443, false),
    ("203.0.113.12", 443, false),
    ("203.0.113.21", 443, true),
    ("203.0.113.22", 443, false),
    ("198.51.100.9", 443, false),
];
pub const DE_1: usize = 1;
pub const DE_2: usize = 2;
pub const NL_1: usize = 3;
pub const OTHER: usize = 5;

/// Turning hosts off or on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    Off,
    On,
}

pub trait Kind {
    type State: Send + 'static;
    /// The API's `kind`.
    const KIND: &'static str;
    /// The country the panel gives its node (none but Remnawave keeps one).
    const NODE_COUNTRY: Option<&'static str> = None;
    async fn start() -> FakePanel<Self::State>;
    /// The connector's `token`.
    fn token() -> String;
    /// Host `n`'s id in the panel (`external_id`).
    fn id(n: usize) -> String;
    fn disabled(fake: &FakePanel<Self::State>, n: usize) -> bool;
    /// The exact requests that turn hosts `ns` off or on.
    fn turned(turn: Turn, ns: &[usize]) -> Vec<Recorded>;
    /// The operator deletes host `n` in the panel.
    fn delete(fake: &FakePanel<Self::State>, n: usize);
}

/// Panels that sign admins in.
pub trait SignsIn: Kind {
    /// The panel forgets its access tokens (they expired).
    fn expire(fake: &FakePanel<Self::State>);
    fn sign_ins(fake: &FakePanel<Self::State>) -> u32;
}

fn post(path: &str, body: Value) -> Recorded {
    Recorded {
        method: "POST".into(),
        path: path.into(),
        body,
    }
}

fn bulk_path(turn: Turn) -> &'static str {
    match turn {
        Turn::Off => "/api/hosts/bulk/disable",
        Turn::On => "/api/hosts/bulk/enable",
    }
}

pub struct Remnawave;

impl Kind for Remnawave {
    type State = remnawave::Hosts;
    const KIND: &'static str = "remnawave";
    const NODE_COUNTRY: Option<&'static str> = Some("PL");

    async fn start() -> FakePanel<Self::State> {
        let hosts = HOSTS
            .iter()
            .enumerate()
            .map(|(i, (address, port, off))| {
                remnawave::host(&Self::id(i + 1), address, *port, *off, &[])
            })
            .collect();
        remnawave::start(hosts).await
    }

    fn token() -> String {
        remnawave::TOKEN.into()
    }

    fn id(n: usize) -> String {
        format!("6a1f0000-0000-4000-8000-{n:012x}")
    }

    fn disabled(fake: &FakePanel<Self::State>, n: usize) -> bool {
        remnawave::disabled(fake, &Self::id(n))
    }

    fn turned(turn: Turn, ns: &[usize]) -> Vec<Recorded> {
        let uuids: Vec<String> = ns.iter().map(|&n| Self::id(n)).collect();
        vec![post(bulk_path(turn), json!({ "uuids": uuids }))]
    }

    fn delete(fake: &FakePanel<Self::State>, n: usize) {
        fake.with(|hosts| hosts.0.retain(|h| h["uuid"] != Self::id(n)));
    }
}

pub struct PasarGuard;

impl Kind for PasarGuard {
    type State = pasarguard::Panel;
    const KIND: &'static str = "pasarguard";

    async fn start() -> FakePanel<Self::State> {
        let hosts = HOSTS
            .iter()
            .enumerate()
            .map(|(i, (address, port, off))| {
                // de-2's host takes its inbound's port.
                let port = (i + 1 != DE_2).then_some(*port);
                pasarguard::host((i + 1) as i64, address, port, *off)
            })
            .collect();
        let cores = json!({"count": 1, "cores": [{
            "id": 1, "name": "xray", "type": "xray", "exclude_inbound_tags": [],
            "fallbacks_inbound_tags": [], "created_at": "2026-12-01T10:00:00",
            "config": {"inbounds": [{"tag": "VLESS TCP REALITY", "protocol": "vless",
                                     "port": 443}]}}]});
        pasarguard::start(hosts, cores).await
    }

    fn token() -> String {
        format!("{}:{}", pasarguard::USERNAME, pasarguard::PASSWORD)
    }

    fn id(n: usize) -> String {
        n.to_string()
    }

    fn disabled(fake: &FakePanel<Self::State>, n: usize) -> bool {
        pasarguard::disabled(fake, n as i64)
    }

    fn turned(turn: Turn, ns: &[usize]) -> Vec<Recorded> {
        vec![post(bulk_path(turn), json!({ "ids": ns }))]
    }

    fn delete(fake: &FakePanel<Self::State>, n: usize) {
        fake.with(|p| p.hosts.retain(|h| h["id"] != n));
    }
}

impl SignsIn for PasarGuard {
    fn expire(fake: &FakePanel<Self::State>) {
        fake.with(|p| p.access = None);
    }

    fn sign_ins(fake: &FakePanel<Self::State>) -> u32 {
        fake.with(|p| p.sign_ins)
    }
}

pub struct Marzneshin;

/// Marzneshin's host `n` as the fake stores it.
fn marzneshin_host(n: usize, off: bool) -> Value {
    let (address, port, _) = HOSTS[n - 1];
    marzneshin::host(n as i64, address, (n != DE_2).then_some(port), off)
}

impl Kind for Marzneshin {
    type State = marzneshin::Panel;
    const KIND: &'static str = "marzneshin";

    async fn start() -> FakePanel<Self::State> {
        let mut hosts: Vec<Value> = (1..=HOSTS.len())
            .map(|n| marzneshin_host(n, HOSTS[n - 1].2))
            .collect();
        // More than one page of 100: hosts it does not know.
        hosts.extend(
            (100..=200)
                .map(|id| marzneshin::host(id, &format!("192.0.2.{}", id - 99), Some(443), false)),
        );
        marzneshin::start(hosts, vec![marzneshin::inbound(7, 443)]).await
    }

    fn token() -> String {
        format!("{}:{}", marzneshin::USERNAME, marzneshin::PASSWORD)
    }

    fn id(n: usize) -> String {
        n.to_string()
    }

    fn disabled(fake: &FakePanel<Self::State>, n: usize) -> bool {
        marzneshin::disabled(fake, n as i64)
    }

    /// Each host read back and sent whole, with only `is_disabled` changed.
    fn turned(turn: Turn, ns: &[usize]) -> Vec<Recorded> {
        ns.iter()
            .map(|&n| {
                let mut body = marzneshin_host(n, turn == Turn::Off);
                body.as_object_mut().expect("a host").remove("id");
                Recorded {
                    method: "PUT".into(),
                    path: format!("/api/inbounds/hosts/{n}"),
                    body,
                }
            })
            .collect()
    }

    fn delete(fake: &FakePanel<Self::State>, n: usize) {
        fake.with(|p| p.hosts.retain(|h| h["id"] != n));
    }
}

impl SignsIn for Marzneshin {
    fn expire(fake: &FakePanel<Self::State>) {
        fake.with(|p| p.access = None);
    }

    fn sign_ins(fake: &FakePanel<Self::State>) -> u32 {
        fake.with(|p| p.sign_ins)
    }
}

pub struct Marzban;

/// Marzban's host `n`, off or on.
fn marzban_host(n: usize, off: bool) -> Value {
    let (address, port, _) = HOSTS[n - 1];
    marzban::host(
        &format!("host {n}"),
        address,
        (n != DE_2).then_some(port),
        off,
    )
}

impl Kind for Marzban {
    type State = marzban::Panel;
    const KIND: &'static str = "marzban";

    async fn start() -> FakePanel<Self::State> {
        let hosts = (1..=HOSTS.len())
            .map(|n| marzban_host(n, HOSTS[n - 1].2))
            .collect();
        marzban::start(hosts).await
    }

    fn token() -> String {
        format!("{}:{}", marzban::USERNAME, marzban::PASSWORD)
    }

    /// tag|remark|address|port, the port empty where the host has none.
    fn id(n: usize) -> String {
        let (address, port, _) = HOSTS[n - 1];
        let port = if n == DE_2 {
            String::new()
        } else {
            port.to_string()
        };
        format!("{}|host {n}|{address}|{port}", marzban::TAG)
    }

    fn disabled(fake: &FakePanel<Self::State>, n: usize) -> bool {
        fake.with(|p| p.document[marzban::TAG][n - 1]["is_disabled"] == true)
    }

    /// The tag's whole list as read, with only hosts `ns` changed.
    fn turned(turn: Turn, ns: &[usize]) -> Vec<Recorded> {
        let list: Vec<Value> = (1..=HOSTS.len())
            .map(|n| {
                let off = if ns.contains(&n) {
                    turn == Turn::Off
                } else {
                    HOSTS[n - 1].2
                };
                marzban_host(n, off)
            })
            .collect();
        vec![Recorded {
            method: "PUT".into(),
            path: "/api/hosts".into(),
            body: json!({ marzban::TAG: list }),
        }]
    }

    fn delete(fake: &FakePanel<Self::State>, n: usize) {
        fake.with(|p| {
            if let Some(list) = p.document[marzban::TAG].as_array_mut() {
                list.retain(|h| h["remark"] != format!("host {n}"));
            }
        });
    }
}

impl SignsIn for Marzban {
    fn expire(fake: &FakePanel<Self::State>) {
        fake.with(|p| p.access = None);
    }

    fn sign_ins(fake: &FakePanel<Self::State>) -> u32 {
        fake.with(|p| p.sign_ins)
    }
}

pub struct ThreeXUi;

impl Kind for ThreeXUi {
    type State = three_x_ui::Panel;
    const KIND: &'static str = "3x-ui";

    async fn start() -> FakePanel<Self::State> {
        let groups = HOSTS
            .iter()
            .enumerate()
            .map(|(i, (address, port, off))| {
                let n = i + 1;
                if n == DE_2 {
                    // Its port from its inbound.
                    three_x_ui::group(&Self::id(n), &[address], 0, *off)
                } else {
                    three_x_ui::group(&Self::id(n), &[&format!("{address}:{port}")], 0, *off)
                }
            })
            .collect();
        three_x_ui::start(groups, false).await
    }

    fn token() -> String {
        three_x_ui::TOKEN.into()
    }

    fn id(n: usize) -> String {
        format!("g-{n}")
    }

    fn disabled(fake: &FakePanel<Self::State>, n: usize) -> bool {
        fake.with(|p| {
            p.groups
                .iter()
                .find(|g| g["groupId"] == Self::id(n))
                .expect("a group of the fake")["isDisabled"]
                == true
        })
    }

    fn turned(turn: Turn, ns: &[usize]) -> Vec<Recorded> {
        let ids: Vec<String> = ns.iter().map(|&n| Self::id(n)).collect();
        vec![post(
            "/panel/api/hosts/bulk/setEnable",
            json!({"ids": ids, "enable": turn == Turn::On}),
        )]
    }

    fn delete(fake: &FakePanel<Self::State>, n: usize) {
        fake.with(|p| p.groups.retain(|g| g["groupId"] != Self::id(n)));
    }
}
