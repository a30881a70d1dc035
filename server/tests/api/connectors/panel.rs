//! Connected panels in the panel: Settings → Connected panels connects one
//! in dry run (after the password again), shows its pending change and
//! applies it with one button; the server card says where its hosts are
//! hidden; the Overview counts failing connectors.

use super::kinds::{self, Kind, Turn, DE_1};
use super::{connector, fleet, listener, wait_until};
use crate::helpers::{location, spawn_app, with_flash};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_connect_a_panel_in_dry_run_apply_it_and_the_card_says_hidden() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let fake = kinds::Remnawave::start().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let token = kinds::Remnawave::token();
    let url = fake.url();
    let form = |password: &'static str| {
        [
            ("id", "panel"),
            ("kind", "remnawave"),
            ("url", url.as_str()),
            ("token", token.as_str()),
            ("tag", ""),
            ("password", password),
        ]
    };

    let refused = app
        .form_post(&cookie, "save_connector", &form("not my password"))
        .await;
    assert_eq!(location(&refused), "/settings");
    let (_, html) = app.page(&with_flash(&cookie, &refused), "/settings").await;
    assert!(html.contains("Your password is wrong"), "{html}");
    assert_eq!(
        crate::agent::get(&app, "/api/v1/connectors").await,
        serde_json::json!([]),
        "nothing stored"
    );

    let added = app
        .form_post(&cookie, "save_connector", &form("a long password"))
        .await;
    assert_eq!(
        (added.status().as_u16(), location(&added)),
        (302, "/settings")
    );
    wait_until(&app, "the first sync", |c| !c["last_sync_at"].is_null()).await;
    assert_eq!(connector(&app).await["mode"], "dry_run");

    listener(&app, &tokens, "de-1", false, 1).await;
    wait_until(&app, "the pending change", |c| {
        c["pending"].as_array().is_some_and(|p| !p.is_empty())
    })
    .await;
    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(
        html.contains("Connected panels") && html.contains("Dry run"),
        "{html}"
    );
    assert!(
        html.contains("data-testid=\"pending-changes\"") && html.contains("turn off: host "),
        "{html}"
    );
    assert!(!html.contains(&token), "the token is never shown");
    assert!(fake.writes().is_empty());

    // The card read before the sync: what it keeps must not outlive it.
    let (_, card) = app.page(&cookie, "/servers/de-1").await;
    assert!(!card.contains("data-testid=\"hidden-in\""));
    let applied = app
        .form_post(
            &cookie,
            "set_connector_mode",
            &[("id", "panel"), ("mode", "apply")],
        )
        .await;
    assert_eq!(location(&applied), "/settings");
    fake.wait_for_writes(&kinds::Remnawave::turned(Turn::Off, &[DE_1]))
        .await;
    wait_until(&app, "the host shown off", |c| {
        c["turned_off"].as_array().is_some_and(|t| !t.is_empty())
    })
    .await;
    let (_, card) = app.page(&cookie, "/servers/de-1").await;
    assert!(
        card.contains("data-testid=\"hidden-in\"")
            && card.contains("Hidden in Remnawave (panel) since"),
        "{card}"
    );
    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(html.contains("Hosts meshwatch turned off"), "{html}");

    let removed = app
        .form_post(&cookie, "remove_connector", &[("id", "panel")])
        .await;
    assert_eq!(location(&removed), "/settings");
    assert!(!kinds::Remnawave::disabled(&fake, DE_1), "turned back on");
    let (_, card) = app.page(&cookie, "/servers/de-1").await;
    assert!(!card.contains("data-testid=\"hidden-in\""));
    fake.assert_only_documented();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_overview_counts_failing_connected_panels() {
    let app = spawn_app().await;
    fleet(&app).await;
    let fake = kinds::Remnawave::start().await;
    fake.set_down(true);
    let body = super::connector_body::<kinds::Remnawave>(&fake, Some("apply"));
    assert_eq!(super::put_connector(&app, &body).await.status(), 200);
    wait_until(&app, "the failure", |c| c["state"] == "error").await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/overview").await;
    assert!(
        html.contains("data-testid=\"connectors-failing\"")
            && html.contains("1 connected panel is failing to sync"),
        "{html}"
    );
    fake.set_down(false);
    wait_until(&app, "well again", |c| c["state"] == "ok").await;
    let (_, html) = app.page(&cookie, "/overview").await;
    assert!(!html.contains("connectors-failing"));
}

