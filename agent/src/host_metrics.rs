//! Host metrics from /proc (through `procfs`) and statvfs (through
//! `rustix`). Every field is optional: a figure the host cannot give is left
//! out rather than guessed. Rates and CPU % need two samples, so the first
//! report after start carries totals only.

use meshwatch::agent_api::Metrics;
use procfs::{Current, CurrentSI};
use std::path::PathBuf;
use std::time::Instant;

pub struct HostSampler {
    disk_path: PathBuf,
    previous_cpu: Option<CpuTicks>,
    previous_net: Option<(u64, u64, Instant)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct CpuTicks {
    busy: u64,
    total: u64,
}

impl Default for HostSampler {
    fn default() -> Self {
        Self::new("/")
    }
}

impl HostSampler {
    /// `disk_path`: the filesystem whose usage is reported.
    pub fn new(disk_path: impl Into<PathBuf>) -> Self {
        Self {
            disk_path: disk_path.into(),
            previous_cpu: None,
            previous_net: None,
        }
    }

    /// Blocking (reads /proc): call from a blocking-capable thread.
    pub fn sample(&mut self) -> Metrics {
        let mut m = Metrics::default();
        if let Ok(stat) = procfs::KernelStats::current() {
            let t = &stat.total;
            let idle = t.idle + t.iowait.unwrap_or(0);
            let busy = t.user
                + t.nice
                + t.system
                + t.irq.unwrap_or(0)
                + t.softirq.unwrap_or(0)
                + t.steal.unwrap_or(0);
            let now = CpuTicks {
                busy,
                total: busy + idle,
            };
            m.cpu_pct = self.previous_cpu.and_then(|before| cpu_pct(before, now));
            self.previous_cpu = Some(now);
        }
        if let Ok(mem) = procfs::Meminfo::current() {
            let available = mem.mem_available.unwrap_or(mem.mem_free);
            m.mem_total_bytes = Some(mem.mem_total);
            m.mem_used_bytes = Some(mem.mem_total.saturating_sub(available));
        }
        if let Ok(fs) = rustix::fs::statvfs(&self.disk_path) {
            let total = fs.f_blocks.saturating_mul(fs.f_frsize);
            let free = fs.f_bfree.saturating_mul(fs.f_frsize);
            m.disk_total_bytes = Some(total);
            m.disk_used_bytes = Some(total.saturating_sub(free));
        }
        if let Ok(devices) = procfs::net::dev_status() {
            let (rx, tx) =
                devices
                    .values()
                    .filter(|d| d.name != "lo")
                    .fold((0u64, 0u64), |(rx, tx), d| {
                        (
                            rx.saturating_add(d.recv_bytes),
                            tx.saturating_add(d.sent_bytes),
                        )
                    });
            let now = Instant::now();
            if let Some((rx0, tx0, then)) = self.previous_net {
                let seconds = now.duration_since(then).as_secs_f64();
                m.net_rx_rate_bps = rate(rx0, rx, seconds);
                m.net_tx_rate_bps = rate(tx0, tx, seconds);
            }
            m.net_rx_bytes = Some(rx);
            m.net_tx_bytes = Some(tx);
            self.previous_net = Some((rx, tx, now));
        }
        let established = |entries: procfs::ProcResult<Vec<procfs::net::TcpNetEntry>>| {
            entries.ok().map(|v| {
                v.iter()
                    .filter(|e| e.state == procfs::net::TcpState::Established)
                    .count() as u64
            })
        };
        m.connections = match (
            established(procfs::net::tcp()),
            established(procfs::net::tcp6()),
        ) {
            (None, None) => None,
            (v4, v6) => Some(v4.unwrap_or(0) + v6.unwrap_or(0)),
        };
        m.load1 = procfs::LoadAverage::current()
            .ok()
            .map(|l| f64::from(l.one));
        m.uptime_s = procfs::Uptime::current().ok().map(|u| u.uptime as u64);
        m
    }
}

/// Busy share of the ticks between two samples, 0–100.
fn cpu_pct(before: CpuTicks, now: CpuTicks) -> Option<f64> {
    let total = now.total.checked_sub(before.total)?;
    let busy = now.busy.checked_sub(before.busy)?;
    (total > 0).then(|| (busy as f64 * 100.0 / total as f64).clamp(0.0, 100.0))
}

/// Bytes per second; `None` across a counter reset or with no time passed.
fn rate(before: u64, now: u64, seconds: f64) -> Option<f64> {
    let delta = now.checked_sub(before)?;
    (seconds > 0.0).then(|| delta as f64 / seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_share_comes_from_tick_deltas() {
        let a = CpuTicks {
            busy: 100,
            total: 1000,
        };
        let b = CpuTicks {
            busy: 150,
            total: 1200,
        };
        assert_eq!(cpu_pct(a, b), Some(25.0));
        assert_eq!(cpu_pct(a, a), None);
        assert_eq!(cpu_pct(b, a), None);
    }

    #[test]
    fn rates_survive_counter_resets() {
        assert_eq!(rate(1000, 3000, 2.0), Some(1000.0));
        assert_eq!(rate(3000, 10, 2.0), None);
        assert_eq!(rate(0, 10, 0.0), None);
    }

    #[test]
    fn a_real_sample_is_plausible_and_valid_for_the_panel() {
        let mut sampler = HostSampler::default();
        let first = sampler.sample();
        assert!(first.cpu_pct.is_none(), "no CPU % from a single sample");
        std::thread::sleep(std::time::Duration::from_millis(60));
        let second = sampler.sample();
        let total = second.mem_total_bytes.expect("memory total");
        assert!(second.mem_used_bytes.expect("memory used") <= total);
        assert!(
            second.disk_used_bytes.expect("disk used") <= second.disk_total_bytes.expect("disk")
        );
        assert!(second.uptime_s.expect("uptime") > 0);
        assert!(second.load1.expect("load") >= 0.0);
        assert!(second.connections.is_some());
        assert_eq!(second.invalid_field(), None);
    }
}
