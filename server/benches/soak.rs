//! Soak benchmark: a simulated fleet of N servers (default 3000) reporting
//! at the real default interval — one report per server every 60 s, each
//! with a probe result for every peer its agent config lists (beyond the
//! witness-set threshold, its targets; an agent whose report's answer
//! names a new config version fetches its config again, as real agents
//! do) — for M minutes (default 10), against real `meshwatch-server`
//! processes: one panel on a SQLite file, or (under
//! `scripts/with-postgres.sh`) two replicas on one PostgreSQL database,
//! the reports going to them in turn.
//!
//! About 1 % of the pairs fail, the same ones every round.
//!
//! Prints, per minute and overall: acknowledgement latency (p50/p99) and
//! how far the senders fell behind their schedule; the evaluator's tick
//! time (from its `/metrics`); read staleness (a report acknowledged by
//! one replica, until the other serves it; on SQLite, by the same panel);
//! database growth per hour; and each process's resident memory.
//!
//! Run (release):
//! `cargo bench -p server --bench soak` (SQLite), and
//! `MESHWATCH_PG_DURABLE=1 scripts/with-postgres.sh cargo bench -p server --bench soak`
//! (PostgreSQL, two replicas). `MESHWATCH_SOAK_SERVERS`,
//! `MESHWATCH_SOAK_MINUTES` and `MESHWATCH_SOAK_INTERVAL_S` override.

mod support;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::panel_process::{
    agent_targets, ms, percentile, report_to, rss_mib, start_replica, Replica,
};
use support::{agent_token, env_or, fleet, postgres_database, ADMIN};

/// What one agent was last told: its config's version and its targets.
type Told = Mutex<(u64, Arc<Vec<usize>>)>;

/// The evaluator's ticks so far: (count, total seconds).
async fn evaluations(http: &reqwest::Client, base: &str) -> (f64, f64) {
    let text = match http.get(format!("{base}/metrics")).send().await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    let value = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().last()?.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (
        value("meshwatch_evaluation_duration_seconds_count"),
        value("meshwatch_evaluation_duration_seconds_sum"),
    )
}

async fn database_bytes(url: &str, dir: &std::path::Path) -> f64 {
    if url.starts_with("postgres") {
        use sqlx::Connection;
        let Ok(mut conn) = sqlx::PgConnection::connect(url).await else {
            return 0.0;
        };
        let size: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
            .fetch_one(&mut conn)
            .await
            .unwrap_or(0);
        size as f64
    } else {
        ["soak.db", "soak.db-wal"]
            .iter()
            .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
            .map(|m| m.len() as f64)
            .sum()
    }
}

/// Where a PostgreSQL database's bytes are (tables with their indexes
/// and TOAST).
async fn print_largest_tables(url: &str) {
    use sqlx::Connection;
    let Ok(mut conn) = sqlx::PgConnection::connect(url).await else {
        return;
    };
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT relname::text, pg_total_relation_size(oid) FROM pg_class \
         WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace \
         ORDER BY 2 DESC LIMIT 4",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap_or_default();
    let tables: Vec<String> = rows
        .iter()
        .map(|(name, bytes)| format!("{name} {:.0} MiB", *bytes as f64 / 1048576.0))
        .collect();
    println!("largest tables: {}", tables.join(", "));
}

/// Of server `s`, what the API says its last report time is.
async fn last_report_at(http: &reqwest::Client, base: &str, s: usize) -> Option<String> {
    let view: serde_json::Value = http
        .get(format!("{base}/api/v1/servers/s{s}"))
        .bearer_auth(ADMIN)
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    view["last_report_at"].as_str().map(str::to_owned)
}

