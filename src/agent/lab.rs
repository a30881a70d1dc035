//! A loopback lab for the demo fleet, the tests and the probe benchmark:
//! TLS listeners standing in for VPN entry points, and a [`PathFilter`] that
//! cuts chosen witness → entry point paths at the network layer.
//!
//! Each agent probes from its own loopback source address (127.0.x.y), so a
//! listener can tell witnesses apart by the connection's source address and
//! treat each path as a middlebox would: let it through, reset it, or swallow
//! it (the prober then times out). Nothing here touches a real interface.

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

/// Which (entry point address, witness source address) paths are cut.
#[derive(Clone, Default)]
pub struct PathFilter {
    cuts: Arc<RwLock<HashMap<(SocketAddr, IpAddr), Cut>>>,
}

impl PathFilter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cut(&self, target: SocketAddr, source: IpAddr, how: Cut) {
        self.write().insert((target, source), how);
    }

    pub fn restore(&self, target: SocketAddr, source: IpAddr) {
        self.write().remove(&(target, source));
    }

    pub fn restore_all(&self) {
        self.write().clear();
    }

    pub fn verdict(&self, target: SocketAddr, source: IpAddr) -> Option<Cut> {
        self.cuts
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(&(target, source))
            .copied()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<(SocketAddr, IpAddr), Cut>> {
        self.cuts
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
                let cut = filter.verdict(address, peer.ip());
                tokio::spawn(serve(stream, acceptor, cut));
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

async fn serve(mut stream: TcpStream, acceptor: TlsAcceptor, cut: Option<Cut>) {
    match cut {
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
            // Hold the session until the client closes it, as a VPN would.
            let mut sink = [0u8; 1024];
            let _ = tokio::time::timeout(Duration::from_secs(30), async {
                while matches!(tls.read(&mut sink).await, Ok(n) if n > 0) {}
            })
            .await;
        }
    }
}

/// One self-signed certificate per process: generating keys is slow.
fn server_config() -> io::Result<Arc<rustls::ServerConfig>> {
    static CONFIG: OnceLock<Result<Arc<rustls::ServerConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let cert = rcgen::generate_simple_self_signed(vec!["www.example.com".into()])
                .map_err(|e| e.to_string())?;
            let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.key_pair.serialize_der().into());
            rustls::ServerConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(vec![cert.cert.der().clone()], key)
            .map(Arc::new)
            .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(io::Error::other)
}
