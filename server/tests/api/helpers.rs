//! `spawn_app()`: one real panel per test, on its own port and database.

use meshwatch_server::crypto::secrets;
use meshwatch_server::crypto::secrets::Secret;
use meshwatch_server::engine::{Clock, ManualClock, Ticks};
use meshwatch_server::ops::config::Config;
use meshwatch_server::ops::startup::Application;
use meshwatch_server::store::Store;
use reqwest::header::{HeaderMap, SET_COOKIE};
use reqwest::{redirect, Response};
use serde_json::Value;
use std::collections::HashMap;

pub mod backend;

pub use backend::{on_postgres, sqlite_only};

pub const ADMIN_TOKEN: &str = "test-admin-token-0123456789";

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub database_url: String,
    /// `MESHWATCH_SECRET_KEY` when the test set it, for [`TestApp::store`].
    secret_key: Option<Secret>,
    dir: tempfile::TempDir,
    shutdown: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    /// Fails the test when the panel answered outside docs/openapi.json.
    contract: ContractGuard,
    /// The panel's clock, which the test may move on.
    clock: ManualClock,
    ticks: Ticks,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// A panel whose evaluator's clock the test advances (see
/// [`TestApp::advance`]) instead of sleeping while time passes. Every test
/// panel's clock can be advanced; the name says the test does.
pub async fn spawn_app_with_manual_clock() -> TestApp {
    spawn_app().await
}

