//! The DevTools channel with a byte budget a message. chromiumoxide reads Chromium's WebSocket
//! with no limit on a message's size, so a page whose script throws forty 16 MB errors (or logs
//! them from a worker, where the console guard does not run) had each one read whole, parsed,
//! turned into events and queued. sitescan puts this relay between the two, on loopback: what
//! the client sends passes as it is; every message Chromium sends is measured from its frame
//! header before it is read, and one over its budget ([`MAX_EVENT_MESSAGE`] for events,
//! [`MAX_REPLY_MESSAGE`] for replies to sitescan's own commands) streams past without being kept,
//! replaced by a short message that says so: an error reply with the same id (the command fails
//! with that text), or a [`DROPPED_METHOD`] event for the same session, which the page's event
//! log records and the gatherers report (an exception or console message that was not read).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The largest event Chromium may send whole: a 2 MB URL (Chromium's own limit) with its
/// headers fits; an exception or console message carrying megabytes of a page's text does not.
pub const MAX_EVENT_MESSAGE: u64 = 4 << 20;
/// The largest reply to one of sitescan's commands: a served document read whole (32 MB as
/// base64) or a full-page screenshot fits.
pub const MAX_REPLY_MESSAGE: u64 = 64 << 20;
/// The method of the event that stands for one Chromium sent over [`MAX_EVENT_MESSAGE`]:
/// params `{"method", "bytes", "budget", "head"}` (`head`: the message's first bytes, as text).
pub const DROPPED_METHOD: &str = "Sitescan.messageDropped";
/// Bytes of a dropped message kept to name it: its start (id or method, the first params) and
/// its end (the session id Chromium appends).
const KEEP: usize = 512;
/// The client's HTTP upgrade request and Chromium's answer are short.
const MAX_HEAD: usize = 16 << 10;

/// What one relay dropped (also added to the process's metrics).
#[derive(Debug, Default)]
struct RelayCounts {
    messages: AtomicU64,
    bytes: AtomicU64,
}

/// A relay for one DevTools connection: connect the client to [`Relay::url`].
#[derive(Debug)]
pub(crate) struct Relay {
    pub(crate) url: String,
    task: JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Relay {
    /// Listens on 127.0.0.1 for one client and relays it to `upstream` (`ws://host:port/path`).
    pub(crate) async fn start(upstream: &str) -> std::io::Result<Relay> {
        let invalid = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{m}: {upstream}"));
        let up = url::Url::parse(upstream).map_err(|_| invalid("not a URL"))?;
        if up.scheme() != "ws" {
            return Err(invalid("the relay speaks ws:// only"));
        }
        let host = up.host_str().ok_or_else(|| invalid("no host"))?.to_string();
        let port = up.port_or_known_default().ok_or_else(|| invalid("no port"))?;
        let authority = if host.contains(':') && !host.starts_with('[') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let mut local = up.clone();
        local.set_host(Some("127.0.0.1")).map_err(|_| invalid("cannot be relayed"))?;
        local.set_port(Some(listener.local_addr()?.port())).map_err(|_| invalid("cannot be relayed"))?;
        let counts = RelayCounts::default();
        let task = tokio::spawn(async move {
            let Ok(Ok((client, _))) = tokio::time::timeout(Duration::from_secs(30), listener.accept()).await else { return };
            drop(listener);
            let Ok(Ok(server)) = tokio::time::timeout(Duration::from_secs(10), TcpStream::connect(authority.as_str())).await else { return };
            if let Err(e) = relay(client, server, &authority, &counts).await {
                tracing::debug!(error = %e, "DevTools relay ended");
            }
        });
        Ok(Relay { url: local.to_string(), task })
    }
}

async fn relay(client: TcpStream, server: TcpStream, authority: &str, counts: &RelayCounts) -> std::io::Result<()> {
    let _ = (client.set_nodelay(true), server.set_nodelay(true));
    let (client_read, client_write) = client.into_split();
    // Frames are written whole (header and payload in one write) and flushed at each message's end.
    let mut client_write = BufWriter::with_capacity(64 << 10, client_write);
    let (server_read, mut server_write) = server.into_split();
    let mut client_read = BufReader::new(client_read);
    let mut server_read = BufReader::with_capacity(64 << 10, server_read);
    let request = upgrade_request(&read_head(&mut client_read).await?, authority);
    server_write.write_all(request.as_bytes()).await?;
    // The client's frames (commands) pass as they are.
    let upstream = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
        let _ = server_write.shutdown().await;
    });
    let result = async {
        let answer = read_head(&mut server_read).await?;
        client_write.write_all(answer.as_bytes()).await?;
        client_write.flush().await?;
        frames(&mut server_read, &mut client_write, counts).await
    }
    .await;
    let _ = client_write.shutdown().await;
    upstream.abort();
    result
}

