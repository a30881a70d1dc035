//! The scenarios of `scenarios.rs` again, in a fleet of 500 servers that
//! witness sets watch (docs/concepts/witness-sets.md): each agent probes
//! what its config lists, and every rule keeps its meaning over the sets.
//! One panel plays them in turn, each on servers of its own.

use crate::agent::{get, knock, post, post_rounds, probes, report, uuid};
use crate::helpers::{spawn_app, TestApp};
use crate::witness_sets::Told;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};

const COUNTRIES: usize = 10;
const PER_COUNTRY: usize = 50;
const SUB: &str = "alice-sets-subscription-0001";

/// 500 servers (10 countries, two routes each) and two verifiers.
async fn big_fleet(app: &TestApp) -> HashMap<String, String> {
    let mut servers: Vec<Value> = Vec::new();
    let mut routes: Vec<Value> = Vec::new();
    for c in 0..COUNTRIES {
        let country = format!("C{}", (b'A' + c as u8) as char);
        for half in ["a", "b"] {
            routes.push(json!({"id": format!("r{c}{half}"), "name": format!("Route {c}{half}")}));
        }
        for k in 0..PER_COUNTRY {
            let id = format!("s{c}-{k}");
            let route = format!("r{c}{}", if k % 2 == 0 { "a" } else { "b" });
            servers.push(
                json!({"id": id, "name": id, "country": country, "routes": [route],
                "entry_points": [{"id": format!("{id}-ep"), "protocol": "vless",
                                  "host": format!("127.0.40.{}", 1 + c), "port": 1000 + k}]}),
            );
        }
    }
    for v in ["ru-v1", "ru-v2"] {
        servers.push(json!({"id": v, "name": v, "country": "RU", "routes": ["r0a"], "verifier": true,
            "entry_points": [{"id": format!("{v}-ep"), "protocol": "vless", "host": "127.0.41.1", "port": 443}]}));
    }
    let body = json!({"routes": routes, "servers": servers,
        "users": [{"id": "alice", "name": "Alice", "routes": ["r0a"], "sub_token": SUB}]});
    let response = app.put_fleet(&body).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.expect("json");
    serde_json::from_value(answer["agent_tokens"].clone()).expect("tokens")
}

/// Numbers for report ids and probe times, never reused in one test.
struct Counter(u32);

impl Counter {
    fn next(&mut self, by: u32) -> u32 {
        self.0 += by;
        self.0 - by
    }
}

async fn status(app: &TestApp, id: &str) -> Value {
    get(app, &format!("/api/v1/servers/{id}")).await["status"].clone()
}

