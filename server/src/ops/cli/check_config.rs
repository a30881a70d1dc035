//! `meshwatch-server check-config`: validates the environment as a start
//! would and says what the panel would do with it. Secrets never show:
//! tokens and keys read "set" or "not set", the SMTP URL loses its
//! credentials and the webhook its path.
//!
//! Split in two so the wording is tested without files: [`inspect`] looks
//! at what the panel would open (database, key file, front end), and
//! [`report`] turns that and the configuration into lines and problems.

use crate::crypto::secrets::Secret;
use crate::http::site::SiteSource;
use crate::ops::config::{Config, DemoMode};
use crate::ops::database_lock::DatabaseLock;
use crate::outbound::delivery::Mailer;
use crate::outbound::notify::webhook_label;
use crate::store::key_file::{read_key_file, KeySource};
use crate::store::schema::{binary_schema, NewerSchema, SchemaFit, PANEL_VERSION};
use crate::store::{database_file, offline};
use std::path::PathBuf;
use std::process::ExitCode;

/// What the panel would find on disk, beyond the variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    pub database: DatabaseFinding,
    pub key: KeyFinding,
    /// Whether the front end that would be served exists: the one built
    /// into this binary, or `MESHWATCH_SITE_ROOT`'s `pkg/`.
    pub front_end_built: bool,
    /// Whether the mailer accepts the SMTP URL and sender (the reason if
    /// not); `Ok` without SMTP.
    pub mailer: Result<(), String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseFinding {
    InMemory,
    /// A PostgreSQL database: whether it answers (or why not).
    Postgres {
        answers: Result<(), String>,
    },
    /// The file does not exist yet: the first start creates it.
    Missing {
        path: PathBuf,
    },
    Present {
        path: PathBuf,
        /// Its schema against this binary's, or why it cannot be read.
        schema: Result<SchemaFit, String>,
        /// A running panel holds its lock.
        in_use: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyFinding {
    Configured,
    PerProcess,
    File {
        path: PathBuf,
        state: KeyFileState,
    },
    /// The key's place could not be worked out (the message says why).
    Unknown(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyFileState {
    Present,
    /// Made at the first start.
    Absent,
    /// A start would stop on it.
    Unusable(String),
}

/// The lines to print, and the problems that would stop a start.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    pub lines: Vec<String>,
    pub problems: Vec<String>,
}

/// Validates, prints and answers the exit status: 0 when a start would
/// go ahead, 2 (as for a configuration error) when it would stop.
pub async fn run(config: &Config) -> ExitCode {
    let report = report(config, &inspect(config).await);
    if report.problems.is_empty() {
        println!("configuration OK (from the environment)");
    }
    for line in &report.lines {
        println!("{line}");
    }
    for problem in &report.problems {
        eprintln!("configuration error: {problem}");
    }
    if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

/// Whether the PostgreSQL server at `url` takes a connection and answers
/// a query within 5 s. Reads nothing of the panel's.
async fn postgres_answers(url: &str) -> Result<(), String> {
    use sqlx::Connection;
    let attempt = async {
        let mut conn = sqlx::PgConnection::connect(url).await?;
        sqlx::query("SELECT 1").execute(&mut conn).await?;
        conn.close().await
    };
    match tokio::time::timeout(std::time::Duration::from_secs(5), attempt).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(err)) => Err(format!("cannot reach the database: {err}")),
        Err(_) => Err("the database did not answer within 5 s".to_owned()),
    }
}

/// Looks at the files the panel would use. Reads only: makes no
/// database, key file or lock file.
pub async fn inspect(config: &Config) -> Findings {
    let database = match database_file(config.database_url.as_str()) {
        Ok(None) if config.database_url.is_postgres() => DatabaseFinding::Postgres {
            answers: postgres_answers(config.database_url.as_str()).await,
        },
        Ok(None) => DatabaseFinding::InMemory,
        Ok(Some(path)) => {
            let path = std::path::absolute(&path).unwrap_or(path);
            if path.exists() {
                let schema = match offline::schema_of(&path).await {
                    Ok(applied) => Ok(SchemaFit::of(&applied.unwrap_or_default())),
                    Err(err) => Err(err.to_string()),
                };
                DatabaseFinding::Present {
                    in_use: DatabaseLock::is_held(&path).unwrap_or(false),
                    path,
                    schema,
                }
            } else {
                DatabaseFinding::Missing { path }
            }
        }
        // `Config` has checked the URL already; this is for completeness.
        Err(err) => DatabaseFinding::Present {
            path: PathBuf::from(config.database_url.as_str()),
            schema: Err(err.to_string()),
            in_use: false,
        },
    };
    let key = match KeySource::of(config.secret_key.as_ref(), config.database_url.as_str()) {
        Ok(KeySource::Configured) => KeyFinding::Configured,
        Ok(KeySource::PerProcess) => KeyFinding::PerProcess,
        Ok(KeySource::File(path)) => {
            let path = std::path::absolute(&path).unwrap_or(path);
            let state = match read_key_file(&path) {
                Ok(Some(_)) => KeyFileState::Present,
                Ok(None) => KeyFileState::Absent,
                Err(err) => KeyFileState::Unusable(err.to_string()),
            };
            KeyFinding::File { path, state }
        }
        Err(err) => KeyFinding::Unknown(err.to_string()),
    };
    let mailer = match &config.smtp_url {
        Some(url) => Mailer::new(url, &config.notify_from)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        None => Ok(()),
    };
    Findings {
        database,
        key,
        front_end_built: match SiteSource::new(config.site_root.as_deref()) {
            SiteSource::Embedded { version } => version.is_some(),
            SiteSource::Directory(root) => root.join("pkg").is_dir(),
        },
        mailer,
    }
}

/// What a start with `config` would do, given what is on disk.
pub fn report(config: &Config, findings: &Findings) -> Report {
    let mut report = Report::default();
    let mut line = |label: &str, text: String| {
        let label = format!("{label}:");
        report.lines.push(format!("{label:<20}{text}"));
    };
    let mut problems = Vec::new();

    line("listen", format!("http://{}", config.listen));
    line(
        "public URL",
        match &config.public_url {
            Some(url) if url.is_https() => {
                format!("{url} (writes only from its pages; session in a Secure __Host- cookie)")
            }
            Some(url) => format!("{url} (writes only from its pages)"),
            None => "not set: each request's Host header decides".to_owned(),
        },
    );
    line(
        "trusted proxies",
        if config.trusted_proxies.is_empty() {
            "none: X-Forwarded-For and Forwarded are ignored".to_owned()
        } else {
            format!(
                "{}: the client address comes from their X-Forwarded-For / Forwarded",
                config.trusted_proxies
            )
        },
    );

    line(
        "database",
        match &findings.database {
            DatabaseFinding::InMemory => format!(
                "in memory ({}): everything is gone when the panel stops",
                config.database_url
            ),
            DatabaseFinding::Postgres { answers: Ok(()) } => {
                format!("PostgreSQL at {}: answers", config.database_url)
            }
            DatabaseFinding::Postgres { answers: Err(err) } => {
                problems.push(format!("MESHWATCH_DATABASE_URL: {err}"));
                format!("PostgreSQL at {}: does not answer", config.database_url)
            }
            DatabaseFinding::Missing { path } => format!(
                "{}: does not exist yet, would be created (schema {})",
                path.display(),
                binary_schema()
            ),
            DatabaseFinding::Present {
                path,
                schema,
                in_use,
            } => {
                let in_use = if *in_use {
                    "; in use by a running panel"
                } else {
                    ""
                };
                match schema {
                    Ok(fit) => {
                        if let SchemaFit::Newer(found) = fit {
                            problems.push(
                                NewerSchema {
                                    found: *found,
                                    supported: binary_schema(),
                                    this_version: PANEL_VERSION,
                                }
                                .to_string(),
                            );
                        }
                        format!("{}: {}{in_use}", path.display(), fit.describe())
                    }
                    Err(err) => {
                        problems.push(format!(
                            "MESHWATCH_DATABASE_URL: cannot read {}: {err}",
                            path.display()
                        ));
                        format!("{}: cannot be read{in_use}", path.display())
                    }
                }
            }
        },
    );

    line(
        "front end",
        match (&config.site_root, findings.front_end_built) {
            (None, true) => "built into this binary".to_owned(),
            (None, false) => "this binary carries no front end (built without \
                              scripts/build-release.sh): pages would load without their \
                              scripts and styles"
                .to_owned(),
            (Some(root), true) => format!("{root} (MESHWATCH_SITE_ROOT): built files found"),
            (Some(root), false) => format!(
                "{root} (MESHWATCH_SITE_ROOT): no built front end there (pkg/ missing): pages \
                 would load without their scripts and styles"
            ),
        },
    );

    line(
        "email",
        match (&config.smtp_url, &config.notify_to) {
            (Some(url), to) => format!(
                "{}, from {} to {}",
                smtp_summary(url),
                config.notify_from,
                to.as_deref().unwrap_or("nobody")
            ),
            (None, Some(to)) => format!(
                "to {to}, but MESHWATCH_SMTP_URL is not set: emails stay queued in the outbox"
            ),
            (None, None) => "not set: notifications stay queued in the outbox".to_owned(),
        },
    );
    if let Err(err) = &findings.mailer {
        problems.push(err.clone());
    }
    line(
        "webhook",
        match &config.webhook_url {
            Some(url) => format!(
                "{} (the URL is a secret: hidden)",
                webhook_label(url.expose())
            ),
            None => "not set".to_owned(),
        },
    );
    line(
        "telegram",
        match &config.telegram {
            Some(telegram) => format!(
                "chats {} via {} (the bot token is a secret: hidden)",
                telegram
                    .chats
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                telegram.api_url
            ),
            None => "not set".to_owned(),
        },
    );
    line(
        "metrics",
        if config.metrics_token.is_some() {
            "GET /metrics needs the bearer token (MESHWATCH_METRICS_TOKEN set)".to_owned()
        } else {
            "GET /metrics is open to anyone who reaches the panel (MESHWATCH_METRICS_TOKEN not set)"
                .to_owned()
        },
    );
    line(
        "admin API token",
        if config.admin_token.is_some() {
            "MESHWATCH_ADMIN_TOKEN set: stored hashed at start".to_owned()
        } else {
            "MESHWATCH_ADMIN_TOKEN not set: generated and printed once if the database has no \
             API token yet"
                .to_owned()
        },
    );
    line(
        "secret key",
        match &findings.key {
            KeyFinding::Configured => "MESHWATCH_SECRET_KEY set".to_owned(),
            KeyFinding::PerProcess => "a random key per run (in-memory database)".to_owned(),
            KeyFinding::File { path, state } => match state {
                KeyFileState::Present => format!(
                    "key file {} (present; back it up with the database)",
                    path.display()
                ),
                KeyFileState::Absent => format!(
                    "key file {} (absent: made at the first start; back it up then)",
                    path.display()
                ),
                KeyFileState::Unusable(err) => {
                    problems.push(err.clone());
                    format!("key file {}: unusable", path.display())
                }
            },
            KeyFinding::Unknown(err) => {
                problems.push(err.clone());
                "unknown".to_owned()
            }
        },
    );
    line(
        "demo",
        match config.demo {
            None => "off".to_owned(),
            Some(DemoMode::Scripted) => {
                "on: the demo fleet with its scripted faults (MESHWATCH_DEMO=1)".to_owned()
            }
            Some(DemoMode::Manual) => {
                "on: the demo fleet, faults on request (MESHWATCH_DEMO=manual)".to_owned()
            }
        },
    );
    line(
        "status page",
        if config.status_page {
            "on: /status and /status.json are public (MESHWATCH_STATUS_PAGE=1)".to_owned()
        } else {
            "off: /status answers 404 (MESHWATCH_STATUS_PAGE=1 serves it)".to_owned()
        },
    );
    if config.operator_password.is_some() {
        line(
            "operator password",
            "MESHWATCH_OPERATOR_PASSWORD set: used by create-operator and the demo operator"
                .to_owned(),
        );
    }
    report.problems = problems;
    report
}

/// The SMTP server without its credentials: scheme, host, port and the
/// `tls` mode.
fn smtp_summary(url: &Secret) -> String {
    let Ok(parsed) = reqwest::Url::parse(url.expose()) else {
        return "MESHWATCH_SMTP_URL set, but not a URL".to_owned();
    };
    let mut text = format!("{}://{}", parsed.scheme(), parsed.host_str().unwrap_or(""));
    if let Some(port) = parsed.port() {
        text.push_str(&format!(":{port}"));
    }
    if let Some((_, tls)) = parsed.query_pairs().find(|(name, _)| name == "tls") {
        text.push_str(&format!(" (tls={tls})"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        text.push_str(" with credentials (hidden)");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const SECRETS: [(&str, &str); 6] = [
        ("MESHWATCH_ADMIN_TOKEN", "admin-secret-token-0123"),
        ("MESHWATCH_METRICS_TOKEN", "metrics-secret-token-0123"),
        (
            "MESHWATCH_SECRET_KEY",
            "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
        ),
        ("MESHWATCH_OPERATOR_PASSWORD", "operator-secret-password"),
        (
            "MESHWATCH_WEBHOOK_URL",
            "https://hooks.example/services/T000/hook-secret-path?token=hook-secret-query",
        ),
        (
            "MESHWATCH_TELEGRAM_BOT_TOKEN",
            "123456789:AAHbotSecretTokenPart0123456789",
        ),
    ];

    fn config(vars: &[(&str, &str)]) -> Config {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned()).expect("a valid configuration")
    }

    fn fine() -> Findings {
        Findings {
            database: DatabaseFinding::Present {
                path: PathBuf::from("/var/lib/meshwatch/meshwatch.db"),
                schema: Ok(SchemaFit::Current(binary_schema())),
                in_use: false,
            },
            key: KeyFinding::File {
                path: PathBuf::from("/var/lib/meshwatch/meshwatch.key"),
                state: KeyFileState::Present,
            },
            front_end_built: true,
            mailer: Ok(()),
        }
    }

    fn text(report: &Report) -> String {
        report.lines.join("\n")
    }

    fn line<'a>(report: &'a Report, label: &str) -> &'a str {
        report
            .lines
            .iter()
            .find(|l| l.starts_with(&format!("{label}:")))
            .unwrap_or_else(|| panic!("no {label} line in {:#?}", report.lines))
    }

    #[test]
    fn the_defaults_say_what_a_start_would_do() {
        let report = report(&config(&[]), &fine());
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert_eq!(
            line(&report, "listen"),
            "listen:             http://127.0.0.1:3000"
        );
        assert!(line(&report, "public URL").contains("not set"));
        assert!(line(&report, "trusted proxies").contains("none"));
        assert!(line(&report, "database").contains("this binary's"));
        assert!(line(&report, "front end").ends_with(" built into this binary"));
        assert!(line(&report, "email").contains("not set"));
        assert!(line(&report, "webhook").ends_with("not set"));
        assert!(line(&report, "telegram").ends_with("not set"));
        assert!(line(&report, "metrics").contains("open to anyone"));
        assert!(line(&report, "admin API token").contains("not set"));
        assert!(line(&report, "secret key").contains("/var/lib/meshwatch/meshwatch.key (present"));
        assert!(line(&report, "demo").ends_with("off"));
        assert!(line(&report, "status page").contains("off: /status answers 404"));
        let on = super::report(&config(&[("MESHWATCH_STATUS_PAGE", "1")]), &fine());
        assert!(line(&on, "status page").contains("on: /status and /status.json are public"));
    }

    #[test]
    fn secrets_read_set_and_never_show() {
        let mut vars = SECRETS.to_vec();
        vars.extend([
            (
                "MESHWATCH_SMTP_URL",
                "smtps://mailer:smtp-secret-password@mail.example:465?tls=wrapper",
            ),
            ("MESHWATCH_NOTIFY_TO", "ops@example.com"),
            ("MESHWATCH_TELEGRAM_CHAT_ID", "-1001234567890"),
        ]);
        let report = report(&config(&vars), &fine());
        let shown = text(&report);
        for (var, secret) in &SECRETS {
            assert!(!shown.contains(secret), "{var} shows in:\n{shown}");
        }
        for part in [
            "hook-secret-path",
            "hook-secret-query",
            "smtp-secret-password",
            "mailer",
        ] {
            assert!(!shown.contains(part), "{part} shows in:\n{shown}");
        }
        assert!(line(&report, "admin API token").contains("MESHWATCH_ADMIN_TOKEN set"));
        assert!(line(&report, "metrics").contains("MESHWATCH_METRICS_TOKEN set"));
        assert!(line(&report, "operator password").contains("set"));
        assert_eq!(
            line(&report, "webhook"),
            "webhook:            webhook (hooks.example) (the URL is a secret: hidden)"
        );
        assert_eq!(
            line(&report, "telegram"),
            "telegram:           chats -1001234567890 via https://api.telegram.org (the bot token is a secret: hidden)"
        );
        assert!(
            line(&report, "email")
                .contains("smtps://mail.example:465 (tls=wrapper) with credentials (hidden), from"),
            "{shown}"
        );
        assert!(line(&report, "email").ends_with("to ops@example.com"));
    }

    #[test]
    fn the_secret_key_source_is_named() {
        let from_env = report(&config(&SECRETS[2..3]), &{
            let mut f = fine();
            f.key = KeyFinding::Configured;
            f
        });
        assert_eq!(
            line(&from_env, "secret key"),
            "secret key:         MESHWATCH_SECRET_KEY set"
        );

        let mut absent = fine();
        absent.key = KeyFinding::File {
            path: PathBuf::from("/srv/mw/meshwatch.key"),
            state: KeyFileState::Absent,
        };
        let report = report(&config(&[]), &absent);
        assert!(line(&report, "secret key")
            .contains("/srv/mw/meshwatch.key (absent: made at the first start"));
        assert!(report.problems.is_empty());

        let mut malformed = fine();
        malformed.key = KeyFinding::File {
            path: PathBuf::from("/srv/mw/meshwatch.key"),
            state: KeyFileState::Unusable(
                "the key file /srv/mw/meshwatch.key does not hold a key".to_owned(),
            ),
        };
        let report = super::report(&config(&[]), &malformed);
        assert_eq!(report.problems.len(), 1, "a start would stop on it");
    }

    #[test]
    fn a_new_database_would_be_created() {
        let mut findings = fine();
        findings.database = DatabaseFinding::Missing {
            path: PathBuf::from("/srv/mw/meshwatch.db"),
        };
        let report = report(&config(&[]), &findings);
        assert_eq!(
            line(&report, "database"),
            format!(
                "database:           /srv/mw/meshwatch.db: does not exist yet, would be created (schema {})",
                binary_schema()
            )
        );
        assert!(report.problems.is_empty());
    }

    #[test]
    fn an_older_database_is_migrated_and_one_in_use_is_said_so() {
        let mut findings = fine();
        findings.database = DatabaseFinding::Present {
            path: PathBuf::from("/srv/mw/meshwatch.db"),
            schema: Ok(SchemaFit::Older(20261202000001)),
            in_use: true,
        };
        let report = report(&config(&[]), &findings);
        let database = line(&report, "database");
        assert!(
            database.contains("schema 20261202000001, older: migrated to"),
            "{database}"
        );
        assert!(
            database.ends_with("in use by a running panel"),
            "{database}"
        );
        assert!(report.problems.is_empty(), "a running panel is no error");
    }

    #[test]
    fn a_database_from_a_newer_meshwatch_is_a_problem_naming_both_versions() {
        let mut findings = fine();
        findings.database = DatabaseFinding::Present {
            path: PathBuf::from("/srv/mw/meshwatch.db"),
            schema: Ok(SchemaFit::Newer(99999999999999)),
            in_use: false,
        };
        let report = report(&config(&[]), &findings);
        assert_eq!(report.problems.len(), 1);
        let problem = &report.problems[0];
        assert!(problem.contains("99999999999999"), "{problem}");
        assert!(
            problem.contains(&format!(
                "meshwatch {PANEL_VERSION} (schema {})",
                binary_schema()
            )),
            "{problem}"
        );
    }

    #[test]
    fn an_unbuilt_front_end_and_an_unreadable_database_are_told() {
        let mut findings = fine();
        findings.front_end_built = false;
        findings.database = DatabaseFinding::Present {
            path: PathBuf::from("/srv/mw/meshwatch.db"),
            schema: Err("file is not a database".to_owned()),
            in_use: false,
        };
        let report = report(
            &config(&[("MESHWATCH_SITE_ROOT", "/opt/mw/site")]),
            &findings,
        );
        assert!(line(&report, "front end")
            .contains("/opt/mw/site (MESHWATCH_SITE_ROOT): no built front end"));
        assert_eq!(report.problems.len(), 1);
        assert!(report.problems[0].contains("file is not a database"));
    }

    #[test]
    fn public_url_proxies_and_demo_are_shown() {
        let report = report(
            &config(&[
                ("MESHWATCH_PUBLIC_URL", "https://panel.example"),
                ("MESHWATCH_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8"),
                ("MESHWATCH_DEMO", "manual"),
            ]),
            &fine(),
        );
        assert!(line(&report, "public URL").contains("https://panel.example (writes only"));
        assert!(line(&report, "trusted proxies").contains("127.0.0.1/32, 10.0.0.0/8"));
        assert!(line(&report, "demo").contains("MESHWATCH_DEMO=manual"));
    }

    #[test]
    fn a_mailer_that_would_not_start_is_a_problem() {
        let mut findings = fine();
        findings.mailer = Err("MESHWATCH_NOTIFY_FROM: invalid".to_owned());
        let report = report(&config(&[]), &findings);
        assert_eq!(report.problems, ["MESHWATCH_NOTIFY_FROM: invalid"]);
    }

    #[tokio::test]
    async fn inspecting_makes_nothing_on_disk() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}/data/meshwatch.db", dir.path().display());
        let config = config(&[("MESHWATCH_DATABASE_URL", url.as_str())]);
        let findings = inspect(&config).await;
        assert!(matches!(findings.database, DatabaseFinding::Missing { .. }));
        assert!(matches!(
            findings.key,
            KeyFinding::File {
                state: KeyFileState::Absent,
                ..
            }
        ));
        assert!(
            !dir.path().join("data").exists(),
            "no directory, database or key made"
        );
    }
}
