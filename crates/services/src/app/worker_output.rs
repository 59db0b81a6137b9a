//! A scan worker process's standard error (`worker_process`), relayed into `serve`'s own a whole
//! line at a time. The worker writes its log there, and the Chromium it starts inherits it. A
//! worker that stops mid-line (out of memory while another of its threads was writing a long
//! line into a full pipe) would otherwise leave the cut line for `serve`'s next line to be glued
//! onto: with `--log-format json`, one line that is neither object, and a line that log
//! collectors drop. Relayed, the cut line is ended where the worker stopped, before `serve` says
//! that it stopped; a line longer than `MAX_LINE` is cut into lines of that length.

use std::io::Write;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// The longest line relayed whole.
const MAX_LINE: usize = 64 * 1024;
/// When the worker has stopped, what it wrote is read until the pipe has been quiet this long.
const QUIET: Duration = Duration::from_millis(50);
/// The longest `worker_stopped` waits for the relay.
const STOPPED_WAIT: Duration = Duration::from_secs(2);

/// The relay of one worker process's output.
pub(crate) struct Relay {
    stopped: mpsc::Sender<oneshot::Sender<()>>,
    _task: JoinHandle<()>,
}

impl Relay {
    /// Relays `from` into `serve`'s standard error.
    pub(crate) fn to_stderr(from: impl AsyncRead + Unpin + Send + 'static) -> Relay {
        Relay::new(from, |line| {
            let _ = std::io::stderr().lock().write_all(line);
        })
    }

    /// Relays `from` into `write`, a whole line (with its newline) a call.
    pub(crate) fn new(from: impl AsyncRead + Unpin + Send + 'static, write: impl FnMut(&[u8]) + Send + 'static) -> Relay {
        let (stopped, requests) = mpsc::channel(1);
        Relay { stopped, _task: tokio::spawn(relay(from, write, requests)) }
    }

    /// The worker process has stopped: what it wrote is relayed, a cut last line ended, before
    /// this returns (at most `STOPPED_WAIT`; Chromium's lines are relayed on after it).
    pub(crate) async fn worker_stopped(&self) {
        let (done, wait) = oneshot::channel();
        if self.stopped.send(done).await.is_ok() {
            let _ = tokio::time::timeout(STOPPED_WAIT, wait).await;
        }
    }
}

/// Whole lines of `pending`, written; what follows the last newline is kept, or written as a line
/// of `MAX_LINE` bytes (with the newline it is given) once there is more of it.
fn write_lines(pending: &mut Vec<u8>, write: &mut impl FnMut(&[u8])) {
    loop {
        let end = match pending.iter().take(MAX_LINE).position(|&b| b == b'\n') {
            Some(newline) => newline + 1,
            None if pending.len() >= MAX_LINE => MAX_LINE - 1,
            None => return,
        };
        let mut line: Vec<u8> = pending.drain(..end).collect();
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        write(&line);
    }
}

/// Ends and writes a cut last line.
fn end_line(pending: &mut Vec<u8>, write: &mut impl FnMut(&[u8])) {
    if !pending.is_empty() {
        pending.push(b'\n');
        write(pending);
        pending.clear();
    }
}

async fn relay(mut from: impl AsyncRead + Unpin, mut write: impl FnMut(&[u8]), mut stopped: mpsc::Receiver<oneshot::Sender<()>>) {
    let mut pending = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        tokio::select! {
            read = from.read(&mut chunk) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    pending.extend_from_slice(&chunk[..n]);
                    write_lines(&mut pending, &mut write);
                }
            },
            Some(done) = stopped.recv() => {
                // What the worker wrote before it stopped is in the pipe: read it until quiet.
                while let Ok(Ok(n)) = tokio::time::timeout(QUIET, from.read(&mut chunk)).await {
                    if n == 0 {
                        break;
                    }
                    pending.extend_from_slice(&chunk[..n]);
                    write_lines(&mut pending, &mut write);
                }
                end_line(&mut pending, &mut write);
                let _ = done.send(());
            }
        }
    }
    end_line(&mut pending, &mut write);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tokio::io::AsyncWriteExt;

    type Lines = Arc<Mutex<Vec<String>>>;

    fn collected() -> (Lines, impl FnMut(&[u8]) + Send + 'static) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let into = lines.clone();
        (lines, move |line: &[u8]| into.lock().unwrap().push(String::from_utf8_lossy(line).into_owned()))
    }

    #[tokio::test]
    async fn whole_lines_are_relayed_and_a_cut_one_is_ended_when_the_worker_stops() {
        let (mut worker, pipe) = tokio::io::duplex(1 << 20);
        let (lines, write) = collected();
        let relay = Relay::new(pipe, write);
        worker.write_all(b"{\"a\":1}\n{\"b\":").await.unwrap();
        relay.worker_stopped().await;
        assert_eq!(*lines.lock().unwrap(), ["{\"a\":1}\n", "{\"b\":\n"]);
        // Chromium, still writing after the worker, is relayed on; the last line is ended at EOF.
        worker.write_all(b"[chromium] one\n[chromium] cut").await.unwrap();
        drop(worker);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(lines.lock().unwrap()[2..], ["[chromium] one\n", "[chromium] cut\n"]);
    }

    #[tokio::test]
    async fn a_line_longer_than_the_bound_is_cut_into_lines() {
        let (mut worker, pipe) = tokio::io::duplex(1 << 20);
        let (lines, write) = collected();
        let _relay = Relay::new(pipe, write);
        let long = vec![b'x'; MAX_LINE * 2 + 10];
        worker.write_all(&long).await.unwrap();
        worker.write_all(b"\nshort\n").await.unwrap();
        drop(worker);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let lines = lines.lock().unwrap();
        assert_eq!(lines.iter().map(String::len).collect::<Vec<_>>(), [MAX_LINE, MAX_LINE, 13, 6]);
        assert!(lines.iter().all(|l| l.ends_with('\n') && l.matches('\n').count() == 1));
    }
}
