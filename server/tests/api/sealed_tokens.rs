//! Subscription tokens and proxy credentials at rest: sealed in the
//! database file, opened for the user card and the subscription, sealed at
//! start when an earlier version stored them in clear. `/sub/{token}` looks
//! tokens up by hash; with a lost key it answers 503 until the credential
//! is given again, never a broken subscription.

use crate::agent::fleet;
use crate::helpers::{spawn_app, spawn_app_with, sqlite_only, TestApp};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const ALICE: &str = "alice-sealed-sub-token-0001";
const BOB: &str = "bob-sealed-sub-token-000002";
const KEY_FILE: &str = "meshwatch.key";
const ALICE_CREDENTIAL: &str = "4f1c2a9e-0000-4000-8000-0000000a11ce";
const BOB_CREDENTIAL: &str = "4f1c2a9e-0000-4000-8000-000000000b0b";

/// Every byte SQLite keeps of the database on disk: the file and, when
/// there is one, its write-ahead log.
pub(crate) fn database_bytes(dir: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(dir.join("meshwatch.db")).expect("the database file");
    if let Ok(wal) = std::fs::read(dir.join("meshwatch.db-wal")) {
        bytes.extend(wal);
    }
    bytes
}

pub(crate) fn holds(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

/// The test fleet, with Alice and Bob given known subscription tokens and
/// credentials.
async fn with_known_tokens(app: &TestApp) {
    fleet(app).await;
    give_alice_and_bob(app).await;
}

async fn give_alice_and_bob(app: &TestApp) {
    let users = json!({"users": [
        {"id": "alice", "name": "Alice", "routes": ["de"], "sub_token": ALICE,
         "credential": ALICE_CREDENTIAL},
        {"id": "bob", "name": "Bob", "routes": ["nl"], "sub_token": BOB,
         "credential": BOB_CREDENTIAL}]});
    assert_eq!(app.put_fleet(&users).await.status(), 200);
}

/// The plain subscription of `token`: its status and links.
async fn subscription(app: &TestApp, token: &str) -> (u16, String) {
    let response = app
        .client
        .get(app.url(&format!("/sub/{token}?format=plain")))
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

/// The user card of `user` as a signed-in operator sees it.
async fn card(app: &TestApp, user: &str) -> String {
    let cookie = app.signed_in("ops", "a long password").await;
    let (status, html) = app.page(&cookie, &format!("/users/{user}")).await;
    assert_eq!(status, 200, "never an error page");
    html
}

async fn subscription_status(app: &TestApp, token: &str) -> u16 {
    app.client
        .get(app.url(&format!("/sub/{token}")))
        .send()
        .await
        .expect("sent")
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscription_tokens_never_reach_the_database_file_in_clear() {
    if sqlite_only("subscription_tokens_never_reach_the_database_file_in_clear") {
        return;
    }
    let app = spawn_app().await;
    with_known_tokens(&app).await;
    let generated: Value = app
        .put_fleet(&json!({"users": [{"id": "carol", "name": "Carol", "routes": ["de"]}]}))
        .await
        .json()
        .await
        .expect("json");
    let carol = generated["sub_tokens"]["carol"]
        .as_str()
        .expect("a generated token")
        .to_owned();

    let on_disk = database_bytes(app.data_dir());
    for secret in [ALICE, BOB, carol.as_str(), ALICE_CREDENTIAL, BOB_CREDENTIAL] {
        assert!(!holds(&on_disk, secret), "{secret} is on disk in clear");
    }
    let mode = std::fs::metadata(app.data_dir().join(KEY_FILE))
        .expect("a key file beside the database")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "only the panel's user may read it");

    let html = card(&app, "alice").await;
    assert!(
        html.contains(&format!("{}/sub/{ALICE}", app.address)),
        "the card still shows the link"
    );
    assert!(card(&app, "carol").await.contains(&format!("/sub/{carol}")));
    for token in [ALICE, BOB, carol.as_str()] {
        assert_eq!(subscription_status(&app, token).await, 200, "{token}");
    }
    let (_, links) = subscription(&app, ALICE).await;
    assert!(
        links.contains(ALICE_CREDENTIAL),
        "the credential opens for the subscription: {links}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_an_earlier_version_stored_in_clear_are_sealed_at_start() {
    if sqlite_only("tokens_an_earlier_version_stored_in_clear_are_sealed_at_start") {
        return;
    }
    let app = spawn_app().await;
    with_known_tokens(&app).await;
    let database_url = app.database_url.clone();
    let app = app
        .restart_after_offline(|dir| async move {
            // What the release before sealing left: tokens in clear, no key file.
            std::fs::remove_file(dir.join(KEY_FILE)).expect("the key file");
            let pool = sqlx::SqlitePool::connect(&database_url)
                .await
                .expect("database");
            for (user, token, credential) in [
                ("alice", ALICE, ALICE_CREDENTIAL),
                ("bob", BOB, BOB_CREDENTIAL),
            ] {
                sqlx::query("UPDATE users SET sub_token = ?, credential = ? WHERE id = ?")
                    .bind(token)
                    .bind(credential)
                    .bind(user)
                    .execute(&pool)
                    .await
                    .expect("a clear row");
            }
            pool.close().await;
            let before = database_bytes(&dir);
            assert!(
                holds(&before, ALICE) && holds(&before, ALICE_CREDENTIAL),
                "the clear token and credential are on disk before the start"
            );
        })
        .await;

    let on_disk = database_bytes(app.data_dir());
    assert!(
        !holds(&on_disk, ALICE) && !holds(&on_disk, ALICE_CREDENTIAL),
        "sealed, and the clear copies scrubbed"
    );
    let (status, links) = subscription(&app, ALICE).await;
    assert_eq!(status, 200);
    assert!(links.contains(ALICE_CREDENTIAL), "{links}");
    assert!(!holds(&on_disk, BOB), "every clear row");
    assert!(app.data_dir().join(KEY_FILE).exists(), "a new key file");
    let html = card(&app, "alice").await;
    assert!(
        html.contains(&format!("{}/sub/{ALICE}", app.address)),
        "the link is still shown"
    );
    assert_eq!(subscription_status(&app, ALICE).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_lost_key_the_card_has_no_link_and_subscriptions_wait_for_the_credential() {
    if sqlite_only("with_a_lost_key_the_card_has_no_link_and_subscriptions_wait_for_the_credential")
    {
        return;
    }
    let app = spawn_app().await;
    with_known_tokens(&app).await;
    let app = app
        .restart_after_offline(|dir| async move {
            // The database restored without its key file.
            std::fs::remove_file(dir.join(KEY_FILE)).expect("the key file");
        })
        .await;
    let html = card(&app, "alice").await;
    assert!(
        html.contains("does not know this user"),
        "read as a token the panel never knew"
    );
    assert!(!html.contains(ALICE) && !html.contains("subscription-link"));

    // An app keeps the configuration it has on an error; a subscription
    // without the credential would break it.
    let response = app
        .client
        .get(app.url(&format!("/sub/{ALICE}")))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 503);
    let body: Value = response.json().await.expect("a JSON error");
    assert_eq!(body["error"]["code"], "credential_unavailable", "{body}");
    assert!(
        !body.to_string().contains("key"),
        "a subscriber learns nothing of the panel: {body}"
    );

    // Given again, both are sealed with the new key.
    give_alice_and_bob(&app).await;
    let (status, links) = subscription(&app, ALICE).await;
    assert_eq!(status, 200);
    assert!(links.contains(ALICE_CREDENTIAL), "{links}");
    assert!(card(&app, "alice")
        .await
        .contains(&format!("{}/sub/{ALICE}", app.address)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_key_seals_without_a_key_file() {
    if sqlite_only("a_configured_key_seals_without_a_key_file") {
        return;
    }
    let key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    let app = spawn_app_with(&[("MESHWATCH_SECRET_KEY", key.to_owned())]).await;
    with_known_tokens(&app).await;
    assert!(!app.data_dir().join(KEY_FILE).exists());
    assert!(!holds(&database_bytes(app.data_dir()), ALICE));
    assert!(card(&app, "alice")
        .await
        .contains(&format!("{}/sub/{ALICE}", app.address)));
}
