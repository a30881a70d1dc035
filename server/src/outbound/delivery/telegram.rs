//! Telegram through the Bot API's `sendMessage`: the email's template as
//! HTML, the subject in bold above the body. The bot's token is part of
//! every request's path, so it is kept here alone and scrubbed from any
//! error that could carry it.

use super::{describe_error, Outgoing};
use crate::crypto::secrets::Secret;
use crate::ops::config::telegram::{TelegramChat, TelegramConfig};
use crate::outbound::notify::Target;
use std::time::Duration;

/// Telegram's limit on a message's text, in characters after its HTML
/// is parsed: a longer body is cut, ending in "…".
pub const MAX_MESSAGE_CHARS: usize = 4096;
/// How long one `sendMessage` may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The configured bot.
pub struct Telegram {
    client: reqwest::Client,
    api_url: String,
    token: Secret,
}

impl Telegram {
    pub fn new(config: &TelegramConfig) -> Self {
        Self {
            client: reqwest::Client::new(),
            api_url: config.api_url.clone(),
            token: config.token.clone(),
        }
    }

    /// Sends `message` to `chat`.
    pub(super) async fn send(&self, chat: &TelegramChat, message: &Outgoing) -> Result<(), String> {
        let label = Target::Telegram(chat.clone()).label().into_owned();
        let body = serde_json::json!({
            "chat_id": chat.as_json(),
            "text": html_text(&message.subject, &message.body),
            "parse_mode": "HTML",
            "link_preview_options": {"is_disabled": true},
        });
        let url = format!("{}/bot{}/sendMessage", self.api_url, self.token.expose());
        let response = self
            .client
            .post(&url)
            .timeout(TIMEOUT)
            .json(&body)
            .send()
            .await
            .map_err(|e| self.scrub(describe_error(e, &label)))?;
        let status = response.status();
        // The Bot API answers `{"ok": true, …}`, or `{"ok": false,
        // "description": "Bad Request: chat not found", …}` with the status.
        let answer: serde_json::Value = response.json().await.unwrap_or_default();
        if status.is_success() && answer["ok"] == true {
            return Ok(());
        }
        let description = answer["description"]
            .as_str()
            .unwrap_or("no description")
            .chars()
            .take(200)
            .collect::<String>();
        Err(self.scrub(format!(
            "{label}: the Bot API answered {status}: {description}"
        )))
    }

    /// `text` without the token, whatever put it there.
    fn scrub(&self, text: String) -> String {
        let token = self.token.expose();
        if token.is_empty() {
            text
        } else {
            text.replace(token, "<bot token>")
        }
    }
}

/// The message as Telegram's HTML: the subject in bold, a blank line, the
/// body; `<`, `>` and `&` escaped (server names are the operator's text),
/// cut to [`MAX_MESSAGE_CHARS`].
pub fn html_text(subject: &str, body: &str) -> String {
    // Counted before escaping: Telegram counts the text its HTML parses to.
    let room = MAX_MESSAGE_CHARS.saturating_sub(subject.chars().count() + 2);
    let body = if body.chars().count() > room {
        let mut cut: String = body.chars().take(room.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        body.to_owned()
    };
    format!("<b>{}</b>\n\n{}", escape(subject), escape(&body))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_is_html_with_the_subject_in_bold() {
        assert_eq!(
            html_text("meshwatch: a <b> & c", "Server: A&B <1>\nCountry: DE\n"),
            "<b>meshwatch: a &lt;b&gt; &amp; c</b>\n\nServer: A&amp;B &lt;1&gt;\nCountry: DE\n"
        );
    }

    #[test]
    fn a_long_message_is_cut_to_telegram_s_limit() {
        let body = "x".repeat(10_000);
        let text = html_text("subject", &body);
        let shown = text.replace("<b>", "").replace("</b>", "");
        assert_eq!(shown.chars().count(), MAX_MESSAGE_CHARS);
        assert!(shown.ends_with('…'));
        let short = html_text("subject", "body");
        assert!(short.ends_with("body"));
    }
}
