//! The attack suite: each test plays an attack against a real panel on
//! loopback and asserts what the attacker gets. Requests stay few and
//! bounded in time.

use crate::binary::{command, run};
use crate::helpers::{error_code, location, session_cookie, spawn_app, spawn_app_with, TestApp};
use meshwatch::account::MAX_USERNAME_LEN;
use std::time::Duration;

/// A signed-in browser following a panel link from a webmail page.
async fn link_from_webmail(app: &TestApp, cookie: &str, path: &str) -> reqwest::Response {
    app.client
        .get(app.url(path))
        .header("cookie", cookie)
        .header("accept", "text/html")
        .header("referer", "https://webmail.example/inbox")
        .header("sec-fetch-site", "cross-site")
        .header("sec-fetch-mode", "navigate")
        .header("sec-fetch-dest", "document")
        .send()
        .await
        .expect("sent")
}

#[tokio::test]
async fn a_panel_link_followed_from_webmail_opens_the_page() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    for path in ["/", "/overview"] {
        let response = link_from_webmail(&app, &cookie, path).await;
        assert_eq!(response.status(), 200, "{path}");
        let html = response.text().await.expect("html");
        assert!(html.contains("Signed in as"), "{path}: {html}");
        assert!(!html.contains("came from another site"), "{path}: {html}");
    }
}

#[tokio::test]
async fn writes_from_another_site_are_still_refused() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let from_elsewhere = |method: reqwest::Method, path: &str| {
        app.client
            .request(method, app.url(path))
            .header("cookie", &cookie)
            .header("accept", "text/html")
            .header("sec-fetch-site", "cross-site")
    };

    let form = from_elsewhere(reqwest::Method::POST, "/rpc/create_api_token")
        .form(&[("name", "evil")])
        .send()
        .await
        .expect("sent");
    assert_eq!(form.status(), 403, "a cross-site form post");
    let as_link = from_elsewhere(reqwest::Method::GET, "/rpc/create_api_token?name=evil")
        .send()
        .await
        .expect("sent");
    assert!(
        !as_link.status().is_success(),
        "a server function is no link: {}",
        as_link.status()
    );
    let lang = from_elsewhere(reqwest::Method::POST, "/lang")
        .form(&[("lang", "ja")])
        .send()
        .await
        .expect("sent");
    assert_eq!(lang.status(), 403, "a cross-site language switch");
    let logout = from_elsewhere(reqwest::Method::POST, "/logout")
        .send()
        .await
        .expect("sent");
    assert_eq!(location(&logout), "/", "a cross-site sign-out does nothing");

    let (status, html) = app.page(&cookie, "/settings").await;
    assert_eq!(status, 200, "the session survived");
    assert!(!html.contains("evil"), "no token was created");
}

const METRICS_TOKEN: &str = "scrape-secret-0123456789";

#[tokio::test]
async fn a_scrape_without_the_metrics_token_gets_401() {
    let app = spawn_app_with(&[("MESHWATCH_METRICS_TOKEN", METRICS_TOKEN.to_owned())]).await;
    let scrape = |authorization: Option<String>| {
        let mut request = app.client.get(app.url("/metrics"));
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        async move { request.send().await.expect("sent") }
    };
    for authorization in [
        None,
        Some("Bearer wrong-secret".to_owned()),
        Some(format!(
            "Bearer {}",
            &METRICS_TOKEN[..METRICS_TOKEN.len() - 1]
        )),
        Some(format!("Bearer {METRICS_TOKEN}0")),
        Some(format!("Basic {METRICS_TOKEN}")),
        Some(format!("Bearer {}", crate::helpers::ADMIN_TOKEN)),
    ] {
        let refused = scrape(authorization.clone()).await;
        assert_eq!(refused.status(), 401, "{authorization:?}");
        assert_eq!(
            refused
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok()),
            Some("Bearer")
        );
        assert_eq!(error_code(refused).await, "unauthorized");
    }
    let scraped = scrape(Some(format!("Bearer {METRICS_TOKEN}"))).await;
    assert_eq!(scraped.status(), 200);
    let text = scraped.text().await.expect("text");
    assert!(text.contains("meshwatch_reports_ingested_total"), "{text}");
}

