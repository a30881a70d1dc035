//! Where an outbox message goes. A webhook URL is a secret (it often
//! carries a token in its path, query or user part): the outbox, the
//! panel, the API and the logs only ever see its label, `webhook (host)`;
//! delivery takes the URL from its own configuration
//! ([`crate::outbound::delivery::Webhook`]). A Telegram chat is not a secret (the
//! bot token is, and stays with [`crate::outbound::delivery::Telegram`]): the
//! outbox keeps the chat's id and shows it as `telegram (chat …)`.

use crate::crypto::secrets::Secret;
use crate::ops::config::telegram::TelegramChat;
use crate::store::{Recipient, TargetKind};
use std::borrow::Cow;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Neither email nor webhook is configured: the message waits in the
    /// outbox so the panel can say why nothing was sent.
    Nowhere,
    /// An email address (not a secret: shown as it is).
    Email(String),
    /// The configured webhook, known here by its label only.
    Webhook(String),
    /// A chat the configured Telegram bot writes to.
    Telegram(TelegramChat),
}

impl Target {
    /// The configured webhook as a target: named by its host alone.
    pub fn webhook(url: &Secret) -> Target {
        Target::Webhook(webhook_label(url.expose()))
    }

    /// The outbox's `target` column: how the message is delivered.
    pub fn kind(&self) -> TargetKind {
        match self {
            Target::Nowhere => TargetKind::Nowhere,
            Target::Email(_) => TargetKind::Email,
            Target::Webhook(_) => TargetKind::Webhook,
            Target::Telegram(_) => TargetKind::Telegram,
        }
    }

    /// What the outbox's `recipient` column keeps: the address, the
    /// webhook's label, the chat's id, or nothing.
    pub fn recipient(&self) -> &str {
        match self {
            Target::Nowhere => "",
            Target::Email(address) => address,
            Target::Webhook(label) => label,
            Target::Telegram(chat) => chat.as_str(),
        }
    }

    /// How everyone may see the target: the address, `webhook (host)`,
    /// `telegram (chat -100…)`, or nothing.
    pub fn label(&self) -> Cow<'_, str> {
        match self {
            Target::Telegram(chat) => Cow::Owned(format!("telegram (chat {chat})")),
            other => Cow::Borrowed(other.recipient()),
        }
    }

    /// The outbox's two columns for it.
    pub fn columns(&self) -> Recipient {
        Recipient {
            kind: self.kind(),
            address: self.recipient().to_owned(),
        }
    }

    /// The target stored as (`target`, `recipient`).
    pub fn from_columns(kind: TargetKind, recipient: String) -> Target {
        match kind {
            TargetKind::Nowhere => Target::Nowhere,
            TargetKind::Email => Target::Email(recipient),
            TargetKind::Webhook => Target::Webhook(recipient),
            TargetKind::Telegram => Target::Telegram(TelegramChat::stored(recipient)),
        }
    }
}

impl From<Recipient> for Target {
    fn from(columns: Recipient) -> Target {
        Target::from_columns(columns.kind, columns.address)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// `webhook (hooks.example.net)`: the host is enough to tell webhooks
/// apart, and the rest of a URL (user, path, query) is where secrets live.
pub fn webhook_label(url: &str) -> String {
    match reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
    {
        Some(host) => format!("webhook ({host})"),
        None => "webhook".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_webhook_is_named_by_its_host_alone() {
        let url =
            Secret::new("https://bot:s3cret@hooks.example.net:8443/t/abc123?token=xyz".into());
        let target = Target::webhook(&url);
        assert_eq!(target.label(), "webhook (hooks.example.net)");
        assert_eq!(target.to_string(), "webhook (hooks.example.net)");
        for secret in ["s3cret", "abc123", "xyz", "8443", "bot"] {
            assert!(!format!("{target:?}").contains(secret), "{secret}");
        }
        assert_eq!(webhook_label("not a url"), "webhook");
    }

    #[test]
    fn a_target_is_stored_and_read_back() {
        for target in [
            Target::Nowhere,
            Target::Email("ops@example.com".into()),
            Target::Webhook("webhook (hooks.example.net)".into()),
            Target::Telegram(TelegramChat::parse("-1001234567890").expect("chat")),
        ] {
            let read = Target::from_columns(target.kind(), target.recipient().to_owned());
            assert_eq!(read, target);
        }
    }

    #[test]
    fn a_telegram_chat_is_named_by_its_id() {
        let target = Target::Telegram(TelegramChat::parse("@meshwatch_ops").expect("chat"));
        assert_eq!(target.label(), "telegram (chat @meshwatch_ops)");
        assert_eq!(target.recipient(), "@meshwatch_ops");
    }
}
