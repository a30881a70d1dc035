//! Mesh probes: reach a peer's entry point the way a user's app would — a
//! TCP connect, then a TLS handshake with the entry point's SNI where the
//! protocol speaks TLS. What a blocked address breaks is *reachability*, so
//! the handshake accepts any certificate (an unknown CA is not a failure)
//! while still checking that the server holds the key it presents.

use crate::agent_api::{Peer, ProbeReport};
use crate::evidence::ProbeError;
use crate::fleet::Protocol;
use chrono::Utc;
use futures_util::future::join_all;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::TlsConnector;

/// How an entry point is probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// TCP connect only (Shadowsocks; VMess/VLESS without TLS).
    Tcp,
    /// TCP connect, then a TLS handshake.
    TcpTls,
    /// QUIC-based (Hysteria2, TUIC): not probed — a TCP knock would say
    /// nothing about a UDP service, and a failure would be invented.
    NotProbed,
}

pub fn method(protocol: Protocol, sni: Option<&str>) -> Method {
    match protocol {
        Protocol::Trojan => Method::TcpTls,
        Protocol::Vless | Protocol::Vmess if sni.is_some() => Method::TcpTls,
        Protocol::Vless | Protocol::Vmess | Protocol::Shadowsocks => Method::Tcp,
        Protocol::Hysteria2 | Protocol::Tuic => Method::NotProbed,
    }
}

/// Probes peers; cheap to clone (the TLS configuration is shared).
#[derive(Clone)]
pub struct Prober {
    tls: TlsConnector,
    timeout: Duration,
    source: Option<IpAddr>,
}

impl Prober {
    pub fn new(timeout: Duration, source: Option<IpAddr>) -> Self {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map(|b| {
                b.dangerous()
                    .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
                    .with_no_client_auth()
            });
        // The ring provider supports the safe default versions; should that
        // ever change, probing without TLS would report wrong results.
        let config = config.unwrap_or_else(|e| panic!("rustls cannot build a client: {e}"));
        Self {
            tls: TlsConnector::from(Arc::new(config)),
            timeout,
            source,
        }
    }

    /// One probe of every probed peer, at most `concurrency` at a time.
    /// Results are stamped with the agent's clock shifted by `clock_offset`.
    pub async fn round(
        &self,
        peers: &[Peer],
        concurrency: usize,
        clock_offset: chrono::Duration,
    ) -> Vec<ProbeReport> {
        let probed: Vec<&Peer> = peers
            .iter()
            .filter(|p| method(p.protocol, p.sni.as_deref()) != Method::NotProbed)
            .collect();
        let next = AtomicUsize::new(0);
        let workers = (0..concurrency.clamp(1, probed.len().max(1)))
            .map(|_| self.worker(&probed, &next, clock_offset));
        join_all(workers).await.into_iter().flatten().collect()
    }

    /// Takes the next unprobed peer until none is left: `concurrency` of
    /// these share a round, which bounds the connections in flight.
    async fn worker(
        &self,
        peers: &[&Peer],
        next: &AtomicUsize,
        clock_offset: chrono::Duration,
    ) -> Vec<ProbeReport> {
        let mut results = Vec::new();
        while let Some(peer) = peers.get(next.fetch_add(1, Ordering::Relaxed)) {
            let at = Utc::now() + clock_offset;
            let outcome = self.probe(peer).await;
            results.push(ProbeReport {
                entry_point_id: peer.entry_point_id.clone(),
                at,
                ok: outcome.is_ok(),
                latency_ms: outcome.ok().map(f64::from),
                error: outcome.err(),
            });
        }
        results
    }

    /// Latency in ms on success.
    pub async fn probe(&self, peer: &Peer) -> Result<u32, ProbeError> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + self.timeout;
        let address = tokio::time::timeout_at(deadline, resolve(&peer.host, peer.port))
            .await
            .map_err(|_| ProbeError::Timeout)??;
        let stream = tokio::time::timeout_at(deadline, self.connect(address))
            .await
            .map_err(|_| ProbeError::Timeout)?
            .map_err(|e| classify_io(&e))?;
        if method(peer.protocol, peer.sni.as_deref()) == Method::TcpTls {
            let name = peer.sni.as_deref().unwrap_or(&peer.host);
            let name = ServerName::try_from(name.to_string()).map_err(|_| ProbeError::TlsError)?;
            tokio::time::timeout_at(deadline, self.tls.connect(name, stream))
                .await
                .map_err(|_| ProbeError::Timeout)?
                .map_err(|e| classify_tls(&e))?;
        }
        Ok(u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX))
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
}

async fn resolve(host: &str, port: u16) -> Result<SocketAddr, ProbeError> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    tokio::net::lookup_host((host, port))
        .await
        .map_err(|_| ProbeError::DnsError)?
        .next()
        .ok_or(ProbeError::DnsError)
}

/// The error kind of a failed TCP connect.
pub fn classify_io(e: &io::Error) -> ProbeError {
    use io::ErrorKind::*;
    match e.kind() {
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
    use crate::agent::lab::{Cut, LabListener, PathFilter};

    fn peer(host: &str, port: u16, protocol: Protocol, sni: Option<&str>) -> Peer {
        Peer {
            entry_point_id: "ep".into(),
            server_id: "s".into(),
            protocol,
            host: host.into(),
            port,
            sni: sni.map(Into::into),
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
    fn only_tls_protocols_get_a_handshake_and_quic_is_not_knocked() {
        assert_eq!(method(Protocol::Trojan, None), Method::TcpTls);
        assert_eq!(method(Protocol::Vless, Some("x.com")), Method::TcpTls);
        assert_eq!(method(Protocol::Vless, None), Method::Tcp);
        assert_eq!(method(Protocol::Shadowsocks, Some("x.com")), Method::Tcp);
        assert_eq!(
            method(Protocol::Hysteria2, Some("x.com")),
            Method::NotProbed
        );
        assert_eq!(method(Protocol::Tuic, None), Method::NotProbed);
    }

    #[tokio::test]
    async fn a_self_signed_tls_listener_is_reachable() {
        let filter = PathFilter::new();
        let lab = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), filter)
            .await
            .expect("listener");
        let prober = Prober::new(Duration::from_secs(2), None);
        let p = peer(
            "127.0.0.1",
            lab.address().port(),
            Protocol::Vless,
            Some("www.example.com"),
        );
        assert!(prober.probe(&p).await.is_ok());
    }

    #[tokio::test]
    async fn failures_get_their_kind() {
        let filter = PathFilter::new();
        let lab = LabListener::spawn("127.0.0.1:0".parse().expect("addr"), filter.clone())
            .await
            .expect("listener");
        let port = lab.address().port();
        let prober = Prober::new(
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
            prober.probe(&tls(plain_port)).await,
            Err(ProbeError::TlsError)
        );

        filter.cut(lab.address(), "127.0.0.1".parse().expect("ip"), Cut::Reset);
        assert_eq!(prober.probe(&tls(port)).await, Err(ProbeError::Reset));
        filter.cut(
            lab.address(),
            "127.0.0.1".parse().expect("ip"),
            Cut::Blackhole,
        );
        assert_eq!(prober.probe(&tls(port)).await, Err(ProbeError::Timeout));
        filter.restore(lab.address(), "127.0.0.1".parse().expect("ip"));
        assert!(prober.probe(&tls(port)).await.is_ok());

        drop(lab);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(prober.probe(&tls(port)).await, Err(ProbeError::Refused));
    }
}
