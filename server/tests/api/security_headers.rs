//! The security headers as a browser receives them: the CSP with this
//! answer's script nonce, `nosniff`, the referrer and framing policies,
//! and `no-store` on whatever shows a secret or a signed-in page.

use crate::helpers::{location, spawn_app, with_flash, TestApp};
use reqwest::Response;
use serde_json::{json, Value};

/// The nonce the answer's CSP allows inline scripts by.
fn csp_nonce(response: &Response) -> String {
    let policy = header(response, "content-security-policy");
    for directive in [
        "default-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(directive), "{directive} in {policy}");
    }
    assert!(
        !policy.contains("unsafe-inline") && !policy.contains("'unsafe-eval'"),
        "{policy}"
    );
    let script_src = policy
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("script-src "))
        .unwrap_or_else(|| panic!("a script-src in {policy}"));
    assert!(script_src.contains("'wasm-unsafe-eval'"), "{script_src}");
    script_src
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .filter(|nonce| !nonce.is_empty())
        .unwrap_or_else(|| panic!("a nonce in {script_src}"))
        .to_owned()
}

fn header(response: &Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("{name} on {}", response.url()))
        .to_owned()
}

/// The headers every answer carries, and `no-store`.
fn assert_secured_and_not_stored(response: &Response) {
    assert_eq!(header(response, "x-content-type-options"), "nosniff");
    assert_eq!(header(response, "referrer-policy"), "same-origin");
    assert_eq!(header(response, "x-frame-options"), "DENY");
    assert_eq!(
        header(response, "cache-control"),
        "no-store",
        "{}",
        response.url()
    );
}

/// Every `<script>` of the page carries `nonce` (and there is one at
/// least: the hydration script).
fn assert_scripts_carry(html: &str, nonce: &str) {
    let scripts: Vec<&str> = html
        .split("<script")
        .skip(1)
        .map(|rest| rest.split('>').next().unwrap_or(""))
        .collect();
    assert!(!scripts.is_empty(), "no <script> in {html}");
    let attribute = format!("nonce=\"{nonce}\"");
    for tag in scripts {
        assert!(tag.contains(&attribute), "<script{tag}> lacks {attribute}");
    }
}

async fn get(app: &TestApp, cookie: Option<&str>, path: &str) -> Response {
    let mut request = app.client.get(app.url(path)).header("accept", "text/html");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    request.send().await.expect("sent")
}

/// A page answer: its nonce after checking every header and script.
async fn secured_page(app: &TestApp, cookie: Option<&str>, path: &str) -> String {
    let response = get(app, cookie, path).await;
    assert_eq!(response.status(), 200, "{path}");
    assert_secured_and_not_stored(&response);
    let nonce = csp_nonce(&response);
    let html = response.text().await.expect("html");
    assert_scripts_carry(&html, &nonce);
    nonce
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_page_is_secured_and_not_stored() {
    let app = spawn_app().await;
    secured_page(&app, None, "/login").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_page_gets_a_fresh_nonce_on_every_answer() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let first = secured_page(&app, Some(&cookie), "/").await;
    let second = secured_page(&app, Some(&cookie), "/").await;
    assert_ne!(first, second, "a nonce is used once");
    secured_page(&app, Some(&cookie), "/overview").await;

    // The not-found page is rendered by Leptos too.
    let missing = get(&app, Some(&cookie), "/no-such-page").await;
    assert_eq!(missing.status(), 404);
    let nonce = csp_nonce(&missing);
    assert_scripts_carry(&missing.text().await.expect("html"), &nonce);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_settings_page_showing_a_new_token_is_not_stored() {
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
    assert_eq!(location(&created), "/settings");
    assert_eq!(header(&created, "cache-control"), "no-store");

    let response = get(&app, Some(&with_flash(&cookie, &created)), "/settings").await;
    assert_secured_and_not_stored(&response);
    let html = response.text().await.expect("html");
    assert!(
        html.contains("Copy it now: it is not shown again."),
        "{html}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_card_its_qr_code_and_the_subscription_are_not_stored() {
    let app = spawn_app().await;
    let fleet = json!({
        "routes": [{"id": "de", "name": "Germany"}],
        "servers": [{"id": "de-1", "name": "Frankfurt 1", "country": "DE", "routes": ["de"],
            "entry_points": [{"id": "de-1-vless", "protocol": "vless", "host": "127.0.40.1", "port": 443}]}],
        "users": [{"id": "alice", "name": "Alice", "routes": ["de"]}]
    });
    let answer = app.put_fleet(&fleet).await;
    assert_secured_and_not_stored(&answer);
    let answer: Value = answer.json().await.expect("json");
    let sub = answer["sub_tokens"]["alice"].as_str().expect("sub token");
    let cookie = app.signed_in("ops", "a long password").await;

    let card = get(&app, Some(&cookie), "/users/alice").await;
    assert_eq!(card.status(), 200);
    assert_secured_and_not_stored(&card);
    let nonce = csp_nonce(&card);
    let html = card.text().await.expect("html");
    assert_scripts_carry(&html, &nonce);
    let qr = html
        .split("src=\"")
        .find_map(|rest| {
            rest.split('"')
                .next()
                .filter(|src| src.starts_with("/users/alice/qr.svg"))
        })
        .expect("the QR code's image");
    let image = get(&app, Some(&cookie), qr).await;
    assert_eq!(image.status(), 200);
    assert_secured_and_not_stored(&image);

    let subscription = get(&app, None, &format!("/sub/{sub}")).await;
    assert_eq!(subscription.status(), 200);
    assert_secured_and_not_stored(&subscription);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_out_redirects_still_carry_the_headers() {
    let app = spawn_app().await;
    let response = get(&app, None, "/settings").await;
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/login");
    assert_eq!(header(&response, "x-content-type-options"), "nosniff");
    csp_nonce(&response);
}
