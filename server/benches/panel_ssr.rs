//! Panel page benchmark: server-side rendering of the user card, the
//! server card and the public status page, and subscriptions
//! (`/sub/{token}`), for a 1000-server, 10 000-user
//! fleet on a fresh SQLite file,
//! under 50 concurrent connections on loopback; then the mesh page of a
//! 300- and a 1000-server fleet whose every pair has evidence, first as
//! witness sets (the default beyond 64 servers), then with the full mesh
//! kept (the latter a picture, also painted in Debian's Chromium when
//! Playwright is installed in `end2end/`). The load comes from
//! `wrk` (Debian's package), a separate process, which gives the latency
//! percentiles; the panel's own CPU time per request is read from
//! `/proc/self/stat`. Pages are fetched as a browser without JavaScript
//! gets them, fully rendered. The card fleet has a day of metrics behind
//! every server and keeps reporting (each server once a minute) meanwhile.
//!
//! Run: `cargo bench -p server --bench panel_ssr` (needs `wrk`:
//! `apt-get install wrk`; `MESHWATCH_BENCH_SECONDS` per page, default 15;
//! `MESHWATCH_BENCH_CLIENTS`, default 50; `MESHWATCH_BENCH_ONLY=mesh` for
//! the mesh pages alone, `=cards` for the rest alone).

mod support;

use std::time::Duration;
use support::env_or;
use support::signed_in::{
    keep_reporting, load, page_bytes, panel, report, Evidence, MESH, MESH_PICTURE, SERVER_CARDS,
    SIGN_IN, STATUS_JSON, STATUS_PAGE, SUBSCRIPTIONS, USER_CARDS,
};

#[tokio::main]
async fn main() {
    let seconds = env_or("MESHWATCH_BENCH_SECONDS", 15);
    let clients = env_or("MESHWATCH_BENCH_CLIENTS", 50);

    // `MESHWATCH_BENCH_ONLY=mesh` measures the mesh pages alone, `=cards`
    // the cards, the status page and subscriptions alone.
    let only = std::env::var("MESHWATCH_BENCH_ONLY").ok();
    if only.as_deref() != Some("mesh") {
        cards_and_status_page(seconds, clients).await;
    }
    if only.as_deref() != Some("cards") {
        mesh_pages(seconds).await;
    }
}

async fn cards_and_status_page(seconds: usize, clients: usize) {
    let big = panel(1000, 10_000, Evidence::DayOfMetrics).await;
    println!(
        "panel_ssr: 1000 servers, 10 000 users, SQLite; wrk, {clients} connections on loopback, {seconds} s per page"
    );
    println!(
        "  page sizes: user card {} B, server card {} B",
        page_bytes(&big, "/users/u1").await,
        page_bytes(&big, "/servers/s1").await
    );
    let reporting = keep_reporting(&big, 1000, Duration::from_secs(60), false);
    // Each set of pages is walked once before it is measured: connections
    // and per-page caches warm up as they would on a panel in use.
    load(&big, clients, 3, &USER_CARDS).await;
    let run = load(&big, clients, seconds, &USER_CARDS).await;
    report("user card (SSR)", &run);
    load(&big, clients, 3, &SERVER_CARDS).await;
    let run = load(&big, clients, seconds, &SERVER_CARDS).await;
    report("server card (SSR)", &run);
    // The public status page, as a crowd of customers reloads it while
    // the fleet reports: served from memory, rebuilt every few seconds.
    load(&big, clients, 3, &STATUS_PAGE).await;
    let run = load(&big, clients, seconds, &STATUS_PAGE).await;
    report("status page (public)", &run);
    let run = load(&big, clients, seconds, &STATUS_JSON).await;
    report("status.json (public)", &run);
    // Every user's VPN app refreshing its subscription (base64 links).
    load(&big, clients, 3, &SUBSCRIPTIONS).await;
    let run = load(&big, clients, seconds, &SUBSCRIPTIONS).await;
    report("subscription (/sub)", &run);
    reporting.ingest().print();
    reporting.stop();
    // No data and no session to look up: what rendering any page costs.
    let run = load(&big, clients, seconds, &SIGN_IN).await;
    report("sign-in page (SSR floor)", &run);
    big.panel.stop().await;
}

async fn mesh_pages(seconds: usize) {
    for servers in [300, 1000] {
        let mesh = panel(servers, 10, Evidence::FullMesh).await;
        // Beyond witness_set_threshold the page lists each server's set.
        println!("panel_ssr: mesh page of {servers} servers, witness sets, one connection");
        load(&mesh, 1, 2, &MESH).await;
        report(
            "mesh page, sets (SSR)",
            &load(&mesh, 1, seconds, &MESH).await,
        );
        keep_full_mesh(&mesh, servers).await;
        println!(
            "panel_ssr: mesh page of {servers} servers ({} cells), full mesh kept, one connection",
            servers * servers
        );
        load(&mesh, 1, 2, &MESH).await;
        report("mesh page (SSR)", &load(&mesh, 1, seconds, &MESH).await);
        if servers > meshwatch_views::mesh_picture::TABLE_MAX_SERVERS {
            println!(
                "  page {} B, picture {} B",
                page_bytes(&mesh, "/mesh").await,
                page_bytes(&mesh, "/mesh.svg").await
            );
            report(
                "mesh picture (/mesh.svg)",
                &load(&mesh, 1, seconds, &MESH_PICTURE).await,
            );
            paint_in_chromium(&mesh).await;
        }
        mesh.panel.stop().await;
    }
}

/// The operator keeps the full mesh at this size (the witness set threshold
/// at the fleet's size): the page then draws the N × N picture whose cost
/// this measures, from the evidence of every pair.
async fn keep_full_mesh(mesh: &support::signed_in::Panel, servers: usize) {
    let put = mesh
        .panel
        .http
        .put(format!("{}/api/v1/settings", mesh.panel.base))
        .bearer_auth(support::ADMIN)
        .json(&serde_json::json!({ "witness_set_threshold": servers }))
        .send()
        .await
        .expect("settings sent");
    assert_eq!(put.status(), 200, "settings accepted");
}

/// The mesh page's paint in Debian's Chromium (`end2end/bench/mesh_paint.mjs`,
/// Playwright from `end2end/node_modules`); skipped, saying so, without them.
async fn paint_in_chromium(panel: &support::signed_in::Panel) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../end2end/bench/mesh_paint.mjs"
    );
    let run = std::process::Command::new("node")
        .args([script, &panel.panel.base, &panel.cookie, "10"])
        .output();
    match run {
        Ok(out) if out.status.success() => print!("{}", String::from_utf8_lossy(&out.stdout)),
        Ok(out) => println!(
            "  mesh paint in Chromium skipped: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("failed")
        ),
        Err(error) => println!("  mesh paint in Chromium skipped: node: {error}"),
    }
}
