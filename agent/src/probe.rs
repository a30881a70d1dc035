//! Mesh probes: reach a peer's entry point the way a user's app would — a
//! TCP connect, then a TLS handshake with the entry point's SNI where the
//! protocol speaks TLS; for the QUIC protocols a QUIC handshake with the
//! entry point's SNI and the app's ALPN. What a blocked address breaks is
//! *reachability*, so the handshakes accept any certificate (an unknown CA
//! is not a failure) while still checking that the server holds the key it
//! presents.
//!
//! Targets are resolved first and refused (not probed, no result) when any
//! address lies in a range [`target_guard`](super::target_guard) keeps
//! probes out of, unless the configuration allows private targets.

use super::target_guard::{self, RefusalWarnings, RestrictedTarget};
use chrono::Utc;
use futures_util::future::join_all;
use meshwatch::agent_api::VerifierChecks;
use meshwatch::agent_api::{Peer, ProbeReport};
use meshwatch::evidence::{Check, ProbeError, Stage};
use meshwatch::fleet::Protocol;
use quinn::crypto::rustls::QuicClientConfig;
use quinn::udp::{RecvMeta, Transmit};
use quinn::{AsyncUdpSocket, ConnectError, ConnectionError, TransportErrorCode, UdpPoller};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{Interest, ReadBuf};
use tokio::net::{TcpSocket, TcpStream, UdpSocket};
use tokio::sync::watch;
use tokio_rustls::TlsConnector;

/// How an entry point is probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// TCP connect only (Shadowsocks; VMess/VLESS without TLS).
    Tcp,
    /// TCP connect, then a TLS handshake.
    TcpTls,
    /// A QUIC handshake over UDP (Hysteria2, TUIC): TLS 1.3 with the entry
    /// point's SNI and the ALPN the protocol's apps offer.
    Quic,
}

/// What QUIC apps offer when nothing else is set: Hysteria2 clients always
/// speak `h3`, and it is TUIC's usual choice.
const DEFAULT_ALPN: &str = "h3";

pub fn method(protocol: Protocol, sni: Option<&str>) -> Method {
    match protocol {
        Protocol::Trojan => Method::TcpTls,
        Protocol::Vless | Protocol::Vmess if sni.is_some() => Method::TcpTls,
        Protocol::Vless | Protocol::Vmess | Protocol::Shadowsocks => Method::Tcp,
        Protocol::Hysteria2 | Protocol::Tuic => Method::Quic,
    }
}

/// The ALPN protocols a QUIC entry point's app offers: `h3` for Hysteria2
/// (its apps send nothing else); TUIC's are the entry point's own
/// (`params.alpn`, which the panel passes on), `h3` when it sets none.
pub fn quic_alpn(peer: &Peer) -> Vec<Vec<u8>> {
    let configured = match peer.protocol {
        Protocol::Tuic => peer.alpn.as_deref().unwrap_or_default(),
        _ => &[],
    };
    if configured.is_empty() {
        vec![DEFAULT_ALPN.as_bytes().to_vec()]
    } else {
        configured.iter().map(|p| p.as_bytes().to_vec()).collect()
    }
}

/// How and where a probe failed (docs/API.md "Block kinds": the stage
/// tells an address block from SNI filtering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failure {
    pub error: ProbeError,
    pub stage: Stage,
}

impl Failure {
    pub fn at(stage: Stage) -> impl Fn(ProbeError) -> Failure {
        move |error| Failure { error, stage }
    }
}

/// What became of one entry point's probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeAttempt {
    /// The probe was made: the latency in ms, or how it failed.
    Made(Result<u32, Failure>),
    /// Not made: the host resolves to an address probes stay out of. This
    /// says nothing about the peer, so it is not reported at all.
    Skipped(RestrictedTarget),
}

/// Probes peers; cheap to clone (the TLS configurations are shared).
#[derive(Clone)]
pub struct Prober {
    tls: TlsConnector,
    /// The same TLS client offering `http/1.1`, for transfer checks.
    web: TlsConnector,
    /// QUIC's TLS 1.3 client without ALPN: each probe adds its entry
    /// point's.
    quic: Arc<rustls::ClientConfig>,
    timeout: Duration,
    source: Option<IpAddr>,
    /// `allow_private_targets`: loopback, private, link-local… addresses
    /// may be probed (labs, the demo, a fleet on a private network).
    allow_private_targets: bool,
    /// Shared by clones, so a refused entry point is warned about once per
    /// period however many rounds refuse it.
    refusal_warnings: Arc<RefusalWarnings>,
}

