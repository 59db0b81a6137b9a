//! `HostileSite`: a loopback HTTP server whose pages misbehave on purpose: answers that never
//! come, bodies that never end, generated bodies of any size (streamed, never held in memory),
//! endless redirect chains, and plain pages. Paths match exactly, or by prefix for `prefix`
//! routes; anything else is 404.
//!
//! ```ignore
//! use sitescan_test_support::hostile_site::{Behaviour, HostileSite};
//! let site = HostileSite::start().await;
//! site.route("/stall", Behaviour::Stall);
//! site.route("/big", Behaviour::generated("text/html", 50 << 20, |i| format!("<p>{i}</p>")));
//! site.prefix("/loop/", Behaviour::RedirectLoop);
//! ```

#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

type Body = BoxBody<Bytes, Infallible>;
/// Makes the `i`-th piece of a generated body.
pub type Piece = Arc<dyn Fn(usize) -> String + Send + Sync>;

/// What a path does.
#[derive(Clone)]
pub enum Behaviour {
    /// A complete response.
    Static { status: u16, headers: Vec<(String, String)>, body: Bytes },
    /// Reads the request and never answers.
    Stall,
    /// Sends headers, then one small chunk every `every`, forever.
    Trickle { content_type: String, every: Duration },
    /// `head`, then pieces `0..` until `bytes` bytes were sent, then `tail` (streamed).
    Generated { content_type: String, bytes: usize, head: String, piece: Piece, tail: String },
    /// `/prefix/N` redirects (302) to `/prefix/N+1`, forever.
    RedirectLoop,
}

impl Behaviour {
    pub fn html(body: impl Into<String>) -> Behaviour {
        Behaviour::typed("text/html; charset=utf-8", body.into().into_bytes())
    }

    pub fn typed(content_type: &str, body: impl Into<Vec<u8>>) -> Behaviour {
        Behaviour::Static { status: 200, headers: vec![("content-type".into(), content_type.into())], body: Bytes::from(body.into()) }
    }

    pub fn redirect(status: u16, location: &str) -> Behaviour {
        Behaviour::Static { status, headers: vec![("location".into(), location.into())], body: Bytes::new() }
    }

    /// A body of about `bytes` bytes made of `piece(0)`, `piece(1)`, ...
    pub fn generated(content_type: &str, bytes: usize, piece: impl Fn(usize) -> String + Send + Sync + 'static) -> Behaviour {
        Behaviour::Generated { content_type: content_type.into(), bytes, head: String::new(), piece: Arc::new(piece), tail: String::new() }
    }

    /// Like `generated`, wrapped in `head` and `tail`.
    pub fn wrapped(
        content_type: &str,
        head: &str,
        bytes: usize,
        piece: impl Fn(usize) -> String + Send + Sync + 'static,
        tail: &str,
    ) -> Behaviour {
        Behaviour::Generated { content_type: content_type.into(), bytes, head: head.into(), piece: Arc::new(piece), tail: tail.into() }
    }

    /// Adds a header to a `Static` answer.
    pub fn header(mut self, name: &str, value: &str) -> Behaviour {
        if let Behaviour::Static { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

#[derive(Default)]
struct State {
    exact: Mutex<HashMap<String, Behaviour>>,
    prefixes: Mutex<Vec<(String, Behaviour)>>,
    hits: Mutex<HashMap<String, usize>>,
    connections: AtomicUsize,
    bytes_sent: AtomicUsize,
}

/// A running hostile server on 127.0.0.1.
pub struct HostileSite {
    addr: SocketAddr,
    state: Arc<State>,
    task: JoinHandle<()>,
}

impl HostileSite {
    pub async fn start() -> HostileSite {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind hostile site");
        let addr = listener.local_addr().expect("address");
        let state = Arc::new(State::default());
        let s = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                s.connections.fetch_add(1, Ordering::SeqCst);
                let s = s.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| answer(req, s.clone()));
                    let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
                });
            }
        });
        HostileSite { addr, state, task }
    }

    pub fn route(&self, path: &str, behaviour: Behaviour) -> &Self {
        self.state.exact.lock().unwrap().insert(path.to_string(), behaviour);
        self
    }

    pub fn prefix(&self, prefix: &str, behaviour: Behaviour) -> &Self {
        self.state.prefixes.lock().unwrap().push((prefix.to_string(), behaviour));
        self
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn hit_count(&self, path: &str) -> usize {
        self.state.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }

    /// Requests whose path starts with `prefix`.
    pub fn hits_under(&self, prefix: &str) -> usize {
        self.state.hits.lock().unwrap().iter().filter(|(p, _)| p.starts_with(prefix)).map(|(_, n)| *n).sum()
    }

    pub fn connections(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }

    /// Body bytes sent by generated and trickling answers.
    pub fn bytes_sent(&self) -> usize {
        self.state.bytes_sent.load(Ordering::SeqCst)
    }
}

