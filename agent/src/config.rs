//! The agent's configuration: a TOML file, then `MESHWATCH_AGENT_*`
//! environment overrides (so a secret can come from the unit's environment
//! instead of the file). Every error names the field it is about.

use serde::Deserialize;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

pub const DEFAULT_CONFIG_PATH: &str = "/etc/meshwatch/agent.toml";
pub const DEFAULT_LISTENER: &str = "127.0.0.1:443";
pub const DEFAULT_SPOOL_DIR: &str = "/var/lib/meshwatch/spool";
pub const DEFAULT_PROBE_CONCURRENCY: usize = 64;
pub const DEFAULT_MAX_QUEUED_REPORTS: usize = 60;
pub const DEFAULT_CONFIG_REFRESH_S: u64 = 300;
const MAX_PROBE_CONCURRENCY: usize = 4096;

/// The file as written; every key optional so env overrides can fill gaps.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    panel_url: Option<String>,
    token: Option<String>,
    token_file: Option<PathBuf>,
    listener: Option<String>,
    service: Option<ServiceFile>,
    probe_concurrency: Option<i64>,
    probe_source: Option<String>,
    panel_ca_file: Option<PathBuf>,
    spool_dir: Option<String>,
    max_queued_reports: Option<i64>,
    config_refresh_s: Option<i64>,
    clock_offset_s: Option<i64>,
    allow_private_targets: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServiceFile {
    systemd_unit: Option<String>,
    process: Option<String>,
    command: Option<Vec<String>>,
}

/// How the agent decides whether the VPN service runs.
#[derive(Clone)]
pub enum ServiceCheck {
    /// `systemctl is-active --quiet <unit>` exits 0.
    SystemdUnit(String),
    /// A process with this name (`/proc/<pid>/comm`) exists.
    Process(String),
    /// This command (argv, no shell) exits 0 within 10 s.
    Command(Vec<String>),
    /// For an agent embedded in another program (the demo fleet): that
    /// program knows whether its service runs.
    Embedded(Arc<AtomicBool>),
}

impl fmt::Debug for ServiceCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServiceCheck::SystemdUnit(unit) => write!(f, "systemd unit {unit:?} is active"),
            ServiceCheck::Process(name) => write!(f, "a process named {name:?} runs"),
            ServiceCheck::Command(argv) => write!(f, "command {argv:?} exits 0"),
            ServiceCheck::Embedded(_) => write!(f, "the embedding program's service flag"),
        }
    }
}

/// A validated configuration.
#[derive(Clone)]
pub struct AgentSettings {
    /// Base URL of the panel, without a trailing slash.
    pub panel_url: String,
    pub token: String,
    pub listener: SocketAddr,
    pub service: ServiceCheck,
    pub probe_concurrency: usize,
    /// Local address probes leave from (multi-homed servers; the demo).
    pub probe_source: Option<IpAddr>,
    /// PEM of an extra CA trusted for the panel's certificate.
    pub panel_ca_pem: Option<Vec<u8>>,
    /// Where queued reports survive a restart; `None` keeps them in memory.
    pub spool_dir: Option<PathBuf>,
    pub max_queued_reports: usize,
    pub config_refresh: Duration,
    /// Shifts the agent's own timestamps (testing clock skew).
    pub clock_offset: chrono::Duration,
    /// Probe peers at loopback, private, link-local, CGNAT, multicast or
    /// unspecified addresses too. Off by default, so a hijacked panel
    /// cannot point agents at their own networks; labs and the demo, whose
    /// peers live on loopback, turn it on.
    pub allow_private_targets: bool,
}

impl fmt::Debug for AgentSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentSettings")
            .field("panel_url", &self.panel_url)
            .field("token", &"<redacted>")
            .field("listener", &self.listener)
            .field("service", &self.service)
            .field("probe_concurrency", &self.probe_concurrency)
            .field("probe_source", &self.probe_source)
            .field("spool_dir", &self.spool_dir)
            .field("max_queued_reports", &self.max_queued_reports)
            .field("allow_private_targets", &self.allow_private_targets)
            .finish_non_exhaustive()
    }
}