impl Prober {
    /// A prober that refuses restricted targets (see
    /// [`allowing_private_targets`](Self::allowing_private_targets)).
    pub fn new(timeout: Duration, source: Option<IpAddr>) -> Self {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let client = |versions: &[&'static rustls::SupportedProtocolVersion]| {
            rustls::ClientConfig::builder_with_provider(provider.clone())
                .with_protocol_versions(versions)
                .map(|b| {
                    b.dangerous()
                        .with_custom_certificate_verifier(Arc::new(AnyCertificate(
                            provider.clone(),
                        )))
                        .with_no_client_auth()
                })
                // The ring provider supports TLS 1.2 and 1.3; should that
                // ever change, probing without TLS would report wrong
                // results.
                .unwrap_or_else(|e| panic!("rustls cannot build a client: {e}"))
        };
        let mut web = client(rustls::DEFAULT_VERSIONS);
        web.alpn_protocols = vec![b"http/1.1".to_vec()];
        Self {
            tls: TlsConnector::from(Arc::new(client(rustls::DEFAULT_VERSIONS))),
            web: TlsConnector::from(Arc::new(web)),
            quic: Arc::new(client(&[&rustls::version::TLS13])),
            timeout,
            source,
            allow_private_targets: false,
            refusal_warnings: Arc::default(),
        }
    }

    /// `allow`: probe restricted targets too (`allow_private_targets`).
    pub fn allowing_private_targets(mut self, allow: bool) -> Self {
        self.allow_private_targets = allow;
        self
    }

    /// The same prober with another probe timeout (a new configuration);
    /// the TLS clients and the refusal warnings carry over.
    pub fn with_timeout(&self, timeout: Duration) -> Self {
        Self {
            timeout,
            ..self.clone()
        }
    }

    /// One probe of every peer, at most `concurrency` at a time.
    /// Results are stamped with the agent's clock shifted by `clock_offset`.
    pub async fn round(
        &self,
        peers: &[Peer],
        concurrency: usize,
        clock_offset: chrono::Duration,
    ) -> Vec<ProbeReport> {
        self.round_with(peers, concurrency, clock_offset, &RoundPlan::default())
            .await
    }

    /// [`Prober::round`] with a verifier's checks of `plan` (§8): the
    /// control-SNI retries, this round's transfers and the control addresses.
    pub async fn round_with(
        &self,
        peers: &[Peer],
        concurrency: usize,
        clock_offset: chrono::Duration,
        plan: &RoundPlan,
    ) -> Vec<ProbeReport> {
        let next = AtomicUsize::new(0);
        let workers = (0..concurrency.clamp(1, peers.len().max(1)))
            .map(|_| self.worker(peers, &next, clock_offset, plan));
        let (probes, controls) = tokio::join!(
            join_all(workers),
            self.controls(&plan.controls, clock_offset)
        );
        probes.into_iter().flatten().chain(controls).collect()
    }

    /// Takes the next unprobed peer until none is left: `concurrency` of
    /// these share a round, which bounds the connections in flight.
    async fn worker(
        &self,
        peers: &[Peer],
        next: &AtomicUsize,
        clock_offset: chrono::Duration,
        plan: &RoundPlan,
    ) -> Vec<ProbeReport> {
        let mut results = Vec::new();
        while let Some(peer) = peers.get(next.fetch_add(1, Ordering::Relaxed)) {
            if peer.obfuscated {
                continue;
            }
            let at = Utc::now() + clock_offset;
            let outcome = match self.probe(peer).await {
                ProbeAttempt::Made(outcome) => outcome,
                ProbeAttempt::Skipped(target) => {
                    self.note_refusal(peer, &target);
                    continue;
                }
            };
            let failed_after_connect = outcome.is_err_and(|f| f.stage == Stage::Tls);
            results.push(result(peer, at, Check::Handshake, outcome, None));
            // §8: the handshake with the entry point's SNI failed once TCP
            // had connected; the same address with the control SNI tells
            // SNI filtering from a server that fails every handshake.
            if let (true, Some(control)) = (failed_after_connect, &plan.control_sni) {
                let at = Utc::now() + clock_offset;
                if let ProbeAttempt::Made(outcome) = self.probe_as(peer, Some(control)).await {
                    results.push(result(peer, at, Check::ControlSni, outcome, None));
                }
            }
            if plan.transfers(peer) {
                let at = Utc::now() + clock_offset;
                if let Some(transfer) = self.transfer(peer).await {
                    let bytes = Some(transfer.bytes);
                    results.push(result(peer, at, Check::Transfer, transfer.outcome, bytes));
                }
            }
        }
        results
    }

    /// Resolves the peer's host, refuses restricted targets, then probes
    /// the first address (latency in ms on success).
    pub async fn probe(&self, peer: &Peer) -> ProbeAttempt {
        self.probe_as(peer, None).await
    }

