//! The attack suite: each test plays an attack against a real panel on
//! loopback and asserts what the attacker gets. Requests stay few and
//! bounded in time.

use crate::binary::{command, run};
use crate::helpers::{
    error_code, location, session_cookie, spawn_app, spawn_app_with, with_flash, TestApp,
};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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
        .form(&[
            ("name", "evil"),
            ("scope", "admin"),
            ("password", "a long password"),
        ])
        .send()
        .await
        .expect("sent");
    assert_eq!(form.status(), 403, "a cross-site form post");
    let as_link = from_elsewhere(
        reqwest::Method::GET,
        "/rpc/create_api_token?name=evil&scope=admin&password=a+long+password",
    )
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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
    let (_, html) = app.page(&with_flash(&cookie, &posted), "/settings").await;
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

const PUBLIC_URL: &str = "https://panel.example";

/// A form post as a browser on `origin` sends it.
async fn post_from(
    app: &TestApp,
    cookie: &str,
    origin: &str,
    path: &str,
    form: &[(&str, &str)],
) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .header("cookie", cookie)
        .header("origin", origin)
        .header("accept", "application/json")
        .form(form)
        .send()
        .await
        .expect("sent")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_public_url_writes_must_come_from_it_whatever_host_says() {
    let app = spawn_app_with(&[("MESHWATCH_PUBLIC_URL", PUBLIC_URL.to_owned())]).await;
    app.create_operator("ops", "a long password").await;
    // The address the request reached (its Host) is not the panel's
    // public origin: a page served there is another site.
    let own_host = app.address.as_str();
    let refused = app
        .login_with_header("ops", "a long password", Some(("origin", own_host)))
        .await;
    assert_eq!(location(&refused), "/login?error=cross_site");
    assert_eq!(session_cookie(refused.headers()), None);

    let signed_in = app
        .login_with_header("ops", "a long password", Some(("origin", PUBLIC_URL)))
        .await;
    assert_eq!(location(&signed_in), "/");
    let set_cookie = signed_in
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("__Host-meshwatch_session="))
        .expect("a __Host- session cookie")
        .to_owned();
    assert!(
        set_cookie.ends_with("; Secure") && set_cookie.contains("; Path=/;"),
        "{set_cookie}"
    );
    assert!(!set_cookie.contains("Domain"), "{set_cookie}");
    let cookie = session_cookie(signed_in.headers()).expect("signed in");

    let token = |name: &'static str| {
        [
            ("name", name),
            ("scope", "read"),
            ("password", "a long password"),
        ]
    };
    let from_host = post_from(
        &app,
        &cookie,
        own_host,
        "/rpc/create_api_token",
        &token("a"),
    )
    .await;
    assert_eq!(from_host.status(), 403, "a write from the Host's origin");
    let from_public = post_from(
        &app,
        &cookie,
        PUBLIC_URL,
        "/rpc/create_api_token",
        &token("b"),
    )
    .await;
    assert_eq!(from_public.status(), 200, "a write from the public origin");

    let lang = post_from(&app, &cookie, PUBLIC_URL, "/lang", &[("lang", "ja")]).await;
    assert_eq!(lang.status(), 303);
    let lang_cookie = lang.headers()["set-cookie"].to_str().expect("ascii");
    assert!(lang_cookie.ends_with("; Secure"), "{lang_cookie}");
    let lang = post_from(&app, &cookie, own_host, "/lang", &[("lang", "ja")]).await;
    assert_eq!(lang.status(), 403);

    // An unprefixed cookie (one another host could have planted) is no session.
    let value = cookie.split_once('=').map(|(_, v)| v).expect("name=value");
    let (status, _) = app.page(&format!("meshwatch_session={value}"), "/").await;
    assert_eq!(status, 303, "sent to sign in");
    let (status, _) = app.page(&cookie, "/").await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_public_url_subscription_links_start_with_it() {
    let app = spawn_app_with(&[("MESHWATCH_PUBLIC_URL", PUBLIC_URL.to_owned())]).await;
    let fleet = serde_json::json!({
        "routes": [{"id": "de", "name": "Germany"}],
        "servers": [{"id": "de-1", "name": "Frankfurt 1", "country": "DE", "routes": ["de"],
            "entry_points": [{"id": "de-1-vless", "protocol": "vless", "host": "127.0.40.1", "port": 443}]}],
        "users": [{"id": "alice", "name": "Alice", "routes": ["de"]}]
    });
    let answer: serde_json::Value = app.put_fleet(&fleet).await.json().await.expect("json");
    let sub = answer["sub_tokens"]["alice"].as_str().expect("sub token");
    app.create_operator("ops", "a long password").await;
    let signed_in = app
        .login_with_header("ops", "a long password", Some(("origin", PUBLIC_URL)))
        .await;
    let cookie = session_cookie(signed_in.headers()).expect("signed in");
    let (status, html) = app.page(&cookie, "/users/alice").await;
    assert_eq!(status, 200);
    assert!(html.contains(&format!("{PUBLIC_URL}/sub/{sub}")), "{html}");
    assert!(!html.contains(&format!("{}/sub/", app.address)), "{html}");
}