/// A configuration problem, naming the field (or the file) it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}: `{field}`: {message}")]
pub struct ConfigError {
    pub source_name: String,
    pub field: String,
    pub message: String,
}

/// Where a value came from, for error messages.
struct Origin<'a> {
    file: &'a str,
}

impl Origin<'_> {
    fn error(&self, field: &str, env: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            source_name: format!("{} (or ${env})", self.file),
            field: field.into(),
            message: message.into(),
        }
    }
}

impl AgentSettings {
    /// Reads the file (when `path` is given it must exist; the default path
    /// may be absent, leaving everything to the environment), applies the
    /// environment and validates.
    pub fn load(
        path: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let (file_name, text) = match path {
            Some(path) => (
                path.display().to_string(),
                Some(std::fs::read_to_string(path).map_err(|e| ConfigError {
                    source_name: path.display().to_string(),
                    field: "--config".into(),
                    message: format!("cannot read the configuration file: {e}"),
                })?),
            ),
            None => (
                DEFAULT_CONFIG_PATH.to_string(),
                std::fs::read_to_string(DEFAULT_CONFIG_PATH).ok(),
            ),
        };
        Self::from_parts(&file_name, text.as_deref(), env)
    }

    /// Parses `text` (the file's contents, if any) and applies `env`.
    pub fn from_parts(
        file_name: &str,
        text: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let file: FileConfig = match text {
            Some(text) => toml::from_str(text).map_err(|e| parse_error(file_name, &e))?,
            None => FileConfig::default(),
        };
        let origin = Origin { file: file_name };
        let env = |name: &str| env(name).filter(|v| !v.trim().is_empty());

        let panel_url = env("MESHWATCH_AGENT_PANEL_URL")
            .or(file.panel_url)
            .ok_or_else(|| origin.error("panel_url", "MESHWATCH_AGENT_PANEL_URL", "is required"))?;
        let panel_url = panel_url.trim().trim_end_matches('/').to_string();
        let host_given = ["http://", "https://"].iter().any(|scheme| {
            panel_url
                .strip_prefix(scheme)
                .is_some_and(|rest| !rest.is_empty())
        });
        if !host_given {
            return Err(origin.error(
                "panel_url",
                "MESHWATCH_AGENT_PANEL_URL",
                "must be an http:// or https:// URL",
            ));
        }

        let token = match (
            env("MESHWATCH_AGENT_TOKEN").or(file.token),
            env("MESHWATCH_AGENT_TOKEN_FILE")
                .map(PathBuf::from)
                .or(file.token_file),
        ) {
            (Some(token), _) => token,
            (None, Some(path)) => std::fs::read_to_string(&path).map_err(|e| {
                origin.error(
                    "token_file",
                    "MESHWATCH_AGENT_TOKEN_FILE",
                    format!("cannot read {}: {e}", path.display()),
                )
            })?,
            (None, None) => {
                return Err(origin.error(
                    "token",
                    "MESHWATCH_AGENT_TOKEN",
                    "is required (or token_file)",
                ))
            }
        };
        let token = token.trim().to_string();
        if token.is_empty() || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(origin.error(
                "token",
                "MESHWATCH_AGENT_TOKEN",
                "must be one non-empty word (the agent token the panel gave for this server)",
            ));
        }

        let listener = env("MESHWATCH_AGENT_LISTENER")
            .or(file.listener)
            .unwrap_or_else(|| DEFAULT_LISTENER.into());
        let listener: SocketAddr = listener.trim().parse().map_err(|_| {
            origin.error(
                "listener",
                "MESHWATCH_AGENT_LISTENER",
                format!("{listener:?} is not an address:port such as 127.0.0.1:443"),
            )
        })?;

        let service = service_check(&origin, file.service, &env)?;

