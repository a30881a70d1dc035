//! The command line of `meshwatch-server`: which command was asked for,
//! and the commands besides serving, one module each.

pub mod backup;
pub mod check_config;
pub mod restore;
pub mod version;

use std::path::PathBuf;

pub const USAGE: &str = "usage:
  meshwatch-server                         serve the panel (configured by MESHWATCH_* variables)
  meshwatch-server create-operator <name>  create an operator, or reset their password
                                           (password from MESHWATCH_OPERATOR_PASSWORD, else prompted)
  meshwatch-server check-config            validate the configuration and print what the panel would do
  meshwatch-server backup <file>           copy the database into the new file <file>, also while the
                                           panel runs (the secret key is not in it: keep it too)
  meshwatch-server restore <file>          replace the database with the backup <file> (stop the panel
                                           first; the replaced database is kept beside it)
  meshwatch-server --version               this binary's version and database schema";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Serve,
    CreateOperator(String),
    CheckConfig,
    Backup(PathBuf),
    Restore(PathBuf),
    Version,
    Help,
}

/// A command line that is none of [`USAGE`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unexpected arguments: {0:?}")]
pub struct UsageError(Vec<String>);

impl Command {
    pub fn parse(args: &[&str]) -> Result<Self, UsageError> {
        Ok(match args {
            [] | ["serve"] => Self::Serve,
            ["create-operator", name] => Self::CreateOperator((*name).to_owned()),
            ["check-config"] => Self::CheckConfig,
            ["backup", file] => Self::Backup(PathBuf::from(*file)),
            ["restore", file] => Self::Restore(PathBuf::from(*file)),
            ["version" | "--version" | "-V"] => Self::Version,
            ["help" | "--help" | "-h"] => Self::Help,
            other => return Err(UsageError(other.iter().map(|a| a.to_string()).collect())),
        })
    }
}

/// Why `backup` and `restore` leave a PostgreSQL database alone: its own
/// tools do it, consistently, while every replica keeps running.
pub const POSTGRES_BACKUPS: &str = "the database is PostgreSQL, whose own tools back it up: \
    `pg_dump -Fc` to make a backup and `pg_restore` to restore one (see README, \"Backups\")";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_of_the_usage_parses() {
        assert_eq!(Command::parse(&[]), Ok(Command::Serve));
        assert_eq!(Command::parse(&["serve"]), Ok(Command::Serve));
        assert_eq!(
            Command::parse(&["create-operator", "ops"]),
            Ok(Command::CreateOperator("ops".to_owned()))
        );
        assert_eq!(Command::parse(&["check-config"]), Ok(Command::CheckConfig));
        assert_eq!(
            Command::parse(&["backup", "/srv/mw.db"]),
            Ok(Command::Backup(PathBuf::from("/srv/mw.db")))
        );
        assert_eq!(
            Command::parse(&["restore", "mw.db"]),
            Ok(Command::Restore(PathBuf::from("mw.db")))
        );
        for version in ["--version", "version", "-V"] {
            assert_eq!(Command::parse(&[version]), Ok(Command::Version));
        }
    }

    #[test]
    fn anything_else_is_a_usage_error() {
        let wrong: [&[&str]; 5] = [
            &["backup"],
            &["restore"],
            &["backup", "a", "b"],
            &["check-config", "--verbose"],
            &["bogus"],
        ];
        for args in wrong {
            assert!(Command::parse(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn postgres_gets_its_own_tools_named() {
        assert!(
            POSTGRES_BACKUPS.contains("pg_dump -Fc") && POSTGRES_BACKUPS.contains("pg_restore")
        );
    }
}
