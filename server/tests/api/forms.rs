//! The panel's forms are plain posts: the browser is sent back to the
//! form's page, which says once what the post did.

use crate::agent::get;
use crate::helpers::{location, spawn_app, with_flash, TestApp};

/// A page as the live refresh fetches it in the background.
async fn refreshed_page(app: &TestApp, cookie: &str, path: &str) -> String {
    app.client
        .get(app.url(path))
        .header("cookie", cookie)
        .header("x-meshwatch-refresh", "1")
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("html")
}

/// The 64-hex secret shown after "New API token", if the page shows one.
fn shown_secret(html: &str) -> Option<String> {
    let (_, after) = html.split_once("aria-label=\"New API token\"")?;
    let (_, after) = after.split_once('>')?;
    let secret: String = after.chars().take_while(char::is_ascii_hexdigit).collect();
    (secret.len() == 64).then_some(secret)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_created_token_is_shown_once_on_the_page_the_post_returns_to() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;

    let created = app
        .form_post(
            &cookie,
            "create_api_token",
            &[
                ("name", "ci"),
                ("scope", "admin"),
                ("password", "a long password"),
            ],
        )
        .await;
    assert_eq!(created.status(), 302);
    assert_eq!(location(&created), "/settings");
    let sent_back = with_flash(&cookie, &created);

    let background = refreshed_page(&app, &sent_back, "/settings").await;
    assert_eq!(shown_secret(&background), None, "a live refresh leaves it");
    let (status, html) = app.page(&sent_back, "/settings").await;
    assert_eq!(status, 200);
    assert!(html.contains("Copy it now: it is not shown again."));
    let secret = shown_secret(&html).expect("the secret, this once");
    let works = app
        .client
        .get(app.url("/api/v1/settings"))
        .bearer_auth(&secret)
        .send()
        .await
        .expect("sent");
    assert_eq!(works.status(), 200);
    let (_, again) = app.page(&cookie, "/settings").await;
    assert_eq!(shown_secret(&again), None, "never twice");

    let taken = app
        .form_post(
            &cookie,
            "create_api_token",
            &[
                ("name", "ci"),
                ("scope", "admin"),
                ("password", "a long password"),
            ],
        )
        .await;
    assert_eq!(taken.status(), 302);
    let (_, html) = app.page(&with_flash(&cookie, &taken), "/settings").await;
    assert!(html.contains("exists already: revoke it first"), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outcome_travels_sealed_and_the_page_showing_it_clears_it() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let created = app
        .form_post(
            &cookie,
            "create_api_token",
            &[
                ("name", "ci"),
                ("scope", "admin"),
                ("password", "a long password"),
            ],
        )
        .await;
    let set: Vec<&str> = created
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter(|v| v.starts_with("meshwatch_flash="))
        .collect();
    assert_eq!(set.len(), 1, "{set:?}");
    assert!(set[0].contains("HttpOnly") && set[0].contains("Max-Age=300"));
    let sent_back = with_flash(&cookie, &created);

    // Another operator's session cannot open it.
    let other = app.signed_in("ops2", "another long password").await;
    let flash = sent_back.rsplit("; ").next().expect("the flash cookie");
    let (_, html) = app.page(&format!("{other}; {flash}"), "/settings").await;
    assert!(
        !html.contains("Copy it now"),
        "only its own session sees it"
    );

    let clears = |response: &reqwest::Response| {
        response
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.starts_with("meshwatch_flash=;") && v.contains("Max-Age=0"))
    };
    let refresh = app
        .client
        .get(app.url("/settings"))
        .header("cookie", &sent_back)
        .header("x-meshwatch-refresh", "1")
        .send()
        .await
        .expect("sent");
    assert!(!clears(&refresh), "a live refresh leaves it for the page");
    let page = app
        .client
        .get(app.url("/settings"))
        .header("cookie", &sent_back)
        .send()
        .await
        .expect("sent");
    assert!(clears(&page), "the page that shows it clears it");
    assert!(page.text().await.expect("html").contains("Copy it now"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejected_parameters_are_explained_on_the_page_and_nothing_is_stored() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let before = get(&app, "/api/v1/settings").await;

    let refused = app
        .form_post(
            &cookie,
            "save_settings",
            &[
                ("report_interval_s", "30"),
                ("probe_interval_s", "15"),
                ("probe_timeout_s", "4"),
                ("stale_after_s", "90"),
                ("failure_streak", "4"),
                ("quorum", "0"),
                ("unreliable_fraction", "0.4"),
            ],
        )
        .await;
    assert_eq!(refused.status(), 302, "back to the form, not an error page");
    assert_eq!(location(&refused), "/settings");
    let (_, html) = app.page(&with_flash(&cookie, &refused), "/settings").await;
    assert!(html.contains("role=\"alert\""), "{html}");
    assert!(
        html.contains("quorum: must be a whole number of at least 1"),
        "{html}"
    );
    assert_eq!(get(&app, "/api/v1/settings").await, before);

    let (_, html) = app.page(&cookie, "/settings").await;
    assert!(!html.contains("role=\"alert\""), "said once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_message_post_says_how_many_targets_it_went_to() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let sent = app.form_post(&cookie, "send_test_notification", &[]).await;
    assert_eq!(sent.status(), 302);
    assert_eq!(location(&sent), "/notifications");
    let (_, html) = app
        .page(&with_flash(&cookie, &sent), "/notifications")
        .await;
    assert!(html.contains("Test message queued for 1 target."), "{html}");
    let (_, html) = app.page(&cookie, "/notifications").await;
    assert!(!html.contains("Test message queued"), "said once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_post_from_another_site_is_refused_and_flashes_nothing() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let forged = app
        .client
        .post(app.url("/rpc/create_api_token"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .header("accept", "text/html")
        .form(&[
            ("name", "evil"),
            ("scope", "admin"),
            ("password", "a long password"),
        ])
        .send()
        .await
        .expect("sent");
    assert_eq!(forged.status(), 403);
    let (_, html) = app.page(&cookie, "/settings").await;
    assert_eq!(shown_secret(&html), None);
    assert!(!html.contains("evil"));
}
