//! What this host lets actions do (docs/PRODUCT.md §6, do no harm): the API and
//! the panel alone can never arm a command. A command's program must be on
//! the host's allow-list (`MESHWATCH_ACTION_COMMANDS`, absolute paths;
//! unset, command actions are off), and an HTTP call may not reach
//! loopback, private or link-local addresses unless the host allows it
//! (`MESHWATCH_ACTION_ALLOW_PRIVATE=1`). A database restored from another
//! host's backup brings no command back armed: the policy is the host's,
//! read at start, never stored.

use super::{ActionError, ActionKind};
use crate::net_ranges::{restricted_range, RestrictedRange};
use std::collections::BTreeSet;
use std::net::IpAddr;

/// Programs on one allow-list at most.
pub const MAX_ALLOWED_COMMANDS: usize = 64;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPolicy {
    /// The programs commands may run; `None`: command actions are off.
    commands: Option<BTreeSet<String>>,
    /// HTTP calls may reach loopback, private and link-local addresses.
    allow_private_http: bool,
}

/// Why a stored action does not run on this host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disarmed {
    /// `MESHWATCH_ACTION_COMMANDS` is unset.
    CommandActionsOff,
    /// The program is not on the allow-list.
    NotAllowed(String),
}

impl std::fmt::Display for Disarmed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Disarmed::CommandActionsOff => f.write_str(
                "command actions are off on this host: MESHWATCH_ACTION_COMMANDS lists none",
            ),
            Disarmed::NotAllowed(program) => write!(
                f,
                "{program} is not on this host's allow-list (MESHWATCH_ACTION_COMMANDS)"
            ),
        }
    }
}

impl HostPolicy {
    /// `MESHWATCH_ACTION_COMMANDS` (comma-separated absolute paths, or
    /// unset) and `MESHWATCH_ACTION_ALLOW_PRIVATE`.
    pub fn parse(commands: Option<&str>, allow_private_http: bool) -> Result<Self, String> {
        let commands = commands
            .map(|raw| {
                let listed: BTreeSet<String> = raw
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect();
                if let Some(relative) = listed.iter().find(|p| !p.starts_with('/')) {
                    return Err(format!("{relative:?} is not an absolute path"));
                }
                if let Some(odd) = listed.iter().find(|p| p.chars().any(char::is_control)) {
                    return Err(format!("{odd:?} has control characters"));
                }
                if listed.len() > MAX_ALLOWED_COMMANDS {
                    return Err(format!("at most {MAX_ALLOWED_COMMANDS} programs"));
                }
                Ok(listed)
            })
            .transpose()?
            .filter(|listed| !listed.is_empty());
        Ok(Self {
            commands,
            allow_private_http,
        })
    }

    /// The allowed programs, when command actions are on.
    pub fn commands(&self) -> Option<&BTreeSet<String>> {
        self.commands.as_ref()
    }

    pub fn allows_private_http(&self) -> bool {
        self.allow_private_http
    }

    /// Why `kind` would not run on this host, if it would not.
    pub fn disarmed(&self, kind: &ActionKind) -> Option<Disarmed> {
        let ActionKind::Command(argv) = kind else {
            return None;
        };
        let program = argv.first().cloned().unwrap_or_default();
        match &self.commands {
            None => Some(Disarmed::CommandActionsOff),
            Some(listed) if !listed.contains(&program) => Some(Disarmed::NotAllowed(program)),
            Some(_) => None,
        }
    }

