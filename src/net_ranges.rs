//! Which addresses the panel's own outbound calls and the agents' probes
//! stay out of: loopback, link-local, private, CGNAT, unspecified,
//! multicast and broadcast (a panel or a fleet document must not turn them
//! into scanners of their own networks, or reach a cloud's metadata
//! service). Pure, so both the agent and the panel's actions use it.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// An address range outbound calls stay out of unless allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestrictedRange {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// 169.254.0.0/16 (cloud metadata services live here), fe80::/10.
    LinkLocal,
    /// 10/8, 172.16/12, 192.168/16, fc00::/7.
    Private,
    /// 100.64.0.0/10, carrier-grade NAT's shared space.
    SharedCgnat,
    /// 0.0.0.0/8 and ::; a connect to 0.0.0.0 reaches the host itself.
    Unspecified,
    /// 224.0.0.0/4, ff00::/8.
    Multicast,
    /// 255.255.255.255.
    Broadcast,
}

impl fmt::Display for RestrictedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RestrictedRange::Loopback => "loopback",
            RestrictedRange::LinkLocal => "link-local",
            RestrictedRange::Private => "private",
            RestrictedRange::SharedCgnat => "shared (CGNAT)",
            RestrictedRange::Unspecified => "unspecified",
            RestrictedRange::Multicast => "multicast",
            RestrictedRange::Broadcast => "broadcast",
        })
    }
}

/// The restricted range `ip` lies in, if any. An IPv6 address carrying an
/// IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, NAT64's `64:ff9b::a.b.c.d`) is
/// judged by the IPv4 address, since that is where it ends up.
pub fn restricted_range(ip: IpAddr) -> Option<RestrictedRange> {
    match ip {
        IpAddr::V4(v4) => restricted_v4(v4),
        IpAddr::V6(v6) => match carried_ipv4(v6) {
            Some(v4) => restricted_v4(v4),
            None => restricted_v6(v6),
        },
    }
}

fn restricted_v4(ip: Ipv4Addr) -> Option<RestrictedRange> {
    let [first, second, ..] = ip.octets();
    let range = if ip.is_loopback() {
        RestrictedRange::Loopback
    } else if first == 0 {
        RestrictedRange::Unspecified
    } else if ip.is_link_local() {
        RestrictedRange::LinkLocal
    } else if ip.is_private() {
        RestrictedRange::Private
    } else if first == 100 && (second & 0xc0) == 64 {
        RestrictedRange::SharedCgnat
    } else if ip.is_multicast() {
        RestrictedRange::Multicast
    } else if ip.is_broadcast() {
        RestrictedRange::Broadcast
    } else {
        return None;
    };
    Some(range)
}

fn restricted_v6(ip: Ipv6Addr) -> Option<RestrictedRange> {
    let first = ip.segments()[0];
    let range = if ip.is_loopback() {
        RestrictedRange::Loopback
    } else if ip.is_unspecified() {
        RestrictedRange::Unspecified
    } else if first & 0xffc0 == 0xfe80 {
        RestrictedRange::LinkLocal
    } else if first & 0xfe00 == 0xfc00 {
        RestrictedRange::Private
    } else if ip.is_multicast() {
        RestrictedRange::Multicast
    } else {
        return None;
    };
    Some(range)
}

/// The IPv4 address inside an IPv4-mapped or NAT64 (64:ff9b::/96) address.
fn carried_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let nat64 = matches!(ip.segments(), [0x64, 0xff9b, 0, 0, 0, 0, _, _]);
    nat64.then(|| {
        let [.., a, b, c, d] = ip.octets();
        Ipv4Addr::new(a, b, c, d)
    })
}

/// A resolved address a probe refused to reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestrictedTarget {
    pub address: IpAddr,
    pub range: RestrictedRange,
}

impl fmt::Display for RestrictedTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is a {} address", self.address, self.range)
    }
}

/// The first of `addresses` (everything a host resolved to) that lies in a
/// restricted range. One is enough to refuse the probe: which address the
/// connection would use is the resolver's choice, not the agent's.
pub fn first_restricted(addresses: &[SocketAddr]) -> Option<RestrictedTarget> {
    addresses.iter().find_map(|address| {
        restricted_range(address.ip()).map(|range| RestrictedTarget {
            address: address.ip(),
            range,
        })
    })
}