#[tokio::test]
async fn without_a_metrics_token_scrapes_stay_open() {
    let app = spawn_app().await;
    let scraped = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("sent");
    assert_eq!(scraped.status(), 200);
}

/// A username that fills the 1 MiB body limit, less room for the rest of
/// the form.
const HUGE_USERNAME_LEN: usize = (1 << 20) - 64;

#[tokio::test]
async fn an_over_long_username_is_refused_like_a_wrong_password_before_any_lookup() {
    let app = spawn_app().await;
    // Put straight into the store (create-operator refuses the name): if
    // sign-in looked it up, the right password would open a session.
    let over = "o".repeat(MAX_USERNAME_LEN + 1);
    app.create_operator(&over, "a long password").await;
    let refused = app.login(&over, "a long password").await;
    assert_eq!(refused.status(), 303);
    assert_eq!(location(&refused), "/login?error=invalid");
    assert_eq!(session_cookie(refused.headers()), None);

    let huge = "a".repeat(HUGE_USERNAME_LEN);
    let refused =
        tokio::time::timeout(Duration::from_secs(10), app.login(&huge, "a long password"))
            .await
            .expect("a huge username is answered at once");
    assert_eq!(refused.status(), 303);
    assert_eq!(location(&refused), "/login?error=invalid");
    assert_eq!(session_cookie(refused.headers()), None);

    let longest = "o".repeat(MAX_USERNAME_LEN);
    app.create_operator(&longest, "a long password").await;
    let signed_in = app.login(&longest, "a long password").await;
    assert!(
        session_cookie(signed_in.headers()).is_some(),
        "{MAX_USERNAME_LEN} characters are allowed"
    );
}

#[test]
fn create_operator_refuses_a_name_over_64_characters() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/panel.db", dir.path().display());
    let create = |name: &str| {
        let mut cmd = command(&db);
        cmd.args(["create-operator", name])
            .env("MESHWATCH_OPERATOR_PASSWORD", "a long password");
        run(cmd)
    };

    let (over, longest) = (
        "o".repeat(MAX_USERNAME_LEN + 1),
        "o".repeat(MAX_USERNAME_LEN),
    );
    let refused = create(over.as_str());
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("An operator name is 1 to 64 characters without spaces."),
        "{said}"
    );

    let created = create(longest.as_str());
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
}

#[tokio::test]
async fn five_wrong_current_passwords_pause_that_operators_password_changes() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "first password").await;
    let wrong = [
        ("current", "wrong password"),
        ("next", "second password"),
        ("repeat", "second password"),
    ];
    for attempt in 1..=5 {
        let refused = app.rpc(&cookie, "change_password", &wrong).await;
        assert_eq!(refused.status(), 422, "attempt {attempt}");
    }

    let right = [
        ("current", "first password"),
        ("next", "second password"),
        ("repeat", "second password"),
    ];
    let paused = app.rpc(&cookie, "change_password", &right).await;
    assert_eq!(paused.status(), 429, "even the right password waits");
    assert!(paused.headers().contains_key("retry-after"));

    let posted = app.form_post(&cookie, "change_password", &right).await;
    assert_eq!(posted.status(), 302, "a browser goes back to the form");
    assert_eq!(location(&posted), "/settings");
    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(
        html.contains("Too many wrong passwords. Try again in"),
        "{html}"
    );

    let old = app.login("ops", "first password").await;
    assert!(
        session_cookie(old.headers()).is_some(),
        "the password did not change"
    );
    let other = app.signed_in("ops2", "other password").await;
    let changed = app
        .rpc(
            &other,
            "change_password",
            &[
                ("current", "other password"),
                ("next", "another password"),
                ("repeat", "another password"),
            ],
        )
        .await;
    assert_eq!(changed.status(), 200, "other operators are not paused");
}