        let probe_concurrency = number(
            &origin,
            "probe_concurrency",
            "MESHWATCH_AGENT_PROBE_CONCURRENCY",
            file.probe_concurrency,
            &env,
        )?
        .unwrap_or(DEFAULT_PROBE_CONCURRENCY as i64);
        if !(1..=MAX_PROBE_CONCURRENCY as i64).contains(&probe_concurrency) {
            return Err(origin.error(
                "probe_concurrency",
                "MESHWATCH_AGENT_PROBE_CONCURRENCY",
                format!("must be between 1 and {MAX_PROBE_CONCURRENCY}"),
            ));
        }

        let probe_source = match env("MESHWATCH_AGENT_PROBE_SOURCE").or(file.probe_source) {
            None => None,
            Some(source) => Some(source.trim().parse::<IpAddr>().map_err(|_| {
                origin.error(
                    "probe_source",
                    "MESHWATCH_AGENT_PROBE_SOURCE",
                    format!("{source:?} is not an IP address"),
                )
            })?),
        };

        let panel_ca_pem = match env("MESHWATCH_AGENT_PANEL_CA_FILE")
            .map(PathBuf::from)
            .or(file.panel_ca_file)
        {
            None => None,
            Some(path) => {
                let pem = std::fs::read(&path).map_err(|e| {
                    origin.error(
                        "panel_ca_file",
                        "MESHWATCH_AGENT_PANEL_CA_FILE",
                        format!("cannot read {}: {e}", path.display()),
                    )
                })?;
                if reqwest::Certificate::from_pem(&pem).is_err()
                    || !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----")
                {
                    return Err(origin.error(
                        "panel_ca_file",
                        "MESHWATCH_AGENT_PANEL_CA_FILE",
                        format!("{} holds no PEM certificate", path.display()),
                    ));
                }
                Some(pem)
            }
        };

        // An empty value turns the spool off (reports then live in memory).
        let spool_dir = match env("MESHWATCH_AGENT_SPOOL_DIR").or(file.spool_dir) {
            None => Some(PathBuf::from(DEFAULT_SPOOL_DIR)),
            Some(dir) if dir.trim() == "off" => None,
            Some(dir) => Some(PathBuf::from(dir.trim())),
        };

        let max_queued_reports = number(
            &origin,
            "max_queued_reports",
            "MESHWATCH_AGENT_MAX_QUEUED_REPORTS",
            file.max_queued_reports,
            &env,
        )?
        .unwrap_or(DEFAULT_MAX_QUEUED_REPORTS as i64);
        if !(1..=10_000).contains(&max_queued_reports) {
            return Err(origin.error(
                "max_queued_reports",
                "MESHWATCH_AGENT_MAX_QUEUED_REPORTS",
                "must be between 1 and 10000",
            ));
        }

        let config_refresh_s = number(
            &origin,
            "config_refresh_s",
            "MESHWATCH_AGENT_CONFIG_REFRESH_S",
            file.config_refresh_s,
            &env,
        )?
        .unwrap_or(DEFAULT_CONFIG_REFRESH_S as i64);
        if !(1..=86_400).contains(&config_refresh_s) {
            return Err(origin.error(
                "config_refresh_s",
                "MESHWATCH_AGENT_CONFIG_REFRESH_S",
                "must be between 1 and 86400 seconds",
            ));
        }

        let clock_offset_s = number(
            &origin,
            "clock_offset_s",
            "MESHWATCH_AGENT_CLOCK_OFFSET_S",
            file.clock_offset_s,
            &env,
        )?
        .unwrap_or(0);
        if clock_offset_s.abs() > 86_400 {
            return Err(origin.error(
                "clock_offset_s",
                "MESHWATCH_AGENT_CLOCK_OFFSET_S",
                "must be within ±86400 seconds",
            ));
        }

        let allow_private_targets = flag(
            &origin,
            "allow_private_targets",
            "MESHWATCH_AGENT_ALLOW_PRIVATE_TARGETS",
            file.allow_private_targets,
            &env,
        )?
        .unwrap_or(false);

