//! Configuration from the environment (`MESHWATCH_*`), validated at boot.

pub mod telegram;

use crate::crypto::secrets::Secret;
use crate::store::DatabaseUrl;
pub use telegram::TelegramConfig;

use app::auth::PublicOrigin;
use std::net::SocketAddr;

pub const DEFAULT_LISTEN: &str = "127.0.0.1:3000";
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/meshwatch.db";
const MIN_ADMIN_TOKEN_LEN: usize = 16;

/// How the demo fleet runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemoMode {
    /// Faults come and go on a five-minute cycle.
    Scripted,
    /// Faults only when asked for through the API.
    Manual,
}

fn listen_is_loopback(listen: &SocketAddr) -> bool {
    listen.ip().is_loopback()
}

/// The programs a demo panel's actions may run when the host lists none.
pub const DEMO_ACTION_COMMANDS: &str = "/bin/echo";

#[derive(Debug, Clone)]
pub struct Config {
    /// `MESHWATCH_LISTEN`: where the panel listens.
    pub listen: SocketAddr,
    /// `MESHWATCH_DATABASE_URL`: the SQLite file (the default) or the
    /// PostgreSQL database of several replicas.
    pub database_url: DatabaseUrl,
    /// `MESHWATCH_ADMIN_TOKEN`: bootstraps the operator API token.
    pub admin_token: Option<Secret>,
    /// `MESHWATCH_DEMO=1`: seed the demo fleet and demo operator and run its
    /// fault script; `manual`: the same fleet, faults only on request
    /// (`POST /api/v1/demo/faults`, for the browser tests).
    pub demo: Option<DemoMode>,
    /// `MESHWATCH_SITE_ROOT`: serve the front end from this directory
    /// (`target/site`, for development) instead of the one built into the
    /// binary (`None`).
    pub site_root: Option<String>,
    /// `MESHWATCH_OPERATOR_PASSWORD`: the demo operator's password (else generated).
    pub operator_password: Option<Secret>,
    /// `MESHWATCH_NOTIFY_TO`: where block notifications go.
    pub notify_to: Option<String>,
    /// `MESHWATCH_NOTIFY_FROM`: their sender.
    pub notify_from: String,
    /// `MESHWATCH_SMTP_URL`: the SMTP server that delivers them.
    pub smtp_url: Option<Secret>,
    /// `MESHWATCH_WEBHOOK_URL`: also POST each notification as JSON here.
    pub webhook_url: Option<Secret>,
    /// `MESHWATCH_TELEGRAM_*`: also send each notification to these chats.
    pub telegram: Option<TelegramConfig>,
    /// `MESHWATCH_METRICS_TOKEN`: when set, `/metrics` answers only
    /// requests with `Authorization: Bearer <it>`.
    pub metrics_token: Option<Secret>,
    /// `MESHWATCH_TRUSTED_PROXIES`: CIDRs of the reverse proxies whose
    /// `X-Forwarded-For` / `Forwarded` name the client (sign-in limits).
    pub trusted_proxies: crate::auth::client_address::TrustedProxies,
    /// `MESHWATCH_SECRET_KEY`: the 32-byte key (64 hex characters or
    /// base64) that seals subscription tokens in the database; unset, a key
    /// file beside the database holds it (see `crate::crypto::sealing`).
    pub secret_key: Option<Secret>,
    /// `MESHWATCH_PUBLIC_URL`: the panel's address as browsers reach it
    /// (`https://panel.example`). Writes must come from pages of exactly
    /// this origin, absolute links start with it, and an https one keeps
    /// the session in a `Secure` `__Host-` cookie. Unset: each request's
    /// `Host` decides.
    pub public_url: Option<PublicOrigin>,
    /// `MESHWATCH_REPLICA`: this panel's name among the replicas of one
    /// database (`/metrics`, `/readyz`, the Overview page); the host's
    /// name by default.
    pub replica: ReplicaName,
    /// `MESHWATCH_STATUS_PAGE=1`: serve the public status page at
    /// `/status` and `/status.json` (off by default: 404).
    pub status_page: bool,
    /// `MESHWATCH_ACTION_COMMANDS` (the programs command actions may run;
    /// unset: none) and `MESHWATCH_ACTION_ALLOW_PRIVATE=1` (HTTP actions
    /// may reach loopback, private and link-local addresses).
    pub action_policy: meshwatch::actions::HostPolicy,
}

