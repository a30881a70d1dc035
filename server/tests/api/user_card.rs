//! The user card page, server-rendered: statuses in the product wording,
//! replacements, the subscription link with its QR code and the preview.

use crate::agent::{get, post, report, uuid};
use crate::helpers::spawn_app;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_names_the_outage_its_replacement_and_serves_the_link() {
    let app = spawn_app().await;
    let fleet = json!({
        "routes": [{"id": "de", "name": "Germany", "servers_per_user": 1}],
        "servers": [
            {"id": "de-1", "name": "Frankfurt 1", "country": "DE", "routes": ["de"],
             "entry_points": [{"id": "de-1-vless", "protocol": "vless", "host": "127.0.40.1", "port": 443}]},
            {"id": "de-2", "name": "Frankfurt 2", "country": "DE", "routes": ["de"],
             "entry_points": [{"id": "de-2-vless", "protocol": "vless", "host": "127.0.40.2", "port": 443}]}],
        "users": [{"id": "alice", "name": "Alice", "routes": ["de"]}]
    });
    let answer: Value = app.put_fleet(&fleet).await.json().await.expect("json");
    let agent = |id: &str| {
        answer["agent_tokens"][id]
            .as_str()
            .expect("token")
            .to_owned()
    };
    let sub = answer["sub_tokens"]["alice"]
        .as_str()
        .expect("sub token")
        .to_owned();
    for (n, id) in ["de-1", "de-2"].iter().enumerate() {
        post(&app, &agent(id), &report(&uuid(n as u32), true, vec![])).await;
    }
    let user = get(&app, "/api/v1/users/alice").await;
    let assigned = user["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .find(|s| s["in_subscription"] == true)
        .and_then(|s| s["server_id"].as_str())
        .expect("one server assigned")
        .to_owned();
    let (other, other_name) = if assigned == "de-1" {
        ("de-2", "Frankfurt 2")
    } else {
        ("de-1", "Frankfurt 1")
    };
    post(&app, &agent(&assigned), &report(&uuid(10), false, vec![])).await;

    let cookie = app.signed_in("ops", "a long password").await;
    let (status, html) = app.page(&cookie, "/users/alice").await;
    assert_eq!(status, 200);
    assert!(html.contains("Server unavailable"));
    assert!(
        html.contains(&format!("Replaced by {other_name} (DE)")),
        "the replacement is named"
    );
    assert!(html.contains("Stands in for"));
    assert!(
        html.contains(&format!("{}/sub/{sub}", app.address)),
        "the subscription link"
    );
    let qr = html
        .split("src=\"")
        .find_map(|rest| {
            rest.split('"')
                .next()
                .filter(|src| src.starts_with("/users/alice/qr.svg?v="))
        })
        .expect("the QR code's image")
        .to_owned();
    let image = app
        .client
        .get(app.url(&qr))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(image.status(), 200);
    assert_eq!(image.headers()["content-type"], "image/svg+xml");
    assert!(image
        .text()
        .await
        .expect("svg")
        .starts_with("<svg viewBox="));
    let signed_out = app.client.get(app.url(&qr)).send().await.expect("sent");
    assert!(signed_out.status().is_redirection(), "signed-in only");
    let (status, _) = app.page(&cookie, "/users/nobody/qr.svg").await;
    assert_eq!(status, 404);
    assert!(
        html.contains(&format!("127.0.40.{}:443", &other[3..])),
        "the preview serves the replacement"
    );

    let (status, _) = app.page(&cookie, "/users/nobody").await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_reads_k_of_n_on_the_card() {
    let app = spawn_app().await;
    let tokens = crate::agent::fleet(&app).await;
    crate::agent::all_report(&app, &tokens, 100).await;
    for (n, witness) in ["nl-1", "fi-1"].iter().enumerate() {
        crate::agent::knock(
            &app,
            &tokens[*witness],
            200 + n as u32,
            "de-1-ep",
            false,
            0,
            3,
        )
        .await;
    }
    assert_eq!(
        get(&app, "/api/v1/servers/de-1").await["status"],
        "unreachable"
    );
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/users/alice").await;
    assert!(html.contains("Unreachable from your servers"));
    // n counts the fresh reliable witnesses that probe it: the two failing ones.
    assert!(
        html.contains("2 of 2 of your servers can't reach it"),
        "the caption says k of n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_routes_page_shows_rotation_and_the_best_available_warning() {
    let app = spawn_app().await;
    let tokens = crate::agent::fleet(&app).await;
    crate::agent::all_report(&app, &tokens, 100).await;
    let cookie = app.signed_in("ops", "a long password").await;
    post(&app, &tokens["de-1"], &report(&uuid(200), false, vec![])).await;
    let (status, html) = app.page(&cookie, "/routes").await;
    assert_eq!(status, 200);
    assert!(html.contains("Out of rotation — its users are served by DE-2"));
    assert!(!html.contains("best available one"));

    post(&app, &tokens["de-2"], &report(&uuid(201), false, vec![])).await;
    let (_, html) = app.page(&cookie, "/routes").await;
    assert!(
        html.contains(
            "Every server is out of rotation: subscriptions serve the best available one"
        ),
        "the route is never emptied, and the page says so"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_overview_counts_statuses_and_lists_what_is_out() {
    let app = spawn_app().await;
    let tokens = crate::agent::fleet(&app).await;
    crate::agent::all_report(&app, &tokens, 100).await;
    post(&app, &tokens["de-1"], &report(&uuid(300), false, vec![])).await;
    let cookie = app.signed_in("ops", "a long password").await;
    // The change is recorded on the evaluator's tick.
    app.tick().await;
    let (status, html) = app.page(&cookie, "/overview").await;
    assert_eq!(status, 200);
    assert!(
        !html.contains("No change recorded yet."),
        "a change is recorded"
    );
    assert!(html.contains("Servers by status"));
    assert!(html.contains("Out of rotation") && html.contains("DE-1 (DE)"));
    assert!(html.contains("Server unavailable"));
    assert!(html.contains("Latest status changes"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_list_searches_and_pages() {
    let app = spawn_app().await;
    let users: Vec<Value> = (0..60)
        .map(
            |i| json!({"id": format!("u-{i:03}"), "name": format!("Person {i}"), "routes": ["de"]}),
        )
        .collect();
    let fleet = json!({"routes": [{"id": "de", "name": "Germany"}], "servers": [], "users": users});
    assert_eq!(app.put_fleet(&fleet).await.status(), 200);
    let cookie = app.signed_in("ops", "a long password").await;

    let (_, html) = app.page(&cookie, "/users").await;
    assert!(html.contains("Showing 1–50 of 60 users") && html.contains("Page 1 of 2"));
    assert!(html.contains("href=\"/users?page=2\""));
    let (_, html) = app.page(&cookie, "/users?page=2").await;
    assert!(html.contains("Showing 51–60 of 60 users") && html.contains("Person 59"));
    let (_, html) = app.page(&cookie, "/users?q=u-05").await;
    assert!(html.contains("Showing 1–10 of 10 users") && !html.contains("Person 49"));
    let (_, html) = app.page(&cookie, "/users?q=nobody").await;
    assert!(html.contains("No user matches this search"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_list_filters_by_status_country_and_route() {
    let app = spawn_app().await;
    let tokens = crate::agent::fleet(&app).await;
    crate::agent::all_report(&app, &tokens, 100).await;
    post(&app, &tokens["de-1"], &report(&uuid(300), false, vec![])).await;
    let cookie = app.signed_in("ops", "a long password").await;
    // The panel renders only what the filter admits (the browser's filter
    // hides rows on the page as the operator types, until the panel's
    // answer for the new filter arrives).
    let shown = |html: &str| {
        html.split("<tr ")
            .filter_map(|row| row.split_once('>').map(|(attributes, _)| attributes))
            .filter(|a| {
                a.contains("data-filter-text")
                    && !a
                        .split_whitespace()
                        .any(|w| w == "hidden" || w.starts_with("hidden="))
            })
            .count()
    };
    let (_, all) = app.page(&cookie, "/").await;
    assert_eq!(shown(&all), 5);
    let (_, html) = app.page(&cookie, "/?status=unavailable").await;
    assert_eq!(shown(&html), 1);
    assert!(html.contains("Showing 1 of 5 servers"));
    let (_, html) = app.page(&cookie, "/?country=DE").await;
    assert_eq!(shown(&html), 2);
    let (_, html) = app.page(&cookie, "/?route=nl&country=FI").await;
    assert_eq!(shown(&html), 1);
    let (_, html) = app.page(&cookie, "/?q=atlantis").await;
    assert!(html.contains("No server matches this filter"));
    assert!(html.contains("Showing 0 of 5 servers"));
}

/// A panel with 250 servers `s000`…`s249`, alternately in DE (route de)
/// and NL (route nl), and a signed-in operator's cookie.
async fn big_fleet() -> (crate::helpers::TestApp, String) {
    let app = spawn_app().await;
    let servers: Vec<Value> = (0..250)
        .map(|i| {
            let country = if i % 2 == 0 { "DE" } else { "NL" };
            json!({"id": format!("s{i:03}"), "name": format!("Server {i}"), "country": country,
                   "routes": [country.to_lowercase()],
                   "entry_points": [{"id": format!("s{i:03}-ep"), "protocol": "vless",
                                     "host": format!("127.0.{}.{}", 60 + i / 200, 1 + i % 200), "port": 443}]})
        })
        .collect();
    let routes = json!([{"id": "de", "name": "Germany"}, {"id": "nl", "name": "Netherlands"}]);
    let fleet = json!({"routes": routes, "servers": servers, "users": []});
    assert_eq!(app.put_fleet(&fleet).await.status(), 200);
    let cookie = app.signed_in("ops", "a long password").await;
    (app, cookie)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_route_lists_what_is_out_of_rotation_and_links_to_the_rest() {
    let (app, cookie) = big_fleet().await;
    let (status, html) = app.page(&cookie, "/routes").await;
    assert_eq!(status, 200);
    // No report yet: every server is "No data", in rotation (silence is
    // not a verdict), so a 125-server route lists none of them.
    assert_eq!(html.matches("data-testid=\"route-summary\"").count(), 2);
    assert!(html.contains("125 of 125 servers in rotation"));
    assert!(html.contains("href=\"/?route=de\"") && html.contains("href=\"/?route=nl\""));
    assert!(!html.contains("data-testid=\"route-server\""));
    assert!(
        html.len() < 60_000,
        "a big route's card stays small: {} B",
        html.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_fleets_mesh_is_a_picture_with_a_table_for_a_chosen_server() {
    let (app, cookie) = big_fleet().await;
    // Everyone probes everyone up to the witness set threshold: raised
    // here, as an operator may, so that the matrix has 250 × 250 cells.
    app.put_settings(json!({"witness_set_threshold": 1000}))
        .await;
    let (status, html) = app.page(&cookie, "/mesh").await;
    assert_eq!(status, 200);
    assert!(html.contains("data-testid=\"mesh-picture\""));
    assert!(
        !html.contains("data-testid=\"mesh-matrix\""),
        "no table of 62 500 cells"
    );
    assert!(html.contains("src=\"/mesh.svg?v="));
    // Nothing probed yet: every pair but the diagonal is "no fresh result".
    assert!(
        html.contains("no fresh result — 62,250"),
        "counts of each kind"
    );

    let picture = app
        .client
        .get(app.url("/mesh.svg"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(picture.status(), 200);
    assert_eq!(picture.headers()["content-type"], "image/svg+xml");
    let svg = picture.text().await.expect("svg");
    assert!(svg.starts_with("<svg") && svg.contains(">DE</text>") && svg.contains(">NL</text>"));
    let signed_out = app
        .client
        .get(app.url("/mesh.svg"))
        .send()
        .await
        .expect("sent");
    assert_ne!(
        signed_out.status(),
        200,
        "the picture is the operator's only"
    );

    let (_, row) = app.page(&cookie, "/mesh?witness=s001").await;
    assert!(
        row.contains("data-testid=\"mesh-row\"") && !row.contains("data-testid=\"mesh-column\"")
    );
    assert_eq!(
        row.matches("<tr><th scope=\"row\"><a href=\"/servers/")
            .count(),
        249
    );
    // 3 px cells (800 / 250): a click 7 px into the third column of the
    // second row names that pair.
    let (_, clicked) = app.page(&cookie, "/mesh?at.x=35&at.y=20").await;
    assert!(
        clicked.contains("data-testid=\"mesh-row\"")
            && clicked.contains("data-testid=\"mesh-column\"")
    );
    let (_, unknown) = app.page(&cookie, "/mesh?witness=nobody&at.x=abc").await;
    assert!(
        !unknown.contains("data-testid=\"mesh-row\""),
        "an unknown server shows no table"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_list_pages_a_big_fleet_and_filters_across_its_pages() {
    let (app, cookie) = big_fleet().await;
    let rows = |html: &str| html.matches("<tr data-filter-text").count();

    let (_, first) = app.page(&cookie, "/").await;
    assert_eq!(rows(&first), 100, "100 servers a page");
    assert!(first.contains("Page 1 of 3") && first.contains("Showing 250 of 250 servers"));
    assert!(first.contains(">s000<") && !first.contains(">s100<"));
    assert!(first.contains("href=\"/?page=2\""));
    let (_, last) = app.page(&cookie, "/?page=3").await;
    assert_eq!(rows(&last), 50);
    assert!(last.contains(">s249<") && last.contains("href=\"/?page=2\""));
    let (_, past) = app.page(&cookie, "/?page=99").await;
    assert!(
        past.contains("Page 3 of 3"),
        "past the end shows the last page"
    );

    // A filter finds a server on any page, and the pages keep the filter.
    let (_, found) = app.page(&cookie, "/?q=server%20249").await;
    assert_eq!(rows(&found), 1);
    assert!(found.contains(">s249<") && found.contains("Showing 1 of 250 servers"));
    let (_, dutch) = app.page(&cookie, "/?country=NL&page=2").await;
    assert_eq!(rows(&dutch), 25);
    assert!(dutch.contains("Page 2 of 2") && dutch.contains("Showing 125 of 250 servers"));
    assert!(
        dutch.contains("href=\"/?country=NL\""),
        "back to the first page, filtered"
    );
    let (_, bad) = app.page(&cookie, "/?page=abc&status=nonsense").await;
    assert_eq!(rows(&bad), 0, "an unknown status admits nothing");
    assert!(bad.contains("No server matches this filter"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_user_reads_the_new_name_and_link_at_once() {
    let app = spawn_app().await;
    crate::agent::fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/users/alice").await;
    assert!(html.contains("Alice"));

    let renamed = json!({"users": [{"id": "alice", "name": "Alicia", "routes": ["nl"],
                                                "sub_token": "alicia-subscription-token-01"}]});
    assert_eq!(app.put_fleet(&renamed).await.status(), 200);
    let (_, html) = app.page(&cookie, "/users/alice").await;
    assert!(html.contains("Alicia"), "the new name, not a kept one");
    assert!(html.contains("/sub/alicia-subscription-token-01"));
    assert!(html.contains("Route nl") && !html.contains("Route de"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_the_user_that_left_rotation_reads_out_of_rotation_not_unassigned() {
    let app = spawn_app().await;
    // No servers_per_user: both servers are the user's, so neither has a
    // spare to replace it.
    let fleet = json!({
        "routes": [{"id": "de", "name": "Germany"}],
        "servers": [
            {"id": "de-1", "name": "Frankfurt 1", "country": "DE", "routes": ["de"],
             "entry_points": [{"id": "de-1-vless", "protocol": "vless", "host": "127.0.41.1", "port": 443}]},
            {"id": "de-2", "name": "Frankfurt 2", "country": "DE", "routes": ["de"],
             "entry_points": [{"id": "de-2-vless", "protocol": "vless", "host": "127.0.41.2", "port": 443}]}],
        "users": [{"id": "alice", "name": "Alice", "routes": ["de"]}]
    });
    let answer: Value = app.put_fleet(&fleet).await.json().await.expect("json");
    let agent = |id: &str| {
        answer["agent_tokens"][id]
            .as_str()
            .expect("token")
            .to_owned()
    };
    post(&app, &agent("de-1"), &report(&uuid(1), false, vec![])).await;
    post(&app, &agent("de-2"), &report(&uuid(2), true, vec![])).await;
    let cookie = app.signed_in("ops", "a long password").await;

    let (status, html) = app.page(&cookie, "/users/alice").await;
    assert_eq!(status, 200);
    assert!(html.contains("Server unavailable"));
    assert!(html.contains("Out of rotation"), "the server left rotation");
    assert!(
        html.contains("Not replaced: this route has no spare server in rotation."),
        "and nothing of the route could replace it"
    );
    assert!(
        !html.contains("Not assigned to this user"),
        "it was the user's: never 'not assigned'"
    );
    // The API's rows stay as docs/API.md writes them.
    let user = get(&app, "/api/v1/users/alice").await;
    let row = |id: &str| {
        user["servers"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["server_id"] == id)
            .cloned()
            .expect("a row")
    };
    assert_eq!(
        row("de-1"),
        json!({"server_id": "de-1", "status": "unavailable", "caption": "Server unavailable",
               "in_subscription": false, "replaced_by": null})
    );
    assert_eq!(
        row("de-2"),
        json!({"server_id": "de-2", "status": "healthy", "caption": "",
               "in_subscription": true, "replaced_by": null})
    );

    // In every language, out of rotation is not "not assigned".
    let (_, ja) = app
        .page(&format!("{cookie}; meshwatch_lang=ja"), "/users/alice")
        .await;
    assert!(ja.contains("ローテーション外"));
    assert!(!ja.contains("このユーザーには割り当てられていません"));

    // The whole route out: the user's servers point to the best available.
    post(&app, &agent("de-2"), &report(&uuid(3), false, vec![])).await;
    let (_, html) = app.page(&cookie, "/users/alice").await;
    assert!(html.contains(
        "Every server is out of rotation: subscriptions serve the best available one, Frankfurt"
    ));
    assert!(html.contains("In the subscription as the route"));
    assert!(!html.contains("Not assigned to this user"));
}

/// The parts drawn once and kept (the frame's header, the servers list's
/// rows and pages of rows, a user card's server lines, a server card's
/// metrics) follow the data and the reader: a status change, a fleet
/// change, another operator, another section, another language each show
/// at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_parts_of_pages_follow_the_data_the_operator_and_the_language() {
    let app = spawn_app().await;
    let tokens = crate::agent::fleet(&app).await;
    crate::agent::all_report(&app, &tokens, 100).await;
    let ops = app.signed_in("ops", "a long password").await;
    let other = app.signed_in("night-shift", "another long password").await;
    let row = |html: &str, id: &str| -> String {
        let start = html
            .find(&format!("href=\"/servers/{id}\""))
            .expect("the server's row");
        html[start..start + html[start..].find("</tr>").expect("row end")].to_owned()
    };

    let (_, list) = app.page(&ops, "/").await;
    assert!(row(&list, "de-1").contains("Healthy"), "{list}");
    assert!(list.contains("<strong class=\"font-medium text-slate-900\">ops</strong>"));
    let (_, list) = app.page(&other, "/").await;
    assert!(
        list.contains("<strong class=\"font-medium text-slate-900\">night-shift</strong>")
            && !list.contains(">ops</strong>"),
        "each operator's own name"
    );
    let (_, alice) = app.page(&ops, "/users/alice").await;
    assert!(
        alice.contains("href=\"/users\" aria-current=\"page\""),
        "{alice}"
    );
    assert!(!alice.contains("href=\"/\" aria-current=\"page\""));
    let (_, card) = app.page(&ops, "/servers/de-1").await;
    assert!(card.contains("href=\"/\" aria-current=\"page\""));

    // de-1 fails its self-check: its row, its line on a user card and its
    // card's metrics say so on the next view.
    let (_, card) = app.page(&ops, "/servers/de-1").await;
    assert!(card.contains("12.5%") && !card.contains("77.5%"), "{card}");
    let mut failing = report(&uuid(300), false, vec![]);
    failing["metrics"]["cpu_pct"] = json!(77.5);
    post(&app, &tokens["de-1"], &failing).await;
    let (_, list) = app.page(&ops, "/").await;
    assert!(row(&list, "de-1").contains("Server unavailable"), "{list}");
    assert!(!row(&list, "de-1").contains("Healthy"));
    let (_, card) = app.page(&ops, "/servers/de-1").await;
    assert!(card.contains("Server unavailable"));
    assert!(card.contains("77.5%"), "the new report's metrics: {card}");
    let (_, alice) = app.page(&ops, "/users/alice").await;
    let line = &alice[alice.find("href=\"/servers/de-1\"").expect("de-1's line")..];
    assert!(line[..line.find("</li>").expect("line end")].contains("Server unavailable"));

    // The fleet changes (nl-1 becomes a verifier): the kept page of rows
    // is no longer the page's, and its row says so.
    assert!(!row(&list, "nl-1").contains("class=\"role\""), "{list}");
    assert_eq!(app.set_verifier("nl-1", true).await.status(), 200);
    let (_, list) = app.page(&ops, "/").await;
    assert!(row(&list, "nl-1").contains("class=\"role\""), "{list}");

    let spanish = format!("{ops}; meshwatch_lang=es");
    let (_, list) = app.page(&spanish, "/").await;
    assert!(
        row(&list, "de-1").contains("Servidor no disponible"),
        "{list}"
    );
    assert!(list.contains("Cerrar sesión") && !list.contains("Sign out"));
}
