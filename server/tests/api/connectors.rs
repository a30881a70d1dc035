//! Connected panels (docs/PRODUCT.md §7, docs/API.md "Connected panels"): meshwatch's
//! rotation applied in each kind of panel through its own API, against
//! local stand-ins that answer only the documented requests. Every
//! behaviour runs against every kind (`kinds`), with that panel's exact
//! requests.

mod checks;
mod kinds;
mod panel;

use crate::agent::{all_report, get_response, post, report, uuid};
use crate::fake_panels::{FakePanel, NODE_ADDRESS, NODE_NAME};
use crate::helpers::{spawn_app, TestApp, ADMIN_TOKEN};
use kinds::{Kind, SignsIn, Turn, DE_1, DE_2, NL_1, OTHER};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

/// Routes de (de-1, de-2) and nl (nl-1, nl-2), one entry point each, at
/// the addresses of [`kinds::HOSTS`]; every server reported in.
async fn fleet(app: &TestApp) -> HashMap<String, String> {
    let servers: Vec<Value> = [
        ("de-1", "de", 0),
        ("de-2", "de", 1),
        ("nl-1", "nl", 2),
        ("nl-2", "nl", 3),
    ]
    .iter()
    .map(|(id, route, host)| {
        json!({"id": id, "name": id.to_uppercase(), "country": "DE", "routes": [route],
               "entry_points": [{"id": format!("{id}-ep"), "protocol": "vless",
                                 "host": kinds::HOSTS[*host].0, "port": 443}]})
    })
    .collect();
    let body = json!({
        "routes": [{"id": "de", "name": "Germany"}, {"id": "nl", "name": "Netherlands"}],
        "servers": servers,
        "users": [{"id": "alice", "name": "Alice", "routes": ["de", "nl"]}]
    });
    let response: Value = app.put_fleet(&body).await.json().await.expect("json");
    let tokens: HashMap<String, String> =
        serde_json::from_value(response["agent_tokens"].clone()).expect("tokens");
    all_report(app, &tokens, 100).await;
    tokens
}

async fn put_connector(app: &TestApp, body: &Value) -> reqwest::Response {
    app.client
        .put(app.url("/api/v1/connectors/panel"))
        .bearer_auth(ADMIN_TOKEN)
        .json(body)
        .send()
        .await
        .expect("sent")
}

fn connector_body<K: Kind>(fake: &FakePanel<K::State>, mode: Option<&str>) -> Value {
    let mut body = json!({"kind": K::KIND, "url": fake.url(), "token": K::token()});
    if let Some(mode) = mode {
        body["mode"] = json!(mode);
    }
    body
}

/// Connects the panel and waits for its first sync.
async fn connect<K: Kind>(app: &TestApp, fake: &FakePanel<K::State>, mode: Option<&str>) {
    let response = put_connector(app, &connector_body::<K>(fake, mode)).await;
    assert_eq!(response.status(), 200);
    wait_until(app, "the first sync recorded", |c| {
        !c["last_sync_at"].is_null()
    })
    .await;
}