    /// [`Prober::probe`], with `sni` in place of the entry point's own
    /// (the verifier's control SNI) when given.
    async fn probe_as(&self, peer: &Peer, sni: Option<&str>) -> ProbeAttempt {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + self.timeout;
        let address = match self.target(&peer.host, peer.port, deadline).await {
            Ok(Ok(address)) => address,
            Ok(Err(failure)) => return ProbeAttempt::Made(Err(failure)),
            Err(target) => return ProbeAttempt::Skipped(target),
        };
        let reached = self.reach(peer, address, deadline, sni).await;
        ProbeAttempt::Made(
            reached.map(|()| u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX)),
        )
    }

    /// The address a probe of `host` goes to: the first it resolves to,
    /// unless any lies where probes stay out (`Err`).
    pub(crate) async fn target(
        &self,
        host: &str,
        port: u16,
        deadline: tokio::time::Instant,
    ) -> Result<Result<SocketAddr, Failure>, RestrictedTarget> {
        let dns = Failure::at(Stage::Tcp);
        let addresses = match tokio::time::timeout_at(deadline, resolve(host, port)).await {
            Ok(Ok(addresses)) => addresses,
            Ok(Err(e)) => return Ok(Err(dns(e))),
            Err(_) => return Ok(Err(dns(ProbeError::Timeout))),
        };
        if !self.allow_private_targets {
            if let Some(target) = target_guard::first_restricted(&addresses) {
                return Err(target);
            }
        }
        Ok(addresses.first().copied().ok_or(dns(ProbeError::DnsError)))
    }

    /// A refused target is the panel's doing (a mistake, or a hijacked
    /// panel pointing agents at their own networks), not the peer's
    /// failure: no result goes out, and the log says so now and then.
    fn note_refusal(&self, peer: &Peer, target: &RestrictedTarget) {
        if self
            .refusal_warnings
            .should_warn(&peer.entry_point_id, Instant::now())
        {
            tracing::warn!(
                entry_point = %peer.entry_point_id,
                server = %peer.server_id,
                host = %peer.host,
                "probe refused, entry point not probed: {target} \
                 (set allow_private_targets = true to probe such addresses)"
            );
        } else {
            tracing::debug!(
                entry_point = %peer.entry_point_id,
                "probe refused, entry point not probed: {target}"
            );
        }
    }

    /// Connects to `address` (and shakes hands) the way the peer's
    /// protocol does, within `deadline`.
    async fn reach(
        &self,
        peer: &Peer,
        address: SocketAddr,
        deadline: tokio::time::Instant,
        sni: Option<&str>,
    ) -> Result<(), Failure> {
        let how = method(peer.protocol, peer.sni.as_deref());
        let name = sni.or(peer.sni.as_deref()).unwrap_or(&peer.host);
        if how == Method::Quic {
            let quic = Failure::at(Stage::Quic);
            tokio::time::timeout_at(deadline, self.quic_handshake(peer, address, name))
                .await
                .map_err(|_| quic(ProbeError::Timeout))?
                .map_err(quic)?;
        } else {
            let stream = self.connect_by(address, deadline).await?;
            if how == Method::TcpTls {
                self.tls_handshake(stream, name, deadline).await?;
            }
        }
        Ok(())
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The handshake of a transfer check: the probe's TLS client, offering
    /// HTTP/1.1 as a browser fetching one file would.
    pub(crate) async fn web_handshake<S>(
        &self,
        stream: S,
        name: &str,
        deadline: tokio::time::Instant,
    ) -> Result<tokio_rustls::client::TlsStream<S>, Failure>
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        self.tls_handshake_with(&self.web, stream, name, deadline)
            .await
    }

    /// A TCP connection to `address` within `deadline`.
    pub(crate) async fn connect_by(
        &self,
        address: SocketAddr,
        deadline: tokio::time::Instant,
    ) -> Result<TcpStream, Failure> {
        let tcp = Failure::at(Stage::Tcp);
        tokio::time::timeout_at(deadline, self.connect(address))
            .await
            .map_err(|_| tcp(ProbeError::Timeout))?
            .map_err(|e| tcp(classify_io(&e)))
    }

    /// The TLS handshake an app makes on `stream`, with SNI `name`.
    pub(crate) async fn tls_handshake(
        &self,
        stream: TcpStream,
        name: &str,
        deadline: tokio::time::Instant,
    ) -> Result<tokio_rustls::client::TlsStream<TcpStream>, Failure> {
        self.tls_handshake_with(&self.tls, stream, name, deadline)
            .await
    }

    pub(crate) async fn tls_handshake_with<S>(
        &self,
        connector: &TlsConnector,
        stream: S,
        name: &str,
        deadline: tokio::time::Instant,
    ) -> Result<tokio_rustls::client::TlsStream<S>, Failure>
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        let tls = Failure::at(Stage::Tls);
        let name = ServerName::try_from(name.to_string()).map_err(|_| tls(ProbeError::TlsError))?;
        tokio::time::timeout_at(deadline, connector.connect(name, stream))
            .await
            .map_err(|_| tls(ProbeError::Timeout))?
            .map_err(|e| tls(classify_tls(&e)))
    }

    async fn connect(&self, address: SocketAddr) -> io::Result<TcpStream> {
        let socket = if address.is_ipv4() {
            TcpSocket::new_v4()?
        } else {
            TcpSocket::new_v6()?
        };
        if let Some(source) = self.source {
            socket.bind(SocketAddr::new(source, 0))?;
        }
        socket.connect(address).await
    }

    /// One QUIC connection from its own socket, closed as soon as the
    /// handshake completes. The socket is the probe's own, not shared by
    /// every probe as an app's one endpoint would be, because only a
    /// connected UDP socket hears the ICMP port unreachable that tells a
    /// stopped service (`refused`) from a dropped path (`timeout`).
    async fn quic_handshake(
        &self,
        peer: &Peer,
        address: SocketAddr,
        name: &str,
    ) -> Result<(), ProbeError> {
        let socket =
            Arc::new(ProbeSocket::connect(self.source, address).map_err(|e| classify_io(&e))?);
        let endpoint = quinn::Endpoint::new_with_abstract_socket(
            quinn::EndpointConfig::default(),
            None,
            socket.clone(),
            Arc::new(quinn::TokioRuntime),
        )
        .map_err(|e| classify_io(&e))?;
        let mut tls = (*self.quic).clone();
        tls.alpn_protocols = quic_alpn(peer);
        // Cannot fail: ring provides TLS 1.3's AES-128-GCM, QUIC's initial suite.
        let crypto = QuicClientConfig::try_from(tls).map_err(|_| ProbeError::Other)?;
        let connecting = endpoint
            .connect_with(quinn::ClientConfig::new(Arc::new(crypto)), address, name)
            .map_err(|e| classify_connect(&e))?;
        tokio::select! {
            connected = connecting => {
                let connection = connected.map_err(|e| classify_quic(&e))?;
                // The endpoint lives on until the close is delivered, so
                // the server frees the connection at once.
                connection.close(0u32.into(), b"");
                Ok(())
            }
            kind = socket.failed() => Err(classify_kind(kind)),
        }
    }
}

