//! `sitescan serve`'s scan workers in a process of their own, which `serve` starts, limits and
//! supervises, so that no page can take the API down with it.
//!
//! The worker process is this same program run again with `serve`'s own arguments and
//! environment plus the hidden `--worker-process` flag (it then runs only the scan workers).
//! Before it starts, its data memory (`RLIMIT_DATA`: heap and private writable mappings, what
//! a flood of page data grows) is limited to `--worker-memory-mb`; the Chromium it launches is
//! given the limit back (`browser/launch.rs`), since Chromium's renderers are limited and killed
//! by Chromium itself. A worker that reaches its limit cannot allocate and stops.
//!
//! When the process stops without being asked to, its running scans are put back in the queue
//! at once (not after their lease expires), and a scan that was running in a worker that
//! stopped twice fails with `worker_stopped`, naming the limit: a page that kills a worker is
//! retried once, never in a loop. Another process is started after a pause that grows while
//! they keep stopping quickly (1 s doubling to 30 s). On shutdown the process is asked to stop
//! (SIGTERM: it releases its scans) and killed if it has not after a minute; it is also sent
//! SIGTERM by the kernel if `serve` itself dies. Its standard error reaches `serve`'s a whole line
//! at a time (`worker_output`).

use crate::model::{ReportSummary, StoredReport};
use crate::store::Store;
use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The hidden flag that makes `serve` a worker process.
pub const CHILD_FLAG: &str = "--worker-process";
/// A worker process's data memory by default (MB).
pub const DEFAULT_MEMORY_MB: u64 = 1024;
/// Times a scan may be running in a worker process that stopped before it fails.
const STOPS_PER_SCAN: i32 = 2;
/// How long a stopping worker process may take to release its scans.
const STOP_GRACE: Duration = Duration::from_secs(60);
/// The pause before a new process after one that stopped, and the longest pause.
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const LONGEST_PAUSE: Duration = Duration::from_secs(30);
/// A process that ran this long before stopping resets the pause.
const STEADY: Duration = Duration::from_secs(60);

/// How often the worker process writes its engine metrics for `serve`'s `/metrics`.
pub const METRICS_EVERY: Duration = Duration::from_secs(2);

/// The supervisor of `serve`'s worker process.
pub struct WorkerProcess {
    stop: CancellationToken,
    task: JoinHandle<()>,
    /// Where the worker process writes its engine metrics (`/metrics` reads them).
    _metrics_dir: Option<tempfile::TempDir>,
}

impl WorkerProcess {
    /// Starts the worker process of `app`'s database and keeps one running until
    /// [`WorkerProcess::stop`].
    pub fn start(app: &super::App, memory_mb: u64) -> WorkerProcess {
        let store = app.store.clone();
        let stop = CancellationToken::new();
        let metrics_dir = tempfile::Builder::new().prefix("sitescan-worker-metrics-").tempdir().ok();
        let metrics_file = metrics_dir.as_ref().map(|d| d.path().join("engine.prom"));
        if let Some(file) = &metrics_file {
            let _ = crate::metrics::worker_file().set(file.clone());
        }
        let task = tokio::spawn(supervise(store, memory_mb, metrics_file, stop.clone()));
        WorkerProcess { stop, task, _metrics_dir: metrics_dir }
    }