    /// Whether a new action of `kind` may be stored: its command on the
    /// allow-list, its URL not naming a restricted address (a name is
    /// judged again, resolved, at every call).
    pub fn admit(&self, kind: &ActionKind) -> Result<(), ActionError> {
        match (kind, self.disarmed(kind)) {
            (_, Some(Disarmed::CommandActionsOff)) => Err(ActionError::CommandActionsOff),
            (_, Some(Disarmed::NotAllowed(program))) => {
                Err(ActionError::CommandNotAllowed(program))
            }
            (ActionKind::Http(call), None) if !self.allow_private_http => {
                match url_host(&call.url).and_then(literal_restricted) {
                    Some(range) => Err(ActionError::PrivateTarget(range)),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

/// The host of an http(s) URL: without userinfo, port or IPv6 brackets.
pub fn url_host(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host_port.split(':').next()?
    };
    (!host.is_empty()).then_some(host)
}

/// The restricted range a literal host names (`localhost` is loopback).
fn literal_restricted(host: &str) -> Option<RestrictedRange> {
    let lower = host.to_ascii_lowercase();
    if lower == "localhost" || lower.ends_with(".localhost") {
        return Some(RestrictedRange::Loopback);
    }
    restricted_range(host.parse::<IpAddr>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::HttpCall;

    fn command(program: &str) -> ActionKind {
        ActionKind::Command(vec![program.to_owned(), "--now".to_owned()])
    }

    fn call(url: &str) -> ActionKind {
        ActionKind::Http(HttpCall {
            url: url.to_owned(),
            method: crate::actions::HttpMethod::Post,
            headers: Default::default(),
            body: None,
        })
    }

    #[test]
    fn unset_command_actions_are_off() {
        let policy = HostPolicy::parse(None, false).expect("policy");
        assert_eq!(
            policy.admit(&command("/bin/true")),
            Err(ActionError::CommandActionsOff)
        );
        assert_eq!(
            policy.disarmed(&command("/bin/true")),
            Some(Disarmed::CommandActionsOff)
        );
        assert_eq!(policy.admit(&call("https://cloud.example/hook")), Ok(()));
    }

    #[test]
    fn only_listed_programs_are_admitted_and_armed() {
        let policy =
            HostPolicy::parse(Some("/usr/local/bin/rotate, /bin/true"), false).expect("policy");
        assert_eq!(policy.admit(&command("/bin/true")), Ok(()));
        assert_eq!(policy.disarmed(&command("/usr/local/bin/rotate")), None);
        assert_eq!(
            policy.admit(&command("/bin/sh")),
            Err(ActionError::CommandNotAllowed("/bin/sh".into()))
        );
        assert_eq!(
            policy.disarmed(&command("true")),
            Some(Disarmed::NotAllowed("true".into()))
        );
    }

    #[test]
    fn the_allow_list_takes_absolute_paths_only() {
        assert!(HostPolicy::parse(Some("rotate"), false).is_err());
        assert!(HostPolicy::parse(Some("/bin/true,bin/x"), false).is_err());
        let many: Vec<String> = (0..=MAX_ALLOWED_COMMANDS)
            .map(|i| format!("/p{i}"))
            .collect();
        assert!(HostPolicy::parse(Some(&many.join(",")), false).is_err());
        let blank = HostPolicy::parse(Some(" , "), false).expect("blank");
        assert_eq!(blank.commands(), None, "a blank list is no list");
    }

    #[test]
    fn http_calls_to_restricted_literals_are_refused_unless_allowed() {
        let policy = HostPolicy::parse(None, false).expect("policy");
        use RestrictedRange::*;
        for (url, range) in [
            ("http://127.0.0.1:8080/hook", Loopback),
            ("http://169.254.169.254/latest/meta-data/", LinkLocal),
            ("https://10.0.0.5/x", Private),
            ("http://[::1]:9/x", Loopback),
            ("http://user:pw@localhost/x", Loopback),
            ("http://[::ffff:192.168.1.1]/", Private),
        ] {
            assert_eq!(
                policy.admit(&call(url)),
                Err(ActionError::PrivateTarget(range)),
                "{url}"
            );
        }
        let open = HostPolicy::parse(None, true).expect("policy");
        assert_eq!(open.admit(&call("http://127.0.0.1:8080/hook")), Ok(()));
    }

    #[test]
    fn a_url_s_host_is_read_without_userinfo_port_or_brackets() {
        assert_eq!(
            url_host("https://a:b@cloud.example:8443/x?y"),
            Some("cloud.example")
        );
        assert_eq!(url_host("http://[2001:db8::1]:80/"), Some("2001:db8::1"));
        assert_eq!(url_host("http://host#frag"), Some("host"));
        assert_eq!(url_host("ftp://host"), None);
    }
}
