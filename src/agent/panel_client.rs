//! The agent's side of the agent API (API.md): fetch the configuration,
//! post reports, and sort the panel's answers into "done", "try again
//! later" and "never will be accepted".

use super::config::AgentSettings;
use super::AGENT_VERSION;
use crate::agent_api::{AgentConfig, AgentReport, ReportAck};
use reqwest::StatusCode;
use std::time::Duration;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

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
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            anyhow::bail!("GET /api/agent/v1/config: {status}: {}", error_text(&body));
        }
        Ok(response.json().await?)
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
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED {
            return Ok(None);
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            anyhow::bail!("GET /api/agent/v1/config: {status}: {}", error_text(&body));
        }
        Ok(Some(response.json().await?))
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
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        if status.is_success() {
            return match response.json::<ReportAck>().await {
                Ok(ack) => Delivery::Accepted(ack),
                // The panel took it; an odd body does not make it unsent.
                Err(_) => Delivery::Accepted(ReportAck::default()),
            };
        }
        let body = response.text().await.unwrap_or_default();
        classify(status, retry_after, error_text(&body))
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

/// The `message` of an API.md error body, else the body itself (shortened).
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
    fn api_error_bodies_give_their_message() {
        let body =
            r#"{"error":{"code":"unauthorized","message":"a valid agent token is required"}}"#;
        assert_eq!(error_text(body), "a valid agent token is required");
        assert_eq!(error_text("plain text"), "plain text");
    }
}