        Ok(Self {
            panel_url,
            token,
            listener,
            service,
            probe_concurrency: probe_concurrency as usize,
            probe_source,
            panel_ca_pem,
            spool_dir,
            max_queued_reports: max_queued_reports as usize,
            config_refresh: Duration::from_secs(config_refresh_s as u64),
            clock_offset: chrono::Duration::seconds(clock_offset_s),
            allow_private_targets,
        })
    }

    /// Whether the token and reports cross the network unencrypted:
    /// `panel_url` is plain http:// to a host that is not loopback.
    pub fn panel_reached_in_clear(&self) -> bool {
        reached_in_clear(&self.panel_url)
    }

    /// What the agent will do, for `check-config` (the token stays hidden).
    pub fn describe(&self) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line(format!("panel:              {}", self.panel_url));
        line(format!(
            "config:             GET {}/api/agent/v1/config every {} s",
            self.panel_url,
            self.config_refresh.as_secs()
        ));
        line(format!(
            "reports:            POST {}/api/agent/v1/report every report_interval (set by the panel)",
            self.panel_url
        ));
        if self.panel_reached_in_clear() {
            line(
                "transport:          plain HTTP to a non-loopback host: the token and reports \
                 travel unencrypted (use https://)"
                    .to_string(),
            );
        }
        line(format!(
            "token:              {} characters (hidden)",
            self.token.chars().count()
        ));
        line(format!(
            "listener check:     TCP connect to {}",
            self.listener
        ));
        line(format!("service check:      {:?}", self.service));
        line(format!(
            "probes:             every peer entry point (TCP + TLS, or QUIC), {} at a time{}",
            self.probe_concurrency,
            self.probe_source
                .map(|s| format!(", from {s}"))
                .unwrap_or_default()
        ));
        line(
            if self.allow_private_targets {
                "probe targets:      any address (allow_private_targets = true)"
            } else {
                "probe targets:      public addresses only (loopback, private, link-local, CGNAT, \
                 multicast and unspecified refused)"
            }
            .to_string(),
        );
        line(format!(
            "panel CA:           {}",
            if self.panel_ca_pem.is_some() {
                "system roots + the extra CA file"
            } else {
                "system roots"
            }
        ));
        line(match &self.spool_dir {
            Some(dir) => format!(
                "queue:              up to {} reports, spooled in {} (oldest dropped first)",
                self.max_queued_reports,
                dir.display()
            ),
            None => format!(
                "queue:              up to {} reports, in memory only (oldest dropped first)",
                self.max_queued_reports
            ),
        });
        if self.clock_offset != chrono::Duration::zero() {
            line(format!(
                "clock offset:       {} s (testing only)",
                self.clock_offset.num_seconds()
            ));
        }
        out
    }
}

fn parse_error(file_name: &str, e: &toml::de::Error) -> ConfigError {
    let field = e
        .message()
        .split('`')
        .nth(1)
        .filter(|_| e.message().contains("unknown field"))
        .unwrap_or("(file)")
        .to_string();
    ConfigError {
        source_name: file_name.into(),
        field,
        message: e.message().trim().to_string(),
    }
}

fn number(
    origin: &Origin<'_>,
    field: &str,
    env_name: &str,
    from_file: Option<i64>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<i64>, ConfigError> {
    match env(env_name) {
        Some(v) => v
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| origin.error(field, env_name, format!("{v:?} is not a whole number"))),
        None => Ok(from_file),
    }
}

/// A true/false key: `true`/`false` in the file; in the environment also
/// `1`/`0`, `yes`/`no`, `on`/`off`.
fn flag(
    origin: &Origin<'_>,
    field: &str,
    env_name: &str,
    from_file: Option<bool>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<bool>, ConfigError> {
    let Some(value) = env(env_name) else {
        return Ok(from_file);
    };
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(Some(true)),
        "0" | "false" | "no" | "off" => Ok(Some(false)),
        _ => Err(origin.error(
            field,
            env_name,
            format!("{value:?} is neither true nor false (1/0)"),
        )),
    }
}