/// `meshwatch_password_checks_total`: passwords the panel has verified.
async fn password_checks(app: &TestApp) -> u64 {
    app.counter("meshwatch_password_checks_total").await
}

/// The test process's peak resident memory so far (`VmHWM`), in KiB. The
/// panel runs inside this process, so its argon2 memory shows here.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("procfs");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

async fn login_from(
    app: &TestApp,
    username: &str,
    password: &str,
    client: &str,
) -> reqwest::Response {
    app.login_with_header(username, password, Some(("x-forwarded-for", client)))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_parallel_guesses_gets_five_password_checks_and_little_memory() {
    const GUESSES: usize = 200;
    let app = spawn_app().await;
    app.create_operator("ops", "a long password").await;
    let checks_before = password_checks(&app).await;
    let peak_before = peak_rss_kib();

    let guesses = (0..GUESSES).map(|k| {
        let app = &app;
        async move { app.login("ops", &format!("guess number {k}")).await }
    });
    let answers = futures_util::future::join_all(guesses).await;

    let checked = password_checks(&app).await - checks_before;
    assert!(
        (1..=5).contains(&checked),
        "{checked} passwords were checked for {GUESSES} parallel guesses"
    );
    let mut wrong = 0;
    for answer in &answers {
        match answer.status().as_u16() {
            303 if location(answer) == "/login?error=invalid" => wrong += 1,
            303 => assert_eq!(location(answer), "/login?error=locked"),
            429 => {
                let wait: u64 = answer.headers()["retry-after"]
                    .to_str()
                    .expect("ascii")
                    .parse()
                    .expect("seconds");
                assert!((1..=60).contains(&wait), "Retry-After {wait}");
            }
            other => panic!("unexpected answer {other}"),
        }
    }
    assert!(wrong <= 5, "{wrong} guesses were told they were wrong");
    // Each argon2 check holds ~19 MiB: unbounded, this burst would take
    // gigabytes. Other tests share the process, hence the generous bound.
    let grown_mib = peak_rss_kib().saturating_sub(peak_before) / 1024;
    assert!(grown_mib < 512, "peak memory grew by {grown_mib} MiB");

    // Guesses refused as busy were not counted: the address may guess on,
    // one at a time, until five have been checked in all.
    assert_eq!(wrong, checked, "every check was a counted failure");
    for k in 0..10 {
        let guess = app.login("ops", &format!("sequential guess {k}")).await;
        if location(&guess) == "/login?error=locked" {
            break;
        }
    }
    assert_eq!(password_checks(&app).await - checks_before, 5);
    let locked = app.login("ops", "a long password").await;
    assert_eq!(
        location(&locked),
        "/login?error=locked",
        "the attacker's address stays locked, even with the right password"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_an_attacker_locks_out_only_itself() {
    let app = spawn_app_with(&[("MESHWATCH_TRUSTED_PROXIES", "127.0.0.1/32".to_owned())]).await;
    app.create_operator("ops", "a long password").await;
    app.create_operator("ana", "another long password").await;
    let home = "198.51.100.7";
    let first = login_from(&app, "ops", "a long password", home).await;
    assert_eq!(location(&first), "/", "the operator signs in from home");

    // One attacker, one address: every username it tries counts against it.
    for k in 0..25 {
        let _ = login_from(&app, &format!("user{k}"), "guess", "203.0.113.9").await;
    }
    let attacker = login_from(&app, "ana", "another long password", "203.0.113.9").await;
    assert_eq!(location(&attacker), "/login?error=locked");
    let ana = login_from(&app, "ana", "another long password", "192.0.2.44").await;
    assert_eq!(
        location(&ana),
        "/",
        "another operator behind the same proxy gets in"
    );

    // Many addresses hammering one username: it slows down, it does not lock.
    let mut slowed = None;
    for k in 0..30 {
        let guess = login_from(&app, "ops", "guess", &format!("203.0.113.{}", 100 + k)).await;
        if guess.status() == 429 {
            slowed = Some(guess);
            break;
        }
    }
    let slowed = slowed.expect("the hammered username is slowed down");
    let wait: u64 = slowed.headers()["retry-after"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    let at_home = login_from(&app, "ops", "a long password", home).await;
    assert_eq!(
        location(&at_home),
        "/",
        "the operator still gets in from home"
    );
    assert!(session_cookie(at_home.headers()).is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarding_headers_from_an_untrusted_peer_do_not_dodge_the_lock() {
    let app = spawn_app().await;
    app.create_operator("ops", "a long password").await;
    for k in 0..5 {
        let wrong = login_from(&app, "ops", "guess", &format!("203.0.113.{k}")).await;
        assert_eq!(location(&wrong), "/login?error=invalid");
    }
    let spoofed = login_from(&app, "ops", "a long password", "203.0.113.200").await;
    assert_eq!(
        location(&spoofed),
        "/login?error=locked",
        "X-Forwarded-For from a peer that is no trusted proxy is ignored"
    );
}

/// Reads an event stream until it ends; `true` when it ended in time.
async fn ends_within(mut stream: reqwest::Response, limit: Duration) -> bool {
    tokio::time::timeout(limit, async {
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await
    .is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_stream_ends_with_its_session() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let other = session_cookie(app.login("ops", "a long password").await.headers())
        .expect("a second session");

    let stream = app.open_events(&cookie).await;
    let still_open = app.open_events(&other).await;
    let logout = app
        .client
        .post(app.url("/logout"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(location(&logout), "/login");
    assert!(
        ends_within(stream, Duration::from_secs(5)).await,
        "the signed-out session's stream ended"
    );
    assert!(
        !ends_within(still_open, Duration::from_millis(300)).await,
        "another session's stream goes on"
    );

    let stream = app.open_events(&other).await;
    let form = [
        ("current", "a long password"),
        ("next", "a new long password"),
        ("repeat", "a new long password"),
    ];
    let changed = app
        .rpc(&cookie_of(&app).await, "change_password", &form)
        .await;
    assert_eq!(changed.status(), 200);
    assert!(
        ends_within(stream, Duration::from_secs(5)).await,
        "a password change ends the other sessions' streams"
    );
}

/// A fresh session of `ops` (the stream tests end the others).
async fn cookie_of(app: &TestApp) -> String {
    session_cookie(app.login("ops", "a long password").await.headers()).expect("signed in")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ended_behind_the_panels_back_ends_its_stream_within_30_s() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let stream = app.open_events(&cookie).await;
    // Another process (a replica, `create-operator`) ends the session in
    // the database: this panel hears nothing of it.
    let token = cookie.split_once('=').map(|(_, t)| t).expect("name=value");
    app.store()
        .await
        .delete_session(&meshwatch_server::crypto::secrets::TokenHash::of(token))
        .await
        .expect("deleted");
    assert!(
        ends_within(stream, Duration::from_secs(30)).await,
        "the stream noticed its session was gone"
    );
}