    /// Asks the worker process to stop (its scans are released) and waits for it.
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

fn spawn(memory_mb: u64, metrics_file: Option<&std::path::Path>) -> std::io::Result<tokio::process::Child> {
    let exe = std::env::current_exe()?;
    let mut cmd = std::process::Command::new(exe);
    // Its standard error (its log, and its Chromium's) is relayed a whole line at a time
    // (`worker_output`).
    cmd.args(std::env::args_os().skip(1)).arg(CHILD_FLAG).stdin(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    if let Some(file) = metrics_file {
        cmd.env(crate::metrics::WORKER_FILE_ENV, file);
    }
    let bytes = memory_mb.saturating_mul(1024 * 1024);
    // SAFETY: getrlimit, setrlimit and prctl are async-signal-safe; the closure touches no
    // memory of the parent but its own copy of `bytes`.
    unsafe {
        cmd.pre_exec(move || {
            let mut now = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            if libc::getrlimit(libc::RLIMIT_DATA, &mut now) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let limit = libc::rlimit { rlim_cur: (bytes as libc::rlim_t).min(now.rlim_max), rlim_max: now.rlim_max };
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // `serve` gone (even killed): the worker releases its scans and stops.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    tokio::process::Command::from(cmd).kill_on_drop(true).spawn()
}

/// How a process ended, in words (`exit status 3`, `signal 6 (SIGABRT)`).
fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => {
            let name = match signal {
                libc::SIGABRT => " (SIGABRT: it could not allocate memory, or a fatal error)",
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGSEGV => " (SIGSEGV)",
                _ => "",
            };
            format!("signal {signal}{name}")
        }
        _ => "an unknown status".to_string(),
    }
}

async fn supervise(store: Store, memory_mb: u64, metrics_file: Option<std::path::PathBuf>, stop: CancellationToken) {
    let mut pause = FIRST_PAUSE;
    while !stop.is_cancelled() {
        let mut child = match spawn(memory_mb, metrics_file.as_deref()) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e, "could not start a scan worker process; trying again");
                tokio::select! {
                    _ = tokio::time::sleep(pause) => {}
                    _ = stop.cancelled() => return,
                }
                pause = (pause * 2).min(LONGEST_PAUSE);
                continue;
            }
        };
        let relay = child.stderr.take().map(super::worker_output::Relay::to_stderr);
        let Some(pid) = child.id() else { continue };
        tracing::info!(pid, memory_mb, "scan worker process started");
        let started = Instant::now();
        tokio::select! {
            status = child.wait() => {
                let how = status.map(describe).unwrap_or_else(|e| format!("an unknown status ({e})"));
                // Its last words first, a cut line ended, so that nothing is glued onto this one.
                if let Some(relay) = &relay {
                    relay.worker_stopped().await;
                }
                tracing::error!(pid, status = %how, memory_mb, "the scan worker process stopped; its scans go back to the queue and another process starts");
                match recover(&store, pid, &how, memory_mb).await {
                    Ok((requeued, failed)) => tracing::info!(pid, requeued, failed, "scans of the stopped worker process recovered"),
                    Err(e) => tracing::warn!(pid, error = %e, "could not recover the stopped worker's scans now; their leases expire and other workers take them"),
                }
                pause = if started.elapsed() >= STEADY { FIRST_PAUSE } else { (pause * 2).min(LONGEST_PAUSE) };
                tokio::select! {
                    _ = tokio::time::sleep(pause) => {}
                    _ = stop.cancelled() => return,
                }
            }
            _ = stop.cancelled() => {
                // SAFETY: kill with a pid of our own child.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
                if tokio::time::timeout(STOP_GRACE, child.wait()).await.is_err() {
                    tracing::warn!(pid, "the scan worker process did not stop within a minute; killed");
                    let _ = child.kill().await;
                }
                return;
            }
        }
    }
}

/// Puts the running scans of the stopped process `pid` back in the queue, failing those that
/// were in a stopped worker before; returns (requeued, failed).
async fn recover(store: &Store, pid: u32, how: &str, memory_mb: u64) -> crate::store::StoreResult<(usize, usize)> {
    let prefix = crate::crawl::worker::owner_prefix(pid);
    let (mut requeued, mut failed) = (0, 0);
    for (id, owner, attempts) in store.running_scans_of(&prefix).await? {
        if attempts >= STOPS_PER_SCAN {
            let message = format!(
                "the scan's worker process stopped while scanning it, {attempts} times (the last: {how}); a worker process may use {memory_mb} MB \
                 (`--worker-memory-mb`), and a page that needs more stops it; not retried again"
            );
            let report = StoredReport::of(ReportSummary::failed("worker_stopped", &message));
            if store.fail_scan(id, &owner, &report).await? {
                failed += 1;
            }
        } else if store.requeue_scan(id, &owner).await? {
            requeued += 1;
        }
    }
    Ok((requeued, failed))
}
