//! Delivers the notification outbox — email over SMTP (lettre), and JSON
//! POSTs to a webhook — retrying with exponential backoff: `queued` →
//! `sent`, or `failed` after the last try. Each outbox row has one target
//! (an address or the webhook URL); rows whose kind of target is not
//! configured stay queued.

use crate::config::Secret;
use crate::store::{Delivery as Outcome, Outgoing, Store};
use chrono::Utc;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// Attempts before a message is marked `failed`.
pub const MAX_ATTEMPTS: i64 = 8;
/// How often the outbox is looked at.
const POLL: Duration = Duration::from_secs(2);

/// Backoff before attempt `attempts + 1`: 30 s, 1 min, 2 min, … capped at 1 h.
pub fn backoff(attempts: i64) -> chrono::Duration {
    let exp = u32::try_from(attempts.clamp(0, 7)).unwrap_or(7);
    chrono::Duration::seconds((30 * 2i64.pow(exp)).min(3600))
}

pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: lettre::message::Mailbox,
}

/// Whether an outbox target is the webhook rather than an email address.
pub fn is_webhook(target: &str) -> bool {
    target.starts_with("http://") || target.starts_with("https://")
}

/// The configured delivery targets.
pub struct Delivery {
    pub mailer: Option<Mailer>,
    pub webhook: Option<reqwest::Client>,
}

impl Delivery {
    /// Delivers due messages forever.
    pub async fn run(self, store: Store) {
        loop {
            if let Err(err) = self.deliver_due(&store).await {
                tracing::error!(error = %err, "outbox delivery round failed");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    async fn deliver_due(&self, store: &Store) -> Result<(), crate::store::StoreError> {
        let due = store
            .due_notifications(
                Utc::now(),
                50,
                self.mailer.is_some(),
                self.webhook.is_some(),
            )
            .await?;
        for message in due {
            let sent = match (&self.webhook, &self.mailer) {
                (Some(http), _) if is_webhook(&message.recipient) => post(http, &message).await,
                (_, Some(mailer)) if !is_webhook(&message.recipient) => mailer.send(&message).await,
                _ => continue,
            };
            let outcome = match sent {
                Ok(()) => {
                    tracing::info!(id = message.id, to = %message.recipient, "notification sent");
                    Outcome::Sent
                }
                Err(error) if message.attempts + 1 >= MAX_ATTEMPTS => {
                    tracing::error!(id = message.id, %error, "notification failed for good");
                    Outcome::Failed { error }
                }
                Err(error) => {
                    tracing::warn!(id = message.id, %error, "notification not sent; will retry");
                    Outcome::Retry {
                        error,
                        at: Utc::now() + backoff(message.attempts),
                    }
                }
            };
            store.record_delivery(message.id, outcome).await?;
        }
        Ok(())
    }
}

/// The webhook body: the notification as JSON.
async fn post(http: &reqwest::Client, message: &Outgoing) -> Result<(), String> {
    let body = serde_json::json!({
        "id": message.id, "kind": message.kind, "server_id": message.server_id,
        "subject": message.subject, "body": message.body,
    });
    let response = http
        .post(&message.recipient)
        .timeout(Duration::from_secs(20))
        .json(&body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(format!("webhook answered {}", response.status()))
    }
}

impl Mailer {
    /// `smtp://host:port` (plain), `smtp://…?tls=required` (STARTTLS) or
    /// `smtps://user:pass@host` (TLS), as lettre reads them.
    pub fn new(url: &Secret, from: &str) -> anyhow::Result<Self> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose())
            .map_err(|e| anyhow::anyhow!("MESHWATCH_SMTP_URL: {e}"))?
            .timeout(Some(Duration::from_secs(20)))
            .build();
        let from = from
            .parse()
            .map_err(|e| anyhow::anyhow!("MESHWATCH_NOTIFY_FROM: {e}"))?;
        Ok(Self { transport, from })
    }

    async fn send(&self, message: &Outgoing) -> Result<(), String> {
        let to = message
            .recipient
            .parse()
            .map_err(|e| format!("recipient {:?}: {e}", message.recipient))?;
        let email = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&message.subject)
            .header(ContentType::TEXT_PLAIN)
            .body(message.body.clone())
            .map_err(|e| e.to_string())?;
        self.transport
            .send(email)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::backoff;

    #[test]
    fn backoff_doubles_and_is_capped() {
        assert_eq!(backoff(0).num_seconds(), 30);
        assert_eq!(backoff(1).num_seconds(), 60);
        assert_eq!(backoff(3).num_seconds(), 240);
        assert_eq!(backoff(20).num_seconds(), 3600);
    }
}