/// An HTTP head: lines up to the empty one, at most [`MAX_HEAD`] bytes.
async fn read_head<R: AsyncRead + Unpin>(r: &mut BufReader<R>) -> std::io::Result<String> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let n = (&mut *r).take((MAX_HEAD - head.len()) as u64).read_until(b'\n', &mut head).await?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the DevTools handshake ended early"));
        }
        if head[before..] == *b"\r\n" || head[before..] == *b"\n" {
            return String::from_utf8(head).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "a handshake that is not text"));
        }
        if head.len() >= MAX_HEAD {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a DevTools handshake over 16 KiB"));
        }
    }
}

/// The client's upgrade request as Chromium is to see it: addressed to Chromium's own host and
/// port, and without compression (a compressed frame could not be measured before it is read).
fn upgrade_request(head: &str, authority: &str) -> String {
    let mut out = String::with_capacity(head.len());
    for line in head.split("\r\n").filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or("").trim().to_ascii_lowercase();
        match name.as_str() {
            "sec-websocket-extensions" => continue,
            "host" => out.push_str(&format!("Host: {authority}")),
            _ => out.push_str(line),
        }
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out
}

/// A message whose start was dropped: what is kept of it to name it.
struct Dropping {
    head: Vec<u8>,
    tail: Vec<u8>,
    bytes: u64,
    budget: u64,
}

/// Relays Chromium's frames, holding each message to its budget.
async fn frames<R, W>(r: &mut R, w: &mut W, counts: &RelayCounts) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    // Bytes of the message being forwarded and its budget; or the message being dropped.
    let mut forwarding: Option<(u64, u64)> = None;
    let mut dropping: Option<Dropping> = None;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let mut h = [0u8; 2];
        if r.read_exact(&mut h).await.is_err() {
            return Ok(());
        }
        let (fin, opcode, masked) = (h[0] & 0x80 != 0, h[0] & 0x0f, h[1] & 0x80 != 0);
        let mut header = h.to_vec();
        let len = match h[1] & 0x7f {
            126 => {
                let mut b = [0u8; 2];
                r.read_exact(&mut b).await?;
                header.extend_from_slice(&b);
                u64::from(u16::from_be_bytes(b))
            }
            127 => {
                let mut b = [0u8; 8];
                r.read_exact(&mut b).await?;
                header.extend_from_slice(&b);
                u64::from_be_bytes(b)
            }
            n => u64::from(n),
        };
        let mut mask = None;
        if masked {
            let mut m = [0u8; 4];
            r.read_exact(&mut m).await?;
            header.extend_from_slice(&m);
            mask = Some(m);
        }
        if opcode >= 8 {
            // Ping, pong, close: at most 125 bytes, passed as they are.
            if len > 125 {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a control frame over 125 bytes"));
            }
            w.write_all(&header).await?;
            copy_exact(r, w, len, &mut buf).await?;
            w.flush().await?;
            continue;
        }
        let mut peeked = Vec::new();
        if opcode != 0 {
            // The first frame of a message: its first bytes say what it is.
            let n = len.min(KEEP as u64) as usize;
            peeked.resize(n, 0);
            r.read_exact(&mut peeked).await?;
            let plain = unmasked(&peeked, mask, 0);
            let budget = if plain.starts_with(b"{\"id\":") { MAX_REPLY_MESSAGE } else { MAX_EVENT_MESSAGE };
            forwarding = None;
            dropping = None;
            if len <= budget {
                forwarding = Some((0, budget));
            } else {
                dropping = Some(Dropping { head: plain, tail: Vec::new(), bytes: 0, budget });
            }
        }
        let rest = len - peeked.len() as u64;
        if let Some((sent, budget)) = forwarding.as_mut() {
            if *sent + len <= *budget {
                *sent += len;
                w.write_all(&header).await?;
                w.write_all(&peeked).await?;
                copy_exact(r, w, rest, &mut buf).await?;
                if fin {
                    forwarding = None;
                    w.flush().await?;
                }
                continue;
            }
            // A fragmented message that grew past its budget: its start is gone already, so it
            // ends here, empty; the client cannot parse it and says so.
            let budget = *budget;
            forwarding = None;
            w.write_all(&[0x80, 0]).await?;
            w.flush().await?;
            dropping = Some(Dropping { head: Vec::new(), tail: Vec::new(), bytes: 0, budget });
        }
        let Some(d) = dropping.as_mut() else {
            // A continuation with no message begun: skip it.
            skip(r, rest, &mut buf, &mut Vec::new(), None, 0).await?;
            continue;
        };
        let offset = peeked.len();
        d.bytes += len;
        skip(r, rest, &mut buf, &mut d.tail, mask, offset).await?;
        if fin {
            let d = dropping.take().expect("dropping");
            counts.messages.fetch_add(1, Ordering::Relaxed);
            counts.bytes.fetch_add(d.bytes, Ordering::Relaxed);
            crate::metrics::metrics().devtools_messages_dropped.inc();
            if !d.head.is_empty() {
                let text = replacement(&d.head, &d.tail, d.bytes, d.budget);
                tracing::warn!(bytes = d.bytes, budget = d.budget, message = %text, "a DevTools message over its budget was not read");
                write_text_frame(w, text.as_bytes()).await?;
                w.flush().await?;
            }
        }
    }
}

