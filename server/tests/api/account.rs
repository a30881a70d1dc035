//! Settings → operator account and API tokens, through the panel's server
//! functions as its pages call them.

use crate::agent::get_response;
use crate::helpers::{session_cookie, spawn_app};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changing_the_password_keeps_this_session_and_ends_the_others() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "first password").await;
    let other =
        session_cookie(app.login("ops", "first password").await.headers()).expect("second session");
    let change = |current: &'static str, next: &'static str, repeat: &'static str| {
        let cookie = cookie.clone();
        let app = &app;
        async move {
            let form = [("current", current), ("next", next), ("repeat", repeat)];
            app.rpc(&cookie, "change_password", &form).await
        }
    };

    for (current, next, repeat, says) in [
        (
            "wrong password",
            "second password",
            "second password",
            "WrongCurrentPassword",
        ),
        (
            "first password",
            "second password",
            "second passw0rd",
            "PasswordsDiffer",
        ),
        (
            "first password",
            "short",
            "short",
            "{\"PasswordTooShort\":{\"min\":10}}",
        ),
    ] {
        let refused = change(current, next, repeat).await;
        assert_eq!(refused.status(), 422, "{says}");
        assert!(refused.text().await.expect("body").contains(says), "{says}");
    }
    let (status, _) = app.page(&other, "/settings").await;
    assert_eq!(status, 200, "refused changes end no session");
    assert_eq!(app.login("ops", "first password").await.status(), 303);

    let cross = app
        .client
        .post(app.url("/rpc/change_password"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .form(&[
            ("current", "first password"),
            ("next", "evil password"),
            ("repeat", "evil password"),
        ])
        .send()
        .await
        .expect("sent");
    assert_eq!(cross.status(), 403);

    let changed = change("first password", "second password", "second password").await;
    assert_eq!(changed.status(), 200);
    let (status, _) = app.page(&cookie, "/settings").await;
    assert_eq!(status, 200, "the session that changed it stays");
    let (status, _) = app.page(&other, "/settings").await;
    assert_ne!(status, 200, "every other session ended");
    let old = app.login("ops", "first password").await;
    assert!(
        session_cookie(old.headers()).is_none(),
        "the old password no longer signs in"
    );
    let new = app.login("ops", "second password").await;
    assert!(session_cookie(new.headers()).is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_tokens_are_shown_once_work_at_once_and_revoke_at_once() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;

    let created = app
        .rpc(
            &cookie,
            "create_api_token",
            &[
                ("name", " ansible "),
                ("scope", "admin"),
                ("password", "a long password"),
            ],
        )
        .await;
    assert_eq!(created.status(), 200);
    let created: Value = created.json().await.expect("json");
    assert_eq!(created["name"], "ansible");
    let token = created["token"].as_str().expect("the secret").to_owned();
    assert_eq!(token.len(), 64);
    let settings_with = |token: &str| {
        let request = app
            .client
            .get(app.url("/api/v1/settings"))
            .bearer_auth(token);
        async move { request.send().await.expect("sent").status() }
    };

    assert_eq!(
        settings_with(&token).await,
        200,
        "the new token works at once"
    );

    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(html.contains("ansible") && html.contains("Revoke ansible"));
    assert!(!html.contains(&token), "the secret is never shown again");
    let listed: Value = app
        .rpc(&cookie, "api_tokens", &[])
        .await
        .json()
        .await
        .expect("json");
    let names: Vec<&str> = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"ansible"), "{names:?}");

    let again = app
        .rpc(
            &cookie,
            "create_api_token",
            &[
                ("name", "ansible"),
                ("scope", "admin"),
                ("password", "a long password"),
            ],
        )
        .await;
    assert_eq!(again.status(), 422);
    assert!(again.text().await.expect("body").contains("TokenNameTaken"));
    for bad in ["", "two words", "<script>"] {
        let refused = app
            .rpc(
                &cookie,
                "create_api_token",
                &[
                    ("name", bad),
                    ("scope", "admin"),
                    ("password", "a long password"),
                ],
            )
            .await;
        assert_eq!(refused.status(), 422, "{bad:?}");
    }
    assert_eq!(
        settings_with(&token).await,
        200,
        "a refused duplicate does not re-key the token"
    );

    let revoked = app
        .rpc(&cookie, "revoke_api_token", &[("name", "ansible")])
        .await;
    assert_eq!(revoked.status(), 200);
    assert_eq!(
        settings_with(&token).await,
        401,
        "revoked tokens stop working at once"
    );
    let gone = app
        .rpc(&cookie, "revoke_api_token", &[("name", "ansible")])
        .await;
    assert_eq!(gone.status(), 404);
    assert_eq!(
        get_response(&app, "/api/v1/settings").await.status(),
        200,
        "the bootstrap token is untouched"
    );
}