/// A UDP socket connected to one entry point, for one QUIC probe.
///
/// Connected, because Linux reports an ICMP error (port unreachable: no
/// service there) only to a connected UDP socket — quinn's own sockets are
/// unconnected and never see it. Plain sends and receives, one datagram at
/// a time: a handshake needs no GSO/GRO, and quinn sizes its receive buffer
/// by them.
#[derive(Debug)]
struct ProbeSocket {
    io: UdpSocket,
    /// The first error quinn's I/O met. quinn would end the connection's
    /// task on it and leave the handshake waiting for its timeout, so the
    /// datagram is dropped instead and the probe reads the error here.
    failure: watch::Sender<Option<io::ErrorKind>>,
}

impl ProbeSocket {
    fn connect(source: Option<IpAddr>, peer: SocketAddr) -> io::Result<Self> {
        let local = match source {
            Some(ip) => SocketAddr::new(ip, 0),
            None if peer.is_ipv4() => SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), 0),
            None => SocketAddr::new(Ipv6Addr::UNSPECIFIED.into(), 0),
        };
        let socket = std::net::UdpSocket::bind(local)?;
        socket.connect(peer)?;
        socket.set_nonblocking(true)?;
        Ok(Self {
            io: UdpSocket::from_std(socket)?,
            failure: watch::Sender::new(None),
        })
    }

    fn remember(&self, e: &io::Error) {
        self.failure.send_if_modified(|failure| {
            let first = failure.is_none();
            if first {
                *failure = Some(e.kind());
            }
            first
        });
    }

    /// Resolves with the first network error the socket reports, whether
    /// the kernel queued it (an ICMP error wakes no reader: it is read with
    /// `SO_ERROR`) or quinn's I/O met it.
    async fn failed(&self) -> io::ErrorKind {
        let mut met = self.failure.subscribe();
        let queued = self
            .io
            .async_io(Interest::ERROR, || match self.io.take_error() {
                Ok(Some(e)) | Err(e) => Ok(e),
                Ok(None) => Err(io::ErrorKind::WouldBlock.into()),
            });
        tokio::select! {
            e = queued => match e {
                Ok(e) | Err(e) => e.kind(),
            },
            kind = met.wait_for(Option::is_some) => {
                kind.ok().and_then(|kind| *kind).unwrap_or(io::ErrorKind::Other)
            }
        }
    }
}

