//! Delivers the notification outbox over SMTP (lettre), retrying with
//! exponential backoff: `queued` → `sent`, or `failed` after the last try.
//! Without SMTP configured nothing is attempted and messages stay queued.

use crate::config::Secret;
use crate::store::{Delivery, Outgoing, Store};
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
        for message in store.due_notifications(Utc::now(), 50).await? {
            let outcome = match self.send(&message).await {
                Ok(()) => {
                    tracing::info!(id = message.id, to = %message.recipient, "notification sent");
                    Delivery::Sent
                }
                Err(error) if message.attempts + 1 >= MAX_ATTEMPTS => {
                    tracing::error!(id = message.id, %error, "notification failed for good");
                    Delivery::Failed { error }
                }
                Err(error) => {
                    tracing::warn!(id = message.id, %error, "notification not sent; will retry");
                    Delivery::Retry {
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
