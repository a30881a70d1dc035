//! What a connector must be, and where its token may never show.

use super::kinds::{self, Kind};
use super::{connect, put_connector};
use crate::helpers::{error_code, spawn_app, ADMIN_TOKEN};
use serde_json::json;

#[tokio::test]
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