/// Settings → "Import servers" shows the panel's proposal as a diff (the
/// new server with its entry point and route, the hosts already in the
/// fleet), adds exactly that after the password again, and the new
/// server's card gives its agent's one-line install command with a token
/// that works, shown once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_import_the_panels_nodes_and_the_card_gives_the_install_command() {
    use crate::fake_panels::NODE_ADDRESS;
    let app = spawn_app().await;
    fleet(&app).await;
    let fake = kinds::Remnawave::start().await;
    super::connect::<kinds::Remnawave>(&app, &fake, None).await;
    let cookie = app.signed_in("ops", "a long password").await;

    let (status, html) = app.page(&cookie, "/settings?import=panel").await;
    assert_eq!(status, 200);
    assert!(
        html.contains("data-testid=\"import-servers-list\""),
        "{html}"
    );
    assert!(html.contains("+ warsaw-1 — Warsaw 1"), "{html}");
    assert!(
        html.contains(&format!("vless {NODE_ADDRESS}:443")),
        "{html}"
    );
    assert!(html.contains("+ pl (PL)"), "the country's route: {html}");
    assert!(html.contains("data-testid=\"import-known\""), "{html}");
    assert!(html.contains("href=\"/servers/de-1\""), "{html}");
    assert!(fake.writes().is_empty(), "reading changes nothing");

    // What is added is the document shown, in its hidden field.
    let document = html
        .split("name=\"document\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(|v| v.replace("&quot;", "\"").replace("&amp;", "&"))
        .expect("the proposal in the form");
    let refused = app
        .form_post(
            &cookie,
            "apply_import",
            &[("document", document.as_str()), ("password", "not mine")],
        )
        .await;
    assert_eq!(location(&refused), "/settings");
    let (_, html) = app.page(&with_flash(&cookie, &refused), "/settings").await;
    assert!(html.contains("Your password is wrong"), "{html}");
    let servers = crate::agent::get(&app, "/api/v1/servers").await;
    assert_eq!(servers.as_array().map(Vec::len), Some(4), "nothing added");

    let added = app
        .form_post(
            &cookie,
            "apply_import",
            &[
                ("document", document.as_str()),
                ("password", "a long password"),
            ],
        )
        .await;
    assert_eq!(location(&added), "/settings");
    let (_, html) = app.page(&with_flash(&cookie, &added), "/settings").await;
    assert!(html.contains("data-testid=\"imported\""), "{html}");
    assert!(html.contains("href=\"/servers/warsaw-1\""), "{html}");
    let servers = crate::agent::get(&app, "/api/v1/servers").await;
    assert_eq!(servers.as_array().map(Vec::len), Some(5));

    let made = app
        .form_post(
            &cookie,
            "new_agent_token",
            &[("server", "warsaw-1"), ("password", "a long password")],
        )
        .await;
    assert_eq!(location(&made), "/servers/warsaw-1");
    let (_, html) = app
        .page(&with_flash(&cookie, &made), "/servers/warsaw-1")
        .await;
    let command = html
        .split("data-testid=\"install-command\"")
        .nth(1)
        .and_then(|rest| rest.split('>').nth(1))
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_else(|| panic!("the install command: {html}"))
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    assert!(
        command.contains("/etc/meshwatch/agent.token")
            && command.contains("systemctl restart meshwatch-agent"),
        "{command}"
    );
    let token = command
        .split("printf '%s' '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("the token in the command");
    let config = app.agent_config(token, None).await;
    assert_eq!(config.status(), 200, "the token in the command works");
    let (_, again) = app.page(&cookie, "/servers/warsaw-1").await;
    assert!(!again.contains(token), "shown once");
}