#[tokio::main]
async fn main() {
    let n = env_or("MESHWATCH_SOAK_SERVERS", 3000);
    let minutes = env_or("MESHWATCH_SOAK_MINUTES", 10);
    let interval = Duration::from_secs(env_or("MESHWATCH_SOAK_INTERVAL_S", 60) as u64);
    let dir = tempfile::tempdir().expect("temp dir");
    let (database_url, names) = match std::env::var("MESHWATCH_TEST_POSTGRES_URL") {
        Ok(admin) => (postgres_database(&admin).await, vec!["soak-a", "soak-b"]),
        Err(_) => (
            format!("sqlite://{}/soak.db", dir.path().display()),
            vec!["soak"],
        ),
    };
    let backend = if names.len() > 1 {
        "PostgreSQL, 2 replicas"
    } else {
        "SQLite, 1 panel"
    };
    println!(
        "soak: {n} servers, one report per server every {} s, {minutes} min, {backend}",
        interval.as_secs()
    );
    let replicas: Vec<Replica> = names
        .iter()
        .map(|name| start_replica(&database_url, name, dir.path()))
        .collect();
    let bases: Vec<String> = replicas.iter().map(|r| r.base.clone()).collect();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client");
    let put_started = Instant::now();
    let put = http
        .put(format!("{}/api/v1/fleet", bases[0]))
        .bearer_auth(ADMIN)
        .json(&fleet(n, 0))
        .send()
        .await
        .expect("fleet sent");
    assert_eq!(put.status(), 200, "fleet accepted");
    println!(
        "fleet of {n} servers stored in {:.1} s",
        put_started.elapsed().as_secs_f64()
    );
    // Every replica serves the new fleet before the agents start (one
    // that has not loaded it yet refuses reports sized for it).
    for base in &bases {
        let last = format!("{base}/api/v1/servers/s{}", n - 1);
        while !http
            .get(&last)
            .bearer_auth(ADMIN)
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let db_start = database_bytes(&database_url, dir.path()).await;
    // Every agent's targets, from its config (64 at a time).
    let mut told = Vec::with_capacity(n);
    for chunk in (0..n).collect::<Vec<_>>().chunks(64) {
        let fetches: Vec<_> = chunk
            .iter()
            .map(|&w| {
                let (http, base) = (http.clone(), bases[w % bases.len()].clone());
                tokio::spawn(async move { agent_targets(&http, &base, w).await })
            })
            .collect();
        for fetch in fetches {
            let (version, targets) = fetch.await.expect("a config");
            told.push(Mutex::new((version, Arc::new(targets))));
        }
    }
    let sizes_told: Vec<usize> = told
        .iter()
        .map(|t| t.lock().expect("told").1.len())
        .collect();
    println!(
        "probe results per report: mean {:.1}, at most {}",
        sizes_told.iter().sum::<usize>() as f64 / n as f64,
        sizes_told.iter().max().copied().unwrap_or(0)
    );
    let told: Arc<Vec<Told>> = Arc::new(told);
    let refetched = Arc::new(AtomicUsize::new(0));

    let latencies: Arc<Mutex<Vec<(usize, Duration, Duration)>>> = Arc::default();
    let failed = Arc::new(AtomicUsize::new(0));
    let in_flight = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let end = started + Duration::from_secs(minutes as u64 * 60);
    let spacing = interval / n as u32;

    // Read staleness: every 10 s, a report acknowledged by the first
    // replica, until the last one serves it.
    let staleness: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let watcher = {
        let (http, bases, staleness, told) =
            (http.clone(), bases.clone(), staleness.clone(), told.clone());
        tokio::spawn(async move {
            let mut round = 1_000_000usize;
            while Instant::now() + Duration::from_secs(10) < end {
                tokio::time::sleep(Duration::from_secs(10)).await;
                round += 1;
                let s = round % n;
                let before = last_report_at(&http, &bases[bases.len() - 1], s).await;
                let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                let acked = http
                    .post(format!("{}/api/agent/v1/report", bases[0]))
                    .bearer_auth(agent_token(s))
                    .header("content-type", "application/json")
                    .body({
                        let targets = told[s].lock().expect("told").1.clone();
                        report_to(round * n + s, s, &at, targets.iter().copied())
                    })
                    .send()
                    .await
                    .is_ok_and(|r| r.status() == 202);
                if !acked {
                    continue;
                }
                let since = Instant::now();
                while since.elapsed() < Duration::from_secs(30) {
                    if last_report_at(&http, &bases[bases.len() - 1], s).await != before {
                        staleness.lock().expect("staleness").push(since.elapsed());
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        })
    };

    // Memory and evaluations, sampled every 10 s.
    let pids: Vec<u32> = replicas.iter().map(|r| r.child.id()).collect();
    let peak_rss: Arc<Mutex<Vec<f64>>> = Arc::new(Mutex::new(vec![0.0; pids.len()]));
    let sampler = {
        let peak_rss = peak_rss.clone();
        let pids = pids.clone();
        tokio::spawn(async move {
            loop {
                for (i, pid) in pids.iter().enumerate() {
                    let rss = rss_mib(*pid);
                    let mut peaks = peak_rss.lock().expect("rss");
                    peaks[i] = peaks[i].max(rss);
                }
                tokio::time::sleep(Duration::from_secs(10)).await;
            }
        })
    };
    // The database's size at the end of each minute.
    let sizes: Arc<Mutex<Vec<f64>>> = Arc::default();
    let size_sampler = {
        let (sizes, url, dir) = (sizes.clone(), database_url.clone(), dir.path().to_owned());
        tokio::spawn(async move {
            for minute in 1..=minutes {
                tokio::time::sleep_until(
                    (started + Duration::from_secs(minute as u64 * 60)).into(),
                )
                .await;
                let bytes = database_bytes(&url, &dir).await;
                sizes.lock().expect("sizes").push(bytes);
            }
        })
    };
    let evaluations_before: Vec<(f64, f64)> = {
        let mut all = Vec::new();
        for base in &bases {
            all.push(evaluations(&http, base).await);
        }
        all
    };

    // The fleet: server k reports at k × spacing into each interval.
    let mut k = 0usize;
    loop {
        let due = started + spacing * k as u32;
        if due >= end {
            break;
        }
        tokio::time::sleep_until(due.into()).await;
        let (w, round) = (k % n, k / n);
        let base = bases[k % bases.len()].clone();
        let (http, latencies, failed, in_flight, told, refetched) = (
            http.clone(),
            latencies.clone(),
            failed.clone(),
            in_flight.clone(),
            told.clone(),
            refetched.clone(),
        );
        let minute = (due - started).as_secs() as usize / 60;
        in_flight.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let (version, targets) = {
                let told = told[w].lock().expect("told");
                (told.0, told.1.clone())
            };
            let body = report_to(round * n + w, w, &at, targets.iter().copied());
            let late = due.elapsed();
            let sent = Instant::now();
            let answer = http
                .post(format!("{base}/api/agent/v1/report"))
                .bearer_auth(agent_token(w))
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await;
            let (ok, moved) = match answer {
                Ok(r) if r.status() == 202 => {
                    let ack: serde_json::Value = r.json().await.unwrap_or_default();
                    (
                        true,
                        ack["fleet_version"].as_u64().is_some_and(|v| v != version),
                    )
                }
                Ok(r) => {
                    let status = r.status();
                    let text = r.text().await.unwrap_or_default();
                    eprintln!("report of s{w} to {base}: {status} {text}");
                    (false, false)
                }
                Err(err) => {
                    eprintln!("report of s{w} to {base}: {err}");
                    (false, false)
                }
            };
            let acked = sent.elapsed();
            if ok {
                latencies
                    .lock()
                    .expect("latencies")
                    .push((minute, acked, late));
            } else {
                failed.fetch_add(1, Ordering::Relaxed);
            }
            // A new version (a rotation, a confirmation asked): the agent
            // fetches its config again.
            if moved {
                let (version, targets) = agent_targets(&http, &base, w).await;
                *told[w].lock().expect("told") = (version, Arc::new(targets));
                refetched.fetch_add(1, Ordering::Relaxed);
            }
            in_flight.fetch_sub(1, Ordering::Relaxed);
        });
        k += 1;
    }
    // The reports still in flight get their answers.
    let drain = Instant::now();
    while in_flight.load(Ordering::Relaxed) > 0 && drain.elapsed() < Duration::from_secs(120) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    let _ = watcher.await;
    let _ = size_sampler.await;
    sampler.abort();
    let sizes = sizes.lock().expect("sizes").clone();

    let all = latencies.lock().expect("latencies").clone();
    println!("minute | reports | ack p50 ms | ack p99 ms | sent late p99 ms | database MiB");
    for minute in 0..minutes {
        let mut acks: Vec<Duration> = all.iter().filter(|l| l.0 == minute).map(|l| l.1).collect();
        let mut late: Vec<Duration> = all.iter().filter(|l| l.0 == minute).map(|l| l.2).collect();
        acks.sort();
        late.sort();
        println!(
            "{:>6} | {:>7} | {:>10.0} | {:>10.0} | {:>16.0} | {:>12.0}",
            minute + 1,
            acks.len(),
            ms(percentile(&acks, 0.5)),
            ms(percentile(&acks, 0.99)),
            ms(percentile(&late, 0.99)),
            sizes.get(minute).copied().unwrap_or_default() / 1048576.0,
        );
    }
    let mut acks: Vec<Duration> = all.iter().map(|l| l.1).collect();
    acks.sort();
    println!(
        "overall: {} reports acknowledged ({:.1}/s), {} failed, {} configs fetched again; ack p50 {:.0} ms, p99 {:.0} ms",
        acks.len(),
        acks.len() as f64 / elapsed.as_secs_f64(),
        failed.load(Ordering::Relaxed),
        refetched.load(Ordering::Relaxed),
        ms(percentile(&acks, 0.5)),
        ms(percentile(&acks, 0.99)),
    );
    for (i, base) in bases.iter().enumerate() {
        let (count0, sum0) = evaluations_before[i];
        let (count, sum) = evaluations(&http, base).await;
        let ticks = count - count0;
        if ticks > 0.0 {
            println!(
                "{}: {ticks:.0} ticks, mean {:.2} ms",
                names[i],
                (sum - sum0) / ticks * 1000.0
            );
        }
    }
    let mut stale = staleness.lock().expect("staleness").clone();
    stale.sort();
    println!(
        "read staleness ({} samples, ack on {} → served by {}): p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        stale.len(),
        names[0],
        names[names.len() - 1],
        ms(percentile(&stale, 0.5)),
        ms(percentile(&stale, 0.99)),
        ms(stale.last().copied().unwrap_or_default()),
    );
    let db_end = database_bytes(&database_url, dir.path()).await;
    // The first rounds store every pair once: the growth that goes on is
    // the one over the second half of the run.
    let half = sizes.len() / 2;
    let steady = match (sizes.get(half.saturating_sub(1)), sizes.last()) {
        (Some(from), Some(to)) if sizes.len() >= 2 => {
            let minutes = (sizes.len() - half) as f64;
            format!(
                "{:.0} MiB per hour over the last {minutes:.0} min",
                (to - from) / 1048576.0 * 60.0 / minutes
            )
        }
        _ => "too short to tell the growth".to_owned(),
    };
    println!(
        "database: {:.1} MiB after the fleet, {:.1} MiB at the end; {steady}",
        db_start / 1048576.0,
        db_end / 1048576.0,
    );
    if database_url.starts_with("postgres") {
        print_largest_tables(&database_url).await;
    }
    let peaks = peak_rss.lock().expect("rss").clone();
    for (i, pid) in pids.iter().enumerate() {
        println!(
            "{}: resident memory {:.0} MiB at the end, {:.0} MiB at most",
            names[i],
            rss_mib(*pid),
            peaks[i]
        );
    }
    drop(replicas);
}