impl Drop for HostileSite {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn full(b: Bytes) -> Body {
    Full::new(b).boxed()
}

async fn answer(req: Request<Incoming>, state: Arc<State>) -> Result<Response<Body>, Infallible> {
    let path = req.uri().path().to_string();
    *state.hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    let behaviour = {
        let exact = state.exact.lock().unwrap().get(&path).cloned();
        exact.or_else(|| {
            state.prefixes.lock().unwrap().iter().find(|(p, _)| path.starts_with(p.as_str())).map(|(_, b)| b.clone())
        })
    };
    let head = req.method() == hyper::Method::HEAD;
    let Some(behaviour) = behaviour else {
        return Ok(Response::builder().status(404).header("content-type", "text/html").body(full(Bytes::from_static(b"<title>404</title>nope"))).unwrap());
    };
    let resp = match behaviour {
        Behaviour::Static { status, headers, body } => {
            let mut b = Response::builder().status(status);
            for (k, v) in headers {
                b = b.header(k, v);
            }
            b.body(full(if head { Bytes::new() } else { body })).unwrap()
        }
        Behaviour::Stall => {
            std::future::pending::<()>().await;
            unreachable!()
        }
        Behaviour::Trickle { content_type, every } => {
            let st = state.clone();
            let stream = futures::stream::unfold(0usize, move |i| {
                let st = st.clone();
                async move {
                    if i > 0 {
                        tokio::time::sleep(every).await;
                    }
                    let chunk = if i == 0 { Bytes::from_static(b"<!doctype html><title>slow</title><p>") } else { Bytes::from_static(b"x") };
                    st.bytes_sent.fetch_add(chunk.len(), Ordering::SeqCst);
                    Some((Ok::<_, Infallible>(Frame::data(chunk)), i + 1))
                }
            });
            Response::builder().status(200).header("content-type", content_type).body(BodyExt::boxed(StreamBody::new(stream))).unwrap()
        }
        Behaviour::Generated { content_type, bytes, head: h, piece, tail } => {
            if head {
                return Ok(Response::builder().status(200).header("content-type", content_type).body(full(Bytes::new())).unwrap());
            }
            let st = state.clone();
            // State: (next piece index, bytes sent, phase 0 head / 1 pieces / 2 tail / 3 done).
            let stream = futures::stream::unfold((0usize, 0usize, 0u8), move |(i, sent, phase)| {
                let (piece, h, tail, st) = (piece.clone(), h.clone(), tail.clone(), st.clone());
                async move {
                    let (chunk, next) = match phase {
                        0 => (h.into_bytes(), (i, sent, 1)),
                        1 => {
                            let mut out = String::with_capacity(64 * 1024);
                            let mut j = i;
                            while out.len() < 64 * 1024 && sent + out.len() < bytes {
                                out.push_str(&piece(j));
                                j += 1;
                            }
                            let n = out.len();
                            let phase = if sent + n >= bytes { 2 } else { 1 };
                            (out.into_bytes(), (j, sent + n, phase))
                        }
                        2 => (tail.into_bytes(), (i, sent, 3)),
                        _ => return None,
                    };
                    st.bytes_sent.fetch_add(chunk.len(), Ordering::SeqCst);
                    Some((Ok::<_, Infallible>(Frame::data(Bytes::from(chunk))), next))
                }
            });
            Response::builder().status(200).header("content-type", content_type).body(BodyExt::boxed(StreamBody::new(stream))).unwrap()
        }
        Behaviour::RedirectLoop => {
            let (base, n) = match path.rsplit_once('/') {
                Some((base, n)) => (base.to_string(), n.parse::<u64>().unwrap_or(0)),
                None => (String::new(), 0),
            };
            Response::builder().status(302).header("location", format!("{base}/{}", n + 1)).body(full(Bytes::new())).unwrap()
        }
    };
    Ok(resp)
}
