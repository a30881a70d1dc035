//! A verifier's checks beyond the handshake (docs/PRODUCT.md §8).
//!
//! - **Transfer.** Fetches at least [`MIN_TRANSFER_BYTES`] through the
//!   entry point's own TLS path: the same address, the same SNI, the same
//!   TLS client as the handshake probe, then an HTTP/1.1 `GET` of the
//!   entry point's `transfer_path` such as a browser sends to the Reality
//!   camouflage or the fallback site behind it. Nothing new listens on the
//!   VPN server: the site answering is the one the entry point already
//!   fronts. A transfer that receives nothing for [`FROZEN_AFTER_S`] after
//!   its handshake is `frozen`, with the bytes it got. Bytes are counted
//!   as the connection received them (TLS records, the handshake
//!   included), as a censor counting a connection does: a freeze inside
//!   the first 16 KB record still shows how far the connection got.
//! - **Controls.** A TCP connection to each of the verifier's domestic
//!   control addresses: when none answers either, the verifier's network is
//!   in an allowlist or shutdown mode, and the panel suspends its verdicts.

use crate::probe::{result, Failure, Prober};
use chrono::Utc;
use futures_util::future::join_all;
use meshwatch::agent_api::{Peer, ProbeReport};
use meshwatch::controls::ControlAddress;
use meshwatch::evidence::{Check, ProbeError, Stage, FROZEN_AFTER_S, MIN_TRANSFER_BYTES};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