/// `bytes` with the client mask undone (Chromium's frames are not masked), `offset` bytes into
/// the payload.
fn unmasked(bytes: &[u8], mask: Option<[u8; 4]>, offset: usize) -> Vec<u8> {
    match mask {
        None => bytes.to_vec(),
        Some(m) => bytes.iter().enumerate().map(|(i, b)| b ^ m[(offset + i) % 4]).collect(),
    }
}

async fn copy_exact<R, W>(r: &mut R, w: &mut W, mut n: u64, buf: &mut [u8]) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    while n > 0 {
        let want = n.min(buf.len() as u64) as usize;
        r.read_exact(&mut buf[..want]).await?;
        w.write_all(&buf[..want]).await?;
        n -= want as u64;
    }
    Ok(())
}

/// Reads `n` bytes past, keeping the last [`KEEP`] of the message in `tail`.
async fn skip<R: AsyncRead + Unpin>(r: &mut R, mut n: u64, buf: &mut [u8], tail: &mut Vec<u8>, mask: Option<[u8; 4]>, mut offset: usize) -> std::io::Result<()> {
    while n > 0 {
        let want = n.min(buf.len() as u64) as usize;
        r.read_exact(&mut buf[..want]).await?;
        let chunk = &buf[want.saturating_sub(KEEP)..want];
        tail.extend_from_slice(&unmasked(chunk, mask, offset + want.saturating_sub(KEEP)));
        if tail.len() > KEEP {
            tail.drain(..tail.len() - KEEP);
        }
        offset += want;
        n -= want as u64;
    }
    Ok(())
}