/// A panel with extra `MESHWATCH_*` variables.
pub async fn spawn_app_with(extra: &[(&'static str, String)]) -> TestApp {
    spawn_app_in(tempfile::tempdir().expect("temp dir"), extra).await
}

/// A panel on the database `meshwatch.db` in `dir`, which the test may
/// have prepared (an earlier schema, a restored backup).
pub async fn spawn_app_in(dir: tempfile::TempDir, extra: &[(&'static str, String)]) -> TestApp {
    spawn(dir, extra).await
}

/// Every test panel runs on a [`ManualClock`]: the system's time until
/// the test moves it on (agents' probe rounds arrive half a probe
/// interval apart at least, §1b, and tests skip that wait).
async fn spawn(dir: tempfile::TempDir, extra: &[(&'static str, String)]) -> TestApp {
    backend::dump_postgres_on_stall();
    let manual = ManualClock::default();
    let clock = Clock::Manual(manual.clone());
    let database_url = match backend::postgres_admin_url() {
        Some(admin) => backend::postgres_database_of(dir.path(), &admin).await,
        None => format!("sqlite://{}/meshwatch.db", dir.path().display()),
    };
    let mut vars: HashMap<&str, String> = HashMap::from([
        ("MESHWATCH_LISTEN", "127.0.0.1:0".to_owned()),
        ("MESHWATCH_DATABASE_URL", database_url.clone()),
        ("MESHWATCH_ADMIN_TOKEN", ADMIN_TOKEN.to_owned()),
        (
            "MESHWATCH_SITE_ROOT",
            dir.path().join("site").display().to_string(),
        ),
    ]);
    if backend::postgres_admin_url().is_some() {
        // No key file beside a PostgreSQL database: replicas share the key.
        vars.insert(
            "MESHWATCH_SECRET_KEY",
            backend::POSTGRES_SECRET_KEY.to_owned(),
        );
    }
    vars.extend(extra.iter().cloned());
    let config = Config::from_lookup(|k| vars.get(k).cloned()).expect("config");
    let secret_key = config.secret_key.clone();
    let app = Application::build_with_clock(config, clock)
        .await
        .expect("app builds");
    let address = format!("http://{}", app.local_addr().expect("bound"));
    let host = address.trim_start_matches("http://").to_owned();
    let ticks = app.ticks();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async {
        let _ = rx.await;
    }));
    TestApp {
        address,
        client: reqwest::Client::builder()
            .redirect(redirect::Policy::none())
            // A request the panel never answers fails the test, naming it,
            // instead of hanging the suite.
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .expect("client"),
        database_url,
        secret_key,
        dir,
        shutdown: tx,
        server,
        contract: ContractGuard { host },
        clock: manual,
        ticks,
    }
}

/// The panel's debug build checks every API answer against
/// docs/openapi.json (`api::openapi::contract`); this fails the test whose
/// requests got an answer outside it, when the test ends.
struct ContractGuard {
    host: String,
}

impl Drop for ContractGuard {
    fn drop(&mut self) {
        let found = meshwatch_server::http::api::openapi::contract::take_violations(&self.host);
        if !found.is_empty() && !std::thread::panicking() {
            panic!(
                "the panel answered outside docs/openapi.json:\n{}",
                found.join("\n")
            );
        }
    }
}

impl TestApp {
    /// The contract departures seen so far (for a test that provokes one).
    pub fn take_contract_violations(&self) -> Vec<String> {
        meshwatch_server::http::api::openapi::contract::take_violations(&self.contract.host)
    }

    /// Stops the panel (no checkpoint is written on the way out) and starts
    /// a new one on the same database, as after a crash.
    pub async fn restart(self) -> TestApp {
        let dir = self.stop().await;
        spawn_app_in(dir, &[]).await
    }

    /// Stops the panel, lets `offline` change what it left on disk (its
    /// directory: database, key file) as an operator or an earlier release
    /// would while it is down, and starts it again.
    pub async fn restart_after_offline<F>(
        self,
        offline: impl FnOnce(std::path::PathBuf) -> F,
    ) -> TestApp
    where
        F: std::future::Future<Output = ()>,
    {
        let dir = self.stop().await;
        offline(dir.path().to_path_buf()).await;
        spawn_app_in(dir, &[]).await
    }

    /// The directory holding the panel's database (and its key file).
    pub fn data_dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Stops the panel; returns its directory (database and all).
    pub async fn stop(self) -> tempfile::TempDir {
        let _ = self.shutdown.send(());
        tokio::time::timeout(std::time::Duration::from_secs(15), self.server)
            .await
            .expect("the panel stops within 15 s")
            .expect("the server task ends cleanly")
            .expect("serving ends without error");
        self.dir
    }

    /// Stops the panel and starts it again on the same address and
    /// database after `down` (agents keep pointing at it).
    pub async fn restart_after(self, down: std::time::Duration) -> TestApp {
        let listen = self.address.trim_start_matches("http://").to_owned();
        let dir = self.stop().await;
        tokio::time::sleep(down).await;
        spawn_app_in(dir, &[("MESHWATCH_LISTEN", listen)]).await
    }

    /// Runs an evaluator tick now and returns once its changes are in the
    /// status history (and their notifications queued): what a test would
    /// otherwise wait up to a second for.
    pub async fn tick(&self) {
        self.ticks.tick().await;
    }

    /// Moves the evaluator's clock on by `by`, then ticks: silence and
    /// staleness take effect as if that much time had passed.
    pub async fn advance(&self, by: std::time::Duration) {
        self.clock.advance(by);
        self.tick().await;
    }

    /// A counter of `/metrics` (`meshwatch_…_total`), by its full name.
    pub async fn counter(&self, name: &str) -> u64 {
        let text = self
            .client
            .get(self.url("/metrics"))
            .send()
            .await
            .expect("sent")
            .text()
            .await
            .expect("text");
        let prefix = format!("{name} ");
        text.lines()
            .find_map(|line| line.strip_prefix(prefix.as_str()))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    }

    /// Rounds the actions runner has finished.
    pub async fn action_rounds(&self) -> u64 {
        self.counter("meshwatch_action_rounds_total").await
    }

    /// Returns once the actions runner has finished a whole round begun
    /// after this call (two more than now: the one under way may have
    /// begun before), so it has decided on everything done before it.
    pub async fn wait_for_action_round(&self) {
        let seen = self.action_rounds().await;
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
        while self.action_rounds().await < seen + 2 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the actions runner finished no round in 20 s"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// The panel's clock now.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// How far the test has moved the panel's clock on: an agent whose
    /// clock follows the panel's (NTP) is that much ahead too.
    pub fn clock_ahead(&self) -> chrono::Duration {
        self.clock.ahead()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// Stores one raw metrics sample (`metrics`: the JSON as agents send
    /// it, possibly partial) behind the store's back, on either backend.
    pub async fn insert_metrics_sample(&self, server: &str, at_ms: i64, metrics: &str) {
        const INSERT: &str =
            "INSERT INTO metrics_history (server_id, received_at_ms, metrics) VALUES ($1, $2, $3)";
        // One statement, each backend's own pool type.
        macro_rules! insert_into {
            ($pool:ty) => {
                sqlx::query(INSERT)
                    .bind(server)
                    .bind(at_ms)
                    .bind(metrics)
                    .execute(&<$pool>::connect(&self.database_url).await.expect("db"))
                    .await
                    .expect("sample stored")
            };
        }
        if on_postgres() {
            insert_into!(sqlx::PgPool);
        } else {
            insert_into!(sqlx::SqlitePool);
        }
    }

    /// A second handle on the test's database, to seed or inspect it (with
    /// the panel's own key: configured, or the key file beside the database).
    pub async fn store(&self) -> Store {
        let key = meshwatch_server::store::key_file::key_for_database(
            self.secret_key.as_ref(),
            &self.database_url,
        )
        .expect("the panel's key")
        .key;
        Store::open(&self.database_url, key)
            .await
            .expect("store opens")
    }

    pub async fn create_operator(&self, name: &str, password: &str) {
        let hash = secrets::hash_password(password).expect("hash");
        self.store()
            .await
            .upsert_operator(name, &hash)
            .await
            .expect("operator stored");
    }

    /// A panel page as a signed-in browser without JavaScript gets it:
    /// (status, HTML).
    pub async fn page(&self, cookie: &str, path: &str) -> (u16, String) {
        let response = self
            .client
            .get(self.url(path))
            .header("cookie", cookie)
            .send()
            .await
            .expect("sent");
        let status = response.status().as_u16();
        (status, response.text().await.expect("html"))
    }

    /// Posts a panel form as a browser does (same origin, accepts HTML).
    pub async fn form_post(&self, cookie: &str, endpoint: &str, form: &[(&str, &str)]) -> Response {
        self.client
            .post(self.url(&format!("/rpc/{endpoint}")))
            .header("cookie", cookie)
            .header("origin", &self.address)
            .header("accept", "text/html,application/xhtml+xml")
            .form(form)
            .send()
            .await
            .expect("sent")
    }

    /// Calls a server function as a script does (same origin, JSON
    /// answer), with a form body.
    pub async fn rpc(&self, cookie: &str, endpoint: &str, form: &[(&str, &str)]) -> Response {
        self.client
            .post(self.url(&format!("/rpc/{endpoint}")))
            .header("cookie", cookie)
            .header("origin", &self.address)
            .header("accept", "application/json")
            .form(form)
            .send()
            .await
            .expect("sent")
    }

    /// Marks (or unmarks) a server as verifier through the API.
    pub async fn set_verifier(&self, server: &str, enabled: bool) -> Response {
        self.client
            .put(self.url(&format!("/api/v1/servers/{server}/verifier")))
            .bearer_auth(ADMIN_TOKEN)
            .json(&serde_json::json!({"enabled": enabled}))
            .send()
            .await
            .expect("request sent")
    }

    /// `PUT /api/v1/settings` with `body`, expecting 200.
    pub async fn put_settings(&self, body: Value) {
        let response = self
            .client
            .put(self.url("/api/v1/settings"))
            .bearer_auth(ADMIN_TOKEN)
            .json(&body)
            .send()
            .await
            .expect("request sent");
        assert_eq!(response.status(), 200, "{body}");
    }

    /// `GET /api/agent/v1/config` with `token`, conditional on `etag`
    /// when given.
    pub async fn agent_config(&self, token: &str, etag: Option<&str>) -> Response {
        let mut request = self
            .client
            .get(self.url("/api/agent/v1/config"))
            .bearer_auth(token);
        if let Some(etag) = etag {
            request = request.header("if-none-match", etag);
        }
        request.send().await.expect("request sent")
    }

    pub async fn put_fleet(&self, body: &Value) -> Response {
        self.client
            .put(self.url("/api/v1/fleet"))
            .bearer_auth(ADMIN_TOKEN)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn login(&self, username: &str, password: &str) -> Response {
        self.login_with_header(username, password, None).await
    }

    /// Posts the login form, optionally with one extra request header.
    pub async fn login_with_header(
        &self,
        username: &str,
        password: &str,
        header: Option<(&str, &str)>,
    ) -> Response {
        let mut request = self.client.post(self.url("/login"));
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        request
            .form(&[("username", username), ("password", password)])
            .send()
            .await
            .expect("request sent")
    }

    /// Signs in and returns the `Cookie` header value of the session.
    /// `GET /events` for a signed-in page: the open stream.
    pub async fn open_events(&self, cookie: &str) -> Response {
        let stream = self
            .client
            .get(self.url("/events"))
            .header("cookie", cookie)
            .send()
            .await
            .expect("sent");
        assert_eq!(stream.status(), 200);
        stream
    }

    pub async fn signed_in(&self, username: &str, password: &str) -> String {
        self.create_operator(username, password).await;
        let response = self.login(username, password).await;
        session_cookie(response.headers()).expect("a session cookie is set")
    }
}

/// `cookie` plus the form outcome `response` set (as a browser carries it
/// to the page it is sent back to); `cookie` alone if it set none.
pub fn with_flash(cookie: &str, response: &Response) -> String {
    let flash = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .find(|pair| pair.starts_with("meshwatch_flash=") && pair.len() > "meshwatch_flash=".len());
    match flash {
        Some(flash) => format!("{cookie}; {flash}"),
        None => cookie.to_owned(),
    }
}

/// The `name=value` part of the session `Set-Cookie`, if one is set
/// (`__Host-` prefixed behind an https public URL).
pub fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|c| c.split(';').next())
        .find(|pair| {
            matches!(
                pair.split_once('='),
                Some(("meshwatch_session" | "__Host-meshwatch_session", value)) if !value.is_empty()
            )
        })
        .map(str::to_owned)
}

pub fn location(response: &Response) -> &str {
    response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// Asserts the docs/API.md error body and returns its code.
pub async fn error_code(response: Response) -> String {
    let body: Value = response.json().await.expect("a JSON error body");
    let message = body["error"]["message"].as_str().unwrap_or("");
    assert!(!message.is_empty(), "error message missing in {body}");
    body["error"]["code"]
        .as_str()
        .expect("error.code")
        .to_owned()
}

/// A minimal SMTP server on loopback that hands over every message it
/// receives (the DATA section, dot-unstuffed).
pub async fn smtp_sink() -> (u16, tokio::sync::mpsc::UnboundedReceiver<String>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                let _ = write.write_all(b"220 sink ESMTP\r\n").await;
                while let Ok(Some(line)) = lines.next_line().await {
                    let verb = line
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_ascii_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 sink\r\n",
                        "DATA" => {
                            let _ = write.write_all(b"354 end with .\r\n").await;
                            let mut message = String::new();
                            while let Ok(Some(l)) = lines.next_line().await {
                                if l == "." {
                                    break;
                                }
                                message.push_str(l.strip_prefix('.').unwrap_or(&l));
                                message.push('\n');
                            }
                            let _ = tx.send(message);
                            b"250 queued\r\n"
                        }
                        "QUIT" => {
                            let _ = write.write_all(b"221 bye\r\n").await;
                            break;
                        }
                        _ => b"250 ok\r\n",
                    };
                    let _ = write.write_all(reply).await;
                }
            });
        }
    });
    (port, rx)
}
