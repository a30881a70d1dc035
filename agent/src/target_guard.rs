//! Which addresses probes may reach. The panel's fleet names the targets,
//! so a hijacked (or mistaken) panel must not turn agents into scanners of
//! their own networks: loopback, link-local, private, CGNAT, unspecified,
//! multicast and broadcast addresses are refused unless the agent's
//! configuration says `allow_private_targets = true`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use meshwatch::net_ranges::{
    first_restricted, restricted_range, RestrictedRange, RestrictedTarget,
};

/// How long before a refused entry point is warned about again.
pub const REFUSAL_WARNING_EVERY: Duration = Duration::from_secs(3600);

/// Entry points the warning limiter remembers. A panel listing more refused
/// targets than this is the flood the limiter exists for: the extra ones
/// are not warned about one by one.
const MAX_REMEMBERED_REFUSALS: usize = 4096;

/// Rate-limits the warning about each refused entry point, so a fleet of
/// refused targets probed every few seconds does not flood the log.
#[derive(Debug, Default)]
pub struct RefusalWarnings {
    last_warned: Mutex<HashMap<String, Instant>>,
}

impl RefusalWarnings {
    /// Whether a refusal of `entry_point_id` at `now` is worth a warning:
    /// the first time, then once per [`REFUSAL_WARNING_EVERY`].
    pub fn should_warn(&self, entry_point_id: &str, now: Instant) -> bool {
        let mut last_warned = self
            .last_warned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let recent = |at: &Instant| now.saturating_duration_since(*at) < REFUSAL_WARNING_EVERY;
        if let Some(at) = last_warned.get_mut(entry_point_id) {
            if recent(at) {
                return false;
            }
            *at = now;
            return true;
        }
        if last_warned.len() >= MAX_REMEMBERED_REFUSALS {
            last_warned.retain(|_, at| recent(at));
            if last_warned.len() >= MAX_REMEMBERED_REFUSALS {
                return false;
            }
        }
        last_warned.insert(entry_point_id.to_owned(), now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, SocketAddr};

    #[test]
    fn every_restricted_range_is_recognised_and_public_addresses_pass() {
        use RestrictedRange::*;
        let cases: &[(&str, Option<RestrictedRange>)] = &[
            ("127.0.0.1", Some(Loopback)),
            ("127.0.10.3", Some(Loopback)),
            ("127.255.255.255", Some(Loopback)),
            ("::1", Some(Loopback)),
            ("169.254.169.254", Some(LinkLocal)),
            ("169.254.0.1", Some(LinkLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("febf:ffff::1", Some(LinkLocal)),
            ("10.0.0.1", Some(Private)),
            ("10.255.255.255", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.254", Some(Private)),
            ("192.168.1.1", Some(Private)),
            ("fc00::1", Some(Private)),
            ("fd12:3456::1", Some(Private)),
            ("100.64.0.1", Some(SharedCgnat)),
            ("100.127.255.254", Some(SharedCgnat)),
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(Unspecified)),
            ("::", Some(Unspecified)),
            ("224.0.0.1", Some(Multicast)),
            ("239.255.255.250", Some(Multicast)),
            ("ff02::1", Some(Multicast)),
            ("255.255.255.255", Some(Broadcast)),
            // IPv6 carrying IPv4: judged by the IPv4 address.
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:10.1.2.3", Some(Private)),
            ("64:ff9b::a9fe:a9fe", Some(LinkLocal)),
            ("::ffff:203.0.113.10", None),
            ("64:ff9b::203.0.113.10", None),
            // Public, and the neighbours of the restricted ranges.
            ("203.0.113.10", None),
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("172.15.255.255", None),
            ("172.32.0.1", None),
            ("100.63.255.255", None),
            ("100.128.0.1", None),
            ("169.253.255.255", None),
            ("11.0.0.1", None),
            ("126.255.255.255", None),
            ("128.0.0.1", None),
            ("223.255.255.255", None),
            ("2001:db8::1", None),
            ("2a00:1450:4001::200e", None),
            ("fec0::1", None),
            ("fbff::1", None),
        ];
        for (address, expected) in cases {
            let ip: IpAddr = address.parse().expect("test address");
            assert_eq!(restricted_range(ip), *expected, "{address}");
        }
    }

    #[test]
    fn one_restricted_address_among_the_resolved_ones_refuses_the_target() {
        let addresses = |list: &[&str]| -> Vec<SocketAddr> {
            list.iter()
                .map(|a| SocketAddr::new(a.parse().expect("test address"), 443))
                .collect()
        };
        assert_eq!(
            first_restricted(&addresses(&["203.0.113.10", "2001:db8::1"])),
            None
        );
        assert_eq!(
            first_restricted(&addresses(&["203.0.113.10", "10.0.0.5"])),
            Some(RestrictedTarget {
                address: "10.0.0.5".parse().expect("ip"),
                range: RestrictedRange::Private,
            })
        );
        let refused = first_restricted(&addresses(&["127.0.0.1"])).expect("refused");
        assert_eq!(refused.to_string(), "127.0.0.1 is a loopback address");
    }

    #[test]
    fn each_refused_entry_point_is_warned_about_once_an_hour() {
        let warnings = RefusalWarnings::default();
        let start = Instant::now();
        assert!(warnings.should_warn("a", start));
        assert!(warnings.should_warn("b", start));
        assert!(!warnings.should_warn("a", start + Duration::from_secs(1)));
        assert!(!warnings.should_warn("a", start + REFUSAL_WARNING_EVERY / 2));
        assert!(warnings.should_warn("a", start + REFUSAL_WARNING_EVERY));
        assert!(!warnings.should_warn("a", start + REFUSAL_WARNING_EVERY * 3 / 2));
    }

    #[test]
    fn a_flood_of_refused_entry_points_is_not_warned_about_one_by_one() {
        let warnings = RefusalWarnings::default();
        let now = Instant::now();
        for i in 0..MAX_REMEMBERED_REFUSALS {
            assert!(warnings.should_warn(&format!("ep-{i}"), now));
        }
        assert!(!warnings.should_warn("one-too-many", now));
        // Once the remembered ones are old, new ones are warned about again.
        assert!(warnings.should_warn("one-too-many", now + REFUSAL_WARNING_EVERY));
    }
}