/// Every agent reports OK, with one successful result for each peer its
/// config lists.
async fn healthy_round(
    app: &TestApp,
    tokens: &HashMap<String, String>,
    told: &Told,
    n: &mut Counter,
) {
    let at = n.next(1);
    for (id, token) in tokens {
        let list: Vec<Value> = told
            .targets_of(id)
            .iter()
            .flat_map(|t| probes(&format!("{t}-ep"), true, at, 1))
            .collect();
        let r = post(app, token, &report(&uuid(n.next(1)), true, list)).await;
        assert_eq!(r.status(), 202, "{id}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_keeps_its_meaning_in_a_fleet_of_500_watched_by_witness_sets() {
    let app = spawn_app().await;
    // A knock every second of panel time, so the whole run stays fresh;
    // no set rotates while the scenarios play (a rotation would move a
    // witness out of the set a scenario reads).
    app.put_settings(json!({"probe_interval_s": 2, "witness_rotation_s": 1_000_000_000}))
        .await;
    let tokens = big_fleet(&app).await;
    let mut n = Counter(100);
    let told = Told::read(&app, &tokens).await;
    // Beyond the threshold (64): an agent probes a dozen servers or so,
    // a verifier every normal server.
    for (id, peers) in &told.0 {
        if id.starts_with("ru-") {
            assert_eq!(peers.len(), 500, "{id}");
        } else {
            // In about 12 sets, as rendezvous hashing spreads them.
            assert!(
                (1..=40).contains(&peers.len()),
                "{id}: {} peers",
                peers.len()
            );
        }
    }
    healthy_round(&app, &tokens, &told, &mut n).await;
    assert!(
        Told::read(&app, &tokens).await.0 == told.0,
        "the sets of a fleet starting up are the ones it keeps"
    );

    // A healthy fleet is all green, with 12 voting witnesses a server.
    let servers = get(&app, "/api/v1/servers").await;
    for s in servers.as_array().expect("servers") {
        assert_eq!(s["status"], "healthy", "{s}");
        assert_eq!(s["in_rotation"], true);
    }
    let mut used: BTreeSet<String> = BTreeSet::new();
    let pick = |told: &Told, used: &mut BTreeSet<String>| -> (String, Vec<String>) {
        let target = (0..COUNTRIES * PER_COUNTRY)
            .map(|i| format!("s{}-{}", i % COUNTRIES, i / COUNTRIES))
            .find(|t| !used.contains(t) && told.set_of(t).iter().all(|m| !used.contains(m)))
            .expect("a fresh target");
        let set = told.set_of(&target);
        assert_eq!(set.len(), 12, "{target}'s set");
        used.insert(target.clone());
        used.extend(set.iter().cloned());
        (target, set)
    };

    // Two failed knocks are ignored.
    let (t1, set) = pick(&told, &mut used);
    for m in &set[..3] {
        knock(
            &app,
            &tokens[m],
            n.next(1),
            &format!("{t1}-ep"),
            false,
            n.next(2),
            2,
        )
        .await;
    }
    assert_eq!(status(&app, &t1).await, "healthy", "{t1}");

    // A single witness marks the pair, naming both, and removes nothing.
    let (t2, set) = pick(&told, &mut used);
    knock(
        &app,
        &tokens[&set[0]],
        n.next(1),
        &format!("{t2}-ep"),
        false,
        n.next(3),
        3,
    )
    .await;
    let view = get(&app, &format!("/api/v1/servers/{t2}")).await;
    assert_eq!(view["status"], "entry_points_unavailable", "{view}");
    assert_eq!(view["in_rotation"], true);
    let cause = &view["entry_points"][0]["causes"][0];
    assert_eq!(
        (cause["from"].as_str(), cause["to"].as_str()),
        (Some(set[0].as_str()), Some(t2.as_str()))
    );

    // k of n of its set: unreachable.
    let (t3, set) = pick(&told, &mut used);
    for m in &set[..2] {
        knock(
            &app,
            &tokens[m],
            n.next(1),
            &format!("{t3}-ep"),
            false,
            n.next(3),
            3,
        )
        .await;
    }
    let view = get(&app, &format!("/api/v1/servers/{t3}")).await;
    assert_eq!(view["status"], "unreachable", "{view}");
    assert_eq!(view["unreachable"]["failing"], 2);
    assert_eq!(view["unreachable"]["of"], 12, "the set's voting witnesses");
    let failing: BTreeSet<&str> = view["unreachable"]["failing_witnesses"]
        .as_array()
        .expect("ids")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(failing, set[..2].iter().map(String::as_str).collect());

    // A two-way pair failure marks both sides.
    let (a, b) = told
        .0
        .keys()
        .filter(|a| !a.starts_with("ru-") && !used.contains(*a))
        .find_map(|a| {
            told.targets_of(a)
                .into_iter()
                .find(|b| {
                    !used.contains(b) && told.set_of(a).contains(b) && told.set_of(b).contains(a)
                })
                .map(|b| (a.clone(), b))
        })
        .expect("two servers in each other's set");
    knock(
        &app,
        &tokens[&a],
        n.next(1),
        &format!("{b}-ep"),
        false,
        n.next(3),
        3,
    )
    .await;
    knock(
        &app,
        &tokens[&b],
        n.next(1),
        &format!("{a}-ep"),
        false,
        n.next(3),
        3,
    )
    .await;
    assert_eq!(status(&app, &a).await, "entry_points_unavailable");
    assert_eq!(status(&app, &b).await, "entry_points_unavailable");
    used.extend([a, b]);

    // An unreliable witness is discarded and flagged, over its own targets.
    let w = told
        .0
        .keys()
        .find(|w| {
            !w.starts_with("ru-")
                && !used.contains(*w)
                && told.targets_of(w).iter().all(|t| !used.contains(t))
        })
        .expect("a witness of its own")
        .clone();
    let from = n.next(3);
    let all_fail: Vec<Value> = told
        .targets_of(&w)
        .iter()
        .flat_map(|t| probes(&format!("{t}-ep"), false, from, 3))
        .collect();
    post_rounds(&app, &tokens[&w], n.next(1), all_fail).await;
    let view = get(&app, &format!("/api/v1/servers/{w}")).await;
    let figure = &view["unreliable_witness"];
    assert_eq!(figure["failing"], figure["of"], "{view}");
    assert_eq!(
        figure["of"].as_u64(),
        Some(told.targets_of(&w).len() as u64)
    );
    for t in told.targets_of(&w) {
        assert_eq!(
            status(&app, &t).await,
            "healthy",
            "{t}: {w}'s evidence is discarded"
        );
    }
    used.insert(w.clone());
    used.extend(told.targets_of(&w));

    // A blocked server is withheld while its route has an alternative.
    let blocked = (0..PER_COUNTRY)
        .map(|k| format!("s0-{k}"))
        .find(|s| {
            s.ends_with(|c: char| c.is_ascii_digit())
                && !used.contains(s)
                && s.trim_start_matches("s0-")
                    .parse::<usize>()
                    .is_ok_and(|k| k % 2 == 0)
        })
        .expect("a server of route r0a");
    knock(
        &app,
        &tokens["ru-v1"],
        n.next(1),
        &format!("{blocked}-ep"),
        false,
        n.next(3),
        3,
    )
    .await;
    assert_eq!(status(&app, &blocked).await, "blocked");
    let links = app
        .client
        .get(app.url(&format!("/sub/{SUB}?format=plain")))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("links");
    assert!(
        !links.contains(&format!("#{blocked}\n")) && !links.ends_with(&format!("#{blocked}")),
        "{links}"
    );
    assert!(links.lines().count() >= 20, "the rest of the route stays");
    used.insert(blocked.clone());

    // A verifier that reaches no one blocks no one.
    let from = n.next(3);
    let none: Vec<Value> = told
        .targets_of("ru-v2")
        .iter()
        .flat_map(|t| probes(&format!("{t}-ep"), false, from, 3))
        .collect();
    post_rounds(&app, &tokens["ru-v2"], n.next(1), none).await;
    let servers = get(&app, "/api/v1/servers").await;
    for s in servers.as_array().expect("servers") {
        let by: Vec<&str> = s["blocked_by"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(!by.contains(&"ru-v2"), "{s}: the verifier is suspended");
    }
    assert_eq!(
        status(&app, &blocked).await,
        "blocked",
        "still blocked by ru-v1"
    );

    // The panel shows each server's verdict.
    let (down, _) = pick(&told, &mut used);
    post(
        &app,
        &tokens[&down],
        &report(&uuid(n.next(1)), false, vec![]),
    )
    .await;
    assert_eq!(status(&app, &down).await, "unavailable");
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, &format!("/servers/{down}")).await;
    assert!(html.contains("Server unavailable"), "the card says it");

    // Stale witness evidence stops counting.
    let (t9, set) = pick(&told, &mut used);
    for m in &set[..2] {
        knock(
            &app,
            &tokens[m],
            n.next(1),
            &format!("{t9}-ep"),
            false,
            n.next(3),
            3,
        )
        .await;
    }
    assert_eq!(status(&app, &t9).await, "unreachable");
    app.put_settings(json!({"stale_after_s": 4})).await;
    app.advance(std::time::Duration::from_millis(4_100)).await;
    post(&app, &tokens[&t9], &report(&uuid(n.next(1)), true, vec![])).await;
    assert_eq!(
        status(&app, &t9).await,
        "healthy",
        "the silent witnesses' votes expired"
    );
    assert_eq!(status(&app, &set[0]).await, "no_data");
}
