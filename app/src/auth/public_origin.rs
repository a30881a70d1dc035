//! The panel's public origin (`MESHWATCH_PUBLIC_URL`): scheme, host and
//! port as browsers reach the panel, whatever the proxy in front does to
//! `Host`. Parsed once at start-up; `Origin` headers are parsed the same
//! way and compared with it.

use std::fmt;
use std::net::Ipv6Addr;

/// An `http(s)://host[:port]` origin, normalised as browsers serialize one
/// in `Origin`: lower-case scheme and host, no default port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicOrigin {
    https: bool,
    host: String,
    /// `None` for the scheme's default port (80, 443).
    port: Option<u16>,
}

impl PublicOrigin {
    /// Parses an absolute http or https URL with a host, an optional port
    /// and no path beyond `/` (the panel answers at the root of its
    /// origin), query, fragment or user. The error says what is wrong.
    pub fn parse(url: &str) -> Result<Self, String> {
        let url = url.trim();
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(format!(
                "{url:?} is not an absolute URL such as https://panel.example"
            ));
        };
        let https = match scheme.to_ascii_lowercase().as_str() {
            "https" => true,
            "http" => false,
            _ => return Err(format!("{url:?}: the scheme must be http or https")),
        };
        let (authority, path) = rest
            .find(['/', '?', '#'])
            .map_or((rest, ""), |end| rest.split_at(end));
        if !path.is_empty() && path != "/" {
            return Err(format!(
                "{url:?}: no path, query or fragment (the panel is served at the root of its address)"
            ));
        }
        if authority.contains('@') {
            return Err(format!("{url:?}: no user name or password"));
        }
        let (host, port) = split_port(authority).ok_or_else(|| {
            format!("{url:?}: the host is missing or not a host name, IPv4 or [IPv6] address")
        })?;
        let default_port = if https { 443 } else { 80 };
        let port = match port.map(str::parse::<u16>) {
            None => None,
            Some(Ok(0) | Err(_)) => return Err(format!("{url:?}: the port must be 1 to 65535")),
            Some(Ok(port)) if port == default_port => None,
            Some(Ok(port)) => Some(port),
        };
        Ok(Self { https, host, port })
    }

    /// Whether browsers reach the panel over https.
    pub fn is_https(&self) -> bool {
        self.https
    }

    /// Whether an `Origin` header names this origin.
    pub fn is(&self, origin: &str) -> bool {
        Self::parse(origin).is_ok_and(|o| o == *self)
    }
}

/// `scheme://host[:port]`: an `Origin` header's form, and the base of the
/// panel's absolute links.
impl fmt::Display for PublicOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.https { "https" } else { "http" };
        write!(f, "{scheme}://{}", self.host)?;
        match self.port {
            Some(port) => write!(f, ":{port}"),
            None => Ok(()),
        }
    }
}

/// The normalised host and the port text of `host[:port]`, or `None` when
/// the host is empty or not a name, IPv4 or bracketed IPv6 address.
fn split_port(authority: &str) -> Option<(String, Option<&str>)> {
    if let Some(bracketed) = authority.strip_prefix('[') {
        let (address, rest) = bracketed.split_once(']')?;
        // Written the way browsers serialize it, so the comparison with
        // `Origin` does not depend on how the operator spelled it.
        let address: Ipv6Addr = address.parse().ok()?;
        let port = match rest {
            "" => None,
            _ => Some(rest.strip_prefix(':')?),
        };
        return Some((format!("[{address}]"), port));
    }
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let name_like = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    name_like.then(|| (host.to_ascii_lowercase(), port))
}

#[cfg(test)]
mod tests {
    use super::PublicOrigin;

    fn origin(url: &str) -> PublicOrigin {
        PublicOrigin::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    #[test]
    fn an_origin_is_kept_as_browsers_write_it() {
        for (url, written) in [
            ("https://panel.example", "https://panel.example"),
            ("https://panel.example/", "https://panel.example"),
            ("HTTPS://Panel.Example:443/", "https://panel.example"),
            ("http://panel.example:80", "http://panel.example"),
            ("https://panel.example:8443", "https://panel.example:8443"),
            ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
            (
                "https://[2001:DB8:0:0::1]:8443",
                "https://[2001:db8::1]:8443",
            ),
            ("  https://panel.example  ", "https://panel.example"),
        ] {
            assert_eq!(origin(url).to_string(), written, "{url}");
        }
        assert!(origin("https://panel.example").is_https());
        assert!(!origin("http://panel.example").is_https());
    }

    #[test]
    fn anything_but_a_bare_http_or_https_origin_is_refused() {
        for url in [
            "",
            "panel.example",
            "//panel.example",
            "ftp://panel.example",
            "https://",
            "https://:443",
            "https://panel.example/meshwatch",
            "https://panel.example/?x=1",
            "https://panel.example#top",
            "https://ops:secret@panel.example",
            "https://panel.example:0",
            "https://panel.example:65536",
            "https://panel.example:",
            "https://panel.example:https",
            "https://pan el.example",
            "https://[not-v6]",
            "https://[::1",
            "https://[::1]x",
        ] {
            assert!(PublicOrigin::parse(url).is_err(), "{url:?}");
        }
    }

    #[test]
    fn an_origin_header_matches_on_scheme_host_and_port() {
        let public = origin("https://panel.example");
        assert!(public.is("https://panel.example"));
        assert!(public.is("https://PANEL.example:443"));
        for other in [
            "http://panel.example",
            "https://panel.example:8443",
            "https://evil.example",
            "https://panel.example.evil.example",
            "null",
            "",
        ] {
            assert!(!public.is(other), "{other:?}");
        }
    }
}
