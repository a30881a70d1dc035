//! The address of the client behind the request: the TCP peer, or, when
//! that peer is one of `MESHWATCH_TRUSTED_PROXIES`, the address the proxy
//! reports in `X-Forwarded-For` (or `Forwarded`). Behind a proxy every
//! connection comes from the proxy, so without this one attacker's
//! failures would lock out everyone.
//!
//! Hand-written: the extractor crates take a fixed position in the header
//! (e.g. the rightmost `X-Forwarded-For` entry), which is right only for
//! exactly one proxy; walking the chain past every trusted CIDR is a few
//! lines.

use axum::http::HeaderMap;
use ipnet::IpNet;
use std::net::IpAddr;

/// `MESHWATCH_TRUSTED_PROXIES`: the peers whose forwarding headers are
/// believed. Empty (the default): headers are ignored, as anyone can send
/// them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

/// The list as `check-config` shows it: `127.0.0.1/32, 10.0.0.0/8`.
impl std::fmt::Display for TrustedProxies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, net) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{net}")?;
        }
        Ok(())
    }
}

impl TrustedProxies {
    /// Parses a comma- or space-separated list of CIDRs or bare addresses.
    pub fn parse(list: &str) -> Result<Self, String> {
        list.split([',', ' ', '\t'])
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                item.parse::<IpNet>()
                    .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("{item:?} is not an address or CIDR"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn trusts(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client's address: walking the forwarding chain from the nearest
    /// hop, the first address that is not a trusted proxy. Entries left of
    /// it were written by the client and are not believed.
    pub fn client_address(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            if self.is_empty() && peer.is_loopback() && forwarding_headers(headers) {
                warn_of_an_untrusted_proxy(peer);
            }
            return peer;
        }
        let mut hops = forwarded_for(headers);
        let mut client = peer;
        while self.trusts(client) {
            match hops.pop() {
                Some(Some(hop)) => client = canonical(hop),
                // An unreadable hop or the chain's end: the last proxy is
                // all we know.
                Some(None) | None => break,
            }
        }
        client
    }
}

/// Whether the request carries a forwarding header.
fn forwarding_headers(headers: &HeaderMap) -> bool {
    headers.contains_key("x-forwarded-for") || headers.contains_key("forwarded")
}

/// How often the misconfiguration below is logged at most.
const UNTRUSTED_PROXY_WARNING_EVERY_S: u64 = 3600;

/// A proxy on this host forwards clients, but no proxy is trusted: every
/// client looks like 127.0.0.1, so one attacker's failed sign-ins lock
/// everyone out. Loud, but at most once an hour.
fn warn_of_an_untrusted_proxy(peer: IpAddr) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST_WARNED_S: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = LAST_WARNED_S.load(Ordering::Relaxed);
    if (last == 0 || now.saturating_sub(last) >= UNTRUSTED_PROXY_WARNING_EVERY_S)
        && LAST_WARNED_S
            .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        tracing::warn!(
            %peer,
            "a proxy on this host sends X-Forwarded-For, but MESHWATCH_TRUSTED_PROXIES is unset: \
             every client is taken for {peer} (sign-in limits lock them all out together); \
             set MESHWATCH_TRUSTED_PROXIES={peer}"
        );
    }
}

/// An IPv4 client seen through an IPv6 socket is the IPv4 address.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// The forwarding chain, client first: `X-Forwarded-For` when present, else
/// the `for=` parameters of `Forwarded` (RFC 7239). `None` marks a hop that
/// is not an address (`unknown`, an obfuscated name, garbage).
fn forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let values = |name: &str| -> Vec<String> {
        headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().map(str::to_owned).unwrap_or_default())
            .collect()
    };
    let xff = values("x-forwarded-for");
    if !xff.is_empty() {
        return xff
            .iter()
            .flat_map(|v| v.split(','))
            .map(|hop| parse_hop(hop.trim()))
            .collect();
    }
    values("forwarded")
        .iter()
        .flat_map(|v| v.split(','))
        .filter_map(|element| {
            element.split(';').find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case("for")
                    .then(|| parse_hop(value.trim().trim_matches('"')))
            })
        })
        .collect()
}

/// `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1` or `[2001:db8::1]:4711`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(address) = hop.parse() {
        return Some(address);
    }
    if let Some(rest) = hop.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    let (host, port) = hop.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    host.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("an address")
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(*name, HeaderValue::from_static(value));
        }
        h
    }

    #[test]
    fn forwarding_headers_count_only_from_trusted_proxies() {
        let proxies = TrustedProxies::parse("127.0.0.1/32, 10.1.0.0/16").expect("valid");
        let h = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(
            proxies.client_address(ip("127.0.0.1"), &h),
            ip("203.0.113.9")
        );
        assert_eq!(
            proxies.client_address(ip("198.51.100.1"), &h),
            ip("198.51.100.1"),
            "an untrusted peer's header is ignored"
        );
        assert_eq!(
            TrustedProxies::default().client_address(ip("127.0.0.1"), &h),
            ip("127.0.0.1"),
            "no trusted proxies: no header is believed"
        );
    }

    #[test]
    fn the_client_is_the_first_untrusted_hop_from_the_right() {
        let proxies = TrustedProxies::parse("127.0.0.1 10.1.0.0/16").expect("valid");
        let spoofed = headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.9, 10.1.2.3")]);
        assert_eq!(
            proxies.client_address(ip("127.0.0.1"), &spoofed),
            ip("203.0.113.9"),
            "what the client wrote itself (1.2.3.4) is not believed"
        );
        let split = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "203.0.113.9"),
        ]);
        assert_eq!(
            proxies.client_address(ip("127.0.0.1"), &split),
            ip("203.0.113.9")
        );
        let garbage = headers(&[("x-forwarded-for", "not-an-ip")]);
        assert_eq!(
            proxies.client_address(ip("127.0.0.1"), &garbage),
            ip("127.0.0.1")
        );
        let mapped = headers(&[("x-forwarded-for", "::ffff:203.0.113.9")]);
        assert_eq!(
            proxies.client_address(ip("::ffff:127.0.0.1"), &mapped),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn the_standard_forwarded_header_is_read_too() {
        let proxies = TrustedProxies::parse("::1").expect("valid");
        for (value, client) in [
            ("for=192.0.2.60;proto=https;by=203.0.113.43", "192.0.2.60"),
            ("for=\"[2001:db8:cafe::17]:4711\"", "2001:db8:cafe::17"),
            ("for=192.0.2.43, for=198.51.100.17", "198.51.100.17"),
            ("for=unknown", "::1"),
        ] {
            let h = headers(&[("forwarded", value)]);
            assert_eq!(proxies.client_address(ip("::1"), &h), ip(client), "{value}");
        }
    }

    #[test]
    fn bad_lists_are_refused_with_the_culprit() {
        assert_eq!(
            TrustedProxies::parse("").expect("empty"),
            TrustedProxies::default()
        );
        let err = TrustedProxies::parse("10.0.0.0/8, proxy.example").expect_err("a name");
        assert!(err.contains("proxy.example"), "{err}");
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
    }
}
