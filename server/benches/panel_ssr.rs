//! Panel page benchmark: server-side rendering of the user card, the
//! server card and the public status page for a 1000-server, 10 000-user
//! fleet on a fresh SQLite file,
//! under 50 concurrent connections on loopback; then the mesh page of a
//! 300-server fleet whose every pair has evidence. The load comes from
//! `wrk` (Debian's package), a separate process, which gives the latency
//! percentiles; the panel's own CPU time per request is read from
//! `/proc/self/stat`. Pages are fetched as a browser without JavaScript
//! gets them, fully rendered. The card fleet has a day of metrics behind
//! every server and keeps reporting (each server once a minute) meanwhile.
//!
//! Run: `cargo bench -p server --bench panel_ssr` (needs `wrk`:
//! `apt-get install wrk`; `MESHWATCH_BENCH_SECONDS` per page, default 15;
//! `MESHWATCH_BENCH_CLIENTS`, default 50).

mod support;

use std::time::Duration;
use support::env_or;
use support::signed_in::{
    keep_reporting, load, page_bytes, panel, report, Evidence, MESH, SERVER_CARDS, SIGN_IN,
    STATUS_JSON, STATUS_PAGE, USER_CARDS,
};

#[tokio::main]
async fn main() {
    let seconds = env_or("MESHWATCH_BENCH_SECONDS", 15);
    let clients = env_or("MESHWATCH_BENCH_CLIENTS", 50);

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
    reporting.ingest().print();
    reporting.stop();
    // No data and no session to look up: what rendering any page costs.
    let run = load(&big, clients, seconds, &SIGN_IN).await;
    report("sign-in page (SSR floor)", &run);
    big.panel.stop().await;

    let mesh = panel(300, 10, Evidence::FullMesh).await;
    println!("panel_ssr: mesh page of 300 servers (90 000 cells), one connection");
    load(&mesh, 1, 2, &MESH).await;
    report("mesh page (SSR)", &load(&mesh, 1, seconds, &MESH).await);
    mesh.panel.stop().await;
}
