//! `Trap`: a listener on an address a scan must never reach (127.0.0.2, [::1], ...). It accepts,
//! counts every TCP connection, records the first bytes it was sent, answers a small page and
//! closes. A test asserts `connections() == 0` after the scan.
//!
//! ```ignore
//! use sitescan_test_support::trap;
//! let trap = trap::Trap::start("127.0.0.2").await;
//! // ... point hostile pages at trap.url("/steal") ...
//! assert_eq!(trap.connections(), 0, "{:?}", trap.requests());
//! ```

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

#[derive(Default)]
struct Seen {
    connections: AtomicUsize,
    requests: Mutex<Vec<String>>,
}

/// A counting listener on a blocked address.
pub struct Trap {
    addr: SocketAddr,
    seen: Arc<Seen>,
    task: JoinHandle<()>,
}

impl Trap {
    /// Binds `ip` (`127.0.0.2`, `::1`, ...) on a free port.
    pub async fn start(ip: &str) -> Trap {
        let listener = TcpListener::bind((ip, 0)).await.unwrap_or_else(|e| panic!("bind trap on {ip}: {e}"));
        let addr = listener.local_addr().expect("trap address");
        let seen = Arc::new(Seen::default());
        let s = seen.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else { continue };
                s.connections.fetch_add(1, Ordering::SeqCst);
                let s = s.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 2048];
                    let n = tokio::time::timeout(std::time::Duration::from_secs(2), stream.read(&mut buf)).await;
                    let n = matches!(n, Ok(Ok(_))).then(|| n.unwrap().unwrap()).unwrap_or(0);
                    let head = String::from_utf8_lossy(&buf[..n]).lines().next().unwrap_or_default().to_string();
                    s.requests.lock().unwrap().push(head);
                    let body = "SECRET-INTERNAL-DATA";
                    let resp = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(resp.as_bytes()).await;
                });
            }
        });
        Trap { addr, seen, task }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://IP:PORT` + `path` (IPv6 in brackets).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.seen.connections.load(Ordering::SeqCst)
    }

    /// First request lines received (for failure messages).
    pub fn requests(&self) -> Vec<String> {
        self.seen.requests.lock().unwrap().clone()
    }
}

impl Drop for Trap {
    fn drop(&mut self) {
        self.task.abort();
    }
}
