//! The agent's side of the agent API (docs/API.md): fetch the configuration,
//! post reports, and sort the panel's answers into "done", "try again
//! later" and "never will be accepted".
//!
//! The panel is trusted with the fleet, not with the agent's memory or
//! schedule: its answers are read up to [`MAX_PANEL_RESPONSE_BYTES`] (the
//! configuration up to [`MAX_PANEL_CONFIG_BYTES`]) and its `Retry-After`
//! obeyed up to [`MAX_RETRY_AFTER`].

use super::config::AgentSettings;
use super::AGENT_VERSION;
use meshwatch::agent_api::{AgentConfig, AgentReport, ReportAck};
use reqwest::StatusCode;
use std::time::Duration;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// The most the agent reads of an answer from the panel other than the
/// configuration: acknowledgements and error bodies, a few hundred bytes
/// from a real panel.
pub const MAX_PANEL_RESPONSE_BYTES: usize = 64 * 1024;

/// The most the agent reads of its configuration. It lists every peer entry
/// point at about 110 bytes each, so 64 KiB would stop at ~600 — fleets of
/// thousands are supported — while 8 MiB (~70 000 entry points) still keeps
/// a broken or hostile panel from filling the agent's memory.
pub const MAX_PANEL_CONFIG_BYTES: usize = 8 * 1024 * 1024;

/// The longest `Retry-After` obeyed: a panel asking for longer (by mistake,
/// or to silence its agents) gets retried after this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(10 * 60);

/// Why an answer's body was not read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("the panel's answer is larger than the agent's limit of {limit} bytes; not read")]
    TooLarge { limit: usize },
    #[error("cannot read the panel's answer: {0}")]
    Read(#[from] reqwest::Error),
}

#[derive(Clone)]
pub struct PanelClient {
    http: reqwest::Client,
    base: String,
    token: String,
}

/// What became of one attempt to deliver a report.
#[derive(Debug)]
pub enum Delivery {
    Accepted(ReportAck),
    /// Panel unreachable, 5xx, 429, or a status that can pass (see
    /// [`classify`]): keep the report and retry later (`retry_after` when
    /// the panel said how long to wait).
    Retry {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// 400, 413 or 422: the panel will never take this report.
    Rejected {
        status: u16,
        reason: String,
    },
}

impl PanelClient {
    pub fn new(settings: &AgentSettings) -> anyhow::Result<Self> {
        let mut builder = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .user_agent(format!("meshwatch-agent/{AGENT_VERSION}"));
        if let Some(pem) = &settings.panel_ca_pem {
            for certificate in reqwest::Certificate::from_pem_bundle(pem)? {
                builder = builder.add_root_certificate(certificate);
            }
        }
        Ok(Self {
            http: builder.build()?,
            base: settings.panel_url.clone(),
            token: settings.token.clone(),
        })
    }

    pub async fn config(&self) -> anyhow::Result<AgentConfig> {
        let response = self
            .http
            .get(format!("{}/api/agent/v1/config", self.base))
            .bearer_auth(&self.token)
            .send()
            .await?;
        read_config(response).await
    }

    /// The configuration only if the panel's fleet version is no longer
    /// `version` (a conditional GET: unchanged costs a bodiless 304).
    pub async fn config_if_changed(&self, version: u64) -> anyhow::Result<Option<AgentConfig>> {
        let response = self
            .http
            .get(format!("{}/api/agent/v1/config", self.base))
            .bearer_auth(&self.token)
            .header(reqwest::header::IF_NONE_MATCH, format!("\"{version}\""))
            .send()
            .await?;
        if response.status() == StatusCode::NOT_MODIFIED {
            return Ok(None);
        }
        read_config(response).await.map(Some)
    }

