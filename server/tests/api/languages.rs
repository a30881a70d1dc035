//! The panel in six languages: chosen from Accept-Language, switched with
//! a form, remembered in a cookie, rendered on the server in that language.

use crate::agent::{fleet, post, report, uuid};
use crate::helpers::{location, spawn_app, TestApp};

async fn card(app: &TestApp, cookie: &str, extra: (&str, &str)) -> String {
    app.client
        .get(app.url("/servers/de-1"))
        .header("cookie", cookie)
        .header(extra.0, extra.1)
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("html")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn captions_follow_accept_language_and_the_cookie() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    post(&app, &tokens["de-1"], &report(&uuid(1), false, vec![])).await;
    let session = app.signed_in("ops", "a long password").await;

    let ja = card(&app, &session, ("accept-language", "ja,en;q=0.5")).await;
    assert!(ja.contains("<html lang=\"ja\""));
    assert!(ja.contains("サーバーが利用できません"));
    assert!(ja.contains("このサーバーで他のサーバーのブロックを確認する"));

    let cookie = format!("{session}; meshwatch_lang=es");
    let es = card(&app, &cookie, ("accept-language", "ja")).await;
    assert!(
        es.contains("<html lang=\"es\""),
        "the cookie wins over the header"
    );
    assert!(es.contains("Servidor no disponible"));

    let en = card(&app, &session, ("accept-language", "fr-FR")).await;
    assert!(en.contains("<html lang=\"en\"") && en.contains("Server unavailable"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_switcher_sets_the_cookie_and_goes_back() {
    let app = spawn_app().await;
    let switch = |lang: &'static str, origin: Option<String>| {
        let mut request = app
            .client
            .post(app.url("/lang"))
            .header("referer", app.url("/users/alice"))
            .form(&[("lang", lang)]);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    let done = switch("sv", Some(app.address.clone())).await.expect("sent");
    assert_eq!(done.status(), 303);
    assert_eq!(location(&done), "/users/alice");
    let cookie = done
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(
        cookie.starts_with("meshwatch_lang=sv;") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );

    assert_eq!(switch("xx", None).await.expect("sent").status(), 400);
    let cross = switch("ja", Some("https://evil.example".into()))
        .await
        .expect("sent");
    assert_eq!(cross.status(), 403);
    assert!(cross.headers().get("set-cookie").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_operator_s_choice_becomes_the_notifications_language() {
    let app = spawn_app().await;
    let switch = |lang: &'static str, cookie: Option<String>| {
        let mut request = app.client.post(app.url("/lang")).form(&[("lang", lang)]);
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        request.send()
    };
    let store = app.store().await;
    assert_eq!(store.notify_lang().await.expect("read"), None, "English");

    let anonymous = switch("ja", None).await.expect("sent");
    assert_eq!(anonymous.status(), 303);
    assert_eq!(
        store.notify_lang().await.expect("read"),
        None,
        "a browser without a session sets its cookie only"
    );

    let session = app.signed_in("ops", "a long password").await;
    let chosen = switch("sv", Some(session)).await.expect("sent");
    assert_eq!(chosen.status(), 303);
    assert_eq!(
        store.notify_lang().await.expect("read"),
        Some(meshwatch_views::i18n::Lang::Sv)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_portuguese_is_brazilian_and_any_portuguese_gets_it() {
    let app = spawn_app().await;
    fleet(&app).await;
    let session = app.signed_in("ops", "a long password").await;
    for asked in ["pt-PT", "pt", "pt-BR,en;q=0.5"] {
        let html = card(&app, &session, ("accept-language", asked)).await;
        assert!(html.contains("<html lang=\"pt-BR\""), "{asked}");
        assert!(
            html.contains("<option value=\"pt-BR\" selected")
                && html.contains("Português (Brasil)"),
            "{asked}: the switcher names it"
        );
    }
    // A cookie from before the language was labelled still chooses it.
    let cookie = format!("{session}; meshwatch_lang=pt");
    let html = card(&app, &cookie, ("accept-language", "en")).await;
    assert!(html.contains("<html lang=\"pt-BR\"") && html.contains("Sem dados do servidor"));
}

/// Spanish shows 0,5 in the settings form, and what it shows is read back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimals_are_shown_and_read_in_the_page_s_language() {
    use crate::agent::get;
    use crate::helpers::with_flash;
    let app = spawn_app().await;
    let session = app.signed_in("ops", "a long password").await;
    let es = format!("{session}; meshwatch_lang=es");
    let (_, html) = app.page(&es, "/settings").await;
    assert!(
        html.contains("inputmode=\"decimal\"") && html.contains("value=\"0,5\""),
        "{html}"
    );
    let (_, html) = app.page(&session, "/settings").await;
    assert!(html.contains("value=\"0.5\""), "English keeps the point");

    let save = |fraction: &'static str| {
        let fields = [
            ("report_interval_s", "60"),
            ("probe_interval_s", "30"),
            ("probe_timeout_s", "5"),
            ("stale_after_s", "180"),
            ("failure_streak", "3"),
            ("quorum", "2"),
            ("unreliable_fraction", fraction),
        ];
        let app = &app;
        let es = es.clone();
        async move { app.form_post(&es, "save_settings", &fields).await }
    };
    let saved = save("0,25").await;
    assert_eq!(saved.status(), 302);
    assert_eq!(
        get(&app, "/api/v1/settings").await["unreliable_fraction"],
        0.25
    );
    let (_, html) = app.page(&with_flash(&es, &saved), "/settings").await;
    assert!(html.contains("value=\"0,25\"") && !html.contains("role=\"alert\""));

    assert_eq!(save("0.75").await.status(), 302, "a point is read too");
    assert_eq!(
        get(&app, "/api/v1/settings").await["unreliable_fraction"],
        0.75
    );

    let refused = save("0,5,0").await;
    let (_, html) = app.page(&with_flash(&es, &refused), "/settings").await;
    assert!(
        html.contains("role=\"alert\"") && html.contains("no es un número decimal"),
        "{html}"
    );
    assert_eq!(
        get(&app, "/api/v1/settings").await["unreliable_fraction"],
        0.75
    );
}
