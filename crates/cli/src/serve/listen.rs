//! The accept loop of `bitlens serve`: hyper's HTTP/1 server, per connection, with
//!
//! - a header timeout (hyper's `header_read_timeout`, driven by hyper-util's Tokio timer): a
//!   request's head must arrive whole within it, counted from when the server starts waiting
//!   for it, that is from the connection's opening and, on a kept-alive connection, from the
//!   end of the previous response. So a connection that sends nothing, one left idle after an
//!   answer and one that trickles its headers (slowloris) are all closed after it;
//! - a write timeout (`tokio-io-timeout`'s `TimeoutWriter`): a write to the client that makes
//!   no progress for that long fails, which ends the response and the connection. A client
//!   that stops reading a snapshot so frees its `--max-exports` slot (the export's producer
//!   sees its channel closed), while a slow client that keeps reading is never cut off: the
//!   countdown restarts at every write that goes through;
//! - a cap on the connections one client address holds at once: further ones are closed as
//!   soon as they are accepted, before any byte is read.
//!
//! Each connection is also wrapped in the [`UriGuard`](super::uri_guard::UriGuard) that
//! answers overlong request targets.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_io_timeout::TimeoutWriter;

use super::uri_guard::UriGuard;

/// The per-connection limits (`--header-timeout`, `--write-timeout`, `--max-conns-per-ip`).
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    pub header_timeout: Duration,
    pub write_timeout: Duration,
    pub max_per_ip: usize,
}

/// How long open connections may finish their responses after the shutdown signal (a second
/// Ctrl-C stops at once).
const GRACE: Duration = Duration::from_secs(10);

/// Open connections per client address.
struct PerIp {
    max: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection of an address, given back when dropped.
struct Slot {
    table: Arc<PerIp>,
    ip: IpAddr,
}

impl PerIp {
    /// A slot for one more connection from `ip`, `None` when it already holds the most.
    fn take(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        // An IPv4 client seen through an IPv6 socket counts as its IPv4 address.
        let ip = ip.to_canonical();
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(Slot {
            table: self.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.table.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Errors of `accept` that concern one connection only (the next accept may succeed at once).
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves `router` on `listener` until `shutdown` completes, then lets open responses finish
/// for up to [`GRACE`].
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()>,
) {
    let per_ip = Arc::new(PerIp {
        max: limits.max_per_ip.max(1),
        open: Mutex::new(HashMap::new()),
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let graceful = GracefulShutdown::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            _ = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of file descriptors, most likely: wait for some to close.
                eprintln!("bitlens: cannot accept a connection: {e} (trying again in 1 s)");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let Some(slot) = per_ip.take(peer.ip()) else {
            // Over --max-conns-per-ip: closed before reading anything.
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let mut io = TimeoutWriter::new(stream);
        io.set_timeout(Some(limits.write_timeout));
        let io = TokioIo::new(UriGuard::new(Box::pin(io)));
        let conn = http.serve_connection(io, TowerToHyperService::new(router.clone()));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // An error is the client's (gone, too slow, a malformed request): nothing to report.
            let _ = conn.await;
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::signal::ctrl_c() => {}
        _ = tokio::time::sleep(GRACE) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_ip_slots_are_counted_and_given_back() {
        let t = Arc::new(PerIp {
            max: 2,
            open: Mutex::new(HashMap::new()),
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let s1 = t.take(a).unwrap();
        let s2 = t.take(mapped).unwrap();
        assert!(t.take(a).is_none(), "the mapped address is the same client");
        let s3 = t.take(b).unwrap();
        drop(s1);
        let s4 = t.take(a).unwrap();
        drop((s2, s3, s4));
        assert!(t.open.lock().unwrap().is_empty());
    }
}
