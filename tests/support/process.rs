//! Running the real `sitescan` binary as a child process: its output captured line by line (for
//! log greps and failure messages), the API address it announces, and a clean stop (SIGTERM) or a
//! hard kill (SIGKILL); a fleet of them on one database is several.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The `sitescan` binary cargo built beside the running test binary (`target/<profile>/`; the
/// test binary itself is in its `deps/`).
pub fn bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    let bin = profile.join("sitescan");
    assert!(bin.exists(), "{} is missing: integration tests build it", bin.display());
    bin
}

/// The log filter of `sitescan` and `sitescan_with_env`: warnings, and sitescan's own info.
const QUIET_LOG: (&str, &str) = ("RUST_LOG", "warn,sitescan=info");

/// Starts `sitescan ARGS...` with a quiet log.
pub fn sitescan(args: &[&str]) -> Proc {
    Proc::spawn(args, &[QUIET_LOG])
}

/// Starts `sitescan ARGS...` with a quiet log and `envs` set.
pub fn sitescan_with_env(args: &[&str], envs: &[(&str, &str)]) -> Proc {
    let mut all = vec![QUIET_LOG];
    all.extend_from_slice(envs);
    Proc::spawn(args, &all)
}

/// A free TCP port on 127.0.0.1 (bound then released).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
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

/// A running `sitescan` process.
pub struct Proc {
    pub child: Child,
    pub lines: Arc<Mutex<Vec<String>>>,
    pub pid: u32,
}

impl Proc {
    /// Starts `sitescan args...` with `envs` (no `RUST_LOG` but theirs), capturing stderr and
    /// stdout lines. The process is killed when dropped.
    pub fn spawn(args: &[&str], envs: &[(&str, &str)]) -> Proc {
        Proc::spawn_cmd(Command::new(bin()), args, envs)
    }

    /// `spawn` in the working directory `dir`, with none of the `unset` variables of this
    /// process's environment (a start exactly as a script in `dir` makes it).
    pub fn spawn_in(dir: &std::path::Path, args: &[&str], envs: &[(&str, &str)], unset: &[&str]) -> Proc {
        let mut cmd = Command::new(bin());
        cmd.current_dir(dir);
        for k in unset {
            cmd.env_remove(k);
        }
        Proc::spawn_cmd(cmd, args, envs)
    }

    fn spawn_cmd(mut cmd: Command, args: &[&str], envs: &[(&str, &str)]) -> Proc {
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

    /// The `http://ADDR` a `serve` process announced: its hint with the text log, the `addr` of
    /// its "sitescan API listening" event with the JSON log.
    pub async fn base_url(&self) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            for line in self.lines.lock().unwrap().iter() {
                if let Some(at) = line.find("listening on http://") {
                    return line[at + "listening on ".len()..].trim().to_string();
                }
                if let Ok(event) = serde_json::from_str::<serde_json::Value>(line)
                    && event["message"] == "sitescan API listening"
                    && let Some(addr) = event["addr"].as_str()
                {
                    return format!("http://{addr}");
                }
            }
            assert!(std::time::Instant::now() < deadline, "serve announced no address within 60 s; output:\n{}", self.output());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Everything it printed so far.
    pub fn output(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// Its last 30 lines, for failure messages.
    pub fn tail(&self) -> String {
        let lines = self.lines.lock().unwrap();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: a plain kill(2) on our own child.
        unsafe {
            libc::kill(self.pid as i32, sig);
        }
    }

    /// SIGTERM, then wait (SIGKILL after `grace`). Its exit status when it stopped by itself
    /// within `grace`; `None` when it had to be killed.
    pub async fn stop(&mut self, grace: Duration) -> Option<std::process::ExitStatus> {
        self.signal(libc::SIGTERM);
        let stopped = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => {
                self.signal(libc::SIGKILL);
                let _ = self.child.wait().await;
                None
            }
        };
        // Let the readers drain.
        tokio::time::sleep(Duration::from_millis(200)).await;
        stopped
    }

    pub async fn kill9(&mut self) {
        self.signal(libc::SIGKILL);
        let _ = self.child.wait().await;
    }
}

/// Runs `sitescan args...` to completion: (exit code, stdout, stderr).
pub async fn run(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(bin());
    cmd.args(args).stdin(Stdio::null()).env_remove("RUST_LOG");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().await.expect("run sitescan");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}
