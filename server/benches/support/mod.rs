//! What the panel benchmarks share: a real panel on port 0 with a fresh
//! SQLite file (or, under `scripts/with-postgres.sh`, a fresh database on
//! its PostgreSQL cluster), bootstrapped by the automation API like a real
//! fleet.
// Each bench uses part of this module.
#![allow(dead_code)]

pub mod panel_process;
pub mod signed_in;

use meshwatch_server::ops::config::Config;
use meshwatch_server::ops::startup::Application;
use serde_json::{json, Value};
use std::collections::HashMap;

// The panel binary's allocator, so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub const ADMIN: &str = "bench-admin-token-0000000";
pub const COUNTRIES: [&str; 5] = ["DE", "NL", "FI", "US", "JP"];

pub fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn agent_token(i: usize) -> String {
    format!("bench-agent-token-{i:06}")
}

/// `servers` servers `s0…` (one loopback entry point each) spread over five
/// countries with a route per country, and `users` users `u0…` on two routes.
pub fn fleet(servers: usize, users: usize) -> Value {
    let servers: Vec<Value> = (0..servers)
        .map(|i| {
            let country = COUNTRIES[i % 5];
            json!({"id": format!("s{i}"), "name": format!("Server {i}"), "country": country,
                   "routes": [country.to_lowercase()], "agent_token": agent_token(i),
                   "entry_points": [{"id": format!("s{i}-ep"), "protocol": "vless",
                                     "host": format!("127.0.{}.{}", 40 + i / 250, 1 + i % 250), "port": 443,
                                     "sni": "www.example.com"}]})
        })
        .collect();
    let users: Vec<Value> = (0..users)
        .map(|i| {
            json!({"id": format!("u{i}"), "name": format!("User {i}"),
                   "routes": [COUNTRIES[i % 5].to_lowercase(), COUNTRIES[(i + 2) % 5].to_lowercase()]})
        })
        .collect();
    let routes: Vec<Value> = COUNTRIES
        .iter()
        .map(|c| json!({"id": c.to_lowercase(), "name": c, "servers_per_user": 2}))
        .collect();
    json!({"routes": routes, "servers": servers, "users": users})
}

/// A new, empty database on the PostgreSQL cluster of `admin_url`.
pub async fn postgres_database(admin_url: &str) -> String {
    use sqlx::{Connection, Executor};
    let name = format!("bench_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(admin_url)
        .await
        .expect("the cluster answers");
    admin
        .execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .expect("a bench database");
    let base = admin_url.rsplit_once('/').expect("a database in the URL").0;
    format!("{base}/{name}")
}

/// A running panel; dropping `stop` (or sending on it) shuts it down.
pub struct BenchPanel {
    pub base: String,
    pub database_url: String,
    pub http: reqwest::Client,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    _dir: tempfile::TempDir,
}

impl BenchPanel {
    /// Starts a panel and provisions `fleet` through `PUT /api/v1/fleet`.
    pub async fn start(fleet: &Value) -> BenchPanel {
        let dir = tempfile::tempdir().expect("temp dir");
        let database_url = match std::env::var("MESHWATCH_TEST_POSTGRES_URL") {
            Ok(admin) => postgres_database(&admin).await,
            Err(_) => format!("sqlite://{}/bench.db", dir.path().display()),
        };
        let mut vars: HashMap<&str, String> = HashMap::from([
            ("MESHWATCH_LISTEN", "127.0.0.1:0".to_owned()),
            ("MESHWATCH_DATABASE_URL", database_url.clone()),
            ("MESHWATCH_ADMIN_TOKEN", ADMIN.to_owned()),
            ("MESHWATCH_STATUS_PAGE", "1".to_owned()),
        ]);
        if database_url.starts_with("postgres") {
            vars.insert("MESHWATCH_SECRET_KEY", "11".repeat(32));
        }
        println!(
            "database: {}",
            database_url.split('@').next_back().unwrap_or("")
        );
        let config = Config::from_lookup(|k| vars.get(k).cloned()).expect("config");
        let app = Application::build(config).await.expect("panel builds");
        let base = format!("http://{}", app.local_addr().expect("bound"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(app.run_until(async {
            let _ = stopped.await;
        }));
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(64)
            .build()
            .expect("client");
        let put = http
            .put(format!("{base}/api/v1/fleet"))
            .bearer_auth(ADMIN)
            .json(fleet)
            .send()
            .await
            .expect("fleet sent");
        assert_eq!(put.status(), 200, "fleet accepted");
        BenchPanel {
            base,
            database_url,
            http,
            stop,
            server,
            _dir: dir,
        }
    }

    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.server.await;
    }
}