/// A replica's name: 1 to [`ReplicaName::MAX_LEN`] letters, digits and
/// `. _ : -`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaName(String);

impl ReplicaName {
    pub const MAX_LEN: usize = 64;

    pub fn parse(raw: &str) -> Result<Self, String> {
        let name = raw.trim();
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-');
        if name.is_empty() || name.len() > Self::MAX_LEN || !name.chars().all(allowed) {
            return Err(format!(
                "{raw:?} is not a replica name (1 to {} letters, digits and . _ : -)",
                Self::MAX_LEN
            ));
        }
        Ok(Self(name.to_owned()))
    }

    /// The host's name, or `meshwatch` when it has none that fits.
    fn of_host() -> Self {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .and_then(|host| Self::parse(&host).ok())
            .unwrap_or_else(|| Self("meshwatch".to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ReplicaName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{var}: {problem}")]
pub struct ConfigError {
    pub var: &'static str,
    pub problem: String,
}

impl Config {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Builds the configuration from any variable source (tests pass a map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let non_empty = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        let listen_raw = non_empty("MESHWATCH_LISTEN").unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
        let listen = listen_raw.trim().parse().map_err(|e| ConfigError {
            var: "MESHWATCH_LISTEN",
            problem: format!("{listen_raw:?} is not an address:port ({e})"),
        })?;
        let database_url_raw =
            non_empty("MESHWATCH_DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_owned());
        let database_url =
            DatabaseUrl::parse(&database_url_raw).map_err(|problem| ConfigError {
                var: "MESHWATCH_DATABASE_URL",
                problem,
            })?;
        let admin_token = match non_empty("MESHWATCH_ADMIN_TOKEN") {
            Some(t) if t.len() < MIN_ADMIN_TOKEN_LEN || !t.chars().all(|c| c.is_ascii_graphic()) => {
                return Err(ConfigError {
                    var: "MESHWATCH_ADMIN_TOKEN",
                    problem: format!("must be at least {MIN_ADMIN_TOKEN_LEN} printable characters without spaces"),
                })
            }
            other => other.map(Secret::new),
        };
        let demo = match non_empty("MESHWATCH_DEMO").as_deref().map(str::trim) {
            None | Some("0") | Some("false") => None,
            Some("1") | Some("true") => Some(DemoMode::Scripted),
            Some("manual") => Some(DemoMode::Manual),
            Some(other) => {
                return Err(ConfigError {
                    var: "MESHWATCH_DEMO",
                    problem: format!("{other:?} is not 0, 1 or manual"),
                })
            }
        };
        // Read raw, not through `non_empty`: an operator who set it blank
        // meant to protect the metrics, and must hear that it does not.
        let metrics_token = match get("MESHWATCH_METRICS_TOKEN") {
            Some(t) if t.is_empty() || !t.chars().all(|c| c.is_ascii_graphic()) => {
                return Err(ConfigError {
                    var: "MESHWATCH_METRICS_TOKEN",
                    problem: "must be printable ASCII without spaces (scrapers send it as `Authorization: Bearer <token>`)".to_owned(),
                })
            }
            other => other.map(Secret::new),
        };
        let trusted_proxies = crate::auth::client_address::TrustedProxies::parse(
            &non_empty("MESHWATCH_TRUSTED_PROXIES").unwrap_or_default(),
        )
        .map_err(|problem| ConfigError {
            var: "MESHWATCH_TRUSTED_PROXIES",
            problem,
        })?;
        // Read raw too: set but blank means a key was meant and is missing.
        let secret_key = match get("MESHWATCH_SECRET_KEY") {
            Some(key) => match crate::crypto::sealing::SealingKey::parse(&key) {
                Ok(_) => Some(Secret::new(key)),
                Err(problem) => {
                    return Err(ConfigError {
                        var: "MESHWATCH_SECRET_KEY",
                        problem: problem.to_string(),
                    })
                }
            },
            None if database_url.is_postgres() => {
                return Err(ConfigError {
                    var: "MESHWATCH_SECRET_KEY",
                    problem: "is required with PostgreSQL: every replica seals subscription \
                              tokens with the same key, and there is no key file beside the \
                              database (64 hex characters, e.g. from `openssl rand -hex 32`)"
                        .to_owned(),
                })
            }
            None => None,
        };
        let public_url = non_empty("MESHWATCH_PUBLIC_URL")
            .map(|url| PublicOrigin::parse(&url))
            .transpose()
            .map_err(|problem| ConfigError {
                var: "MESHWATCH_PUBLIC_URL",
                problem,
            })?;
        // A panel other hosts can reach must know the address its
        // browsers use: cross-site checks, links and the session cookie
        // depend on it (do no harm: no panel open to the world on guesses).
        if !listen_is_loopback(&listen) && public_url.is_none() {
            return Err(ConfigError {
                var: "MESHWATCH_PUBLIC_URL",
                problem: format!(
                    "is required when MESHWATCH_LISTEN ({listen}) is not a loopback address: \
                     set it to the address browsers use, e.g. https://panel.example"
                ),
            });
        }
        // The demo prints its sign-in and API tokens to the terminal and
        // runs faults on request: it stays on this host.
        if demo.is_some() && !listen_is_loopback(&listen) {
            return Err(ConfigError {
                var: "MESHWATCH_LISTEN",
                problem: format!(
                    "{listen} is not a loopback address: the demo (MESHWATCH_DEMO) listens on \
                     127.0.0.1 or ::1 only"
                ),
            });
        }
        let replica = match non_empty("MESHWATCH_REPLICA") {
            Some(raw) => ReplicaName::parse(&raw).map_err(|problem| ConfigError {
                var: "MESHWATCH_REPLICA",
                problem,
            })?,
            None => ReplicaName::of_host(),
        };
        let smtp_url = non_empty("MESHWATCH_SMTP_URL").map(Secret::new);
        if smtp_url.is_some() && non_empty("MESHWATCH_NOTIFY_TO").is_none() {
            return Err(ConfigError {
                var: "MESHWATCH_NOTIFY_TO",
                problem:
                    "is required when MESHWATCH_SMTP_URL is set (who receives the notifications?)"
                        .to_owned(),
            });
        }
        let status_page = match non_empty("MESHWATCH_STATUS_PAGE").as_deref().map(str::trim) {
            None | Some("0") | Some("false") => false,
            Some("1") | Some("true") => true,
            Some(other) => {
                return Err(ConfigError {
                    var: "MESHWATCH_STATUS_PAGE",
                    problem: format!("{other:?} is not 0 or 1"),
                })
            }
        };
        let allow_private = match non_empty("MESHWATCH_ACTION_ALLOW_PRIVATE")
            .as_deref()
            .map(str::trim)
        {
            None | Some("0") | Some("false") => false,
            Some("1") | Some("true") => true,
            Some(other) => {
                return Err(ConfigError {
                    var: "MESHWATCH_ACTION_ALLOW_PRIVATE",
                    problem: format!("{other:?} is not 0 or 1"),
                })
            }
        };
        // The demo's own action and the one its visitors try run
        // `/bin/echo`, and nothing else, unless the host lists programs.
        let commands = non_empty("MESHWATCH_ACTION_COMMANDS")
            .or_else(|| demo.is_some().then(|| DEMO_ACTION_COMMANDS.to_owned()));
        let action_policy =
            meshwatch::actions::HostPolicy::parse(commands.as_deref(), allow_private).map_err(
                |problem| ConfigError {
                    var: "MESHWATCH_ACTION_COMMANDS",
                    problem,
                },
            )?;
        Ok(Self {
            action_policy,
            status_page,
            listen,
            database_url,
            admin_token,
            demo,
            site_root: non_empty("MESHWATCH_SITE_ROOT"),
            operator_password: non_empty("MESHWATCH_OPERATOR_PASSWORD").map(Secret::new),
            notify_to: match non_empty("MESHWATCH_NOTIFY_TO") {
                Some(to) if !to.contains('@') || to.chars().any(char::is_whitespace) => {
                    return Err(ConfigError {
                        var: "MESHWATCH_NOTIFY_TO",
                        problem: format!("{to:?} is not an email address"),
                    })
                }
                other => other,
            },
            notify_from: non_empty("MESHWATCH_NOTIFY_FROM")
                .unwrap_or_else(|| "meshwatch <meshwatch@localhost>".to_owned()),
            smtp_url,
            webhook_url: match non_empty("MESHWATCH_WEBHOOK_URL") {
                Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => {
                    return Err(ConfigError {
                        var: "MESHWATCH_WEBHOOK_URL",
                        problem: "must be an http:// or https:// URL".to_owned(),
                    })
                }
                other => other.map(Secret::new),
            },
            telegram: TelegramConfig::from_lookup(non_empty)?,
            metrics_token,
            trusted_proxies,
            secret_key,
            public_url,
            replica,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn a_panel_open_to_other_hosts_needs_its_public_url_and_the_demo_stays_on_loopback() {
        let refused = config(&[("MESHWATCH_LISTEN", "0.0.0.0:3000")]).expect_err("open");
        assert_eq!(refused.var, "MESHWATCH_PUBLIC_URL");
        let refused = config(&[("MESHWATCH_LISTEN", "192.0.2.7:3000")]).expect_err("open");
        assert_eq!(refused.var, "MESHWATCH_PUBLIC_URL");
        assert!(config(&[
            ("MESHWATCH_LISTEN", "0.0.0.0:3000"),
            ("MESHWATCH_PUBLIC_URL", "https://panel.example")
        ])
        .is_ok());
        assert!(config(&[("MESHWATCH_LISTEN", "[::1]:3000")]).is_ok());
        let refused = config(&[
            ("MESHWATCH_LISTEN", "0.0.0.0:3000"),
            ("MESHWATCH_PUBLIC_URL", "https://panel.example"),
            ("MESHWATCH_DEMO", "1"),
        ])
        .expect_err("a public demo");
        assert_eq!(refused.var, "MESHWATCH_LISTEN");
        assert!(config(&[("MESHWATCH_DEMO", "1")]).is_ok());
    }

    #[test]
    fn the_status_page_is_switched_on_with_1_and_a_typo_is_refused() {
        assert!(
            config(&[("MESHWATCH_STATUS_PAGE", "1")])
                .expect("on")
                .status_page
        );
        assert!(
            !config(&[("MESHWATCH_STATUS_PAGE", "0")])
                .expect("off")
                .status_page
        );
        let refused = config(&[("MESHWATCH_STATUS_PAGE", "yes")]).expect_err("a typo");
        assert_eq!(refused.var, "MESHWATCH_STATUS_PAGE");
    }

    #[test]
    fn defaults_need_no_variables() {
        let c = config(&[]).expect("defaults");
        assert_eq!(c.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(c.database_url.as_str(), DEFAULT_DATABASE_URL);
        assert!(c.demo.is_none() && c.admin_token.is_none());
        assert!(!c.status_page, "the public status page is off by default");
    }

    #[test]
    fn the_front_end_is_built_in_unless_a_site_root_is_named() {
        assert_eq!(config(&[]).expect("defaults").site_root, None);
        assert_eq!(
            config(&[("MESHWATCH_SITE_ROOT", " ")])
                .expect("blank")
                .site_root,
            None
        );
        assert_eq!(
            config(&[("MESHWATCH_SITE_ROOT", "target/site")])
                .expect("a directory")
                .site_root
                .as_deref(),
            Some("target/site")
        );
    }

    #[test]
    fn trusted_proxies_are_cidrs() {
        assert!(config(&[]).expect("defaults").trusted_proxies.is_empty());
        let c = config(&[("MESHWATCH_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")]).expect("valid");
        assert!(!c.trusted_proxies.is_empty());
        let err = config(&[("MESHWATCH_TRUSTED_PROXIES", "nginx")]).expect_err("a name");
        assert_eq!(err.var, "MESHWATCH_TRUSTED_PROXIES");
    }

    #[test]
    fn the_metrics_token_is_optional_and_never_shown() {
        assert!(config(&[]).expect("defaults").metrics_token.is_none());
        let c = config(&[("MESHWATCH_METRICS_TOKEN", "scrape-secret-1")]).expect("token");
        assert_eq!(
            c.metrics_token.as_ref().map(Secret::expose),
            Some("scrape-secret-1")
        );
        assert!(!format!("{c:?}").contains("scrape-secret-1"));
    }

    #[test]
    fn the_secret_key_is_hex_or_base64_of_32_bytes_and_never_shown() {
        assert!(config(&[]).expect("defaults").secret_key.is_none());
        let hex_key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        let c = config(&[("MESHWATCH_SECRET_KEY", hex_key)]).expect("hex key");
        assert_eq!(c.secret_key.as_ref().map(Secret::expose), Some(hex_key));
        assert!(!format!("{c:?}").contains(hex_key));
        let base64_key = "ABEiM0RVZneImaq7zN3u/wARIjNEVWZ3iJmqu8zd7v8=";
        assert!(config(&[("MESHWATCH_SECRET_KEY", base64_key)]).is_ok());
        for bad in [
            "",
            "  ",
            &hex_key[..62],
            "00112233445566778899aabbccddeeff",
            "not a key",
        ] {
            let err = config(&[("MESHWATCH_SECRET_KEY", bad)]).expect_err(bad);
            assert_eq!(err.var, "MESHWATCH_SECRET_KEY");
            assert!(err.problem.contains("64 hex characters"), "{err}");
        }
    }

    #[test]
    fn the_public_url_is_an_origin() {
        assert!(config(&[]).expect("defaults").public_url.is_none());
        let c = config(&[("MESHWATCH_PUBLIC_URL", "https://Panel.example:443/")]).expect("url");
        assert_eq!(
            c.public_url.map(|url| url.to_string()).as_deref(),
            Some("https://panel.example")
        );
        let err = config(&[("MESHWATCH_PUBLIC_URL", "https://panel.example/meshwatch")])
            .expect_err("a path");
        assert!(err.to_string().contains("no path"), "{err}");
    }

    #[test]
    fn postgres_needs_the_shared_secret_key() {
        let err = config(&[("MESHWATCH_DATABASE_URL", "postgres://mw@db/mw")]).expect_err("no key");
        assert_eq!(err.var, "MESHWATCH_SECRET_KEY");
        assert!(err.problem.contains("every replica"), "{err}");
        let key = "5be2c0a9d4e17f3b6a8c2d9e0f1b3a5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f70";
        let c = config(&[
            ("MESHWATCH_DATABASE_URL", "postgres://mw@db/mw"),
            ("MESHWATCH_SECRET_KEY", key),
        ])
        .expect("postgres with a key");
        assert!(c.database_url.is_postgres());
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (var, value) in [
            ("MESHWATCH_LISTEN", "localhost"),
            ("MESHWATCH_DEMO", "yes please"),
            ("MESHWATCH_ADMIN_TOKEN", "short"),
            ("MESHWATCH_DATABASE_URL", "mysql://x"),
            ("MESHWATCH_METRICS_TOKEN", ""),
            ("MESHWATCH_METRICS_TOKEN", "two words"),
            ("MESHWATCH_METRICS_TOKEN", "tab\there"),
            ("MESHWATCH_PUBLIC_URL", "panel.example"),
            ("MESHWATCH_PUBLIC_URL", "ftp://panel.example"),
            ("MESHWATCH_PUBLIC_URL", "https://panel.example/meshwatch"),
            ("MESHWATCH_PUBLIC_URL", "https://panel.example:99999"),
        ] {
            let err = config(&[(var, value)]).expect_err(var);
            assert_eq!(err.var, var);
        }
        assert_eq!(
            config(&[("MESHWATCH_DEMO", "1")]).expect("demo").demo,
            Some(DemoMode::Scripted)
        );
        assert_eq!(
            config(&[("MESHWATCH_DEMO", "manual")]).expect("demo").demo,
            Some(DemoMode::Manual)
        );
        let smtp_without_recipient = config(&[("MESHWATCH_SMTP_URL", "smtp://127.0.0.1:2525")]);
        assert_eq!(
            smtp_without_recipient.expect_err("needs a recipient").var,
            "MESHWATCH_NOTIFY_TO"
        );
        let bad_recipient = config(&[("MESHWATCH_NOTIFY_TO", "not an address")]);
        assert_eq!(
            bad_recipient.expect_err("not an address").var,
            "MESHWATCH_NOTIFY_TO"
        );
    }
}
