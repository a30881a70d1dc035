use crate::helpers::{location, session_cookie, spawn_app};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correct_password_opens_a_session_with_a_safe_cookie() {
    let app = spawn_app().await;
    app.create_operator("ops", "a long password").await;
    let response = app.login("ops", "a long password").await;
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/");
    let raw = response
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .expect("cookie")
        .to_owned();
    assert!(
        raw.contains("HttpOnly") && raw.contains("SameSite=Lax"),
        "{raw}"
    );
    assert!(
        !raw.contains("Secure"),
        "plain http must not set Secure: {raw}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cookie_is_secure_behind_an_https_proxy() {
    let app = spawn_app().await;
    app.create_operator("ops", "a long password").await;
    let response = app
        .login_with_header(
            "ops",
            "a long password",
            Some(("x-forwarded-proto", "https")),
        )
        .await;
    let raw = response
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(raw.ends_with("; Secure"), "{raw}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_or_unknown_user_opens_nothing() {
    let app = spawn_app().await;
    app.create_operator("ops", "a long password").await;
    for (user, password) in [("ops", "wrong password"), ("nobody", "a long password")] {
        let response = app.login(user, password).await;
        assert_eq!(response.status(), 303);
        assert_eq!(location(&response), "/login?error=invalid");
        assert_eq!(session_cookie(response.headers()), None);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_failures_lock_the_username_even_for_the_right_password() {
    let app = spawn_app().await;
    app.create_operator("ops", "a long password").await;
    for _ in 0..5 {
        app.login("ops", "guess").await;
    }
    let response = app.login("ops", "a long password").await;
    assert_eq!(location(&response), "/login?error=locked");
    assert_eq!(session_cookie(response.headers()), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_need_a_session_and_the_login_page_does_not() {
    let app = spawn_app().await;
    for page in ["/", "/users"] {
        let response = app.client.get(app.url(page)).send().await.expect("sent");
        assert_eq!(response.status(), 303, "{page}");
        assert_eq!(location(&response), "/login");
    }
    let login = app
        .client
        .get(app.url("/login"))
        .send()
        .await
        .expect("sent");
    assert_eq!(login.status(), 200);
    let html = login.text().await.expect("html");
    assert!(html.contains("Sign in to the panel"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_operator_sees_the_panel_and_can_sign_out() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let page = app
        .client
        .get(app.url("/"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(page.status(), 200);
    assert!(page.text().await.expect("html").contains("Signed in as"));

    let out = app
        .client
        .post(app.url("/logout"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(location(&out), "/login");
    let cleared = out
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(cleared.contains("Max-Age=0"), "{cleared}");

    let after = app
        .client
        .get(app.url("/"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(
        location(&after),
        "/login",
        "the old cookie must no longer work"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_site_login_form_is_refused() {
    let app = spawn_app().await;
    app.create_operator("ops", "a long password").await;
    let response = app
        .login_with_header(
            "ops",
            "a long password",
            Some(("origin", "https://evil.example")),
        )
        .await;
    assert_eq!(location(&response), "/login?error=cross_site");
    assert_eq!(session_cookie(response.headers()), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_functions_check_the_session_and_the_origin() {
    let app = spawn_app().await;
    let anonymous = app
        .client
        .post(app.url("/rpc/servers"))
        .send()
        .await
        .expect("sent");
    assert_eq!(anonymous.status(), 401);

    let cookie = app.signed_in("ops", "a long password").await;
    let own = app
        .client
        .post(app.url("/rpc/servers"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(own.status(), 200);

    let forged = app
        .client
        .post(app.url("/rpc/servers"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .send()
        .await
        .expect("sent");
    assert_eq!(forged.status(), 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remembered_sessions_still_expire_and_sign_out_at_once() {
    use meshwatch_server::auth::sessions::SessionCache;
    use meshwatch_server::crypto::secrets::TokenHash;
    let app = crate::helpers::spawn_app().await;
    app.create_operator("ops", "a long password").await;
    let store = app.store().await;
    let id = store
        .operator_credentials("ops")
        .await
        .expect("read")
        .expect("operator")
        .id;
    let clock = meshwatch_server::engine::ManualClock::default();
    let cache = SessionCache::new(meshwatch_server::engine::Clock::Manual(clock.clone()));
    let (short, long) = (TokenHash::of("short-lived"), TokenHash::of("long-lived"));
    let now = clock.now();
    store
        .create_session(id, &short, now + chrono::Duration::milliseconds(800))
        .await
        .expect("session");
    store
        .create_session(id, &long, now + chrono::Duration::hours(1))
        .await
        .expect("session");
    for token in [&short, &long] {
        let who = cache.operator(&store, token).await.expect("read");
        assert_eq!(who.map(|o| o.username).as_deref(), Some("ops"));
    }
    clock.advance(std::time::Duration::from_millis(900));
    assert!(
        cache
            .operator(&store, &short)
            .await
            .expect("read")
            .is_none(),
        "an expired session is refused even while remembered"
    );
    store.delete_session(&long).await.expect("deleted");
    cache.forget(&long);
    assert!(cache.operator(&store, &long).await.expect("read").is_none());
}
