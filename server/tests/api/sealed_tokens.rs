//! Subscription tokens at rest: sealed in the database file, opened for the
//! user card, sealed at start when an earlier version stored them in
//! clear; `/sub/{token}` works throughout (it looks tokens up by hash).

use crate::agent::fleet;
use crate::helpers::{spawn_app, spawn_app_with, sqlite_only, TestApp};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const ALICE: &str = "alice-sealed-sub-token-0001";
const BOB: &str = "bob-sealed-sub-token-000002";
const KEY_FILE: &str = "meshwatch.key";

/// Every byte SQLite keeps of the database on disk: the file and, when
/// there is one, its write-ahead log.
fn database_bytes(dir: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(dir.join("meshwatch.db")).expect("the database file");
    if let Ok(wal) = std::fs::read(dir.join("meshwatch.db-wal")) {
        bytes.extend(wal);
    }
    bytes
}

fn holds(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

/// The test fleet, with Alice and Bob given known subscription tokens.
async fn with_known_tokens(app: &TestApp) {
    fleet(app).await;
    let users = json!({"users": [
        {"id": "alice", "name": "Alice", "routes": ["de"], "sub_token": ALICE},
        {"id": "bob", "name": "Bob", "routes": ["nl"], "sub_token": BOB}]});
    assert_eq!(app.put_fleet(&users).await.status(), 200);
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

#[tokio::test]
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
    for token in [ALICE, BOB, carol.as_str()] {
        assert!(!holds(&on_disk, token), "{token} is on disk in clear");
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
}

#[tokio::test]
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
            for (user, token) in [("alice", ALICE), ("bob", BOB)] {
                sqlx::query("UPDATE users SET sub_token = ? WHERE id = ?")
                    .bind(token)
                    .bind(user)
                    .execute(&pool)
                    .await
                    .expect("a clear row");
            }
            pool.close().await;
            assert!(
                holds(&database_bytes(&dir), ALICE),
                "the clear token is on disk before the start"
            );
        })
        .await;

    let on_disk = database_bytes(app.data_dir());
    assert!(
        !holds(&on_disk, ALICE),
        "sealed, and the clear copy scrubbed"
    );
    assert!(!holds(&on_disk, BOB), "every clear row");
    assert!(app.data_dir().join(KEY_FILE).exists(), "a new key file");
    let html = card(&app, "alice").await;
    assert!(
        html.contains(&format!("{}/sub/{ALICE}", app.address)),
        "the link is still shown"
    );
    assert_eq!(subscription_status(&app, ALICE).await, 200);
}

#[tokio::test]
async fn a_token_sealed_with_a_lost_key_reads_as_unknown_and_still_subscribes() {
    if sqlite_only("a_token_sealed_with_a_lost_key_reads_as_unknown_and_still_subscribes") {
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
    assert_eq!(
        subscription_status(&app, ALICE).await,
        200,
        "subscriptions keep working"
    );
}

#[tokio::test]
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
