//! The server card page, server-rendered (what a browser without
//! JavaScript gets), and its verifier toggle as a plain form post.

use crate::agent::{all_report, fleet, get, knock, post, report, uuid};
use crate::helpers::{location, spawn_app};
use meshwatch::ServerId;

fn server(id: &str) -> ServerId {
    ServerId::parse(id).expect("a server id")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_shows_the_verdict_self_check_and_silence() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let mut down = report(&uuid(1), false, vec![]);
    down["self_check"]["detail"] = "listener 127.0.0.1:443: connection refused".into();
    assert_eq!(post(&app, &tokens["de-1"], &down).await.status(), 202);

    let (status, html) = app.page(&cookie, "/servers/de-1").await;
    assert_eq!(status, 200);
    for text in [
        "Server unavailable",
        "Traffic listener",
        "Failing",
        "connection refused",
        "de-1-ep",
        "Use this server to check blocking on the others",
        "Out of rotation",
    ] {
        assert!(html.contains(text), "{text:?} missing from the card");
    }
    assert!(
        !html.contains("A pair failure alone"),
        "no pair failure, no guidance"
    );

    // nl-1 never reported: the card says the agent is silent.
    let (_, html) = app.page(&cookie, "/servers/nl-1").await;
    assert!(html.contains("No data from server"));
    assert!(html.contains("No data — agent not responding"));

    let (status, html) = app.page(&cookie, "/servers/nope").await;
    assert_eq!(status, 404);
    assert!(html.contains("Not found."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pair_failure_names_both_servers_on_the_card() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    // Everyone reports; ir-1 fails three knocks on nl-1's entry point.
    all_report(&app, &tokens, 100).await;
    knock(&app, &tokens["ir-1"], 1, "nl-1-ep", false, 0, 3).await;
    let view = get(&app, "/api/v1/servers/nl-1").await;
    assert_eq!(view["status"], "entry_points_unavailable", "{view:#}");

    let (_, html) = app.page(&cookie, "/servers/nl-1").await;
    assert!(html.contains("Some entry points not available"));
    assert!(html.contains("Not available"));
    assert!(
        html.contains("Check from IR-1 (IR) to NL-1 (NL) fails since"),
        "the cause names both servers"
    );
    assert!(
        html.contains("A pair failure alone cannot tell which side is blocked.")
            && html.contains("usually the one the clients can"),
        "the cause carries the guidance: whose call a replacement is"
    );
    let (_, es) = app
        .page(&format!("{cookie}; meshwatch_lang=es"), "/servers/nl-1")
        .await;
    assert!(
        es.contains("Un fallo entre dos servidores no basta para saber qué lado está bloqueado.")
    );
    // The mesh view: who reaches it and who does not, by country (in
    // order; a country with no witness probing it is left out).
    for (n, witness) in ["de-2", "fi-1", "de-1"].into_iter().enumerate() {
        knock(&app, &tokens[witness], 10 + n as u32, "nl-1-ep", true, 0, 3).await;
    }
    let (_, html) = app.page(&cookie, "/servers/nl-1").await;
    let reach = "<td class=\"py-1 pr-4 text-emerald-800\">";
    let fail = "<td class=\"py-1 text-red-800\">";
    for row in [
        format!(">DE</th>{reach}DE-1, DE-2</td>{fail} </td></tr><tr>"),
        format!(">FI</th>{reach}FI-1</td>{fail} </td></tr><tr>"),
        format!(">IR</th>{reach} </td>{fail}IR-1</td>"),
    ] {
        assert!(html.contains(&row), "{row:?} missing from the mesh view");
    }
    assert!(
        !html.contains(">NL</th>"),
        "a server is not its own witness"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verifier_toggle_works_as_a_form_post_and_refuses_other_sites() {
    let app = spawn_app().await;
    fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let toggle = |origin: String| {
        app.client
            .post(app.url("/rpc/set_verifier"))
            .header("cookie", &cookie)
            .header("origin", origin)
            .header("referer", app.url("/servers/fi-1"))
            // What a browser's plain form post says it accepts.
            .header("accept", "text/html,application/xhtml+xml")
            .form(&[("id", "fi-1"), ("enabled", "true")])
    };

    // Seen before the toggle: the card's verifier section is kept per
    // setting, so the view after it must be drawn again.
    let (_, html) = app.page(&cookie, "/servers/fi-1").await;
    assert!(html.contains("Use this server to check blocking on the others"));
    assert!(!html.contains("Stop using this server"));

    let refused = toggle("https://evil.example".into())
        .send()
        .await
        .expect("sent");
    assert_eq!(refused.status(), 403);
    assert_eq!(get(&app, "/api/v1/servers/fi-1").await["verifier"], false);

    let done = toggle(app.address.clone()).send().await.expect("sent");
    assert!(
        done.status().is_redirection(),
        "a no-JS form post goes back to the card: {}",
        done.status()
    );
    assert!(
        location(&done)
            .trim_end_matches('?')
            .ends_with("/servers/fi-1"),
        "{}",
        location(&done)
    );
    assert_eq!(get(&app, "/api/v1/servers/fi-1").await["verifier"], true);
    let (_, html) = app.page(&cookie, "/servers/fi-1").await;
    assert!(html.contains("Stop using this server to check blocking on the others"));
    assert!(
        html.contains("name=\"control_sni\""),
        "a verifier's control fields"
    );

    let anonymous = app
        .client
        .post(app.url("/rpc/set_verifier"))
        .form(&[("id", "fi-1"), ("enabled", "false")])
        .send()
        .await
        .expect("sent");
    assert_eq!(anonymous.status(), 401);
    assert_eq!(get(&app, "/api/v1/servers/fi-1").await["verifier"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mesh_page_shows_each_witness_opinion() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    all_report(&app, &tokens, 100).await;
    knock(&app, &tokens["ir-1"], 1, "nl-1-ep", false, 0, 3).await;
    knock(&app, &tokens["fi-1"], 2, "nl-1-ep", true, 0, 1).await;
    knock(&app, &tokens["de-1"], 3, "nl-1-ep", false, 0, 1).await;

    let (status, html) = app.page(&cookie, "/mesh").await;
    assert_eq!(status, 200);
    assert!(html.contains("data-testid=\"mesh-matrix\""));
    assert!(html.contains("IR-1 (IR)"), "rows name the witnesses");
    for cell in [
        "<td class=\"c-x\">✗</td>",
        "<td class=\"c-o\">✓</td>",
        "<td class=\"c-f\">1</td>",
    ] {
        assert!(html.contains(cell), "{cell} missing");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_shows_the_status_history_and_uptime() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    post(&app, &tokens["de-1"], &report(&uuid(1), false, vec![])).await;
    // The evaluator records changes on its tick.
    app.tick().await;
    let (_, html) = app.page(&cookie, "/servers/de-1").await;
    assert!(
        html.contains("data-testid=\"status-history\""),
        "history recorded"
    );
    assert!(html.contains("Uptime 24 h") && html.contains("Uptime 30 d"));
    // Out of rotation since its unavailable record: uptime 0.00% when
    // that is the first record. A tick of the evaluator's own may have
    // recorded "No data" (in rotation) between the fleet and the report;
    // then the few moments before count, and only they.
    let records = html.matches("<time datetime=").count();
    let uptime_24h = html
        .split("Uptime 24 h</dt><dd class=\"text-lg font-medium tabular-nums\">")
        .nth(1)
        .and_then(|rest| rest.split('%').next())
        .and_then(|figure| figure.parse::<f64>().ok())
        .expect("an uptime figure");
    if records == 1 {
        assert_eq!(uptime_24h, 0.0, "out of rotation since its first record");
    } else {
        assert!(
            uptime_24h < 100.0 && html.contains("No data"),
            "only the no-data moments before the report count: {uptime_24h}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_charts_each_metric_over_the_last_day() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    for (i, cpu) in [20.0, 40.0].into_iter().enumerate() {
        let mut r = report(&uuid(300 + i as u32), true, vec![]);
        r["metrics"] = serde_json::json!({"cpu_pct": cpu, "mem_used_bytes": 1u64 << 30,
                                          "mem_total_bytes": 4u64 << 30, "connections": 10});
        assert_eq!(post(&app, &tokens["de-1"], &r).await.status(), 202);
    }
    let (_, html) = app.page(&cookie, "/servers/de-1").await;
    // Both reports fall in the current quarter hour: one averaged point.
    for label in [
        "CPU over the last 24 hours, peak 30.0%",
        "Memory over the last 24 hours, peak 25.0%",
        "Connections over the last 24 hours, peak 10",
        "Load (1 min): no reports in the last 24 hours",
    ] {
        assert!(html.contains(label), "{label:?} missing");
    }
    assert!(
        html.contains("<path d=\"M"),
        "the line is drawn server-side"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_new_report_shows_on_a_card_already_read() {
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;
    let shown = |connections: &str| {
        format!("<span class=\"tabular-nums text-slate-900\">{connections}</span>")
    };
    let reports = [(4242u32, "4,242"), (5151, "5,151"), (6060, "6,060")];
    for (i, (connections, reads)) in reports.into_iter().enumerate() {
        let mut r = report(&uuid(400 + i as u32), true, vec![]);
        r["metrics"] = serde_json::json!({"connections": connections});
        assert_eq!(post(&app, &tokens["de-1"], &r).await.status(), 202);
        // Read twice: the second read is served from what the first kept.
        for _ in 0..2 {
            let (_, html) = app.page(&cookie, "/servers/de-1").await;
            assert!(
                html.contains(&shown(reads)),
                "report {i}: {connections} connections not shown"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chart_buckets_average_their_window_and_leave_gaps() {
    let app = spawn_app().await;
    fleet(&app).await;
    let store = app.store().await;
    let until = chrono::DateTime::from_timestamp_millis(1_800_000_000_000).expect("valid");
    let at = |minutes_before: i64| 1_800_000_000_000 - minutes_before * 60_000;
    for (minutes_before, cpu) in [
        (5, 10.0),
        (10, 30.0),
        (50, 80.0),
        (61, 99.0),
        (24 * 60, 99.0),
    ] {
        app.insert_metrics_sample(
            "de-1",
            at(minutes_before),
            &format!("{{\"cpu_pct\": {cpu}, \"load1\": 0.5}}"),
        )
        .await;
    }
    // Four quarter hours up to `until`: the 61-minute and day-old samples
    // fall outside; 15–30 minutes before holds nothing.
    let charts = store
        .metric_charts(&server("de-1"), until, 4, 900)
        .await
        .expect("charts");
    let cpu = charts
        .series(meshwatch_views::chart::ChartMetric::CpuPct)
        .expect("cpu series");
    assert_eq!(cpu.values(), [Some(80.0), None, None, Some(20.0)]);
    let disk = charts
        .series(meshwatch_views::chart::ChartMetric::DiskPct)
        .expect("disk series");
    assert!(
        disk.values().iter().all(Option::is_none),
        "unreported metrics stay empty"
    );
    let other = store
        .metric_charts(&server("nl-1"), until, 4, 900)
        .await
        .expect("charts");
    assert!(other.is_empty(), "another server's samples never leak in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_past_day_fills_the_charts_once() {
    let app = spawn_app().await;
    fleet(&app).await;
    let store = app.store().await;
    let now = chrono::Utc::now();
    let day = meshwatch_server::ops::demo::past_day(0, now.timestamp_millis());
    assert!(store
        .backfill_metrics(&server("de-1"), &day)
        .await
        .expect("backfill"));
    assert!(
        !store
            .backfill_metrics(&server("de-1"), &day)
            .await
            .expect("backfill"),
        "a restart never doubles the past"
    );
    let charts = store
        .metric_charts(&server("de-1"), now, 96, 900)
        .await
        .expect("charts");
    let cpu = charts
        .series(meshwatch_views::chart::ChartMetric::CpuPct)
        .expect("cpu series");
    let filled = cpu.values().iter().filter(|v| v.is_some()).count();
    assert!(filled >= 94, "a whole day of quarter hours: {filled}");
}
