//! Rules for what an operator may choose: usernames, passwords and API
//! token names. Checked the same way by the command line, the panel and the
//! tests.

/// Shortest password accepted anywhere.
pub const MIN_PASSWORD_LEN: usize = 10;

/// Longest operator username, in characters. Sign-in refuses longer ones
/// before anything else, so a huge name costs no lookup and no argon2 run,
/// and never reaches the rate limiter's memory or the log.
pub const MAX_USERNAME_LEN: usize = 64;

/// Longest API token name.
pub const MAX_TOKEN_NAME_LEN: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountError {
    #[error("The new password needs at least {MIN_PASSWORD_LEN} characters.")]
    PasswordTooShort,
    #[error("The two new passwords differ.")]
    PasswordsDiffer,
    #[error("The new password is the current one.")]
    PasswordUnchanged,
    #[error("A token name is 1 to {MAX_TOKEN_NAME_LEN} letters, digits, '-', '_' or '.'.")]
    BadTokenName,
    #[error("An operator name is 1 to {MAX_USERNAME_LEN} characters without spaces.")]
    BadUsername,
}

/// Whether a username is within [`MAX_USERNAME_LEN`]. Reads at most that
/// many characters however long the name is.
pub fn username_fits(name: &str) -> bool {
    name.chars().nth(MAX_USERNAME_LEN).is_none()
}

/// An operator's name as `create-operator` takes it: returns it trimmed.
pub fn check_username(name: &str) -> Result<&str, AccountError> {
    let name = name.trim();
    if name.is_empty() || !username_fits(name) || name.chars().any(char::is_whitespace) {
        return Err(AccountError::BadUsername);
    }
    Ok(name)
}

/// A new password, typed twice, replacing `current`.
pub fn check_new_password(current: &str, next: &str, repeat: &str) -> Result<(), AccountError> {
    if next.chars().count() < MIN_PASSWORD_LEN {
        return Err(AccountError::PasswordTooShort);
    }
    if next != repeat {
        return Err(AccountError::PasswordsDiffer);
    }
    if next == current {
        return Err(AccountError::PasswordUnchanged);
    }
    Ok(())
}

/// A token's name is how scripts' owners recognise it in the list: short,
/// and free of spaces or markup. Returns it trimmed.
pub fn check_token_name(name: &str) -> Result<&str, AccountError> {
    let name = name.trim();
    let fits = !name.is_empty() && name.chars().count() <= MAX_TOKEN_NAME_LEN;
    let plain = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if fits && plain {
        Ok(name)
    } else {
        Err(AccountError::BadTokenName)
    }
}

/// What an operator API token may do (docs/PRODUCT.md §6): `read` reads,
/// `fleet` also changes the fleet (the fleet document, servers, verifiers,
/// maintenance), `admin` also manages actions, tokens, settings and
/// connected panels. Each scope includes the ones before it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum TokenScope {
    Read,
    Fleet,
    Admin,
}

impl TokenScope {
    pub const ALL: [TokenScope; 3] = [TokenScope::Read, TokenScope::Fleet, TokenScope::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            TokenScope::Read => "read",
            TokenScope::Fleet => "fleet",
            TokenScope::Admin => "admin",
        }
    }

    pub fn from_wire(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Whether a token of this scope may do what `needed` allows.
    pub fn allows(self, needed: TokenScope) -> bool {
        self >= needed
    }

    /// What a request to the automation API needs: `path` below
    /// `/api/v1` (with or without that prefix), `reads` for GET and HEAD.
    pub fn needed_for(reads: bool, path: &str) -> TokenScope {
        let path = path.strip_prefix("/api/v1").unwrap_or(path);
        let under = |prefix: &str| path == prefix || path.starts_with(&format!("{prefix}/"));
        let admin = under("/actions")
            || under("/connectors")
            || under("/tokens")
            || (!reads && under("/settings"));
        if admin {
            TokenScope::Admin
        } else if reads {
            TokenScope::Read
        } else {
            TokenScope::Fleet
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scope_includes_the_ones_before_it() {
        use TokenScope::*;
        assert!(Admin.allows(Fleet) && Admin.allows(Read) && Fleet.allows(Read));
        assert!(!Read.allows(Fleet) && !Fleet.allows(Admin));
        for scope in TokenScope::ALL {
            assert_eq!(TokenScope::from_wire(scope.as_str()), Some(scope));
        }
    }

    #[test]
    fn only_admin_manages_actions_tokens_settings_and_connectors() {
        use TokenScope::*;
        let cases = [
            (true, "/api/v1/servers", Read),
            (true, "/servers/de-1", Read),
            (true, "/api/v1/settings", Read),
            (false, "/api/v1/settings", Admin),
            (false, "/api/v1/fleet", Fleet),
            (false, "/api/v1/servers/de-1/verifier", Fleet),
            (false, "/api/v1/maintenance", Fleet),
            (true, "/api/v1/actions", Admin),
            (false, "/api/v1/actions/runs/1/rerun", Admin),
            (true, "/actions/runs", Admin),
            (false, "/api/v1/connectors/rw", Admin),
            (true, "/api/v1/actionsx", Read),
        ];
        for (reads, path, needed) in cases {
            assert_eq!(TokenScope::needed_for(reads, path), needed, "{path}");
        }
    }

    #[test]
    fn new_passwords_are_long_typed_twice_and_new() {
        let cases = [
            (
                "old password",
                "short",
                "short",
                Err(AccountError::PasswordTooShort),
            ),
            (
                "old password",
                "new password 1",
                "new password 2",
                Err(AccountError::PasswordsDiffer),
            ),
            (
                "old password",
                "old password",
                "old password",
                Err(AccountError::PasswordUnchanged),
            ),
            ("old password", "new password", "new password", Ok(())),
            // Length counts characters, not bytes.
            ("old password", "ääääääääää", "ääääääääää", Ok(())),
            (
                "old password",
                "äääääääää",
                "äääääääää",
                Err(AccountError::PasswordTooShort),
            ),
        ];
        for (current, next, repeat, expected) in cases {
            assert_eq!(
                check_new_password(current, next, repeat),
                expected,
                "{next:?}"
            );
        }
    }

    #[test]
    fn token_names_are_short_and_plain() {
        assert_eq!(check_token_name("  ansible-prod "), Ok("ansible-prod"));
        assert_eq!(check_token_name("ci_2026.12"), Ok("ci_2026.12"));
        for bad in ["", "   ", "two words", "<b>", "a/b", &"x".repeat(65)] {
            assert_eq!(
                check_token_name(bad),
                Err(AccountError::BadTokenName),
                "{bad:?}"
            );
        }
        assert!(check_token_name(&"x".repeat(64)).is_ok());
    }

    #[test]
    fn usernames_are_at_most_64_characters_without_spaces() {
        assert_eq!(check_username(" ops "), Ok("ops"));
        let longest = "ä".repeat(MAX_USERNAME_LEN);
        assert_eq!(check_username(&longest), Ok(longest.as_str()));
        for bad in ["", "   ", "two words", &"x".repeat(MAX_USERNAME_LEN + 1)] {
            assert_eq!(
                check_username(bad),
                Err(AccountError::BadUsername),
                "{bad:?}"
            );
        }
        assert!(!username_fits(&"x".repeat(1 << 20)));
    }
}