impl AsyncUdpSocket for ProbeSocket {
    fn create_io_poller(self: Arc<Self>) -> Pin<Box<dyn UdpPoller>> {
        Box::pin(Writable {
            socket: self,
            ready: None,
        })
    }

    fn try_send(&self, transmit: &Transmit) -> io::Result<()> {
        match self.io.try_send(transmit.contents) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Err(e),
            Err(e) => {
                self.remember(&e);
                Ok(())
            }
        }
    }

    fn poll_recv(
        &self,
        cx: &mut Context,
        bufs: &mut [io::IoSliceMut<'_>],
        meta: &mut [RecvMeta],
    ) -> Poll<io::Result<usize>> {
        let (Some(buf), Some(meta)) = (bufs.first_mut(), meta.first_mut()) else {
            return Poll::Ready(Ok(0));
        };
        loop {
            let mut read = ReadBuf::new(buf);
            match ready!(self.io.poll_recv_from(cx, &mut read)) {
                Ok(from) => {
                    let len = read.filled().len();
                    *meta = RecvMeta {
                        addr: from,
                        len,
                        stride: len,
                        ecn: None,
                        dst_ip: None,
                    };
                    return Poll::Ready(Ok(1));
                }
                // A socket error is reported once (the kernel clears it),
                // so the next receive waits for data again.
                Err(e) => self.remember(&e),
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }
}

/// Waits until the probe's socket can send, with its own waker (quinn may
/// wait on one socket from several tasks).
struct Writable {
    socket: Arc<ProbeSocket>,
    ready: Option<Pin<Box<dyn Future<Output = io::Result<()>> + Send + Sync>>>,
}

impl std::fmt::Debug for Writable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writable").finish_non_exhaustive()
    }
}

impl UdpPoller for Writable {
    fn poll_writable(self: Pin<&mut Self>, cx: &mut Context) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let ready = this.ready.get_or_insert_with(|| {
            let socket = this.socket.clone();
            Box::pin(async move { socket.io.writable().await })
        });
        let result = ready.as_mut().poll(cx);
        if result.is_ready() {
            this.ready = None;
        }
        result
    }
}

/// One result as the report carries it.
pub(crate) fn result(
    peer: &Peer,
    at: chrono::DateTime<Utc>,
    check: Check,
    outcome: Result<u32, Failure>,
    bytes: Option<u64>,
) -> ProbeReport {
    ProbeReport {
        entry_point_id: peer.entry_point_id.clone(),
        at,
        ok: outcome.is_ok(),
        latency_ms: outcome.ok().map(f64::from),
        error: outcome.err().map(|f| f.error),
        check,
        stage: outcome.err().map(|f| f.stage),
        bytes,
    }
}

/// What a verifier checks in one round besides the handshakes (§8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundPlan {
    /// Retry a handshake that failed after TCP connected with this SNI.
    pub control_sni: Option<String>,
    /// Run the transfer check on every TLS-over-TCP entry point.
    pub transfer_all: bool,
    /// ... or on these (their last transfer froze).
    pub transfer_again: std::collections::HashSet<String>,
    /// The verifier's own control addresses, `host:port`.
    pub controls: Vec<String>,
}

impl RoundPlan {
    /// Round `round` (counted from 0) of a verifier with `checks`; `frozen`:
    /// the entry points whose last transfer froze.
    pub fn for_round(
        checks: Option<&VerifierChecks>,
        round: u64,
        frozen: &std::collections::HashSet<String>,
    ) -> Self {
        let Some(checks) = checks else {
            return Self::default();
        };
        let every = u64::from(checks.transfer_every.max(1));
        Self {
            control_sni: checks.control_sni.clone(),
            transfer_all: round.is_multiple_of(every),
            transfer_again: frozen.clone(),
            controls: checks.controls.clone(),
        }
    }

    /// Whether `peer` gets a transfer check this round: TLS over TCP only
    /// (a QUIC entry point's camouflage is HTTP/3, which the check does
    /// not speak).
    pub fn transfers(&self, peer: &Peer) -> bool {
        method(peer.protocol, peer.sni.as_deref()) == Method::TcpTls
            && (self.transfer_all || self.transfer_again.contains(&peer.entry_point_id))
    }
}

/// Every address `host` resolves to (at least one), in the resolver's
/// order: all of them are vetted, the first is probed.
async fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>, ProbeError> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|_| ProbeError::DnsError)?
        .collect();
    if addresses.is_empty() {
        return Err(ProbeError::DnsError);
    }
    Ok(addresses)
}

/// The error kind of a failed TCP connect (or a UDP socket's error).
pub fn classify_io(e: &io::Error) -> ProbeError {
    classify_kind(e.kind())
}

