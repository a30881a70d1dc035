//! What a connector must be, and where its token may never show.

use super::kinds::{self, Kind};
use super::{connect, put_connector};
use crate::helpers::{error_code, spawn_app, ADMIN_TOKEN};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connector_is_checked_and_its_token_never_shown_nor_stored_in_clear() {
    let app = spawn_app().await;
    let fake = kinds::Remnawave::start().await;
    for (body, code) in [
        (
            json!({"kind": "xui", "url": fake.url(), "token": "t"}),
            "invalid_kind",
        ),
        (
            json!({"kind": "remnawave", "url": "ftp://x", "token": "t"}),
            "invalid_url",
        ),
        (
            json!({"kind": "remnawave", "url": fake.url(), "token": ""}),
            "invalid_token",
        ),
        (
            json!({"kind": "marzban", "url": fake.url(), "token": "admin"}),
            "invalid_token",
        ),
        (
            json!({"kind": "marzban", "url": fake.url(), "token": "a:b", "tag": "T"}),
            "tag_unsupported",
        ),
        (
            json!({"kind": "remnawave", "url": fake.url(), "token": "t", "mode": "now"}),
            "invalid_mode",
        ),
    ] {
        let response = put_connector(&app, &body).await;
        assert_eq!(response.status(), 422, "{body}");
        assert_eq!(error_code(response).await, code, "{body}");
    }
    let bad_id = app
        .client
        .put(app.url("/api/v1/connectors/Not%20A%20Slug"))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"kind": "remnawave", "url": fake.url(), "token": kinds::Remnawave::token()}))
        .send()
        .await
        .expect("sent");
    assert_eq!(bad_id.status(), 422);
    let listed = crate::agent::get(&app, "/api/v1/connectors").await;
    assert_eq!(listed, json!([]), "nothing stored");

    let cookie = app.signed_in("ops", "a long password").await;
    let fleet_token = crate::do_no_harm::panel_token(&app, &cookie, "provisioning", "fleet").await;
    let refused = app
        .client
        .put(app.url("/api/v1/connectors/panel"))
        .bearer_auth(&fleet_token)
        .json(&json!({"kind": "remnawave", "url": fake.url(), "token": kinds::Remnawave::token()}))
        .send()
        .await
        .expect("sent");
    assert_eq!(refused.status(), 403, "connectors need the admin scope");

    connect::<kinds::Remnawave>(&app, &fake, None).await;
    let listed = crate::agent::get(&app, "/api/v1/connectors").await;
    assert_eq!(listed[0]["token"], "(hidden)");
    assert!(!listed.to_string().contains(&kinds::Remnawave::token()));
    if crate::helpers::sqlite_only(
        "a_connector_is_checked_and_its_token_never_shown_nor_stored_in_clear",
    ) {
        return;
    }
    let on_disk = crate::sealed_tokens::database_bytes(app.data_dir());
    assert!(
        !crate::sealed_tokens::holds(&on_disk, &kinds::Remnawave::token()),
        "sealed at rest"
    );
}

/// Deleting a connector whose panel is down answers 202 with it
/// `removing`; it keeps trying, and goes once its hosts are back on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connector_deleted_while_its_panel_is_down_stays_removing_until_it_is_back() {
    use super::kinds::{Turn, DE_1};
    let (app, tokens, fake) = super::connected::<kinds::Remnawave>().await;
    super::listener(&app, &tokens, "de-1", false, 1).await;
    fake.wait_for_writes(&kinds::Remnawave::turned(Turn::Off, &[DE_1]))
        .await;
    fake.set_down(true);
    let deleted = app
        .client
        .delete(app.url("/api/v1/connectors/panel"))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(deleted.status(), 202);
    let view: serde_json::Value = deleted.json().await.expect("json");
    assert_eq!(view["state"], "removing", "{view}");
    assert_eq!(
        view["turned_off"][0]["external_id"],
        kinds::Remnawave::id(DE_1)
    );

    fake.set_down(false);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        app.advance(std::time::Duration::from_secs(61)).await;
        let gone = crate::agent::get_response(&app, "/api/v1/connectors/panel").await;
        if gone.status() == 404 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "still there");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let mut both = kinds::Remnawave::turned(Turn::Off, &[DE_1]);
    both.extend(kinds::Remnawave::turned(Turn::On, &[DE_1]));
    assert_eq!(fake.writes(), both);
    fake.assert_only_documented();
}

/// An import of an unknown connector is 404; of a panel that cannot be
/// read, 502 with the reason and never the token; neither changes anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_names_an_unknown_connector_and_a_panel_it_cannot_read() {
    let app = spawn_app().await;
    let import = |id: &'static str| {
        app.client
            .post(app.url(&format!("/api/v1/connectors/{id}/import")))
            .bearer_auth(ADMIN_TOKEN)
            .send()
    };
    let unknown = import("nowhere").await.expect("sent");
    assert_eq!(unknown.status(), 404);
    assert_eq!(error_code(unknown).await, "not_found");

    let fake = kinds::PasarGuard::start().await;
    connect::<kinds::PasarGuard>(&app, &fake, None).await;
    fake.set_down(true);
    let down = import("panel").await.expect("sent");
    assert_eq!(down.status(), 502);
    let body = down.text().await.expect("text");
    assert!(body.contains("panel_error"), "{body}");
    assert!(
        !body.contains(crate::fake_panels::pasarguard::PASSWORD),
        "never the token: {body}"
    );
    assert!(fake.writes().is_empty());
}