/// A connection that counts the bytes it receives.
struct Counted {
    inner: TcpStream,
    received: Arc<AtomicU64>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let read = buf.filled().len() - before;
        self.received.fetch_add(read as u64, Ordering::Relaxed);
        polled
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The longest a transfer runs: a slow transfer that still moves is no
/// freeze, and a round must end.
pub const TRANSFER_TIME_LIMIT: Duration = Duration::from_secs(30);

/// What a browser of the entry point's users says it is; the request is
/// otherwise the plainest a browser sends.
const BROWSER_USER_AGENT: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 \
    (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// One transfer check: how it ended and the bytes it received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    pub outcome: Result<u32, Failure>,
    pub bytes: u64,
}

impl Prober {
    /// The transfer check of `peer`; `None` when its address is one probes
    /// stay out of.
    pub async fn transfer(&self, peer: &Peer) -> Option<Transfer> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + self.timeout();
        let failed = |failure| {
            Some(Transfer {
                outcome: Err(failure),
                bytes: 0,
            })
        };
        let address = match self.target(&peer.host, peer.port, deadline).await {
            Ok(Ok(address)) => address,
            Ok(Err(failure)) => return failed(failure),
            Err(_) => return None,
        };
        let received = Arc::new(AtomicU64::new(0));
        let stream = match self.connect_by(address, deadline).await {
            Ok(stream) => Counted {
                inner: stream,
                received: received.clone(),
            },
            Err(failure) => return failed(failure),
        };
        let name = peer.sni.as_deref().unwrap_or(&peer.host);
        let mut tls = match self.web_handshake(stream, name, deadline).await {
            Ok(tls) => tls,
            Err(failure) => return failed(failure),
        };
        let path = peer.transfer_path.as_deref().unwrap_or("/");
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {name}\r\nUser-Agent: {BROWSER_USER_AGENT}\r\n\
             Accept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n"
        );
        let stall = Duration::from_secs(FROZEN_AFTER_S);
        let at_transfer = Failure::at(Stage::Transfer);
        match tokio::time::timeout(stall, tls.write_all(request.as_bytes())).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return failed(at_transfer(crate::probe::classify_io(&e))),
            Err(_) => return failed(at_transfer(ProbeError::Frozen)),
        }
        let limit = tokio::time::Instant::now() + TRANSFER_TIME_LIMIT;
        let bytes = || received.load(Ordering::Relaxed);
        let mut plain = 0u64;
        let mut buf = vec![0u8; 16 * 1024];
        while plain < MIN_TRANSFER_BYTES {
            let now = tokio::time::Instant::now();
            let wait = stall.min(limit.saturating_duration_since(now));
            match tokio::time::timeout(wait, tls.read(&mut buf)).await {
                // The time limit, with bytes still coming: slow, not frozen.
                Err(_) if tokio::time::Instant::now() >= limit => break,
                Err(_) => {
                    return Some(Transfer {
                        outcome: Err(at_transfer(ProbeError::Frozen)),
                        bytes: bytes(),
                    })
                }
                // The answer ended (a site smaller than the check is no
                // freeze); servers often close without close_notify.
                Ok(Ok(0)) => break,
                Ok(Err(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Ok(Ok(n)) => plain += n as u64,
                Ok(Err(e)) => {
                    return Some(Transfer {
                        outcome: Err(at_transfer(crate::probe::classify_io(&e))),
                        bytes: bytes(),
                    })
                }
            }
        }
        let elapsed = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
        Some(Transfer {
            outcome: Ok(elapsed),
            bytes: bytes(),
        })
    }

    /// A TCP connection to each control address, results stamped with the
    /// agent's clock shifted by `clock_offset`. An address probes stay out
    /// of, or that does not parse, gives no result.
    pub async fn controls(
        &self,
        controls: &[String],
        clock_offset: chrono::Duration,
    ) -> Vec<ProbeReport> {
        let checks = controls.iter().map(|raw| async move {
            let control = ControlAddress::parse(raw).ok()?;
            let at = Utc::now() + clock_offset;
            let started = Instant::now();
            let deadline = tokio::time::Instant::now() + self.timeout();
            let outcome = match self.target(control.host(), control.port(), deadline).await {
                Ok(Ok(address)) => self
                    .connect_by(address, deadline)
                    .await
                    .map(|_| u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX)),
                Ok(Err(failure)) => Err(failure),
                Err(_) => return None,
            };
            let peer = Peer {
                entry_point_id: raw.clone(),
                server_id: String::new(),
                protocol: meshwatch::fleet::Protocol::Vless,
                host: control.host().to_owned(),
                port: control.port(),
                sni: None,
                alpn: None,
                obfuscated: false,
                transfer_path: None,
                indirect: false,
            };
            Some(result(&peer, at, Check::Control, outcome, None))
        });
        join_all(checks).await.into_iter().flatten().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{LabListener, PathFilter};
    use crate::probe::RoundPlan;
    use meshwatch::fleet::Protocol;
    use std::net::IpAddr;

    const SNI: &str = "www.example.com";
    const CONTROL_SNI: &str = "ya.ru";

    fn localhost() -> IpAddr {
        IpAddr::from([127, 0, 0, 1])
    }

    fn prober() -> Prober {
        Prober::new(Duration::from_secs(2), None).allowing_private_targets(true)
    }

    fn peer(port: u16) -> Peer {
        Peer {
            entry_point_id: "ep".into(),
            server_id: "s".into(),
            protocol: Protocol::Vless,
            host: "127.0.0.1".into(),
            port,
            sni: Some(SNI.into()),
            alpn: None,
            obfuscated: false,
            transfer_path: Some("/big.bin".into()),
            indirect: false,
        }
    }

    async fn lab() -> (LabListener, PathFilter) {
        let filter = PathFilter::new();
        let lab = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), filter.clone())
            .await
            .expect("listener");
        (lab, filter)
    }

    /// A loopback port nothing listens on (it was bound and let go).
    fn closed_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port()
    }

    fn plan(transfer_all: bool) -> RoundPlan {
        RoundPlan {
            control_sni: Some(CONTROL_SNI.into()),
            transfer_all,
            ..RoundPlan::default()
        }
    }

    fn of(results: &[ProbeReport], check: Check) -> Vec<ProbeReport> {
        results
            .iter()
            .filter(|r| r.check == check)
            .cloned()
            .collect()
    }

    #[tokio::test]
    async fn a_transfer_through_the_entry_point_fetches_what_the_check_needs() {
        let (lab, _filter) = lab().await;
        let transfer = prober()
            .transfer(&peer(lab.address().port()))
            .await
            .expect("made");
        assert!(transfer.outcome.is_ok(), "{transfer:?}");
        assert!(transfer.bytes >= MIN_TRANSFER_BYTES, "{}", transfer.bytes);
    }

    #[tokio::test]
    async fn a_transfer_that_stops_after_16_kb_is_frozen_with_its_bytes() {
        let (lab, filter) = lab().await;
        filter.freeze_after(lab.address(), localhost(), 16 * 1024);
        let transfer = prober()
            .transfer(&peer(lab.address().port()))
            .await
            .expect("made");
        assert_eq!(
            transfer.outcome.map_err(|f| (f.error, f.stage)),
            Err((ProbeError::Frozen, Stage::Transfer))
        );
        // The 16 KB of the answer and the handshake before them.
        assert!(
            (16 * 1024..24 * 1024).contains(&transfer.bytes),
            "{}",
            transfer.bytes
        );
    }

    #[tokio::test]
    async fn a_filtered_sni_fails_at_tls_and_the_control_sni_answers() {
        let (lab, filter) = lab().await;
        filter.block_sni(lab.address(), localhost(), SNI);
        let results = prober()
            .round_with(
                &[peer(lab.address().port())],
                1,
                chrono::Duration::zero(),
                &plan(false),
            )
            .await;
        let handshake = &of(&results, Check::Handshake)[0];
        assert!(!handshake.ok);
        assert_eq!(handshake.stage, Some(Stage::Tls));
        let control = of(&results, Check::ControlSni);
        assert_eq!(control.len(), 1, "{results:?}");
        assert!(control[0].ok, "the same address answers the control SNI");
        assert!(
            of(&results, Check::Transfer).is_empty(),
            "not a transfer round"
        );
    }

    #[tokio::test]
    async fn a_healthy_entry_point_gets_no_control_retry_and_its_transfer_on_transfer_rounds() {
        let (lab, _filter) = lab().await;
        let results = prober()
            .round_with(
                &[peer(lab.address().port())],
                1,
                chrono::Duration::zero(),
                &plan(true),
            )
            .await;
        assert!(of(&results, Check::Handshake)[0].ok);
        assert!(of(&results, Check::ControlSni).is_empty());
        let transfer = &of(&results, Check::Transfer)[0];
        assert!(transfer.ok);
        assert!(transfer.bytes.is_some_and(|b| b >= MIN_TRANSFER_BYTES));
    }

    #[tokio::test]
    async fn a_refused_port_fails_at_tcp_with_no_control_retry() {
        let results = prober()
            .round_with(
                &[peer(closed_port())],
                1,
                chrono::Duration::zero(),
                &plan(false),
            )
            .await;
        assert_eq!(results.len(), 1, "{results:?}");
        assert_eq!(results[0].stage, Some(Stage::Tcp));
        assert_eq!(results[0].error, Some(ProbeError::Refused));
    }

    #[tokio::test]
    async fn controls_are_reached_by_tcp_and_named_by_their_address() {
        let closed = closed_port();
        let (open, _filter) = lab().await;
        let controls = vec![open.address().to_string(), format!("127.0.0.1:{closed}")];
        let results = prober().controls(&controls, chrono::Duration::zero()).await;
        assert_eq!(results.len(), 2);
        assert!(results.iter().all(|r| r.check == Check::Control));
        let by = |id: &str| results.iter().find(|r| r.entry_point_id == id).expect(id);
        assert!(by(&controls[0]).ok);
        assert_eq!(by(&controls[1]).error, Some(ProbeError::Refused));
    }

    #[test]
    fn transfers_run_every_nth_round_and_after_a_freeze_on_tls_entry_points_only() {
        let checks = meshwatch::agent_api::VerifierChecks {
            control_sni: None,
            controls: vec![],
            transfer_every: 4,
        };
        let none = Default::default();
        let tls = peer(443);
        assert!(RoundPlan::for_round(Some(&checks), 0, &none).transfers(&tls));
        assert!(!RoundPlan::for_round(Some(&checks), 1, &none).transfers(&tls));
        assert!(RoundPlan::for_round(Some(&checks), 4, &none).transfers(&tls));
        let frozen = std::collections::HashSet::from(["ep".to_owned()]);
        assert!(RoundPlan::for_round(Some(&checks), 1, &frozen).transfers(&tls));
        let quic = Peer {
            protocol: Protocol::Hysteria2,
            ..tls.clone()
        };
        assert!(!RoundPlan::for_round(Some(&checks), 0, &none).transfers(&quic));
        assert!(
            !RoundPlan::for_round(None, 0, &none).transfers(&tls),
            "not a verifier"
        );
    }
}