fn classify_kind(kind: io::ErrorKind) -> ProbeError {
    use io::ErrorKind::*;
    match kind {
        ConnectionRefused => ProbeError::Refused,
        ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof => ProbeError::Reset,
        TimedOut => ProbeError::Timeout,
        _ => ProbeError::Other,
    }
}

/// The error kind of a failed TLS handshake: rustls reports protocol
/// failures as `InvalidData`; a connection cut mid-handshake (what DPI
/// middleboxes do) is a reset.
pub fn classify_tls(e: &io::Error) -> ProbeError {
    match e.kind() {
        io::ErrorKind::InvalidData => ProbeError::TlsError,
        _ => classify_io(e),
    }
}

/// The error kind of a QUIC handshake that quinn would not start.
pub fn classify_connect(e: &ConnectError) -> ProbeError {
    match e {
        ConnectError::InvalidServerName(_) => ProbeError::TlsError,
        _ => ProbeError::Other,
    }
}

/// The error kind of a failed QUIC handshake. TLS alerts travel as QUIC
/// CRYPTO_ERROR codes (0x100 + the alert), whichever side raised them; a
/// server that turns new connections away says CONNECTION_REFUSED.
pub fn classify_quic(e: &ConnectionError) -> ProbeError {
    let crypto = |code: TransportErrorCode| (0x100..0x200).contains(&u64::from(code));
    match e {
        ConnectionError::TimedOut => ProbeError::Timeout,
        ConnectionError::Reset => ProbeError::Reset,
        ConnectionError::TransportError(e) if crypto(e.code) => ProbeError::TlsError,
        ConnectionError::ConnectionClosed(close) if crypto(close.error_code) => {
            ProbeError::TlsError
        }
        ConnectionError::ConnectionClosed(close)
            if close.error_code == TransportErrorCode::CONNECTION_REFUSED =>
        {
            ProbeError::Refused
        }
        _ => ProbeError::Other,
    }
}

