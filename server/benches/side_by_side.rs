//! Side by side with what operators use today: a real `meshwatch-server`
//! release process watching 700 servers whose agents report every 20 s
//! (each report carrying a result for every other server, as real agents
//! send), measured as an operator meets it:
//! - a fresh sign-in (the password check included) until the servers list
//!   has arrived, rendered, repeated and given as median and p90, with
//!   the password check alone beside it;
//! - the panel's CPU (% of one core) and RSS over 60 s of that load;
//! - adding one server through `PUT /api/v1/fleet`.
//!
//! Run: `cargo bench -p server --bench side_by_side`
//! (`MESHWATCH_SIDE_SERVERS`, default 700; `MESHWATCH_SIDE_INTERVAL_S`,
//! default 20; `MESHWATCH_SIDE_SIGN_INS`, default 40).

mod support;

use meshwatch_server::crypto::secrets;
use meshwatch_server::store::Store;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::panel_process::{cpu_of, ms, percentile, report, rss_mib, start_replica};
use support::signed_in::{session_cookie, OPERATOR};
use support::{agent_token, env_or, fleet, ADMIN};

/// What one password check costs here under each of OWASP's equivalent
/// argon2id settings (memory KiB, passes; one lane): the median of 10.
fn owasp_settings() -> Vec<(u32, u32, Duration)> {
    use argon2::password_hash::{PasswordHasher, PasswordVerifier, SaltString};
    [
        (47_104, 1),
        (19_456, 2),
        (12_288, 3),
        (9_216, 4),
        (7_168, 5),
    ]
    .into_iter()
    .map(|(m, t)| {
        let params = argon2::Params::new(m, t, 1, None).expect("params");
        let argon =
            argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
        let salt = SaltString::encode_b64(b"side-by-side-salt").expect("salt");
        let hash = argon.hash_password(b"bench password", &salt).expect("hash");
        let mut times: Vec<Duration> = (0..10)
            .map(|_| {
                let started = Instant::now();
                assert!(argon.verify_password(b"bench password", &hash).is_ok());
                started.elapsed()
            })
            .collect();
        times.sort();
        (m, t, times[times.len() / 2])
    })
    .collect()
}

/// The argon2 parameters of a PHC string (`m=19456,t=2,p=1`).
fn argon2_parameters(phc: &str) -> &str {
    phc.split('$').nth(3).unwrap_or("?")
}

