//! Witness sets over HTTP (docs/concepts/witness-sets.md): beyond the
//! threshold an agent's config lists its targets alone, a starting streak
//! asks three more agents to confirm (their configs move, and the report's
//! answer says so), R2 counts a server's set, and an old agent that
//! probes everyone is heard but does not vote.

use crate::agent::{config_of, get, knock, post, report, uuid};
use crate::helpers::{spawn_app, TestApp};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const COUNTRIES: [(&str, &str); 4] = [("DE", "de"), ("NL", "nl"), ("FI", "fi"), ("SE", "se")];

/// Twelve servers in four countries and a verifier; the agent tokens.
async fn fleet(app: &TestApp) -> HashMap<String, String> {
    let mut servers: Vec<Value> = Vec::new();
    for (country, route) in COUNTRIES {
        for k in 1..=3 {
            let id = format!("{route}-{k}");
            servers.push(json!({"id": id, "name": id, "country": country, "routes": [route],
                "entry_points": [{"id": format!("{id}-ep"), "protocol": "vless", "host": "127.0.31.1", "port": 443}]}));
        }
    }
    servers.push(json!({"id": "ru-v", "name": "ru-v", "country": "RU", "routes": ["de"], "verifier": true,
        "entry_points": [{"id": "ru-v-ep", "protocol": "vless", "host": "127.0.31.2", "port": 443}]}));
    let routes: Vec<Value> = COUNTRIES
        .iter()
        .map(|(_, r)| json!({"id": r, "name": r}))
        .collect();
    let body = json!({"routes": routes, "servers": servers, "users": []});
    let response: Value = app.put_fleet(&body).await.json().await.expect("json");
    serde_json::from_value(response["agent_tokens"].clone()).expect("tokens")
}

/// What each agent's config tells it to probe: server → `indirect`.
/// Verifiers' ids start with `ru-` in these tests' fleets.
#[derive(Debug, PartialEq)]
pub struct Told(pub BTreeMap<String, BTreeMap<String, bool>>);

impl Told {
    pub async fn read(app: &TestApp, tokens: &HashMap<String, String>) -> Self {
        let mut all = BTreeMap::new();
        for (id, token) in tokens {
            let config = config_of(app, token).await;
            let peers: BTreeMap<String, bool> = config["peers"]
                .as_array()
                .expect("peers")
                .iter()
                .map(|p| {
                    let server = p["server_id"].as_str().expect("server_id").to_owned();
                    (server, p["indirect"].as_bool().unwrap_or(false))
                })
                .collect();
            all.insert(id.clone(), peers);
        }
        Told(all)
    }