/// Accepts any certificate chain but verifies handshake signatures, so a
/// completed handshake still means "a TLS server answered at this address".
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{Cut, LabListener, LabQuicListener, PathFilter};

    fn peer(host: &str, port: u16, protocol: Protocol, sni: Option<&str>) -> Peer {
        Peer {
            entry_point_id: "ep".into(),
            server_id: "s".into(),
            protocol,
            host: host.into(),
            port,
            sni: sni.map(Into::into),
            alpn: None,
            obfuscated: false,
            transfer_path: None,
            indirect: false,
        }
    }

    fn localhost() -> IpAddr {
        IpAddr::from([127, 0, 0, 1])
    }

    /// The lab listens on loopback, which probes refuse unless allowed.
    fn lab_prober(timeout: Duration, source: Option<IpAddr>) -> Prober {
        Prober::new(timeout, source).allowing_private_targets(true)
    }

    /// The probe's outcome, which must have been made.
    async fn made(prober: &Prober, peer: &Peer) -> Result<u32, ProbeError> {
        match prober.probe(peer).await {
            ProbeAttempt::Made(outcome) => outcome.map_err(|f| f.error),
            ProbeAttempt::Skipped(target) => panic!("{} was not probed: {target}", peer.host),
        }
    }

    #[test]
    fn io_errors_map_to_the_api_error_kinds() {
        use io::ErrorKind::*;
        let cases = [
            (ConnectionRefused, ProbeError::Refused),
            (ConnectionReset, ProbeError::Reset),
            (ConnectionAborted, ProbeError::Reset),
            (UnexpectedEof, ProbeError::Reset),
            (TimedOut, ProbeError::Timeout),
            (AddrNotAvailable, ProbeError::Other),
            (PermissionDenied, ProbeError::Other),
        ];
        for (kind, expected) in cases {
            assert_eq!(classify_io(&io::Error::from(kind)), expected, "{kind:?}");
        }
        assert_eq!(
            classify_tls(&io::Error::new(InvalidData, "bad record")),
            ProbeError::TlsError
        );
        assert_eq!(
            classify_tls(&io::Error::from(ConnectionReset)),
            ProbeError::Reset
        );
    }

    #[test]
    fn tls_protocols_get_a_handshake_and_quic_ones_a_quic_handshake() {
        assert_eq!(method(Protocol::Trojan, None), Method::TcpTls);
        assert_eq!(method(Protocol::Vless, Some("x.com")), Method::TcpTls);
        assert_eq!(method(Protocol::Vless, None), Method::Tcp);
        assert_eq!(method(Protocol::Shadowsocks, Some("x.com")), Method::Tcp);
        assert_eq!(method(Protocol::Hysteria2, Some("x.com")), Method::Quic);
        assert_eq!(method(Protocol::Tuic, None), Method::Quic);
    }

    #[test]
    fn hysteria2_offers_h3_and_tuic_its_own_alpn() {
        let h3 = vec![b"h3".to_vec()];
        let mut tuic = peer("x", 443, Protocol::Tuic, None);
        assert_eq!(quic_alpn(&tuic), h3);
        tuic.alpn = Some(vec![]);
        assert_eq!(quic_alpn(&tuic), h3);
        tuic.alpn = Some(vec!["h3".into(), "spdy/3.1".into()]);
        assert_eq!(quic_alpn(&tuic), vec![b"h3".to_vec(), b"spdy/3.1".to_vec()]);
        let mut hysteria = peer("x", 443, Protocol::Hysteria2, None);
        hysteria.alpn = Some(vec!["h2".into()]);
        assert_eq!(quic_alpn(&hysteria), h3);
    }

    #[test]
    fn quic_errors_map_to_the_api_error_kinds() {
        let alert = |code| ConnectionError::TransportError(TransportErrorCode::crypto(code).into());
        assert_eq!(classify_quic(&alert(120)), ProbeError::TlsError);
        assert_eq!(
            classify_quic(&ConnectionError::TransportError(
                TransportErrorCode::PROTOCOL_VIOLATION.into()
            )),
            ProbeError::Other
        );
        assert_eq!(
            classify_quic(&ConnectionError::TimedOut),
            ProbeError::Timeout
        );
        assert_eq!(classify_quic(&ConnectionError::Reset), ProbeError::Reset);
        assert_eq!(
            classify_quic(&ConnectionError::VersionMismatch),
            ProbeError::Other
        );
        assert_eq!(
            classify_connect(&ConnectError::InvalidServerName("-".into())),
            ProbeError::TlsError
        );
    }

    #[tokio::test]
    async fn a_quic_entry_point_speaking_h3_is_reachable() {
        let lab = LabQuicListener::spawn("127.0.0.1:0".parse().expect("addr"), PathFilter::new())
            .await
            .expect("listener");
        let port = lab.address().port();
        let prober = lab_prober(Duration::from_secs(2), None);
        for (protocol, sni) in [
            (Protocol::Hysteria2, Some("www.example.com")),
            (Protocol::Tuic, None),
        ] {
            let outcome = made(&prober, &peer("127.0.0.1", port, protocol, sni)).await;
            assert!(outcome.is_ok(), "{protocol}: {outcome:?}");
        }
        let from_localhost = lab_prober(Duration::from_secs(2), Some(localhost()));
        let hysteria = peer("127.0.0.1", port, Protocol::Hysteria2, None);
        assert!(made(&from_localhost, &hysteria).await.is_ok());
    }

    #[tokio::test]
    async fn an_obfuscated_entry_point_gets_no_result_rather_than_a_false_failure() {
        let prober = lab_prober(Duration::from_millis(300), None);
        let mut hidden = peer("127.0.0.1", 9, Protocol::Hysteria2, None);
        hidden.obfuscated = true;
        let mut plain = peer("127.0.0.1", 9, Protocol::Hysteria2, None);
        plain.entry_point_id = "plain".into();
        let results = prober
            .round(&[hidden, plain], 4, chrono::Duration::zero())
            .await;
        let ids: Vec<&str> = results.iter().map(|r| r.entry_point_id.as_str()).collect();
        assert_eq!(ids, ["plain"]);
    }

    #[tokio::test]
    async fn a_restricted_target_gets_no_result_unless_private_targets_are_allowed() {
        use crate::target_guard::RestrictedRange;
        let lab = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), PathFilter::new())
            .await
            .expect("listener");
        let port = lab.address().port();
        let by_address = peer("127.0.0.1", port, Protocol::Vless, Some("www.example.com"));
        // Judged after resolution: a name is no way around the check.
        let mut by_name = peer("localhost", port, Protocol::Vless, Some("www.example.com"));
        by_name.entry_point_id = "by-name".into();
        let peers = [by_address.clone(), by_name];

        let strict = Prober::new(Duration::from_secs(2), None);
        let results = strict.round(&peers, 4, chrono::Duration::zero()).await;
        assert!(results.is_empty(), "{results:?}");
        assert_eq!(
            strict.probe(&by_address).await,
            ProbeAttempt::Skipped(RestrictedTarget {
                address: localhost(),
                range: RestrictedRange::Loopback,
            })
        );

        let allowed = lab_prober(Duration::from_secs(2), None);
        let results = allowed
            .round(&[by_address], 4, chrono::Duration::zero())
            .await;
        assert_eq!(results.len(), 1);
        assert!(results[0].ok, "{results:?}");
    }

    #[tokio::test]
    async fn a_quic_entry_point_reachable_over_ipv6() {
        let Ok(lab) =
            LabQuicListener::spawn("[::1]:0".parse().expect("addr"), PathFilter::new()).await
        else {
            // No IPv6 loopback here (some containers): nothing to test.
            return;
        };
        let prober = lab_prober(Duration::from_secs(2), None);
        let hysteria = peer("::1", lab.address().port(), Protocol::Hysteria2, None);
        assert_eq!(made(&prober, &hysteria).await.map(|_| ()), Ok(()));
    }

    #[tokio::test]
    async fn quic_failures_get_their_kind() {
        let filter = PathFilter::new();
        let lab = LabQuicListener::spawn("127.0.0.1:0".parse().expect("addr"), filter.clone())
            .await
            .expect("listener");
        let prober = lab_prober(Duration::from_millis(400), Some(localhost()));
        let hysteria = |port| {
            peer(
                "127.0.0.1",
                port,
                Protocol::Hysteria2,
                Some("www.example.com"),
            )
        };

        // Nothing listens on the port: the kernel answers with an ICMP port
        // unreachable, which the probe's connected socket hears.
        let closed = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        let closed_port = closed.local_addr().expect("addr").port();
        drop(closed);
        assert_eq!(
            made(&prober, &hysteria(closed_port)).await,
            Err(ProbeError::Refused)
        );

        // A socket that swallows every datagram.
        let silent = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        let silent_port = silent.local_addr().expect("addr").port();
        assert_eq!(
            made(&prober, &hysteria(silent_port)).await,
            Err(ProbeError::Timeout)
        );

        // A QUIC server that speaks another application protocol.
        let other = LabQuicListener::spawn_with_alpn(
            "127.0.0.1:0".parse().expect("addr"),
            PathFilter::new(),
            &["hq-interop"],
        )
        .await
        .expect("listener");
        assert_eq!(
            made(&prober, &hysteria(other.address().port())).await,
            Err(ProbeError::TlsError)
        );
        let mut tuic = peer("127.0.0.1", other.address().port(), Protocol::Tuic, None);
        tuic.alpn = Some(vec!["hq-interop".into()]);
        assert!(
            made(&prober, &tuic).await.is_ok(),
            "TUIC offers its own ALPN"
        );

        let port = lab.address().port();
        filter.block_udp(lab.address(), localhost());
        assert_eq!(
            made(&prober, &hysteria(port)).await,
            Err(ProbeError::Timeout)
        );
        filter.cut(lab.address(), localhost(), Cut::Reset);
        filter.unblock_udp(lab.address(), localhost());
        assert_eq!(
            made(&prober, &hysteria(port)).await,
            Err(ProbeError::Timeout),
            "a cut path drops UDP too"
        );
        filter.restore(lab.address(), localhost());
        assert!(made(&prober, &hysteria(port)).await.is_ok());

        drop(lab);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            made(&prober, &hysteria(port)).await,
            Err(ProbeError::Refused)
        );
    }

    #[tokio::test]
    async fn a_self_signed_tls_listener_is_reachable() {
        let filter = PathFilter::new();
        let lab = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), filter)
            .await
            .expect("listener");
        let prober = lab_prober(Duration::from_secs(2), None);
        let p = peer(
            "127.0.0.1",
            lab.address().port(),
            Protocol::Vless,
            Some("www.example.com"),
        );
        assert!(made(&prober, &p).await.is_ok());
    }

    #[tokio::test]
    async fn failures_get_their_kind() {
        let filter = PathFilter::new();
        let lab = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), filter.clone())
            .await
            .expect("listener");
        let port = lab.address().port();
        let prober = lab_prober(
            Duration::from_millis(400),
            Some("127.0.0.1".parse().expect("ip")),
        );

        // A plain TCP server that is not TLS: the handshake fails.
        let plain = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let plain_port = plain.local_addr().expect("addr").port();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            while let Ok((mut s, _)) = plain.accept().await {
                let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
            }
        });
        let tls = |port| peer("127.0.0.1", port, Protocol::Trojan, Some("www.example.com"));
        assert_eq!(
            made(&prober, &tls(plain_port)).await,
            Err(ProbeError::TlsError)
        );

        filter.cut(lab.address(), "127.0.0.1".parse().expect("ip"), Cut::Reset);
        assert_eq!(made(&prober, &tls(port)).await, Err(ProbeError::Reset));
        filter.cut(
            lab.address(),
            "127.0.0.1".parse().expect("ip"),
            Cut::Blackhole,
        );
        assert_eq!(made(&prober, &tls(port)).await, Err(ProbeError::Timeout));
        filter.restore(lab.address(), "127.0.0.1".parse().expect("ip"));
        assert!(made(&prober, &tls(port)).await.is_ok());

        drop(lab);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(made(&prober, &tls(port)).await, Err(ProbeError::Refused));
    }
}
