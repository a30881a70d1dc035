//! What every connector's HTTP calls share: no redirects, no proxy from the
//! environment, bounded time and answer size, and errors that name the
//! call but never the token (it travels in headers only) nor the panel's
//! address (it may carry userinfo).

use reqwest::{Method, RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;
use std::time::Duration;

/// How long one call to a panel may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// The largest answer read from a panel (a host list of a big fleet).
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// Why a call to a connected panel failed, in words safe to show and log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PanelError {
    message: String,
    /// The panel's answer, when it answered with an error status.
    status: Option<StatusCode>,
}

impl PanelError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            status: None,
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn status(&self) -> Option<StatusCode> {
        self.status
    }
}

/// One panel's base address and the client that calls it.
#[derive(Clone)]
pub struct PanelHttp {
    client: reqwest::Client,
    base: String,
}

impl PanelHttp {
    pub fn new(base: &str) -> Result<Self, PanelError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(Duration::from_secs(5))
            .timeout(CALL_TIMEOUT)
            .user_agent(concat!("meshwatch/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| PanelError::new(format!("cannot build an HTTP client: {e}")))?;
        Ok(Self {
            client,
            base: base.trim_end_matches('/').to_owned(),
        })
    }

    /// A request to `path` (which starts with `/`).
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, format!("{}{path}", self.base))
    }

    /// Sends `request` and reads its answer (at most
    /// [`MAX_ANSWER_BYTES`]); a non-2xx status is an error naming `call`.
    pub async fn send(&self, call: &str, request: RequestBuilder) -> Result<Answer, PanelError> {
        let mut response = request.send().await.map_err(|e| transport(call, e))?;
        let status = response.status();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| transport(call, e))? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(PanelError::new(format!(
                    "{call}: the answer is larger than {} MiB",
                    MAX_ANSWER_BYTES / (1024 * 1024)
                )));
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(PanelError {
                message: format!("{call}: HTTP {}", status_words(status)),
                status: Some(status),
            });
        }
        Ok(Answer {
            call: call.to_owned(),
            status,
            body,
        })
    }
}

/// A panel's 2xx answer.
pub struct Answer {
    call: String,
    pub status: StatusCode,
    pub body: Vec<u8>,
}

impl Answer {
    /// The body as `T`; an error names the call and what did not fit.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, PanelError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            PanelError::new(format!(
                "{}: the answer is not what this panel's API documents ({e})",
                self.call
            ))
        })
    }
}

fn status_words(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// A transport error without its URL.
fn transport(call: &str, error: reqwest::Error) -> PanelError {
    let kind = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_connect() {
        "cannot connect".to_owned()
    } else {
        error.without_url().to_string()
    };
    PanelError::new(format!("{call}: {kind}"))
}