async fn write_text_frame<W: AsyncWrite + Unpin>(w: &mut W, payload: &[u8]) -> std::io::Result<()> {
    let mut header = vec![0x81u8];
    match payload.len() {
        n if n < 126 => header.push(n as u8),
        n if n <= u16::MAX as usize => {
            header.push(126);
            header.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            header.push(127);
            header.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    w.write_all(&header).await?;
    w.write_all(payload).await
}

/// The message that stands for one not read: an error reply with the same id, or a
/// [`DROPPED_METHOD`] event of the same session.
fn replacement(head: &[u8], tail: &[u8], bytes: u64, budget: u64) -> String {
    let head = String::from_utf8_lossy(head);
    let session = session_id(&String::from_utf8_lossy(tail));
    let mut message = if let Some(id) = head.strip_prefix("{\"id\":").and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next()).and_then(|n| n.parse::<u64>().ok()) {
        json!({"id": id, "error": {"code": -32000, "message": format!(
            "sitescan: Chromium's reply was {} MB, over sitescan's budget of {} MB a DevTools message; not read",
            mb(bytes), budget >> 20
        )}})
    } else {
        let method = head.strip_prefix("{\"method\":\"").and_then(|s| s.split('"').next()).unwrap_or("unknown");
        // Whole characters only: the head was cut at a byte count.
        let start: String = head.chars().filter(|c| *c != char::REPLACEMENT_CHARACTER).take(KEEP / 2).collect();
        json!({"method": DROPPED_METHOD, "params": {"method": method, "bytes": bytes, "budget": budget, "head": start}})
    };
    if let Some(s) = session {
        message["sessionId"] = Value::String(s);
    }
    message.to_string()
}

/// The session id Chromium appends to a message of an attached target: `..., "sessionId":"ID"}`.
fn session_id(tail: &str) -> Option<String> {
    let body = tail.trim_end().strip_suffix("\"}")?;
    let at = body.rfind("\"sessionId\":\"")?;
    let id = &body[at + "\"sessionId\":\"".len()..];
    (!id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')).then(|| id.to_string())
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / f64::from(1u32 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        futures::executor::block_on(write_text_frame(&mut out, payload)).unwrap();
        out
    }

    /// Frames out of `frames` for the messages in `wire`.
    fn relayed(wire: Vec<u8>) -> (Vec<String>, u64) {
        let counts = RelayCounts::default();
        let mut out = Vec::new();
        futures::executor::block_on(frames(&mut wire.as_slice(), &mut out, &counts)).unwrap();
        let mut messages = Vec::new();
        let mut at = 0;
        while at < out.len() {
            let (len, skip) = match out[at + 1] & 0x7f {
                126 => (u16::from_be_bytes([out[at + 2], out[at + 3]]) as usize, 4),
                127 => (u64::from_be_bytes(out[at + 2..at + 10].try_into().unwrap()) as usize, 10),
                n => (n as usize, 2),
            };
            messages.push(String::from_utf8(out[at + skip..at + skip + len].to_vec()).unwrap());
            at += skip + len;
        }
        (messages, counts.messages.load(Ordering::Relaxed))
    }

    #[test]
    fn messages_within_their_budget_pass_as_they_are() {
        let small = r#"{"method":"Page.loadEventFired","params":{"timestamp":1},"sessionId":"AB12"}"#;
        let reply = format!(r#"{{"id":7,"result":{{"data":"{}"}}}}"#, "x".repeat(5 << 20));
        let mut wire = frame(small.as_bytes());
        wire.extend(frame(reply.as_bytes()));
        let (messages, dropped) = relayed(wire);
        assert_eq!(messages, vec![small.to_string(), reply]);
        assert_eq!(dropped, 0);
    }

    #[test]
    fn an_event_over_its_budget_is_named_not_read() {
        let big = format!(
            r#"{{"method":"Runtime.exceptionThrown","params":{{"timestamp":1,"exceptionDetails":{{"text":"Uncaught","exception":{{"description":"Error: {}"}}}}}},"sessionId":"F00D-1"}}"#,
            "x".repeat(5 << 20)
        );
        let after = r#"{"method":"Page.loadEventFired","params":{"timestamp":2}}"#;
        let mut wire = frame(big.as_bytes());
        wire.extend(frame(after.as_bytes()));
        let (messages, dropped) = relayed(wire);
        assert_eq!(dropped, 1);
        let stand_in: Value = serde_json::from_str(&messages[0]).unwrap();
        assert_eq!(stand_in["method"], DROPPED_METHOD);
        assert_eq!(stand_in["sessionId"], "F00D-1");
        assert_eq!(stand_in["params"]["method"], "Runtime.exceptionThrown");
        assert_eq!(stand_in["params"]["bytes"], big.len() as u64);
        assert_eq!(stand_in["params"]["budget"], MAX_EVENT_MESSAGE);
        assert!(stand_in["params"]["head"].as_str().unwrap().contains("\"text\":\"Uncaught\""));
        assert!(messages[0].len() < 1024);
        assert_eq!(messages[1], after, "the channel goes on");
    }

    #[test]
    fn a_reply_over_its_budget_is_an_error_for_its_command() {
        let big = format!(r#"{{"id":42,"result":{{"result":{{"type":"string","value":"{}"}}}},"sessionId":"S1"}}"#, "y".repeat(65 << 20));
        let (messages, dropped) = relayed(frame(big.as_bytes()));
        assert_eq!(dropped, 1);
        let reply: Value = serde_json::from_str(&messages[0]).unwrap();
        assert_eq!(reply["id"], 42);
        assert_eq!(reply["sessionId"], "S1");
        let text = reply["error"]["message"].as_str().unwrap();
        assert!(text.contains("over sitescan's budget of 64 MB"), "{text}");
    }

    #[test]
    fn a_page_string_that_looks_like_a_session_is_not_taken_for_one() {
        assert_eq!(session_id(r#"...x\"sessionId\":\"EVIL\"}"#), None);
        assert_eq!(session_id(r#"...,"sessionId":"A1B2"}"#).as_deref(), Some("A1B2"));
        assert_eq!(session_id(r#"..."value":"a"}}"#), None);
    }

    #[test]
    fn the_upgrade_request_goes_to_chromium_uncompressed() {
        let head = "GET /devtools/browser/x HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nUpgrade: websocket\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n";
        let out = upgrade_request(head, "127.0.0.1:9222");
        assert_eq!(out, "GET /devtools/browser/x HTTP/1.1\r\nHost: 127.0.0.1:9222\r\nUpgrade: websocket\r\n\r\n");
    }
}
