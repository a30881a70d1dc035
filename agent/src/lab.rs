//! A loopback lab for the demo fleet, the tests and the probe benchmark:
//! TLS listeners and QUIC listeners standing in for VPN entry points, and a
//! [`PathFilter`] that cuts chosen witness → entry point paths at the
//! network layer.
//!
//! Each agent probes from its own loopback source address (127.0.x.y), so a
//! listener can tell witnesses apart by the connection's source address and
//! treat each path as a middlebox would: let it through, reset it, or swallow
//! it (the prober then times out). Nothing here touches a real interface.

use quinn::crypto::rustls::QuicServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

/// How a cut path behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The connection is accepted then reset (a DPI box sending RST).
    Reset,
    /// The connection is accepted and never answered (packets dropped).
    Blackhole,
}

/// What is cut on one (entry point address, witness source address) path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct PathState {
    /// The whole path: TCP as this says, UDP dropped.
    cut: Option<Cut>,
    /// UDP only (QUIC blocked, TCP let through).
    udp_blocked: bool,
    /// A ClientHello naming this SNI is reset (SNI filtering).
    blocked_sni: Option<String>,
    /// Connections stop receiving after this many bytes of the answer
    /// (a censor freezing connections to a hosting range).
    freeze_after: Option<usize>,
}

/// How one TCP connection on a path is treated, as the listener sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathTreatment {
    pub cut: Option<Cut>,
    pub blocked_sni: Option<String>,
    pub freeze_after: Option<usize>,
}

/// Which (entry point address, witness source address) paths are cut. A
/// cut path loses both transports — UDP has no reset, so its datagrams are
/// dropped either way; a UDP block, as censors that block QUIC wholesale
/// do, loses UDP only. The two are kept apart, so lifting one leaves the
/// other in place.
#[derive(Clone, Default)]
pub struct PathFilter {
    paths: Arc<RwLock<HashMap<(SocketAddr, IpAddr), PathState>>>,
}

