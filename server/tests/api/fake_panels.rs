//! Local stand-ins for the VPN panels meshwatch connects to. Each answers
//! only its panel's documented requests, in the documented shapes (the
//! contract each follows is cited beside it), records every request, and
//! records anything else as a violation the test then fails on.

pub mod marzban;
pub mod marzneshin;
pub mod pasarguard;
pub mod remnawave;
pub mod three_x_ui;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::Value;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The one node every fake lists (for the import): its name and address,
/// which is the address of the host meshwatch does not know yet.
pub const NODE_NAME: &str = "Warsaw 1";
pub const NODE_ADDRESS: &str = "198.51.100.9";

/// One request a fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub body: Value,
}

/// What a fake shares with the test.
#[derive(Default)]
pub struct Log {
    pub requests: Vec<Recorded>,
    pub violations: Vec<String>,
    /// While set, every request is answered 503 (the panel is down behind
    /// its proxy); still recorded.
    pub down: bool,
}

/// A request as a fake's handler sees it.
pub struct Request {
    pub method: Method,
    pub path: String,
    pub query: HashMap<String, String>,
    pub headers: HeaderMap,
    /// The body as JSON (`Null` when empty, a string when not JSON).
    pub json: Value,
    /// The body as a urlencoded form (empty when it is not one).
    pub form: HashMap<String, String>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// `Authorization: Bearer <token>`'s token.
    pub fn bearer(&self) -> Option<&str> {
        self.header("authorization")?.strip_prefix("Bearer ")
    }
}

/// How a fake answers: its state, the log (for violations) and the
/// request.
pub type Handler<S> = fn(&mut Log, &mut S, &Request) -> Response;

type Shared<S> = Arc<Mutex<(Log, S)>>;

pub struct FakePanel<S> {
    pub address: SocketAddr,
    shared: Shared<S>,
}

impl<S: Send + 'static> FakePanel<S> {
    pub async fn start(state: S, handler: Handler<S>) -> Self {
        let shared: Shared<S> = Arc::new(Mutex::new((Log::default(), state)));
        let app = Router::new()
            .fallback(
                move |State(shared): State<Shared<S>>,
                      method: Method,
                      uri: Uri,
                      headers: HeaderMap,
                      body: Bytes| async move {
                    answer(shared, handler, method, uri, headers, body)
                },
            )
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(async move {
            axum::serve(listener, app).await.expect("serve");
        });
        Self { address, shared }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().expect("lock").0.requests.clone()
    }

    /// The requests that change something (not `GET`, not signing in).
    pub fn writes(&self) -> Vec<Recorded> {
        writes(&self.requests())
    }

    pub fn set_down(&self, down: bool) {
        self.shared.lock().expect("lock").0.down = down;
    }

    /// Reads (or changes) the panel's state.
    pub fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        f(&mut self.shared.lock().expect("lock").1)
    }

    /// Fails the test on any request the contract does not document.
    pub fn assert_only_documented(&self) {
        let guard = self.shared.lock().expect("lock");
        assert!(
            guard.0.violations.is_empty(),
            "undocumented requests: {:#?}",
            guard.0.violations
        );
    }

    /// Polls the log until `check` holds (real time: the panel's sync loop
    /// looks every second); panics naming `what` after 15 s.
    pub async fn wait_for(&self, what: &str, check: impl Fn(&Log) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            {
                let guard = self.shared.lock().expect("lock");
                if check(&guard.0) {
                    return;
                }
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "timed out waiting for {what}; requests: {:#?}",
                    guard.0.requests
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits for more than `seen` requests in all (`seen`: the count
    /// before whatever should cause another).
    pub async fn wait_for_more_than(&self, seen: usize) {
        self.wait_for("another request", |log| log.requests.len() > seen)
            .await;
    }

    /// Waits until the panel received `expected.len()` writes, then checks
    /// they are exactly `expected`.
    pub async fn wait_for_writes(&self, expected: &[Recorded]) {
        self.wait_for("the panel's writes", |log| {
            writes(&log.requests).len() >= expected.len()
        })
        .await;
        assert_eq!(self.writes(), expected);
    }
}

/// The calls that change something: not reads, not signing in.
pub fn writes(requests: &[Recorded]) -> Vec<Recorded> {
    requests
        .iter()
        .filter(|r| r.method != "GET" && !r.path.ends_with("/token"))
        .cloned()
        .collect()
}

fn answer<S>(
    shared: Shared<S>,
    handler: Handler<S>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let json: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).unwrap_or(Value::String("(not JSON)".into()))
    };
    let form: HashMap<String, String> = if json.is_string() {
        serde_urlencoded::from_bytes(&body).unwrap_or_default()
    } else {
        HashMap::new()
    };
    let query: HashMap<String, String> = uri
        .query()
        .map(|q| serde_urlencoded::from_str(q).unwrap_or_default())
        .unwrap_or_default();
    let request = Request {
        method,
        path: uri.path().to_owned(),
        query,
        headers,
        json,
        form,
    };
    let mut guard = shared.lock().expect("lock");
    let (log, state) = &mut *guard;
    log.requests.push(Recorded {
        method: request.method.to_string(),
        path: request.path.clone(),
        // A sign-in form's password is not kept in the log.
        body: if request.form.is_empty() {
            request.json.clone()
        } else {
            Value::Null
        },
    });
    if log.down {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    handler(log, state, &request)
}

/// Records an undocumented request and answers 404.
pub fn undocumented(log: &mut Log, request: &Request) -> Response {
    log.violations.push(format!(
        "{} {} {:?} {}",
        request.method, request.path, request.query, request.json
    ));
    StatusCode::NOT_FOUND.into_response()
}