/// See [`AgentSettings::panel_reached_in_clear`]. A URL that does not parse
/// counts as in clear when it says http:// (the request would fail anyway).
fn reached_in_clear(panel_url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(panel_url) else {
        return panel_url.starts_with("http://");
    };
    url.scheme() == "http" && !url.host_str().is_some_and(is_loopback_host)
}

/// 127.0.0.0/8, ::1 (brackets as URLs write it) or `localhost`.
fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(ip) => ip.to_canonical().is_loopback(),
        Err(_) => bare.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
    }
}

fn service_check(
    origin: &Origin<'_>,
    file: Option<ServiceFile>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ServiceCheck, ConfigError> {
    const ENV: &str = "MESHWATCH_AGENT_SERVICE_UNIT";
    let from_env = [
        env("MESHWATCH_AGENT_SERVICE_UNIT").map(ServiceCheck::SystemdUnit),
        env("MESHWATCH_AGENT_SERVICE_PROCESS").map(ServiceCheck::Process),
        env("MESHWATCH_AGENT_SERVICE_COMMAND")
            .map(|c| ServiceCheck::Command(c.split_whitespace().map(String::from).collect())),
    ];
    let mut chosen: Vec<ServiceCheck> = from_env.into_iter().flatten().collect();
    if chosen.is_empty() {
        if let Some(file) = file {
            chosen.extend(file.systemd_unit.map(ServiceCheck::SystemdUnit));
            chosen.extend(file.process.map(ServiceCheck::Process));
            chosen.extend(file.command.map(ServiceCheck::Command));
        }
    }
    match chosen.len() {
        0 => Err(origin.error(
            "service",
            ENV,
            "is required: one of service.systemd_unit, service.process or service.command",
        )),
        1 => {
            let check = chosen.remove(0);
            let empty = match &check {
                ServiceCheck::SystemdUnit(s) | ServiceCheck::Process(s) => s.trim().is_empty(),
                ServiceCheck::Command(argv) => argv.first().is_none_or(|a| a.trim().is_empty()),
                ServiceCheck::Embedded(_) => false,
            };
            if empty {
                return Err(origin.error("service", ENV, "must not be empty"));
            }
            if let ServiceCheck::Process(name) = &check {
                // /proc/<pid>/comm holds at most 15 bytes.
                if name.len() > 15 {
                    return Err(origin.error(
                        "service.process",
                        "MESHWATCH_AGENT_SERVICE_PROCESS",
                        "process names are at most 15 bytes (as in /proc/<pid>/comm)",
                    ));
                }
            }
            Ok(check)
        }
        _ => Err(origin.error(
            "service",
            ENV,
            "give exactly one of service.systemd_unit, service.process or service.command",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const MINIMAL: &str = r#"
        panel_url = "https://panel.example.net/"
        token = "abc123"
        [service]
        systemd_unit = "xray"
    "#;

    fn load(text: &str, env: &[(&str, &str)]) -> Result<AgentSettings, ConfigError> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        AgentSettings::from_parts("agent.toml", Some(text), &|k| env.get(k).cloned())
    }

    #[test]
    fn a_minimal_file_gets_the_documented_defaults() {
        let s = load(MINIMAL, &[]).expect("valid");
        assert_eq!(s.panel_url, "https://panel.example.net");
        assert_eq!(s.token, "abc123");
        assert_eq!(s.listener, "127.0.0.1:443".parse().expect("addr"));
        assert!(matches!(s.service, ServiceCheck::SystemdUnit(ref u) if u == "xray"));
        assert_eq!(s.probe_concurrency, DEFAULT_PROBE_CONCURRENCY);
        assert_eq!(s.spool_dir, Some(PathBuf::from(DEFAULT_SPOOL_DIR)));
        assert_eq!(s.max_queued_reports, DEFAULT_MAX_QUEUED_REPORTS);
        assert_eq!(s.config_refresh, Duration::from_secs(300));
        assert_eq!(s.probe_source, None);
    }

    #[test]
    fn the_environment_overrides_the_file() {
        let s = load(
            MINIMAL,
            &[
                ("MESHWATCH_AGENT_PANEL_URL", "http://127.0.0.1:3000"),
                ("MESHWATCH_AGENT_TOKEN", "fromenv"),
                ("MESHWATCH_AGENT_LISTENER", "127.0.0.1:8443"),
                ("MESHWATCH_AGENT_SERVICE_PROCESS", "xray"),
                ("MESHWATCH_AGENT_PROBE_CONCURRENCY", "8"),
                ("MESHWATCH_AGENT_SPOOL_DIR", "off"),
            ],
        )
        .expect("valid");
        assert_eq!(s.panel_url, "http://127.0.0.1:3000");
        assert_eq!(s.token, "fromenv");
        assert_eq!(s.listener.port(), 8443);
        assert!(matches!(s.service, ServiceCheck::Process(ref p) if p == "xray"));
        assert_eq!(s.probe_concurrency, 8);
        assert_eq!(s.spool_dir, None);
    }

    #[test]
    fn the_token_can_come_from_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, "secret-token\n").expect("write");
        let text = format!(
            "panel_url = \"http://127.0.0.1:1\"\ntoken_file = {:?}\n[service]\ncommand = [\"true\"]\n",
            path.display().to_string()
        );
        let s = load(&text, &[]).expect("valid");
        assert_eq!(s.token, "secret-token");
        assert!(matches!(s.service, ServiceCheck::Command(ref c) if c == &["true"]));
    }

    #[test]
    fn every_bad_value_is_refused_naming_its_field() {
        let cases: &[(&str, &str)] = &[
            ("token = \"t\"\n[service]\nprocess = \"x\"", "panel_url"),
            ("panel_url = \"ftp://x\"\ntoken = \"t\"\n[service]\nprocess = \"x\"", "panel_url"),
            ("panel_url = \"http://x\"\n[service]\nprocess = \"x\"", "token"),
            ("panel_url = \"http://x\"\ntoken = \"two words\"\n[service]\nprocess = \"x\"", "token"),
            ("panel_url = \"http://x\"\ntoken = \"t\"", "service"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\n[service]\nprocess = \"x\"\nsystemd_unit = \"y\"", "service"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\n[service]\nprocess = \"a-very-long-process-name\"", "service.process"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\n[service]\ncommand = []", "service"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\nlistener = \"localhost\"\n[service]\nprocess = \"x\"", "listener"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\nprobe_concurrency = 0\n[service]\nprocess = \"x\"", "probe_concurrency"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\nprobe_source = \"here\"\n[service]\nprocess = \"x\"", "probe_source"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\nmax_queued_reports = 0\n[service]\nprocess = \"x\"", "max_queued_reports"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\npanel_ca_file = \"/nonexistent/ca.pem\"\n[service]\nprocess = \"x\"", "panel_ca_file"),
            ("panel_url = \"http://x\"\ntoken_file = \"/nonexistent/token\"\n[service]\nprocess = \"x\"", "token_file"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\nlistner = \"1.2.3.4:443\"\n[service]\nprocess = \"x\"", "listner"),
            ("panel_url = \"http://x\"\ntoken = \"t\"\nprobe_concurrency = \"many\"\n[service]\nprocess = \"x\"", "(file)"),
        ];
        for (text, field) in cases {
            let err = load(text, &[]).expect_err(text);
            assert_eq!(&err.field, field, "{text}: {err}");
            assert!(err.to_string().contains(field), "{err}");
        }
        let err = load(MINIMAL, &[("MESHWATCH_AGENT_PROBE_CONCURRENCY", "lots")])
            .expect_err("bad env number");
        assert_eq!(err.field, "probe_concurrency");
        assert!(err
            .to_string()
            .contains("MESHWATCH_AGENT_PROBE_CONCURRENCY"));
    }

    #[test]
    fn the_shipped_example_is_valid_with_the_units_token_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let token = dir.path().join("agent-token");
        std::fs::write(&token, "from-the-credential\n").expect("write");
        let example = include_str!("../../deploy/agent.toml.example");
        let s = load(
            example,
            &[("MESHWATCH_AGENT_TOKEN_FILE", &token.display().to_string())],
        )
        .expect("the example config is valid");
        assert_eq!(s.token, "from-the-credential");
        assert!(matches!(s.service, ServiceCheck::SystemdUnit(ref u) if u == "xray"));
        assert_eq!(s.listener, "127.0.0.1:443".parse().expect("addr"));
    }

    #[test]
    fn private_targets_are_refused_unless_the_file_or_the_environment_allows_them() {
        assert!(!load(MINIMAL, &[]).expect("valid").allow_private_targets);
        let allowing = format!("allow_private_targets = true\n{MINIMAL}");
        assert!(load(&allowing, &[]).expect("valid").allow_private_targets);
        for (value, allowed) in [("1", true), ("true", true), ("0", false), ("false", false)] {
            let s = load(
                &allowing,
                &[("MESHWATCH_AGENT_ALLOW_PRIVATE_TARGETS", value)],
            )
            .expect("valid");
            assert_eq!(s.allow_private_targets, allowed, "{value}");
        }
        let err = load(
            MINIMAL,
            &[("MESHWATCH_AGENT_ALLOW_PRIVATE_TARGETS", "maybe")],
        )
        .expect_err("not a flag");
        assert_eq!(err.field, "allow_private_targets");
        assert!(err
            .to_string()
            .contains("MESHWATCH_AGENT_ALLOW_PRIVATE_TARGETS"));
        let err = load(&format!("allow_private_targets = 1\n{MINIMAL}"), &[])
            .expect_err("the file takes a boolean");
        assert_eq!(err.field, "(file)");
        assert!(load(MINIMAL, &[])
            .expect("valid")
            .describe()
            .contains("public addresses only"));
    }

    #[test]
    fn only_plain_http_to_another_host_counts_as_in_clear() {
        let cases = [
            ("http://panel.example.net", true),
            ("http://203.0.113.10:3000", true),
            ("http://10.0.0.2:3000", true),
            ("http://localhost.example.net", true),
            ("https://panel.example.net", false),
            ("https://203.0.113.10", false),
            ("http://127.0.0.1:3000", false),
            ("http://127.0.10.1:3000", false),
            ("http://[::1]:3000", false),
            ("http://localhost:3000", false),
            ("http://LOCALHOST", false),
            ("http://localhost.:3000", false),
            ("http://[::ffff:127.0.0.1]:3000", false),
        ];
        for (url, in_clear) in cases {
            assert_eq!(reached_in_clear(url), in_clear, "{url}");
        }
        let s = load(
            MINIMAL,
            &[("MESHWATCH_AGENT_PANEL_URL", "http://panel.example.net")],
        )
        .expect("valid");
        assert!(s.panel_reached_in_clear());
        assert!(s.describe().contains("unencrypted"), "{}", s.describe());
        assert!(!load(MINIMAL, &[]).expect("valid").panel_reached_in_clear());
    }

    #[test]
    fn a_missing_explicit_file_is_an_error() {
        let err = AgentSettings::load(Some(Path::new("/nonexistent/agent.toml")), &|_| None)
            .expect_err("missing file");
        assert_eq!(err.field, "--config");
    }

    #[test]
    fn describe_never_shows_the_token() {
        let s = load(MINIMAL, &[]).expect("valid");
        let text = s.describe();
        assert!(!text.contains("abc123"), "{text}");
        assert!(text.contains("systemd unit \"xray\""), "{text}");
        assert!(text.contains("127.0.0.1:443"), "{text}");
        assert!(!format!("{s:?}").contains("abc123"));
    }
}
