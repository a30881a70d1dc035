//! `GET /events`: verdict changes streamed to signed-in pages.

use crate::agent::{fleet, post, report, uuid};
use crate::helpers::{location, spawn_app};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verdict_change_is_pushed_to_a_signed_in_page() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;

    let anonymous = app
        .client
        .get(app.url("/events"))
        .send()
        .await
        .expect("sent");
    assert!(anonymous.status().is_redirection());
    assert!(location(&anonymous).ends_with("/login"));

    let mut stream = app
        .client
        .get(app.url("/events"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("sent");
    assert_eq!(stream.status(), 200);
    assert!(stream
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream")));

    assert_eq!(
        post(&app, &tokens["de-1"], &report(&uuid(1), false, vec![]))
            .await
            .status(),
        202
    );
    // Recorded and published by the evaluator's tick.
    app.tick().await;
    let mut seen = String::new();
    let found = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(chunk)) = stream.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("event: verdict")
                && seen.contains("\"server\":\"de-1\"")
                && seen.contains("unavailable")
            {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "the change arrives as an event: {seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_panel_ends_open_streams_instead_of_waiting_for_them() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let mut stream = app.open_events(&cookie).await;
    // A graceful stop waits for open connections: without ending the
    // stream it would wait forever (`restart` allows it 15 s).
    let restarted = app.restart().await;
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stream ended with the panel");
    drop(restarted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_sends_its_first_bytes_at_once_so_proxies_pass_its_headers_on() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let mut stream = app.open_events(&cookie).await;
    // nginx over HTTP/2 holds the headers until body bytes come: waiting
    // for the first keep-alive (15 s) would leave the page "offline".
    let first = tokio::time::timeout(Duration::from_secs(2), stream.chunk())
        .await
        .expect("bytes within 2 s")
        .expect("read")
        .expect("a chunk");
    assert_eq!(String::from_utf8_lossy(&first), ": open\n\n");
}