    pub async fn send(&self, report: &AgentReport) -> Delivery {
        let response = match self
            .http
            .post(format!("{}/api/agent/v1/report", self.base))
            .bearer_auth(&self.token)
            .json(report)
            .send()
            .await
        {
            Ok(response) => response,
            Err(e) => {
                return Delivery::Retry {
                    reason: format!("panel unreachable: {e}"),
                    retry_after: None,
                }
            }
        };
        let status = response.status();
        let retry_after = capped_retry_after(response.headers());
        let body = read_capped(response, MAX_PANEL_RESPONSE_BYTES).await;
        if status.is_success() {
            // The panel took it; an odd or oversized body does not make it
            // unsent.
            let ack = match body {
                Ok(body) => serde_json::from_slice::<ReportAck>(&body).unwrap_or_default(),
                Err(e) => {
                    tracing::warn!("report accepted, but its acknowledgement is unread: {e}");
                    ReportAck::default()
                }
            };
            return Delivery::Accepted(ack);
        }
        classify(status, retry_after, error_body_text(body))
    }
}

/// A configuration answer: the config, or an error naming the status (and
/// the panel's message).
async fn read_config(response: reqwest::Response) -> anyhow::Result<AgentConfig> {
    let status = response.status();
    let limit = if status.is_success() {
        MAX_PANEL_CONFIG_BYTES
    } else {
        MAX_PANEL_RESPONSE_BYTES
    };
    let body = read_capped(response, limit).await;
    if !status.is_success() {
        anyhow::bail!(
            "GET /api/agent/v1/config: {status}: {}",
            error_body_text(body)
        );
    }
    let body = body.map_err(|e| anyhow::anyhow!("GET /api/agent/v1/config: {e}"))?;
    serde_json::from_slice(&body)
        .map_err(|e| anyhow::anyhow!("GET /api/agent/v1/config: not a configuration: {e}"))
}

/// The body, read chunk by chunk and given up as soon as it passes
/// `limit` bytes (a declared length over it is not read at all): a panel
/// cannot make the agent buffer more.
async fn read_capped(mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, BodyError> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(BodyError::TooLarge { limit });
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `Retry-After` in seconds, capped at [`MAX_RETRY_AFTER`]. (The HTTP-date
/// form is not read: the backoff then decides.)
fn capped_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|seconds| Duration::from_secs(seconds).min(MAX_RETRY_AFTER))
}

/// What an error answer says, for logs: its message, or why it was not read.
fn error_body_text(body: Result<Vec<u8>, BodyError>) -> String {
    match body {
        Ok(body) => error_text(&String::from_utf8_lossy(&body)),
        Err(e) => format!("({e})"),
    }
}

/// Only a panel that read the report and found it unusable (400, 413,
/// 422) makes the agent drop it. Anything else may pass: 401/403 while its
/// token is being rotated, 404 or 408 while the panel is mid-deploy behind
/// its proxy, 429 and 5xx by nature.
fn classify(status: StatusCode, retry_after: Option<Duration>, reason: String) -> Delivery {
    if matches!(
        status,
        StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE | StatusCode::UNPROCESSABLE_ENTITY
    ) {
        Delivery::Rejected {
            status: status.as_u16(),
            reason,
        }
    } else {
        Delivery::Retry {
            reason: format!("{status}: {reason}"),
            retry_after,
        }
    }
}

/// The `message` of an docs/API.md error body, else the body itself (shortened).
fn error_text(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(String::from))
        .unwrap_or_else(|| body.chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_errors_and_429_are_retried_other_4xx_rejected() {
        for code in [500, 502, 503, 429, 401, 403, 404, 408] {
            let status = StatusCode::from_u16(code).expect("status");
            assert!(
                matches!(
                    classify(status, None, String::new()),
                    Delivery::Retry { .. }
                ),
                "{code}"
            );
        }
        for code in [400, 413, 422] {
            let status = StatusCode::from_u16(code).expect("status");
            assert!(
                matches!(classify(status, None, String::new()), Delivery::Rejected { status, .. } if status == code),
                "{code}"
            );
        }
    }

    #[test]
    fn retry_after_is_obeyed_up_to_ten_minutes() {
        use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
        let asked = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(RETRY_AFTER, HeaderValue::from_static(value));
            capped_retry_after(&headers)
        };
        assert_eq!(asked("30"), Some(Duration::from_secs(30)));
        assert_eq!(asked("600"), Some(MAX_RETRY_AFTER));
        assert_eq!(asked("86400"), Some(MAX_RETRY_AFTER));
        assert_eq!(asked("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(capped_retry_after(&HeaderMap::new()), None);
    }

    fn answer(body: Vec<u8>) -> reqwest::Response {
        reqwest::Response::from(axum::http::Response::new(body))
    }

    #[tokio::test]
    async fn a_body_is_read_up_to_the_limit_and_no_further() {
        let limit = MAX_PANEL_RESPONSE_BYTES;
        let whole = read_capped(answer(vec![b'x'; limit]), limit).await;
        assert_eq!(whole.map(|b| b.len()).ok(), Some(limit));
        let over = read_capped(answer(vec![b'x'; limit + 1]), limit).await;
        assert!(
            matches!(over, Err(BodyError::TooLarge { limit: l }) if l == limit),
            "{over:?}"
        );
    }

    /// A panel stand-in whose every answer is an endless body without a
    /// declared length (so only counting the chunks can stop it), with
    /// `status` and a `Retry-After` of a day.
    async fn endless_panel(status: u16) -> PanelClient {
        use axum::routing::{get, post};
        let endless = move || async move {
            let chunks = futures_util::stream::repeat_with(|| {
                Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![b' '; 16 * 1024]))
            });
            axum::http::Response::builder()
                .status(status)
                .header("retry-after", "86400")
                .body(axum::body::Body::from_stream(chunks))
                .expect("response")
        };
        let panel = axum::Router::new()
            .route("/api/agent/v1/config", get(endless))
            .route("/api/agent/v1/report", post(endless));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        tokio::spawn(async move { axum::serve(listener, panel).await });
        let config = format!("panel_url = {url:?}\ntoken = \"t\"\n[service]\nprocess = \"x\"\n");
        let settings =
            AgentSettings::from_parts("test", Some(config.as_str()), &|_| None).expect("settings");
        PanelClient::new(&settings).expect("client")
    }

