//! `MESHWATCH_DATABASE_URL`: which backend the store runs on. SQLite (the
//! embedded default, one panel process) or PostgreSQL (any number of panel
//! replicas on one database).

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// `sqlite://path` (or `sqlite::memory:`).
    Sqlite(String),
    /// `postgres://…` or `postgresql://…`.
    Postgres(String),
}

impl DatabaseUrl {
    pub fn parse(url: &str) -> Result<Self, String> {
        let url = url.trim();
        if url.starts_with("sqlite:") {
            Ok(Self::Sqlite(url.to_owned()))
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Self::Postgres(url.to_owned()))
        } else {
            Err(format!(
                "{:?} is neither a sqlite: nor a postgres:// URL",
                redacted(url)
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Sqlite(url) | Self::Postgres(url) => url,
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }
}

/// The URL as logs and messages show it: a PostgreSQL URL may carry a
/// password (`postgres://user:secret@host/db`), which never shows.
impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redacted(self.as_str()))
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({self})")
    }
}

fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((credentials, host)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    match credentials.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_is_told_by_its_scheme() {
        assert!(matches!(
            DatabaseUrl::parse("sqlite://data/meshwatch.db"),
            Ok(DatabaseUrl::Sqlite(_))
        ));
        for url in ["postgres://mw@db/mw", "postgresql://mw@db:5433/mw"] {
            assert!(
                DatabaseUrl::parse(url).expect("a url").is_postgres(),
                "{url}"
            );
        }
        let err = DatabaseUrl::parse("mysql://u:pw@db/mw").expect_err("mysql");
        assert!(err.contains("neither") && !err.contains("pw@"), "{err}");
    }

    #[test]
    fn a_password_never_shows() {
        let url = DatabaseUrl::parse("postgres://meshwatch:s3cret@db.internal/mw").expect("a url");
        assert_eq!(url.to_string(), "postgres://meshwatch:***@db.internal/mw");
        assert!(!format!("{url:?}").contains("s3cret"));
        let plain = DatabaseUrl::parse("postgres://meshwatch@db/mw").expect("a url");
        assert_eq!(plain.to_string(), "postgres://meshwatch@db/mw");
    }
}
