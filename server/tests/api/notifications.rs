//! R4's emails: one when a verifier sees a block, one when it clears.

use crate::agent::{all_report, fleet, get, knock, post_rounds, probes};
use crate::helpers::{smtp_sink, spawn_app, spawn_app_with, TestApp};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// The outbox once the evaluator has ticked (and so recorded the changes
/// and queued their notifications), asserting it has `n` entries.
async fn outbox_with(app: &TestApp, n: usize) -> Vec<Value> {
    app.tick().await;
    let list = get(app, "/api/v1/notifications").await;
    let list = list.as_array().cloned().unwrap_or_default();
    assert_eq!(list.len(), n, "the outbox: {list:?}");
    list
}

/// ir-1 becomes a verifier and sees de-1 (all its entry points) fail.
pub async fn block_de_1(app: &TestApp) -> HashMap<String, String> {
    let tokens = fleet(app).await;
    let toggled = app.set_verifier("ir-1", true).await;
    assert_eq!(toggled.status(), 200);
    all_report(app, &tokens, 100).await;
    let mut seen = probes("de-2-ep", true, 0, 1);
    seen.extend(probes("de-1-ep", false, 0, 3));
    post_rounds(app, &tokens["ir-1"], 1, seen).await;
    assert_eq!(get(app, "/api/v1/servers/de-1").await["status"], "blocked");
    tokens
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_sends_one_notification_and_its_clearing_another() {
    let app = spawn_app().await;
    let tokens = block_de_1(&app).await;

    let outbox = outbox_with(&app, 1).await;
    assert_eq!(outbox[0]["kind"], "blocked");
    assert_eq!(outbox[0]["server_id"], "de-1");
    assert_eq!(outbox[0]["state"], "queued", "no SMTP configured: it waits");
    assert_eq!(
        outbox[0]["subject"], "meshwatch: address of DE-1 (de-1) is blocked",
        "English until an operator chooses a language"
    );

    // More evidence of the same incident sends nothing more.
    knock(&app, &tokens["ir-1"], 2, "de-1-ep", false, 3, 2).await;
    outbox_with(&app, 1).await;

    knock(&app, &tokens["ir-1"], 3, "de-1-ep", true, 10, 1).await;
    let outbox = outbox_with(&app, 2).await;
    assert_eq!(outbox[0]["kind"], "cleared", "newest first");
    assert_eq!(
        outbox[0]["subject"],
        "meshwatch: address of DE-1 (de-1) is reachable again"
    );
    assert_eq!(outbox[1]["kind"], "blocked");

    let history = app
        .store()
        .await
        .status_history(&meshwatch::ServerId::parse("de-1").expect("id"), 10)
        .await
        .expect("history");
    let statuses: Vec<_> = history.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        statuses[..2],
        ["healthy", "blocked"],
        "newest first: {statuses:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_delivered_over_smtp() {
    let (port, mut inbox) = smtp_sink().await;
    let app = spawn_app_with(&[
        ("MESHWATCH_SMTP_URL", format!("smtp://127.0.0.1:{port}")),
        ("MESHWATCH_NOTIFY_TO", "ops@example.com".to_owned()),
        (
            "MESHWATCH_NOTIFY_FROM",
            "meshwatch <panel@example.com>".to_owned(),
        ),
    ])
    .await;
    block_de_1(&app).await;
    let Ok(Some(message)) = tokio::time::timeout(Duration::from_secs(10), inbox.recv()).await
    else {
        let outbox = get(&app, "/api/v1/notifications").await;
        panic!("no email within 10 s; outbox: {outbox}");
    };
    assert!(message.contains("To: ops@example.com"), "{message}");
    assert!(
        message.contains("Subject: meshwatch: address of DE-1 (de-1) is blocked"),
        "{message}"
    );
    // The body travels quoted-printable (its long lines are wrapped): the
    // short fact lines arrive whole; the webhook test reads the full text.
    let (_, body) = message.split_once("\n\n").expect("headers, then the body");
    assert!(!body.contains('\\'), "a backslash in:\n{body}");
    let lines: Vec<&str> = body.lines().collect();
    for line in FACTS {
        assert!(lines.contains(&line), "{line:?} missing from:\n{body}");
    }
    assert!(body.contains("change this server's IP"), "{body}");
    for _ in 0..50 {
        let outbox = get(&app, "/api/v1/notifications").await;
        if outbox[0]["state"] == "sent" {
            assert_eq!(outbox[0]["to"], "ops@example.com");
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the notification was never marked sent");
}

/// What de-1's block message names, one fact a line: server, country,
/// address, verifier.
const FACTS: [&str; 4] = [
    "Server: DE-1 (de-1)",
    "Country: DE",
    "Addresses: 127.0.30.1:443",
    "Verifiers: IR-1 (ir-1, IR)",
];

/// A block message as the operator reads it: real lines, no source
/// escapes or indentation, and every fact — server, country, address,
/// verifier and since when — and the advice.
fn assert_reads_well(body: &str) {
    assert!(!body.contains('\\'), "a backslash in:\n{body}");
    assert!(!body.contains("\\n"), "a literal \\n in:\n{body}");
    let lines: Vec<&str> = body.lines().collect();
    assert!(lines.len() >= 8, "one fact per line:\n{body}");
    assert!(lines.iter().all(|l| *l == l.trim()), "indented:\n{body}");
    for line in FACTS {
        assert!(lines.contains(&line), "{line:?} missing from:\n{body}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Advice: change this server's IP address")),
        "the advice:\n{body}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Blocked since: ")),
        "since when:\n{body}"
    );
}

