//! Telegram through a local fake of the Bot API: the panel's requests are
//! checked exactly (path with the token, JSON body), and the token shows
//! nowhere else — not in the outbox, the page, or a stored error.

use crate::agent::get;
use crate::helpers::{spawn_app_with, with_flash, TestApp};
use crate::notifications::block_de_1;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TOKEN: &str = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
/// The secret half of the token, which must never leave the request.
const TOKEN_SECRET: &str = "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";

/// One `sendMessage` the fake received: the path and the JSON body.
type Received = Arc<Mutex<Vec<(String, Value)>>>;

/// A fake Bot API on loopback. `refuse` requests are answered as Telegram
/// answers an unknown chat (400 and its description); later ones succeed.
async fn fake_bot_api(refuse: usize) -> (String, Received) {
    let received: Received = Arc::default();
    let seen = received.clone();
    let app = axum::Router::new().route(
        "/{bot}/sendMessage",
        axum::routing::post(
            move |axum::extract::Path(bot): axum::extract::Path<String>,
                  axum::Json(body): axum::Json<Value>| {
                let seen = seen.clone();
                async move {
                    let count = {
                        let mut seen = seen.lock().expect("lock");
                        seen.push((format!("/{bot}/sendMessage"), body));
                        seen.len()
                    };
                    if count <= refuse {
                        (
                            axum::http::StatusCode::BAD_REQUEST,
                            axum::Json(json!({"ok": false, "error_code": 400,
                                              "description": "Bad Request: chat not found"})),
                        )
                    } else {
                        (
                            axum::http::StatusCode::OK,
                            axum::Json(json!({"ok": true, "result": {"message_id": count}})),
                        )
                    }
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

async fn panel(api: &str, chats: &str) -> TestApp {
    spawn_app_with(&[
        ("MESHWATCH_TELEGRAM_BOT_TOKEN", TOKEN.to_owned()),
        ("MESHWATCH_TELEGRAM_CHAT_ID", chats.to_owned()),
        ("MESHWATCH_TELEGRAM_API_URL", api.to_owned()),
    ])
    .await
}

/// The outbox once every row is in one of `states`.
async fn outbox_when(app: &TestApp, rows: usize, done: impl Fn(&Value) -> bool) -> Vec<Value> {
    for _ in 0..100 {
        let outbox = get(app, "/api/v1/notifications").await;
        let rows_now = outbox.as_array().cloned().unwrap_or_default();
        if rows_now.len() == rows && rows_now.iter().all(&done) {
            return rows_now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the outbox never got there: {}",
        get(app, "/api/v1/notifications").await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_is_sent_to_every_chat_as_the_bot_api_expects() {
    let (api, received) = fake_bot_api(0).await;
    let app = panel(&api, "-1001234567890, @meshwatch_ops").await;
    block_de_1(&app).await;
    let outbox = outbox_when(&app, 2, |row| row["state"] == "sent").await;
    let mut to: Vec<&str> = outbox.iter().filter_map(|r| r["to"].as_str()).collect();
    to.sort_unstable();
    assert_eq!(
        to,
        [
            "telegram (chat -1001234567890)",
            "telegram (chat @meshwatch_ops)"
        ]
    );

    let received = received.lock().expect("lock").clone();
    assert_eq!(received.len(), 2, "one message per chat, sent once");
    let mut chats = Vec::new();
    for (path, body) in &received {
        assert_eq!(path, &format!("/bot{TOKEN}/sendMessage"));
        assert_eq!(body["parse_mode"], "HTML");
        assert_eq!(body["link_preview_options"], json!({"is_disabled": true}));
        let text = body["text"].as_str().expect("text");
        assert!(
            text.starts_with("<b>meshwatch: address of DE-1 (de-1) is blocked</b>\n\n"),
            "{text}"
        );
        assert!(text.contains("\nServer: DE-1 (de-1)\n"), "{text}");
        assert!(text.contains("change this server's IP address"), "{text}");
        let keys: Vec<&String> = body.as_object().expect("object").keys().collect();
        assert_eq!(
            keys.len(),
            4,
            "chat_id, text, parse_mode, link_preview_options"
        );
        chats.push(body["chat_id"].clone());
    }
    chats.sort_by_key(|c| c.to_string());
    assert_eq!(chats, [json!("@meshwatch_ops"), json!(-1001234567890i64)]);

    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/notifications").await;
    assert!(html.contains("telegram (chat -1001234567890)"), "{html}");
    for shown in [html, get(&app, "/api/v1/notifications").await.to_string()] {
        assert!(!shown.contains(TOKEN_SECRET), "the token shows");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_message_is_retried_and_its_error_keeps_no_token() {
    let (api, received) = fake_bot_api(1).await;
    let app = panel(&api, "42").await;
    block_de_1(&app).await;
    let outbox = outbox_when(&app, 1, |row| row["last_error"].is_string()).await;
    let error = outbox[0]["last_error"].as_str().expect("error");
    assert_eq!(
        error,
        "telegram (chat 42): the Bot API answered 400 Bad Request: Bad Request: chat not found"
    );
    assert_eq!(outbox[0]["state"], "queued", "it will be retried");
    assert_eq!(
        received.lock().expect("lock").len(),
        1,
        "one attempt so far"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_bot_api_is_an_error_without_the_token() {
    // Port 9 on loopback: nothing listens there.
    let app = panel("http://127.0.0.1:9", "42").await;
    block_de_1(&app).await;
    let outbox = outbox_when(&app, 1, |row| row["last_error"].is_string()).await;
    let error = outbox[0]["last_error"].as_str().expect("error");
    assert!(error.starts_with("telegram (chat 42): "), "{error}");
    assert!(
        !error.contains(TOKEN_SECRET) && !error.contains("/bot"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_message_goes_to_each_chat() {
    let (api, received) = fake_bot_api(0).await;
    let app = panel(&api, "42,43").await;
    let cookie = app.signed_in("ops", "a long password").await;
    let sent = app.form_post(&cookie, "send_test_notification", &[]).await;
    let (_, html) = app
        .page(&with_flash(&cookie, &sent), "/notifications")
        .await;
    assert!(
        html.contains("Test message queued for 2 targets."),
        "{html}"
    );
    outbox_when(&app, 2, |row| row["state"] == "sent").await;
    let received = received.lock().expect("lock").clone();
    let mut chats: Vec<i64> = received
        .iter()
        .filter_map(|(_, body)| body["chat_id"].as_i64())
        .collect();
    chats.sort_unstable();
    assert_eq!(chats, [42, 43]);
    assert!(received.iter().all(|(_, b)| b["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("<b>meshwatch: test message</b>"))));
}
