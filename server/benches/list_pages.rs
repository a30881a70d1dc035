//! List pages benchmark: the servers list, Overview, Routes, Users and
//! Notifications, server-side rendered for a fleet of 1000 and of 3000
//! servers with 10 000 users, on a fresh SQLite file, under 50 concurrent
//! connections on loopback (`wrk`, as `panel_ssr` measures the cards),
//! while the fleet keeps reporting (each server once a minute); the
//! reports' acknowledgement times during the load are printed too.
//!
//! Run: `cargo bench -p server --bench list_pages` (needs `wrk`;
//! `MESHWATCH_BENCH_SECONDS` per page, default 15;
//! `MESHWATCH_BENCH_CLIENTS`, default 50; `MESHWATCH_BENCH_FLEETS`, the
//! fleet sizes, default `1000,3000`).

mod support;

use std::time::Duration;
use support::env_or;
use support::signed_in::{keep_reporting, load, page_bytes, panel, report, Evidence, Pages};

const USERS: usize = 10_000;

/// The list pages, each walked through its pages where it has several.
fn list_pages(servers: usize) -> [(&'static str, Pages); 5] {
    [
        (
            "servers list",
            Pages {
                prefix: "/?page=",
                step: 3,
                modulo: servers.div_ceil(100) + 1,
            },
        ),
        ("overview", Pages::only("/overview")),
        ("routes", Pages::only("/routes")),
        (
            "users",
            Pages {
                prefix: "/users?page=",
                step: 7,
                modulo: USERS / 50 + 1,
            },
        ),
        ("notifications", Pages::only("/notifications")),
    ]
}

#[tokio::main]
async fn main() {
    let seconds = env_or("MESHWATCH_BENCH_SECONDS", 15);
    let clients = env_or("MESHWATCH_BENCH_CLIENTS", 50);
    let fleets: Vec<usize> = std::env::var("MESHWATCH_BENCH_FLEETS")
        .unwrap_or_else(|_| "1000,3000".to_owned())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    for servers in fleets {
        let panel = panel(servers, USERS, Evidence::OneReport).await;
        println!(
            "list_pages: {servers} servers, {USERS} users, SQLite; wrk, {clients} connections on loopback, {seconds} s per page"
        );
        let pages = list_pages(servers);
        let mut sizes = Vec::new();
        for (name, page) in &pages {
            sizes.push(format!(
                "{name} {} B",
                page_bytes(&panel, page.prefix).await
            ));
        }
        println!("  page sizes: {}", sizes.join(", "));
        let reporting = keep_reporting(&panel, servers, Duration::from_secs(60), false);
        for (name, page) in &pages {
            load(&panel, clients, 3, page).await;
            reporting.ingest();
            let run = load(&panel, clients, seconds, page).await;
            report(name, &run);
            reporting.ingest().print();
        }
        reporting.stop();
        panel.panel.stop().await;
    }
}