/// A receiver for webhook posts on loopback; `path_and_query` is appended
/// to its address to make the configured URL.
pub async fn webhook_receiver(
    path_and_query: &str,
) -> (String, tokio::sync::mpsc::UnboundedReceiver<Value>) {
    let (tx, hooks) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let receiver = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
            let tx = tx.clone();
            async move {
                let _ = tx.send(body);
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let hook = format!(
        "http://{}{path_and_query}",
        listener.local_addr().expect("addr")
    );
    tokio::spawn(async move { axum::serve(listener, receiver).await });
    (hook, hooks)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_posted_to_the_webhook() {
    // The URL is a secret: its token must show nowhere but in the request.
    let (hook, mut hooks) = webhook_receiver("/hook?token=s3cret-hook-token").await;
    let app = spawn_app_with(&[("MESHWATCH_WEBHOOK_URL", hook.clone())]).await;
    block_de_1(&app).await;
    let body = tokio::time::timeout(Duration::from_secs(10), hooks.recv())
        .await
        .expect("a webhook call within 10 s")
        .expect("a body");
    assert_eq!(body["kind"], "blocked");
    assert_eq!(body["server_id"], "de-1");
    assert_eq!(
        body["subject"],
        "meshwatch: address of DE-1 (de-1) is blocked"
    );
    assert_reads_well(body["body"].as_str().expect("the text"));
    let cookie = app.signed_in("ops", "a long password").await;
    for _ in 0..50 {
        let outbox = get(&app, "/api/v1/notifications").await;
        if outbox[0]["state"] == "sent" {
            assert_eq!(outbox[0]["to"], "webhook (127.0.0.1)");
            assert!(!outbox.to_string().contains("s3cret"), "{outbox}");
            let (_, html) = app.page(&cookie, "/notifications").await;
            assert!(html.contains("webhook (127.0.0.1)"));
            assert!(
                !html.contains("s3cret") && !html.contains(&hook),
                "the page shows the label only"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the webhook notification was never marked sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_webhook_delivery_keeps_its_error_without_the_url() {
    // Port 9 on loopback: nothing listens, every attempt is refused.
    let hook = "http://127.0.0.1:9/hook?token=s3cret-hook-token";
    let app = spawn_app_with(&[("MESHWATCH_WEBHOOK_URL", hook.to_owned())]).await;
    block_de_1(&app).await;
    for _ in 0..100 {
        let outbox = get(&app, "/api/v1/notifications").await;
        if let Some(error) = outbox[0]["last_error"].as_str() {
            assert!(error.starts_with("webhook (127.0.0.1)"), "{error}");
            assert!(
                !error.contains("s3cret") && !error.contains("/hook"),
                "{error}"
            );
            assert_eq!(outbox[0]["to"], "webhook (127.0.0.1)");
            assert_eq!(outbox[0]["state"], "queued", "it will be retried");
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no delivery attempt was recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_speak_the_language_the_operator_chose() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let chosen = app
        .client
        .post(app.url("/lang"))
        .header("cookie", &cookie)
        .form(&[("lang", "es")])
        .send()
        .await
        .expect("sent");
    assert_eq!(chosen.status(), 303);
    block_de_1(&app).await;
    let outbox = outbox_with(&app, 1).await;
    assert_eq!(
        outbox[0]["subject"],
        "meshwatch: la dirección de DE-1 (de-1) está bloqueada"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbox_page_sends_a_test_email_and_shows_its_state() {
    let (port, mut inbox) = smtp_sink().await;
    let app = spawn_app_with(&[
        ("MESHWATCH_SMTP_URL", format!("smtp://127.0.0.1:{port}")),
        ("MESHWATCH_NOTIFY_TO", "ops@example.com".to_owned()),
    ])
    .await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (_, html) = app.page(&cookie, "/notifications").await;
    assert!(html.contains("No notifications yet") && html.contains("Send test email"));

    let sent = app
        .client
        .post(app.url("/rpc/send_test_notification"))
        .header("cookie", &cookie)
        .header("origin", app.address.clone())
        .header("accept", "application/json")
        .send()
        .await
        .expect("sent");
    assert_eq!(sent.status(), 200);
    assert_eq!(sent.text().await.expect("body"), "1");
    let mail = tokio::time::timeout(Duration::from_secs(10), inbox.recv())
        .await
        .expect("the test email within 10 s")
        .expect("a message");
    assert!(mail.contains("meshwatch: test message"), "{mail}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, html) = app.page(&cookie, "/notifications").await;
        if html.contains("Sent") && html.contains("ops@example.com") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the outbox shows it sent"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let cross = app
        .client
        .post(app.url("/rpc/send_test_notification"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .header("accept", "application/json")
        .send()
        .await
        .expect("sent");
    assert_eq!(cross.status(), 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_target_the_outbox_says_why_nothing_was_sent() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let sent = app
        .client
        .post(app.url("/rpc/send_test_notification"))
        .header("cookie", &cookie)
        .header("accept", "application/json")
        .send()
        .await
        .expect("sent");
    assert_eq!(sent.status(), 200);
    let (_, html) = app.page(&cookie, "/notifications").await;
    assert!(html.contains("Not delivered: no email or webhook configured"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_settings_page_validates_and_applies_the_parameters() {
    let app = spawn_app().await;
    let cookie = app.signed_in("ops", "a long password").await;
    let (status, html) = app.page(&cookie, "/settings").await;
    assert_eq!(status, 200);
    assert!(html.contains("Failure streak") && html.contains("value=\"180\""));

    let save = |quorum: &'static str, fraction: &'static str, origin: String| {
        app.client
            .post(app.url("/rpc/save_settings"))
            .header("cookie", &cookie)
            .header("origin", origin)
            .header("accept", "application/json")
            .form(&[
                ("report_interval_s", "30"),
                ("probe_interval_s", "15"),
                ("probe_timeout_s", "4"),
                ("stale_after_s", "90"),
                ("failure_streak", "4"),
                ("quorum", quorum),
                ("unreliable_fraction", fraction),
            ])
            .send()
    };
    let ok = save("3", "0.4", app.address.clone()).await.expect("sent");
    assert_eq!(ok.status(), 200);
    let now = crate::agent::get(&app, "/api/v1/settings").await;
    assert_eq!(
        (now["quorum"].as_u64(), now["stale_after_s"].as_u64()),
        (Some(3), Some(90))
    );

    for (quorum, fraction, field) in [("0", "0.5", "quorum"), ("2", "1.5", "unreliable_fraction")] {
        let bad = save(quorum, fraction, app.address.clone())
            .await
            .expect("sent");
        assert_eq!(bad.status(), 422, "{field}");
        assert!(bad.text().await.expect("body").contains(field), "{field}");
    }
    let cross = save("2", "0.5", "https://evil.example".into())
        .await
        .expect("sent");
    assert_eq!(cross.status(), 403);
    let kept = crate::agent::get(&app, "/api/v1/settings").await;
    assert_eq!(kept["quorum"], 3, "refused saves change nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_fleet_fault_is_said_plainly_and_notified_once() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    let servers = ["de-1", "de-2", "fi-1", "ir-1", "nl-1"];
    // The witnesses' shared network fails: every knock fails.
    for (i, witness) in servers.iter().enumerate() {
        let list: Vec<Value> = servers
            .iter()
            .filter(|t| *t != witness)
            .flat_map(|t| probes(&format!("{t}-ep"), false, 0, 3))
            .collect();
        post_rounds(&app, &tokens[*witness], 10 + i as u32, list).await;
    }
    for id in servers {
        let view = get(&app, &format!("/api/v1/servers/{id}")).await;
        assert_eq!(view["in_rotation"], true, "nothing is removed: {view}");
    }
    let outbox = outbox_with(&app, 1).await;
    assert_eq!(outbox[0]["kind"], "witness_network");
    let subject = outbox[0]["subject"].as_str().expect("subject");
    assert!(
        subject.contains("most witnesses can't reach most servers"),
        "{subject}"
    );

    app.create_operator("ops", "a long password").await;
    let cookie = app.signed_in("ops", "a long password").await;
    let banner = "the problem is probably the network of the witnesses, not the servers";
    let (_, overview) = app.page(&cookie, "/overview").await;
    assert!(overview.contains(banner), "the Overview says so");
    let (_, card) = app.page(&cookie, "/servers/de-1").await;
    assert!(card.contains(banner), "the server card says so");

    // More of the same incident sends nothing more.
    for (i, witness) in servers.iter().enumerate() {
        let list: Vec<Value> = servers
            .iter()
            .filter(|t| *t != witness)
            .flat_map(|t| probes(&format!("{t}-ep"), false, 10, 1))
            .collect();
        post_rounds(&app, &tokens[*witness], 20 + i as u32, list).await;
    }
    app.tick().await;
    let kinds: Vec<Value> = get(&app, "/api/v1/notifications")
        .await
        .as_array()
        .expect("list")
        .iter()
        .map(|n| n["kind"].clone())
        .collect();
    assert_eq!(kinds, vec![Value::from("witness_network")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_deliverers_claiming_at_once_never_take_the_same_message() {
    use meshwatch_server::outbound::notify::Target;
    use meshwatch_server::store::{Channels, NewNotification};
    use meshwatch_views::views::NotificationKind;
    const EMAIL: Channels = Channels {
        email: true,
        webhook: false,
        telegram: false,
    };
    // No target configured: the panel itself delivers nothing.
    let app = spawn_app().await;
    let queued: Vec<NewNotification> = (0..30)
        .map(|n| NewNotification {
            kind: NotificationKind::Test,
            server_id: None,
            target: Target::Email(format!("ops{n}@example.com")).columns(),
            subject: format!("message {n}"),
            body: "A test.".to_owned(),
            created_at: app.now(),
            block_kinds: Vec::new(),
        })
        .collect();
    // Two handles on the database, as two replicas have.
    let (one, two) = (app.store().await, app.store().await);
    one.queue_notifications(&queued).await.expect("queued");
    let now = chrono::Utc::now();
    let lease = chrono::Duration::minutes(5);
    let (first, second) = tokio::join!(
        one.claim_due_notifications(now, lease, 20, EMAIL),
        two.claim_due_notifications(now, lease, 20, EMAIL),
    );
    let (first, second) = (first.expect("claimed"), second.expect("claimed"));
    let mut ids: Vec<i64> = first.iter().chain(&second).map(|m| m.id).collect();
    assert_eq!(
        ids.len(),
        30,
        "each message claimed once: {} + {}",
        first.len(),
        second.len()
    );
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 30, "no message claimed twice");
    let again = one
        .claim_due_notifications(now, lease, 20, EMAIL)
        .await
        .expect("claimed");
    assert!(again.is_empty(), "leased messages wait for their lease");
    let expired = two
        .claim_due_notifications(now + lease, lease, 50, EMAIL)
        .await
        .expect("claimed");
    assert_eq!(
        expired.len(),
        30,
        "an ended lease lets another replica retry"
    );
}