    fn report() -> AgentReport {
        AgentReport {
            report_id: "r".into(),
            agent_version: "test".into(),
            sent_at: chrono::Utc::now(),
            self_check: meshwatch::evidence::SelfCheck {
                listener_ok: true,
                service_ok: true,
                detail: None,
            },
            metrics: Default::default(),
            probes: vec![],
        }
    }

    #[tokio::test]
    async fn an_endless_configuration_is_refused_not_buffered() {
        let err = endless_panel(200)
            .await
            .config()
            .await
            .expect_err("over the limit");
        assert!(
            err.to_string()
                .contains(&format!("limit of {MAX_PANEL_CONFIG_BYTES} bytes")),
            "{err:#}"
        );
    }

    #[tokio::test]
    async fn an_endless_error_body_is_cut_off_and_a_day_long_retry_after_capped() {
        match endless_panel(503).await.send(&report()).await {
            Delivery::Retry {
                reason,
                retry_after,
            } => {
                assert!(
                    reason.contains(&format!("limit of {MAX_PANEL_RESPONSE_BYTES} bytes")),
                    "{reason}"
                );
                assert_eq!(retry_after, Some(MAX_RETRY_AFTER));
            }
            other => panic!("{other:?}"),
        }
        let err = endless_panel(500)
            .await
            .config()
            .await
            .expect_err("an error status");
        assert!(err.to_string().contains("500"), "{err:#}");
        assert!(
            err.to_string()
                .contains(&format!("limit of {MAX_PANEL_RESPONSE_BYTES} bytes")),
            "{err:#}"
        );
    }

    #[tokio::test]
    async fn an_endless_acknowledgement_still_means_accepted() {
        let delivery = endless_panel(200).await.send(&report()).await;
        assert!(
            matches!(delivery, Delivery::Accepted(ref ack) if *ack == ReportAck::default()),
            "{delivery:?}"
        );
    }

    #[test]
    fn api_error_bodies_give_their_message() {
        let body =
            r#"{"error":{"code":"unauthorized","message":"a valid agent token is required"}}"#;
        assert_eq!(error_text(body), "a valid agent token is required");
        assert_eq!(error_text("plain text"), "plain text");
    }
}
