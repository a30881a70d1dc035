//! Telegram as a notification channel: a bot token (a secret), the chats
//! it writes to, and the Bot API it talks to — the official one, or a
//! local Bot API server or relay where Telegram itself is blocked.

use super::{ConfigError, Secret};
use std::fmt;

/// The official Bot API.
pub const DEFAULT_API_URL: &str = "https://api.telegram.org";
/// How many chats one panel writes to (`MESHWATCH_TELEGRAM_CHAT_ID`).
pub const MAX_CHATS: usize = 16;

/// A chat the bot writes to: a numeric id (a user, a group, `-100…` a
/// channel or supergroup) or a public channel's `@username`. Not a
/// secret: the outbox and the panel name it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TelegramChat(String);

impl TelegramChat {
    pub fn parse(raw: &str) -> Result<TelegramChat, String> {
        let raw = raw.trim();
        let digits = raw.strip_prefix('-').unwrap_or(raw);
        let numeric =
            (1..=20).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit());
        // Telegram usernames: 5 to 32 of letters, digits and underscores.
        let username = raw.strip_prefix('@').is_some_and(|name| {
            (5..=32).contains(&name.len())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if numeric || username {
            Ok(TelegramChat(raw.to_owned()))
        } else {
            Err(format!(
                "{raw:?} is not a chat id (a number such as -1001234567890, or @channelname)"
            ))
        }
    }

    /// A chat read back from the outbox, which holds only what
    /// [`TelegramChat::parse`] accepted.
    pub fn stored(id: String) -> TelegramChat {
        TelegramChat(id)
    }

    /// The id as the Bot API takes it: a number, or the `@username` string.
    pub fn as_json(&self) -> serde_json::Value {
        match self.0.parse::<i64>() {
            Ok(id) => serde_json::Value::from(id),
            Err(_) => serde_json::Value::from(self.0.clone()),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TelegramChat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `MESHWATCH_TELEGRAM_*`: set together, or not at all.
#[derive(Debug, Clone)]
pub struct TelegramConfig {
    /// `MESHWATCH_TELEGRAM_BOT_TOKEN`: `123456:ABC…` from @BotFather.
    pub token: Secret,
    /// `MESHWATCH_TELEGRAM_CHAT_ID`: comma-separated.
    pub chats: Vec<TelegramChat>,
    /// `MESHWATCH_TELEGRAM_API_URL`: without a trailing slash.
    pub api_url: String,
}

impl TelegramConfig {
    /// Reads the three variables (blank counts as unset).
    pub fn from_lookup(
        non_empty: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<TelegramConfig>, ConfigError> {
        let token = non_empty("MESHWATCH_TELEGRAM_BOT_TOKEN");
        let chats = non_empty("MESHWATCH_TELEGRAM_CHAT_ID");
        let api_url = non_empty("MESHWATCH_TELEGRAM_API_URL");
        let (token, chats) = match (token, chats) {
            (None, None) if api_url.is_none() => return Ok(None),
            (None, _) => {
                return Err(ConfigError {
                    var: "MESHWATCH_TELEGRAM_BOT_TOKEN",
                    problem: "is required with MESHWATCH_TELEGRAM_CHAT_ID or \
                              MESHWATCH_TELEGRAM_API_URL (the bot that sends the messages)"
                        .to_owned(),
                })
            }
            (Some(_), None) => {
                return Err(ConfigError {
                    var: "MESHWATCH_TELEGRAM_CHAT_ID",
                    problem: "is required with MESHWATCH_TELEGRAM_BOT_TOKEN (which chats \
                              receive the notifications?)"
                        .to_owned(),
                })
            }
            (Some(token), Some(chats)) => (token, chats),
        };
        if !valid_token(token.trim()) {
            // The token itself is never repeated: it is the bot's password.
            return Err(ConfigError {
                var: "MESHWATCH_TELEGRAM_BOT_TOKEN",
                problem: "is not a bot token (digits, a colon, then letters, digits, - and _, \
                          as @BotFather gives it)"
                    .to_owned(),
            });
        }
        let mut parsed = Vec::new();
        for raw in chats.split(',').filter(|c| !c.trim().is_empty()) {
            let chat = TelegramChat::parse(raw).map_err(|problem| ConfigError {
                var: "MESHWATCH_TELEGRAM_CHAT_ID",
                problem,
            })?;
            if !parsed.contains(&chat) {
                parsed.push(chat);
            }
        }
        if parsed.len() > MAX_CHATS {
            return Err(ConfigError {
                var: "MESHWATCH_TELEGRAM_CHAT_ID",
                problem: format!("names {} chats; at most {MAX_CHATS}", parsed.len()),
            });
        }
        let api_url = api_url.unwrap_or_else(|| DEFAULT_API_URL.to_owned());
        let api_url = api_url.trim().trim_end_matches('/').to_owned();
        let parsed_url = reqwest::Url::parse(&api_url).ok();
        let usable = parsed_url.as_ref().is_some_and(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.host_str().is_some()
                && u.query().is_none()
                && u.username().is_empty()
        });
        if !usable {
            return Err(ConfigError {
                var: "MESHWATCH_TELEGRAM_API_URL",
                problem: format!(
                    "{api_url:?} is not an http:// or https:// base URL (e.g. {DEFAULT_API_URL}, \
                     or a local Bot API server)"
                ),
            });
        }
        Ok(Some(TelegramConfig {
            token: Secret::new(token.trim().to_owned()),
            chats: parsed,
            api_url,
        }))
    }
}

/// `123456789:AAH…`: the bot's numeric id, a colon, and its secret.
fn valid_token(token: &str) -> bool {
    token.split_once(':').is_some_and(|(id, secret)| {
        !id.is_empty()
            && id.chars().all(|c| c.is_ascii_digit())
            && secret.len() >= 20
            && secret
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const TOKEN: &str = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";

    fn read(vars: &[(&str, &str)]) -> Result<Option<TelegramConfig>, ConfigError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TelegramConfig::from_lookup(|name| vars.get(name).cloned().filter(|v| !v.trim().is_empty()))
    }

    #[test]
    fn unset_is_no_telegram() {
        assert!(read(&[]).expect("valid").is_none());
    }

    #[test]
    fn a_token_and_chats_are_read_with_the_official_api_by_default() {
        let config = read(&[
            ("MESHWATCH_TELEGRAM_BOT_TOKEN", TOKEN),
            (
                "MESHWATCH_TELEGRAM_CHAT_ID",
                "-1001234567890, @meshwatch_ops,42,42",
            ),
        ])
        .expect("valid")
        .expect("set");
        assert_eq!(config.api_url, DEFAULT_API_URL);
        let chats: Vec<&str> = config.chats.iter().map(TelegramChat::as_str).collect();
        assert_eq!(
            chats,
            ["-1001234567890", "@meshwatch_ops", "42"],
            "each once"
        );
        assert_eq!(
            config.chats[0].as_json(),
            serde_json::json!(-1001234567890i64)
        );
        assert_eq!(
            config.chats[1].as_json(),
            serde_json::json!("@meshwatch_ops")
        );
        let relay = read(&[
            ("MESHWATCH_TELEGRAM_BOT_TOKEN", TOKEN),
            ("MESHWATCH_TELEGRAM_CHAT_ID", "42"),
            ("MESHWATCH_TELEGRAM_API_URL", "http://127.0.0.1:8081/"),
        ])
        .expect("valid")
        .expect("set");
        assert_eq!(relay.api_url, "http://127.0.0.1:8081");
    }

    #[test]
    fn each_bad_setting_names_its_variable_and_never_the_token() {
        for (vars, var) in [
            (
                vec![("MESHWATCH_TELEGRAM_BOT_TOKEN", TOKEN)],
                "MESHWATCH_TELEGRAM_CHAT_ID",
            ),
            (
                vec![("MESHWATCH_TELEGRAM_CHAT_ID", "42")],
                "MESHWATCH_TELEGRAM_BOT_TOKEN",
            ),
            (
                vec![("MESHWATCH_TELEGRAM_API_URL", "http://127.0.0.1:8081")],
                "MESHWATCH_TELEGRAM_BOT_TOKEN",
            ),
            (
                vec![
                    (
                        "MESHWATCH_TELEGRAM_BOT_TOKEN",
                        "not-a-token-but-a-long-secret",
                    ),
                    ("MESHWATCH_TELEGRAM_CHAT_ID", "42"),
                ],
                "MESHWATCH_TELEGRAM_BOT_TOKEN",
            ),
            (
                vec![
                    ("MESHWATCH_TELEGRAM_BOT_TOKEN", TOKEN),
                    ("MESHWATCH_TELEGRAM_CHAT_ID", "42, ops team"),
                ],
                "MESHWATCH_TELEGRAM_CHAT_ID",
            ),
            (
                vec![
                    ("MESHWATCH_TELEGRAM_BOT_TOKEN", TOKEN),
                    ("MESHWATCH_TELEGRAM_CHAT_ID", "42"),
                    ("MESHWATCH_TELEGRAM_API_URL", "ftp://relay.example"),
                ],
                "MESHWATCH_TELEGRAM_API_URL",
            ),
        ] {
            let err = read(&vars).expect_err("refused");
            assert_eq!(err.var, var, "{vars:?}");
            assert!(!err.problem.contains("AAHdq"), "{}", err.problem);
        }
    }

    #[test]
    fn a_chat_is_a_number_or_a_public_username() {
        for good in [
            "42",
            "-1001234567890",
            "@meshwatch_ops",
            "12345678901234567890",
        ] {
            assert!(TelegramChat::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "-",
            "--5",
            "4 2",
            "123456789012345678901",
            "@abc",
            "@has-dash",
            "ops",
        ] {
            assert!(TelegramChat::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn too_many_chats_are_refused() {
        let chats: Vec<String> = (1..=MAX_CHATS + 1).map(|i| i.to_string()).collect();
        let err = read(&[
            ("MESHWATCH_TELEGRAM_BOT_TOKEN", TOKEN),
            ("MESHWATCH_TELEGRAM_CHAT_ID", &chats.join(",")),
        ])
        .expect_err("refused");
        assert_eq!(err.var, "MESHWATCH_TELEGRAM_CHAT_ID");
        assert!(err.problem.contains("at most 16"), "{}", err.problem);
    }
}