async fn connector(app: &TestApp) -> Value {
    let response = get_response(app, "/api/v1/connectors/panel").await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

/// Polls the connector's view until `check` holds (15 s, real time: the
/// sync loop looks every second).
async fn wait_until(app: &TestApp, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let view = connector(app).await;
        if check(&view) {
            return view;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {view:#}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `server` reports its listener down (Server unavailable), or up again.
async fn listener(app: &TestApp, tokens: &HashMap<String, String>, server: &str, ok: bool, n: u32) {
    let r = post(app, &tokens[server], &report(&uuid(n), ok, vec![])).await;
    assert_eq!(r.status(), 202);
}

/// A panel: every server in rotation, the connector applying.
async fn connected<K: Kind>() -> (TestApp, HashMap<String, String>, FakePanel<K::State>) {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let fake = K::start().await;
    connect::<K>(&app, &fake, Some("apply")).await;
    (app, tokens, fake)
}

async fn out_and_back<K: Kind>() {
    let (app, tokens, fake) = connected::<K>().await;
    assert!(
        fake.writes().is_empty(),
        "every server is in rotation; the operator's own choice (nl-1) stands"
    );

    listener(&app, &tokens, "de-1", false, 1).await;
    fake.wait_for_writes(&K::turned(Turn::Off, &[DE_1])).await;
    let view = wait_until(&app, "the host shown off", |c| {
        c["turned_off"].as_array().is_some_and(|a| a.len() == 1)
    })
    .await;
    assert_eq!(view["state"], "ok");
    assert_eq!(view["token"], "(hidden)");
    assert_eq!(view["turned_off"][0]["external_id"], K::id(DE_1));
    assert_eq!(view["turned_off"][0]["server_id"], "de-1");
    assert_eq!(view["turned_off"][0]["status"], "unavailable");
    let hosts = view["hosts"].as_array().expect("hosts");
    let ids: Vec<&str> = hosts
        .iter()
        .filter_map(|h| h["external_id"].as_str())
        .collect();
    let expected: Vec<String> = (1..=4).map(K::id).collect();
    assert_eq!(
        ids, expected,
        "only matched hosts, de-2's by its inbound's port"
    );
    assert_eq!(hosts[0]["server_id"], "de-1");
    assert_eq!(hosts[0]["enabled"], false);
    assert_eq!(hosts[0]["turned_off_by_meshwatch"], true);
    assert_eq!(hosts[2]["turned_off_by_meshwatch"], false, "the operator's");

    listener(&app, &tokens, "de-1", true, 2).await;
    let mut both = K::turned(Turn::Off, &[DE_1]);
    both.extend(K::turned(Turn::On, &[DE_1]));
    fake.wait_for_writes(&both).await;
    wait_until(&app, "nothing left off", |c| {
        c["turned_off"].as_array().is_some_and(Vec::is_empty)
    })
    .await;
    assert!(K::disabled(&fake, NL_1), "the operator's host stays off");
    assert!(
        !K::disabled(&fake, OTHER),
        "a host it does not know is untouched"
    );
    fake.assert_only_documented();
}

async fn import_proposal(app: &TestApp) -> Value {
    let response = app
        .client
        .post(app.url("/api/v1/connectors/panel/import"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

async fn import<K: Kind>() {
    let app = spawn_app().await;
    fleet(&app).await;
    let fake = K::start().await;
    connect::<K>(&app, &fake, None).await;

    let document = import_proposal(&app).await;
    let servers = document["servers"].as_array().expect("servers");
    let server = servers
        .iter()
        .find(|s| s["id"] == "warsaw-1")
        .unwrap_or_else(|| panic!("the node meshwatch lacks: {document:#}"));
    assert_eq!(server["name"], NODE_NAME);
    assert_eq!(server["country"], K::NODE_COUNTRY.unwrap_or("XX"));
    let entry_points = server["entry_points"].as_array().expect("entry points");
    assert!(
        entry_points
            .iter()
            .any(|e| e["host"] == NODE_ADDRESS && e["port"] == 443 && e["protocol"] == "vless"),
        "the unknown host, with its inbound's protocol: {server:#}"
    );
    let proposed = servers
        .iter()
        .flat_map(|s| s["entry_points"].as_array().into_iter().flatten());
    for e in proposed {
        assert!(
            !e["host"]
                .as_str()
                .unwrap_or_default()
                .starts_with("203.0.113."),
            "hosts already in the fleet propose nothing: {e}"
        );
    }
    match K::NODE_COUNTRY {
        Some(country) => {
            let route = country.to_lowercase();
            assert_eq!(server["routes"], json!([route]));
            assert_eq!(document["routes"], json!([{"id": route, "name": country}]));
        }
        None => assert_eq!(server["routes"], json!([])),
    }
    assert!(
        fake.writes().is_empty(),
        "an import writes nothing to the panel"
    );
    let servers_now: Value = get_response(&app, "/api/v1/servers")
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(
        servers_now.as_array().map(Vec::len),
        Some(4),
        "nor to meshwatch"
    );

    // The operator applies it as it is; the next import proposes nothing.
    let applied = app.put_fleet(&document).await;
    assert_eq!(applied.status(), 200);
    let tokens: Value = applied.json().await.expect("json");
    assert_eq!(
        tokens["agent_tokens"].as_object().map(|t| t.len()),
        Some(servers.len()),
        "an agent token for every new server"
    );
    let again = import_proposal(&app).await;
    assert_eq!(again["servers"], json!([]));
    fake.assert_only_documented();
}

async fn never_empty<K: Kind>() {
    let (app, tokens, fake) = connected::<K>().await;
    listener(&app, &tokens, "de-1", false, 1).await;
    fake.wait_for_writes(&K::turned(Turn::Off, &[DE_1])).await;
    listener(&app, &tokens, "de-2", false, 2).await;
    // de-2, the route's best available now, keeps its host on.
    let seen = fake.requests().len();
    app.advance(Duration::from_secs(61)).await;
    fake.wait_for_more_than(seen).await;
    wait_until(&app, "a sync after de-2 left", |c| {
        c["last_sync_at"].as_str() >= Some(app.now().to_rfc3339().as_str())
            || c["pending"].as_array().is_some_and(Vec::is_empty)
    })
    .await;
    let on = [DE_1, DE_2]
        .iter()
        .filter(|&&n| !K::disabled(&fake, n))
        .count();
    assert_eq!(
        on,
        1,
        "never every host of a route off: {:#?}",
        fake.requests()
    );
    fake.assert_only_documented();
}

async fn dry_run<K: Kind>() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let fake = K::start().await;
    connect::<K>(&app, &fake, None).await;
    assert_eq!(
        connector(&app).await["mode"],
        "dry_run",
        "a new connector starts dry"
    );

    listener(&app, &tokens, "de-1", false, 1).await;
    let view = wait_until(&app, "the pending change", |c| {
        c["pending"].as_array().is_some_and(|p| !p.is_empty())
    })
    .await;
    assert_eq!(view["pending"][0]["external_id"], K::id(DE_1));
    assert_eq!(view["pending"][0]["change"], "disable");
    assert!(fake.writes().is_empty(), "a dry run writes nothing");
    assert!(!K::disabled(&fake, DE_1));

    let apply = connector_body::<K>(&fake, Some("apply"));
    assert_eq!(put_connector(&app, &apply).await.status(), 200);
    fake.wait_for_writes(&K::turned(Turn::Off, &[DE_1])).await;
    wait_until(&app, "nothing pending", |c| {
        c["pending"].as_array().is_some_and(Vec::is_empty)
    })
    .await;
    fake.assert_only_documented();
}

async fn delete_restores<K: Kind>() {
    let (app, tokens, fake) = connected::<K>().await;
    listener(&app, &tokens, "de-1", false, 1).await;
    fake.wait_for_writes(&K::turned(Turn::Off, &[DE_1])).await;

    let deleted = app
        .client
        .delete(app.url("/api/v1/connectors/panel"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(deleted.status(), 204);
    let mut both = K::turned(Turn::Off, &[DE_1]);
    both.extend(K::turned(Turn::On, &[DE_1]));
    assert_eq!(fake.writes(), both);
    assert!(!K::disabled(&fake, DE_1));
    assert_eq!(
        get_response(&app, "/api/v1/connectors/panel")
            .await
            .status(),
        404
    );
    fake.assert_only_documented();
}

async fn down_then_back<K: Kind>() {
    let (app, tokens, fake) = connected::<K>().await;
    fake.set_down(true);
    listener(&app, &tokens, "de-1", false, 1).await;
    let view = wait_until(&app, "the failure shown", |c| c["state"] == "error").await;
    assert!(
        view["last_error"]
            .as_str()
            .is_some_and(|e| e.contains("503")),
        "{view}"
    );
    assert!(!view.to_string().contains(&K::token()), "never the token");
    let told = |notes: &Value| {
        notes
            .as_array()
            .expect("notifications")
            .iter()
            .filter(|n| n["kind"] == "connector_failed")
            .count()
    };
    let notes = crate::agent::get(&app, "/api/v1/notifications").await;
    assert!(told(&notes) >= 1, "the operator is told: {notes:#}");

    // A retry after the backoff fails again: not told twice.
    let seen = fake.requests().len();
    app.advance(Duration::from_secs(6)).await;
    fake.wait_for_more_than(seen).await;
    assert_eq!(
        told(&crate::agent::get(&app, "/api/v1/notifications").await),
        told(&notes)
    );

    fake.set_down(false);
    app.advance(Duration::from_secs(61)).await;
    fake.wait_for_writes(&K::turned(Turn::Off, &[DE_1])).await;
    wait_until(&app, "the connector well again", |c| c["state"] == "ok").await;
    let seen = fake.requests().len();
    app.advance(Duration::from_secs(61)).await;
    fake.wait_for_more_than(seen).await;
    assert_eq!(
        fake.writes(),
        K::turned(Turn::Off, &[DE_1]),
        "no change made twice"
    );
    fake.assert_only_documented();
}

async fn deleted_in_the_panel<K: Kind>() {
    let (app, tokens, fake) = connected::<K>().await;
    listener(&app, &tokens, "de-1", false, 1).await;
    fake.wait_for_writes(&K::turned(Turn::Off, &[DE_1])).await;
    K::delete(&fake, DE_1);
    listener(&app, &tokens, "de-1", true, 2).await;
    wait_until(&app, "the record forgotten", |c| {
        c["turned_off"].as_array().is_some_and(Vec::is_empty)
    })
    .await;
    let deleted = app
        .client
        .delete(app.url("/api/v1/connectors/panel"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(deleted.status(), 204);
    assert_eq!(
        fake.writes(),
        K::turned(Turn::Off, &[DE_1]),
        "nothing asked of a host that is gone"
    );
    fake.assert_only_documented();
}

/// A panel that signs admins in: signed in once, the access token kept
/// between syncs, signed in again when the panel no longer takes it.
async fn signs_in_again<K: SignsIn>() {
    let (app, tokens, fake) = connected::<K>().await;
    let seen = fake.requests().len();
    app.advance(Duration::from_secs(61)).await;
    fake.wait_for_more_than(seen).await;
    assert_eq!(K::sign_ins(&fake), 1, "the access token is kept");

    K::expire(&fake);
    listener(&app, &tokens, "de-1", false, 1).await;
    fake.wait_for_writes(&K::turned(Turn::Off, &[DE_1])).await;
    assert_eq!(K::sign_ins(&fake), 2, "signed in again once");
    wait_until(&app, "the sync recorded", |c| c["state"] == "ok").await;
    fake.assert_only_documented();

    // A wrong password is said plainly, and never repeated back.
    let mut wrong = connector_body::<K>(&fake, Some("apply"));
    wrong["token"] = json!("meshwatch:not-the-password");
    assert_eq!(put_connector(&app, &wrong).await.status(), 200);
    let view = wait_until(&app, "the refusal shown", |c| c["state"] == "error").await;
    assert!(
        view["last_error"]
            .as_str()
            .is_some_and(|e| e.contains("refused the username or password")),
        "{view}"
    );
    assert!(!view.to_string().contains("not-the-password"));
}

/// Every behaviour against one kind of panel.
macro_rules! every_behaviour {
    ($module:ident, $kind:ty) => {
        mod $module {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_server_out_of_rotation_has_its_host_turned_off_and_back_on() {
                out_and_back::<$kind>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_route_keeps_a_host_on_when_all_its_servers_are_out() {
                never_empty::<$kind>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_dry_run_shows_the_change_and_makes_none_until_applied() {
                dry_run::<$kind>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn deleting_the_connector_turns_its_hosts_back_on() {
                delete_restores::<$kind>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_panel_down_is_retried_told_once_and_changed_once_back() {
                down_then_back::<$kind>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_host_the_operator_deleted_is_forgotten() {
                deleted_in_the_panel::<$kind>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn an_import_proposes_the_nodes_meshwatch_lacks_and_changes_nothing() {
                import::<$kind>().await;
            }
        }
    };
}

every_behaviour!(remnawave, kinds::Remnawave);
every_behaviour!(pasarguard, kinds::PasarGuard);
every_behaviour!(marzneshin, kinds::Marzneshin);
every_behaviour!(marzban, kinds::Marzban);
every_behaviour!(three_x_ui, kinds::ThreeXUi);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pasarguard_signs_in_again_when_its_token_expires() {
    signs_in_again::<kinds::PasarGuard>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marzneshin_signs_in_again_when_its_token_expires() {
    signs_in_again::<kinds::Marzneshin>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marzban_signs_in_again_when_its_token_expires() {
    signs_in_again::<kinds::Marzban>().await;
}

/// Marzban's hosts are one document: an operator's edit between the read
/// a plan was made from and the write is detected, nothing is written,
/// and the next sync writes with the edit kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marzban_detects_an_operators_edit_and_keeps_it() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let fake = kinds::Marzban::start().await;
    connect::<kinds::Marzban>(&app, &fake, None).await;
    listener(&app, &tokens, "de-1", false, 1).await;
    wait_until(&app, "the pending change", |c| {
        c["pending"].as_array().is_some_and(|p| !p.is_empty())
    })
    .await;
    // Applied now: the operator edits nl-2's host right after the sync
    // read the hosts it plans from.
    fake.with(|p| p.edit_after_next_read = Some((3, "nl-2 renamed".into())));
    let apply = connector_body::<kinds::Marzban>(&fake, Some("apply"));
    assert_eq!(put_connector(&app, &apply).await.status(), 200);
    let view = wait_until(&app, "the conflict shown", |c| c["state"] == "error").await;
    assert!(
        view["last_error"]
            .as_str()
            .is_some_and(|e| e.contains("changed since they were read")),
        "{view}"
    );
    assert!(fake.writes().is_empty(), "nothing overwritten");

    let seen = fake.requests().len();
    app.advance(Duration::from_secs(6)).await;
    fake.wait_for_more_than(seen).await;
    fake.wait_for("the write", |log| {
        crate::fake_panels::writes(&log.requests).len() == 1
    })
    .await;
    let written = &fake.writes()[0].body[crate::fake_panels::marzban::TAG];
    assert_eq!(written[0]["is_disabled"], true, "de-1's host off");
    assert_eq!(
        written[3]["remark"], "nl-2 renamed",
        "the operator's edit kept"
    );
    assert!(kinds::Marzban::disabled(&fake, DE_1));
    fake.assert_only_documented();
}

/// A 3x-ui without managed hosts is refused plainly; nothing else is
/// tried (meshwatch never stops an inbound).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_3x_ui_without_managed_hosts_is_refused_plainly() {
    let app = spawn_app().await;
    fleet(&app).await;
    let fake = crate::fake_panels::three_x_ui::start(Vec::new(), true).await;
    let response = put_connector(
        &app,
        &connector_body::<kinds::ThreeXUi>(&fake, Some("apply")),
    )
    .await;
    assert_eq!(response.status(), 200);
    let view = wait_until(&app, "the refusal shown", |c| c["state"] == "error").await;
    assert!(
        view["last_error"]
            .as_str()
            .is_some_and(|e| e.contains("no managed hosts") && e.contains("upgrade")),
        "{view}"
    );
    assert!(fake.writes().is_empty());
    fake.assert_only_documented();
}
