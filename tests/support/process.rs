//! Running the real `sitescan` binary as a child process: its stderr captured line by line (for
//! log greps), the API address it announces, and a clean stop (SIGTERM) or a hard kill (SIGKILL).

#![allow(dead_code)]

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub const BIN: &str = env!("CARGO_BIN_EXE_sitescan");

/// A running `sitescan` process.
pub struct Proc {
    pub child: Child,
    pub lines: Arc<Mutex<Vec<String>>>,
    pub pid: u32,
}

impl Proc {
    /// Starts `sitescan args...` with `envs`, capturing stderr (and stdout) lines.
    pub fn spawn(args: &[&str], envs: &[(&str, &str)]) -> Proc {
        let mut cmd = Command::new(BIN);
        cmd.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        cmd.env_remove("RUST_LOG");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn sitescan");
        let pid = child.id().expect("pid");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let err = child.stderr.take().expect("stderr");
        let out = child.stdout.take().expect("stdout");
        for stream in [Box::new(err) as Box<dyn tokio::io::AsyncRead + Unpin + Send>, Box::new(out)] {
            let l = lines.clone();
            tokio::spawn(async move {
                let mut r = BufReader::new(stream).lines();
                while let Ok(Some(line)) = r.next_line().await {
                    l.lock().unwrap().push(line);
                }
            });
        }
        Proc { child, lines, pid }
    }

    /// Waits for a line containing `needle` (up to `within`), returning it.
    pub async fn wait_line(&self, needle: &str, within: Duration) -> String {
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Some(l) = self.lines.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return l.clone();
            }
            assert!(std::time::Instant::now() < deadline, "no line with {needle:?} within {within:?}; output:\n{}", self.output());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The `http://ADDR` a `serve` process announced.
    pub async fn base_url(&self) -> String {
        let line = self.wait_line("listening on http://", Duration::from_secs(60)).await;
        line[line.find("http://").unwrap()..].trim().to_string()
    }

    pub fn output(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: a plain kill(2) on our own child.
        unsafe {
            libc::kill(self.pid as i32, sig);
        }
    }

    /// SIGTERM, then wait (SIGKILL after `grace`).
    pub async fn stop(&mut self, grace: Duration) {
        self.signal(libc::SIGTERM);
        if tokio::time::timeout(grace, self.child.wait()).await.is_err() {
            self.signal(libc::SIGKILL);
            let _ = self.child.wait().await;
        }
        // Let the readers drain.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    pub async fn kill9(&mut self) {
        self.signal(libc::SIGKILL);
        let _ = self.child.wait().await;
    }
}

/// Runs `sitescan args...` to completion: (exit code, stdout, stderr).
pub async fn run(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdin(Stdio::null()).env_remove("RUST_LOG");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().await.expect("run sitescan");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}
