//! Running the real `sitescan` binary as separate processes (a fleet on one database).

#![allow(dead_code)]

use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

/// A free TCP port on 127.0.0.1 (bound then released).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// A `sitescan` child process, killed when dropped. Its stderr goes to a log file kept for
/// failure messages.
pub struct Proc {
    pub child: Child,
    pub log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Proc {
    /// The last lines of the process's log.
    pub fn tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    pub fn pid(&self) -> u32 {
        self.child.id().unwrap_or(0)
    }
}

/// Starts `sitescan ARGS...` with a quiet log.
pub fn sitescan(args: &[&str]) -> Proc {
    sitescan_with_env(args, &[])
}

/// Starts `sitescan ARGS...` with a quiet log and `envs` set.
pub fn sitescan_with_env(args: &[&str], envs: &[(&str, &str)]) -> Proc {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("stderr.log");
    let file = std::fs::File::create(&log).expect("log file");
    let child = Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(args)
        .envs(envs.iter().copied())
        .env("RUST_LOG", "warn,sitescan=info")
        .stdout(Stdio::null())
        .stderr(Stdio::from(file))
        .kill_on_drop(true)
        .spawn()
        .expect("spawn sitescan");
    Proc { child, log, _dir: dir }
}

/// Waits until `url` answers 200.
pub async fn wait_ready(url: &str, within: Duration) {
    let client = reqwest::Client::new();
    let started = Instant::now();
    loop {
        if let Ok(r) = client.get(url).send().await
            && r.status().is_success()
        {
            return;
        }
        assert!(started.elapsed() < within, "{url} not ready after {within:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