    /// The agents that list `server` (as a set member, or a verifier,
    /// when `indirect` is false).
    pub fn watchers(&self, server: &str, indirect: bool) -> BTreeSet<String> {
        self.0
            .iter()
            .filter(|(_, peers)| peers.get(server) == Some(&indirect))
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// `target`'s set: the normal agents told to probe it, not indirectly.
    pub fn set_of(&self, target: &str) -> Vec<String> {
        self.watchers(target, false)
            .into_iter()
            .filter(|id| !id.starts_with("ru-"))
            .collect()
    }

    pub fn targets_of(&self, witness: &str) -> Vec<String> {
        self.0[witness].keys().cloned().collect()
    }
}

/// A JSON list of ids.
fn ids(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .expect("a list of ids")
        .iter()
        .map(|v| v.as_str().expect("an id").to_owned())
        .collect()
}

async fn all_report_ok(app: &TestApp, tokens: &HashMap<String, String>, base: u32) {
    for (i, token) in tokens.values().enumerate() {
        let r = post(app, token, &report(&uuid(base + i as u32), true, vec![])).await;
        assert_eq!(r.status(), 202);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_the_threshold_agents_probe_their_sets_and_confirm_a_starting_streak() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report_ok(&app, &tokens, 100).await;

    // At or below the threshold (13 servers of 64): everyone probes everyone.
    let full = Told::read(&app, &tokens).await;
    assert_eq!(full.0["de-1"].len(), 12);
    assert_eq!(
        get(&app, "/api/v1/servers/de-1").await["witness_set"],
        Value::Null
    );
    assert!(full
        .0
        .values()
        .flat_map(|p| p.values())
        .all(|indirect| !indirect));

    // No set rotates while the test reads them.
    app.put_settings(json!({"witness_set_threshold": 8, "witness_set_size": 3,
                            "witness_rotation_s": 1_000_000_000}))
        .await;
    let sets = Told::read(&app, &tokens).await;
    // Each normal server is in the config of its 3 set members, and of
    // the verifier; no set watches the verifier.
    for (country, route) in COUNTRIES {
        for k in 1..=3 {
            let id = format!("{route}-{k}");
            let members = sets.watchers(&id, false);
            assert_eq!(members.len(), 4, "{id}: {members:?}");
            assert!(members.contains("ru-v"));
            let countries: BTreeSet<&str> = members
                .iter()
                .filter(|m| *m != "ru-v")
                .map(|m| &m[..2])
                .collect();
            assert_eq!(
                countries.len(),
                3,
                "{id} ({country}) is watched from 3 countries: {members:?}"
            );
        }
    }
    assert!(sets.watchers("ru-v", false).is_empty());
    // The API shows each server's set, as its witnesses are told.
    let view = get(&app, "/api/v1/servers/nl-3").await;
    assert_eq!(
        ids(&view["witness_set"]["witnesses"]),
        sets.set_of("nl-3").into_iter().collect()
    );
    assert_eq!(view["witness_set"]["confirmers"], json!([]));
    assert!(view["witness_set"]["rotated_at"].is_string());
    assert_eq!(
        get(&app, "/api/v1/servers/ru-v").await["witness_set"],
        Value::Null
    );
    assert_eq!(
        sets.0["ru-v"].len(),
        12,
        "a verifier probes every normal server"
    );

    // A set member's streak towards de-1 starts: three agents outside
    // the set are asked to confirm.
    let members: Vec<String> = sets
        .watchers("de-1", false)
        .into_iter()
        .filter(|m| m != "ru-v")
        .collect();
    let outsiders: Vec<String> = sets
        .0
        .keys()
        .filter(|id| *id != "de-1" && *id != "ru-v" && !members.contains(id))
        .cloned()
        .collect();
    // The other two members reach it.
    for (i, m) in members.iter().enumerate().skip(1) {
        knock(&app, &tokens[m], 500 + i as u32, "de-1-ep", true, 0, 1).await;
    }
    let mut before = HashMap::new();
    for o in &outsiders {
        before.insert(o.clone(), etag_of(&app, &tokens[o]).await);
    }
    let answer: Value = knock(&app, &tokens[&members[0]], 200, "de-1-ep", false, 0, 1)
        .await
        .json()
        .await
        .expect("ack");
    let asked = Told::read(&app, &tokens).await;
    let confirmers = asked.watchers("de-1", true);
    assert_eq!(confirmers.len(), 3, "{asked:?}");
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(ids(&view["witness_set"]["confirmers"]), confirmers);
    assert!(confirmers.iter().all(|c| outsiders.contains(c)));
    // The member's own answer carries its config's version; a confirmer's
    // config moved, and its conditional GET says so.
    let member_config = config_of(&app, &tokens[&members[0]]).await;
    assert_eq!(answer["fleet_version"], member_config["fleet_version"]);
    for o in &outsiders {
        let response = app.agent_config(&tokens[o], Some(&before[o])).await;
        let expected = if confirmers.contains(o) { 200 } else { 304 };
        assert_eq!(
            response.status(),
            expected,
            "{o}: only a confirmer's config moved"
        );
    }

    // An old agent outside the set that probes everyone: heard, no vote.
    let outsider = outsiders
        .iter()
        .find(|o| !confirmers.contains(*o))
        .expect("an outsider that does not confirm");
    knock(&app, &tokens[outsider], 300, "de-1-ep", false, 0, 3).await;
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "healthy", "{view}");

    // The confirmers fail it too, with the member: 4 of 6 of its witnesses.
    knock(&app, &tokens[&members[0]], 201, "de-1-ep", false, 1, 2).await;
    for (i, c) in confirmers.iter().enumerate() {
        knock(&app, &tokens[c], 400 + i as u32, "de-1-ep", false, 0, 3).await;
    }
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "unreachable", "{view}");
    assert_eq!(view["unreachable"]["failing"], 4);
    assert_eq!(view["unreachable"]["of"], 6);
    let failing = ids(&view["unreachable"]["failing_witnesses"]);
    assert!(
        !failing.contains(outsider),
        "the old agent's failures do not vote"
    );

    // One success of the member ends its streak: the confirmations end,
    // and with them their votes.
    knock(&app, &tokens[&members[0]], 202, "de-1-ep", true, 5, 1).await;
    let calm = Told::read(&app, &tokens).await;
    assert!(calm.watchers("de-1", true).is_empty());
    let view = get(&app, "/api/v1/servers/de-1").await;
    assert_eq!(view["status"], "healthy", "{view}");
}

async fn etag_of(app: &TestApp, token: &str) -> String {
    let response = app.agent_config(token, None).await;
    response.headers()["etag"]
        .to_str()
        .expect("etag")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mesh_page_lists_each_servers_set_and_searches_instead_of_a_picture() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report_ok(&app, &tokens, 100).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/mesh").await;
    assert!(
        html.contains("data-testid=\"mesh-matrix\""),
        "13 servers: the matrix"
    );

    // No set rotates while the test reads them.
    app.put_settings(json!({"witness_set_threshold": 8, "witness_set_size": 3,
                            "witness_rotation_s": 1_000_000_000}))
        .await;
    let (status, html) = app.page(&cookie, "/mesh").await;
    assert_eq!(status, 200);
    assert!(html.contains("data-testid=\"witness-sets\""), "{html}");
    assert!(!html.contains("data-testid=\"mesh-matrix\""));
    assert_eq!(
        html.matches("data-testid=\"witness-set\"").count(),
        12,
        "every normal server"
    );
    assert_eq!(html.matches("data-testid=\"set-witness\"").count(), 12 * 3);
    assert!(html.contains("Showing 12 of 12 servers"), "{html}");
    // The sets the page shows are the ones the agents are told.
    let sets = Told::read(&app, &tokens).await;
    let members = sets.watchers("nl-2", false);
    let row_start = html.find("data-server=\"nl-2\"").expect("nl-2's row");
    // The row ends with its rotation time.
    let row_end = row_start + html[row_start..].find("<time").expect("the row's end");
    let row = &html[row_start..row_end];
    for m in members.iter().filter(|m| *m != "ru-v") {
        assert!(
            row.contains(&format!("data-witness=\"{m}\"")),
            "{m} in {row}"
        );
    }

    let (_, found) = app.page(&cookie, "/mesh?q=FI").await;
    assert_eq!(
        found.matches("data-testid=\"witness-set\"").count(),
        3,
        "the Finnish servers"
    );
    assert!(found.contains("Showing 3 of 3 servers"));
    let picture = app
        .client
        .get(app.url("/mesh.svg"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(picture.status(), 404, "no N × N picture");
}