#[tokio::main]
async fn main() {
    let n = env_or("MESHWATCH_SIDE_SERVERS", 700);
    let interval = Duration::from_secs(env_or("MESHWATCH_SIDE_INTERVAL_S", 20) as u64);
    let sign_ins = env_or("MESHWATCH_SIDE_SIGN_INS", 40);
    let dir = tempfile::tempdir().expect("temp dir");
    let database_url = format!("sqlite://{}/side.db", dir.path().display());
    let panel = start_replica(&database_url, "side", dir.path());
    let pid = panel.child.id();
    let base = panel.base.clone();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client");
    let document = fleet(n, 1000);
    let put = http
        .put(format!("{base}/api/v1/fleet"))
        .bearer_auth(ADMIN)
        .json(&document)
        .send()
        .await
        .expect("fleet sent");
    assert_eq!(put.status(), 200, "fleet accepted");
    let key = meshwatch_server::store::key_file::key_for_database(None, &database_url)
        .expect("the panel's key")
        .key;
    let store = Store::open(&database_url, key).await.expect("store");
    let hash = secrets::hash_password(OPERATOR.1).expect("hash");
    store
        .upsert_operator(OPERATOR.0, &hash)
        .await
        .expect("operator");
    println!(
        "side_by_side: {n} servers, each reporting every {} s with {} probe results (SQLite, one release process)",
        interval.as_secs(),
        n - 1
    );

    // The agents: every server once per interval, spread evenly.
    let acks: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let agents = {
        let (http, base, acks) = (http.clone(), base.clone(), acks.clone());
        tokio::spawn(async move {
            let mut every = tokio::time::interval(interval / n as u32);
            for round in 0.. {
                for w in 0..n {
                    every.tick().await;
                    let (http, base, acks) = (http.clone(), base.clone(), acks.clone());
                    tokio::spawn(async move {
                        let at =
                            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                        let sent = Instant::now();
                        let answer = http
                            .post(format!("{base}/api/agent/v1/report"))
                            .bearer_auth(agent_token(w))
                            .header("content-type", "application/json")
                            .body(report(n, w, round, &at))
                            .send()
                            .await;
                        if answer.is_ok_and(|a| a.status() == 202) {
                            acks.lock().expect("acks").push(sent.elapsed());
                        }
                    });
                }
            }
        })
    };
    // One full round first: every server has reported, verdicts are in.
    tokio::time::sleep(interval + Duration::from_secs(2)).await;

    let settings: Vec<String> = owasp_settings()
        .into_iter()
        .map(|(m, t, took)| format!("m={m},t={t}: {:.1} ms", ms(took)))
        .collect();
    println!(
        "  one password check under OWASP's equivalent argon2id settings: {}",
        settings.join("; ")
    );

    // The password check alone, on this machine, as the panel runs it.
    let mut checks = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        assert!(secrets::verify_password(OPERATOR.1, &hash));
        checks.push(started.elapsed());
    }
    checks.sort();

    // Sign-in to a rendered servers list, as a browser does it: the form
    // post, then the list it is sent to, each time a fresh client.
    let mut full = Vec::new();
    let mut lists = Vec::new();
    for _ in 0..sign_ins {
        let browser = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let started = Instant::now();
        let login = browser
            .post(format!("{base}/login"))
            .form(&[("username", OPERATOR.0), ("password", OPERATOR.1)])
            .send()
            .await
            .expect("login");
        assert_eq!(login.status(), 303);
        assert_eq!(login.headers()["location"], "/");
        let cookie = session_cookie(&login);
        let listed = Instant::now();
        let page = browser
            .get(format!("{base}/"))
            .header("cookie", &cookie)
            .send()
            .await
            .expect("list");
        assert_eq!(page.status(), 200);
        let html = page.text().await.expect("list read");
        assert!(html.contains("data-filter-text"), "the list is rendered");
        lists.push(listed.elapsed());
        full.push(started.elapsed());
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    full.sort();
    lists.sort();
    println!(
        "  sign-in to a rendered servers list: median {:.1} ms, p90 {:.1} ms ({sign_ins} fresh sign-ins)",
        ms(percentile(&full, 0.5)),
        ms(percentile(&full, 0.9))
    );
    println!(
        "    of which the servers list page: median {:.1} ms; the password check alone (argon2id {}): median {:.1} ms",
        ms(percentile(&lists, 0.5)),
        argon2_parameters(&hash),
        ms(percentile(&checks, 0.5))
    );

    // The panel's own CPU and memory over 60 s of the fleet reporting.
    let cpu_before = cpu_of(pid);
    let started = Instant::now();
    let mut rss = Vec::new();
    acks.lock().expect("acks").clear();
    while started.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_secs(1)).await;
        rss.push(rss_mib(pid));
    }
    let cpu = cpu_of(pid).saturating_sub(cpu_before);
    let mut acked = std::mem::take(&mut *acks.lock().expect("acks"));
    acked.sort();
    let mean_rss = rss.iter().sum::<f64>() / rss.len().max(1) as f64;
    let peak_rss = rss.iter().copied().fold(0.0, f64::max);
    println!(
        "  over 60 s: panel CPU {:.1} % of one core, RSS mean {mean_rss:.0} MiB, peak {peak_rss:.0} MiB; {} reports acknowledged, p50 {:.0} ms, p99 {:.0} ms",
        cpu.as_secs_f64() / started.elapsed().as_secs_f64() * 100.0,
        acked.len(),
        ms(percentile(&acked, 0.5)),
        ms(percentile(&acked, 0.99)),
    );

    // One more server: the whole document again with it added.
    let mut grown = fleet(n + 1, 1000);
    let added = grown["servers"][n].clone();
    grown["servers"] = document["servers"].clone();
    grown["servers"]
        .as_array_mut()
        .expect("servers")
        .push(added);
    let started = Instant::now();
    let put = http
        .put(format!("{base}/api/v1/fleet"))
        .bearer_auth(ADMIN)
        .json(&grown)
        .send()
        .await
        .expect("fleet sent");
    let took = started.elapsed();
    assert_eq!(put.status(), 200, "the grown fleet is accepted");
    let new_server = http
        .get(format!("{base}/api/v1/servers/s{n}"))
        .bearer_auth(ADMIN)
        .send()
        .await
        .expect("asked");
    assert_eq!(new_server.status(), 200, "the new server is served at once");
    println!(
        "  adding one server (PUT /api/v1/fleet, {} servers and 1000 users): {:.0} ms",
        n + 1,
        ms(took)
    );
    agents.abort();
}
