//! Delivers the notification outbox — email over SMTP (lettre), JSON
//! POSTs to a webhook, and Telegram messages through the Bot API —
//! retrying with exponential backoff: `queued` → `sent`, or `failed` after
//! the last try. Each outbox row has one target (an address, the webhook,
//! a Telegram chat); rows whose kind of target is not configured stay
//! queued.
//!
//! The webhook's URL and the bot's token are secrets: each lives only in
//! the one value that uses it ([`Webhook`], [`Telegram`]); rows, logs and
//! stored errors name the target by its label.

mod telegram;

pub use telegram::Telegram;

use crate::crypto::secrets::Secret;
use crate::outbound::notify::{webhook_label, Target};
use crate::store::{Channels, Delivery as Outcome, Outgoing, Store};
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// Attempts before a message is marked `failed`.
pub const MAX_ATTEMPTS: i64 = 8;
/// How many messages one round claims: a round sends them one after the
/// other, within one lease.
const CLAIM: i64 = 10;
/// How long a claimed message is this replica's to send: longer than a
/// round of [`CLAIM`] sends at their timeouts, so that no other replica
/// takes one up while it is being sent.
const LEASE: chrono::Duration = chrono::Duration::minutes(5);
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

/// The configured webhook: the one place its URL is kept.
pub struct Webhook {
    client: reqwest::Client,
    url: Secret,
    /// `webhook (host)`: how everything else names it.
    label: String,
}

/// The configured delivery targets.
pub struct Delivery {
    /// The panel's clock: which messages are due, and when to retry.
    pub clock: crate::engine::Clock,
    pub mailer: Option<Mailer>,
    pub webhook: Option<Webhook>,
    pub telegram: Option<Telegram>,
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

    /// Whether any kind of target is configured (else there is no task).
    pub fn delivers_anything(&self) -> bool {
        self.channels() != Channels::default()
    }

    /// The kinds of target this panel delivers to.
    fn channels(&self) -> Channels {
        Channels {
            email: self.mailer.is_some(),
            webhook: self.webhook.is_some(),
            telegram: self.telegram.is_some(),
        }
    }

    async fn deliver_due(&self, store: &Store) -> Result<(), crate::store::StoreError> {
        let due = store
            .claim_due_notifications(self.clock.now(), LEASE, CLAIM, self.channels())
            .await?;
        for message in due {
            let target = Target::from(message.target.clone());
            let sent = match &target {
                Target::Webhook(_) => match &self.webhook {
                    Some(webhook) => webhook.post(&message).await,
                    None => continue,
                },
                Target::Email(address) => match &self.mailer {
                    Some(mailer) => mailer.send(address, &message).await,
                    None => continue,
                },
                Target::Telegram(chat) => match &self.telegram {
                    Some(telegram) => telegram.send(chat, &message).await,
                    None => continue,
                },
                Target::Nowhere => continue,
            };
            // `to` is the target's label: never a webhook's URL.
            let outcome = match sent {
                Ok(()) => {
                    tracing::info!(id = message.id, to = %target, "notification sent");
                    Outcome::Sent
                }
                Err(error) if message.attempts + 1 >= MAX_ATTEMPTS => {
                    tracing::error!(id = message.id, to = %target, %error, "notification failed for good");
                    Outcome::Failed { error }
                }
                Err(error) => {
                    tracing::warn!(id = message.id, to = %target, %error, "notification not sent; will retry");
                    Outcome::Retry {
                        error,
                        at: self.clock.now() + backoff(message.attempts),
                    }
                }
            };
            store.record_delivery(message.id, outcome).await?;
        }
        Ok(())
    }
}

impl Webhook {
    pub fn new(url: Secret) -> Self {
        Self {
            client: reqwest::Client::new(),
            label: webhook_label(url.expose()),
            url,
        }
    }

    /// The webhook body: the notification as JSON.
    async fn post(&self, message: &Outgoing) -> Result<(), String> {
        let body = serde_json::json!({
            "id": message.id, "kind": message.kind.as_str(), "server_id": message.server_id,
            "subject": message.subject, "body": message.body, "block_kinds": message.block_kinds,
        });
        let response = self
            .client
            .post(self.url.expose())
            .timeout(Duration::from_secs(20))
            .json(&body)
            .send()
            .await
            .map_err(|e| self.describe(e))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(format!("{} answered {}", self.label, response.status()))
        }
    }

    /// A delivery error as it may be logged and stored: any trace of the
    /// URL left in it is replaced by the label.
    fn describe(&self, err: reqwest::Error) -> String {
        redact(
            &describe_error(err, &self.label),
            self.url.expose(),
            &self.label,
        )
    }
}

/// `err` as it may be logged and stored: reqwest names the URL in its
/// errors; that goes (`without_url`), the causes below it stay (they say
/// what failed: DNS, connect, TLS…), prefixed with the target's `label`.
fn describe_error(err: reqwest::Error, label: &str) -> String {
    use std::error::Error as _;
    let err = err.without_url();
    let mut text = format!("{label}: {err}");
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// `text` with every spelling of `url` (as given, and as the URL parser
/// normalises it) replaced by `label`.
fn redact(text: &str, url: &str, label: &str) -> String {
    let normalised = reqwest::Url::parse(url).map(|u| u.to_string()).ok();
    let mut out = text.to_owned();
    for spelling in [Some(url.to_owned()), normalised].into_iter().flatten() {
        if !spelling.is_empty() {
            out = out.replace(&spelling, label);
        }
    }
    out
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

    async fn send(&self, address: &str, message: &Outgoing) -> Result<(), String> {
        let to = address
            .parse()
            .map_err(|e| format!("recipient {address:?}: {e}"))?;
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
    use super::{backoff, redact, Webhook};
    use crate::crypto::secrets::Secret;

    #[tokio::test]
    async fn a_webhook_error_never_names_the_url() {
        // Port 9 on loopback: nothing listens, the connection is refused.
        let url = "http://hook-user:s3cret@127.0.0.1:9/t/abc123?token=xyz";
        let webhook = Webhook::new(Secret::new(url.to_owned()));
        // No proxy: the error must be the refused connection itself.
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let err = client
            .post(webhook.url.expose())
            .send()
            .await
            .expect_err("nothing listens there");
        let text = webhook.describe(err);
        assert!(text.starts_with("webhook (127.0.0.1): "), "{text}");
        for secret in ["s3cret", "abc123", "xyz", "hook-user", "/t/"] {
            assert!(!text.contains(secret), "{secret} in {text:?}");
        }
    }

    #[test]
    fn any_spelling_of_the_url_is_replaced_by_the_label() {
        let label = "webhook (hooks.example.net)";
        assert_eq!(
            redact(
                "posting to https://hooks.example.net/t/1 failed",
                "https://hooks.example.net/t/1",
                label
            ),
            "posting to webhook (hooks.example.net) failed"
        );
        assert_eq!(
            redact(
                "error for url (https://hooks.example.net/)",
                "https://HOOKS.example.net",
                label
            ),
            "error for url (webhook (hooks.example.net))"
        );
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        assert_eq!(backoff(0).num_seconds(), 30);
        assert_eq!(backoff(1).num_seconds(), 60);
        assert_eq!(backoff(3).num_seconds(), 240);
        assert_eq!(backoff(20).num_seconds(), 3600);
    }
}