impl PathFilter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cut(&self, target: SocketAddr, source: IpAddr, how: Cut) {
        self.update(target, source, |path| path.cut = Some(how));
    }

    pub fn restore(&self, target: SocketAddr, source: IpAddr) {
        self.update(target, source, |path| path.cut = None);
    }

    pub fn block_udp(&self, target: SocketAddr, source: IpAddr) {
        self.update(target, source, |path| path.udp_blocked = true);
    }

    pub fn unblock_udp(&self, target: SocketAddr, source: IpAddr) {
        self.update(target, source, |path| path.udp_blocked = false);
    }

    /// ClientHellos naming `sni` on this path are reset; others pass.
    pub fn block_sni(&self, target: SocketAddr, source: IpAddr, sni: &str) {
        let sni = sni.to_owned();
        self.update(target, source, |path| path.blocked_sni = Some(sni));
    }

    pub fn unblock_sni(&self, target: SocketAddr, source: IpAddr) {
        self.update(target, source, |path| path.blocked_sni = None);
    }

    /// Answers on this path stop after `bytes`, the connection left open.
    pub fn freeze_after(&self, target: SocketAddr, source: IpAddr, bytes: usize) {
        self.update(target, source, |path| path.freeze_after = Some(bytes));
    }

    pub fn unfreeze(&self, target: SocketAddr, source: IpAddr) {
        self.update(target, source, |path| path.freeze_after = None);
    }

    /// How a TCP connection on this path is treated, in full.
    pub fn treatment(&self, target: SocketAddr, source: IpAddr) -> PathTreatment {
        let path = self.path(target, source);
        PathTreatment {
            cut: path.cut,
            blocked_sni: path.blocked_sni,
            freeze_after: path.freeze_after,
        }
    }

    pub fn restore_all(&self) {
        self.write().clear();
    }

    /// How a TCP connection on this path is treated.
    pub fn verdict(&self, target: SocketAddr, source: IpAddr) -> Option<Cut> {
        self.path(target, source).cut
    }

    /// Whether UDP datagrams on this path are dropped.
    pub fn drops_udp(&self, target: SocketAddr, source: IpAddr) -> bool {
        let path = self.path(target, source);
        path.cut.is_some() || path.udp_blocked
    }

    fn path(&self, target: SocketAddr, source: IpAddr) -> PathState {
        self.paths
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(&(target, source))
            .cloned()
            .unwrap_or_default()
    }

    fn update(&self, target: SocketAddr, source: IpAddr, change: impl FnOnce(&mut PathState)) {
        let mut paths = self.write();
        let path = paths.entry((target, source)).or_default();
        change(path);
        if *path == PathState::default() {
            paths.remove(&(target, source));
        }
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<(SocketAddr, IpAddr), PathState>> {
        self.paths
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A TLS listener with a self-signed certificate; stops listening (the
/// port then refuses connections) when dropped.
pub struct LabListener {
    address: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl LabListener {
    pub async fn spawn(address: SocketAddr, filter: PathFilter) -> io::Result<Self> {
        let listener = TcpListener::bind(address).await?;
        let address = listener.local_addr()?;
        let acceptor = TlsAcceptor::from(server_config()?);
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, peer)) = listener.accept().await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let acceptor = acceptor.clone();
                let treatment = filter.treatment(address, peer.ip());
                tokio::spawn(serve(stream, acceptor, treatment));
            }
        });
        Ok(Self { address, task })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for LabListener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the lab's site answers to a `GET`: far more than a transfer
/// check fetches.
pub const LAB_SITE_BYTES: usize = 256 * 1024;

async fn serve(mut stream: TcpStream, acceptor: TlsAcceptor, treatment: PathTreatment) {
    if let Some(blocked) = &treatment.blocked_sni {
        if peeked_sni(&stream).await.as_deref() == Some(blocked.as_str()) {
            let _ = stream.set_zero_linger();
            return;
        }
    }
    match treatment.cut {
        Some(Cut::Reset) => {
            let _ = stream.set_zero_linger();
        }
        Some(Cut::Blackhole) => {
            // Read and discard until the prober gives up.
            let mut sink = [0u8; 1024];
            let _ = tokio::time::timeout(Duration::from_secs(120), async {
                while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
            })
            .await;
        }
        None => {
            let Ok(Ok(mut tls)) =
                tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream)).await
            else {
                return;
            };
            // A browser's GET gets the site (the camouflage or fallback
            // site a Reality or Trojan entry point fronts); anything else
            // is held until the client closes it, as a VPN would.
            let mut head = [0u8; 1024];
            let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_secs(30), tls.read(&mut head)).await
            else {
                return;
            };
            if head[..n].starts_with(b"GET ") {
                answer_site(&mut tls, treatment.freeze_after).await;
                return;
            }
            let mut sink = [0u8; 1024];
            let _ = tokio::time::timeout(Duration::from_secs(30), async {
                while matches!(tls.read(&mut sink).await, Ok(n) if n > 0) {}
            })
            .await;
        }
    }
}

/// The site's answer: [`LAB_SITE_BYTES`] of body, or only the first
/// `freeze_after` bytes of the answer and then nothing, the connection
/// held open (what a freezing censor leaves the client).
async fn answer_site<S: tokio::io::AsyncWrite + tokio::io::AsyncRead + Unpin>(
    tls: &mut S,
    freeze_after: Option<usize>,
) {
    use tokio::io::AsyncWriteExt;
    let mut answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\
         Content-Length: {LAB_SITE_BYTES}\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    answer.resize(answer.len() + LAB_SITE_BYTES, b'x');
    let sent = freeze_after.map_or(answer.len(), |n| n.min(answer.len()));
    if tls.write_all(&answer[..sent]).await.is_err() || tls.flush().await.is_err() {
        return;
    }
    if freeze_after.is_some() {
        let mut sink = [0u8; 1024];
        let _ = tokio::time::timeout(Duration::from_secs(60), async {
            while matches!(tls.read(&mut sink).await, Ok(n) if n > 0) {}
        })
        .await;
    } else {
        let _ = tls.shutdown().await;
    }
}

/// The SNI of the ClientHello waiting on `stream`, read without taking it
/// off the stream (a middlebox's look at the first packet).
pub async fn peeked_sni(stream: &TcpStream) -> Option<String> {
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(10), stream.peek(&mut buf))
        .await
        .ok()?
        .ok()?;
    let mut acceptor = rustls::server::Acceptor::default();
    acceptor.read_tls(&mut &buf[..n]).ok()?;
    let accepted = acceptor.accept().ok()??;
    accepted.client_hello().server_name().map(str::to_owned)
}

/// A QUIC listener standing in for a Hysteria2 entry point: it completes
/// handshakes (self-signed certificate, ALPN `h3` unless told otherwise)
/// and holds each connection until the client closes it. UDP from a source
/// the filter drops goes unanswered. Dropping it closes every connection
/// and then the port (probes are then refused).
pub struct LabQuicListener {
    address: SocketAddr,
    endpoint: quinn::Endpoint,
    task: tokio::task::JoinHandle<()>,
}

impl LabQuicListener {
    pub async fn spawn(address: SocketAddr, filter: PathFilter) -> io::Result<Self> {
        Self::spawn_with_alpn(address, filter, &["h3"]).await
    }

    pub async fn spawn_with_alpn(
        address: SocketAddr,
        filter: PathFilter,
        alpn: &[&str],
    ) -> io::Result<Self> {
        let mut tls = tls_config(&[&rustls::version::TLS13])?;
        tls.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
        let crypto = QuicServerConfig::try_from(tls).map_err(io::Error::other)?;
        let endpoint =
            quinn::Endpoint::server(quinn::ServerConfig::with_crypto(Arc::new(crypto)), address)?;
        let address = endpoint.local_addr()?;
        let accepting = endpoint.clone();
        let task = tokio::spawn(async move {
            while let Some(incoming) = accepting.accept().await {
                if filter.drops_udp(address, incoming.remote_address().ip()) {
                    incoming.ignore();
                    continue;
                }
                let Ok(connecting) = incoming.accept() else {
                    continue;
                };
                tokio::spawn(async move {
                    let Ok(Ok(connection)) =
                        tokio::time::timeout(Duration::from_secs(10), connecting).await
                    else {
                        return;
                    };
                    // Held until the client closes it, as a VPN would.
                    let _ =
                        tokio::time::timeout(Duration::from_secs(30), connection.closed()).await;
                });
            }
        });
        Ok(Self {
            address,
            endpoint,
            task,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for LabQuicListener {
    fn drop(&mut self) {
        // Open connections would keep the socket bound: a stopped service
        // must let them go and free its port.
        self.endpoint.close(0u32.into(), b"");
        self.task.abort();
    }
}

/// The TLS configuration of the TCP listeners, built once.
fn server_config() -> io::Result<Arc<rustls::ServerConfig>> {
    static CONFIG: OnceLock<Result<Arc<rustls::ServerConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            tls_config(rustls::DEFAULT_VERSIONS)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(io::Error::other)
}

fn tls_config(
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> io::Result<rustls::ServerConfig> {
    let (cert, key) = identity()?;
    rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_protocol_versions(versions)
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(vec![cert], PrivateKeyDer::Pkcs8(key))
        .map_err(io::Error::other)
}

/// One self-signed certificate per process: generating keys is slow.
fn identity() -> io::Result<(CertificateDer<'static>, PrivatePkcs8KeyDer<'static>)> {
    static IDENTITY: OnceLock<Result<(CertificateDer<'static>, Vec<u8>), String>> = OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            let cert = rcgen::generate_simple_self_signed(vec!["www.example.com".into()])
                .map_err(|e| e.to_string())?;
            Ok((cert.cert.der().clone(), cert.key_pair.serialize_der()))
        })
        .clone()
        .map(|(cert, key)| (cert, PrivatePkcs8KeyDer::from(key)))
        .map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_udp_block_leaves_tcp_alone_and_lifts_on_its_own() {
        let filter = PathFilter::new();
        let source = IpAddr::from([127, 0, 10, 2]);
        let target: SocketAddr = "127.0.10.1:4443".parse().expect("addr");
        filter.block_udp(target, source);
        assert!(filter.drops_udp(target, source));
        assert_eq!(filter.verdict(target, source), None);
        filter.cut(target, source, Cut::Blackhole);
        filter.restore(target, source);
        assert!(filter.drops_udp(target, source), "the UDP block stays");
        filter.unblock_udp(target, source);
        assert!(!filter.drops_udp(target, source));
    }
}
