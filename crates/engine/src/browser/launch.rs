//! Finding and starting a Chromium process: its flags (proxy, no background traffic), its own
//! user-data-dir and TMPDIR under a temp dir, a process group we can kill as a whole, and death
//! with the parent (`PR_SET_PDEATHSIG`), so no Chromium outlives sitescan.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::error::BrowserError;
use super::options::{VIEWPORT_HEIGHT, VIEWPORT_WIDTH};

/// Environment variable naming the Chromium binary.
pub const CHROMIUM_ENV: &str = "SITESCAN_CHROMIUM";
/// How long Chromium may take to announce its DevTools endpoint.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);
/// Prefix of the per-browser temp dirs (followed by our pid), so stale ones can be swept.
const TEMP_PREFIX: &str = "sitescan-chromium-";

/// The variables of the service's environment that Chromium is given: what it needs to find its
/// libraries and fonts and to speak the locale, nothing else.
const CHROMIUM_INHERITS: &[&str] = &["PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "FONTCONFIG_PATH", "FONTCONFIG_FILE"];

/// Chromium's environment out of the service's: only `CHROMIUM_INHERITS`.
pub(crate) fn chromium_env(vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    vars.filter(|(k, _)| k.to_str().is_some_and(|k| CHROMIUM_INHERITS.contains(&k))).collect()
}

/// Flags every launched Chromium gets (besides the proxy, user-data-dir and sandbox flags).
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--metrics-recording-only",
    "--mute-audio",
    "--hide-scrollbars",
    "--password-store=basic",
    "--use-mock-keychain",
    // Concurrent pages are background tabs: without these they stop painting, and paint
    // metrics (FCP, LCP) never arrive.
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-field-trial-config",
    "--disable-search-engine-choice-screen",
    // No page opens a window of its own (`window.open`, `target=_blank`, a form to a new
    // window): a scan looks at the page it loaded, and a journey's page is held to its origins
    // by request interception that a new window would escape.
    "--block-new-web-contents",
    // Frames stay in their page's renderer: one CDP session sees all of a page's network,
    // console and errors (out-of-process iframes report on sessions of their own), and a page
    // costs one renderer process.
    "--disable-site-isolation-trials",
    // New headless mode builds a browser window per page, and with it two omnibox popup WebUI
    // renderers (WebUIOmniboxPopup, WebUIOmniboxAimPopup) nobody ever sees: ~230 MiB for nothing.
    // A page reused for the scan's next URL must not keep the previous document alive in the
    // back/forward cache.
    "--disable-features=BackForwardCache,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,NetworkTimeServiceQuerying,IsolateOrigins,site-per-process,AcceptCHFrame,WebUIOmniboxPopup,WebUIOmniboxAimPopup",
    // V8 for a scanner, measured on the bench pages (one renderer, 16 pages, then the full bench):
    // - No TurboFan (`--max-opt=2`, Maglev is the top tier). axe-core runs once per document
    //   for about 200 ms and a new document throws optimized code away, so TurboFan's
    //   background compiles never pay back: one axe run costs the renderer 270 ms of CPU against
    //   326 with every tier, and its main-thread time is no longer (200 against 214 ms).
    // - A renderer reused for a scan's next URLs (capture::PAGES_PER_WINDOW) lets its heap grow
    //   with every page's garbage (120 MiB after 16 pages; full bench: peak PSS 1,020 MiB).
    //   New space capped at 2 MiB per semi-space and old space grown by 20% instead of V8's
    //   default factor hold it at about 35 MiB (PSS 856-879 MiB).
    // `--optimize-for-size` held memory too (PSS 795-834 MiB) but slowed a page's own hot,
    // allocating script by 60% (450 against 280 ms) and axe by 40%, which would inflate the
    // TBT sitescan reports; these flags cost that script about 10% and axe nothing.
    // - Maglev later (`--invocation-count-for-maglev=2000`, V8's default 400): axe's functions,
    //   hot for one run, were compiled by Maglev on background threads for nothing (the main
    //   thread took as long either way, 236-257 ms a run): the renderer's CPU for injecting and
    //   running axe is 299 ms a page against 360 (16 bench pages in one renderer, 2026-11-27).
    //   A page's own hot code still tiers up: loops by on-stack replacement (its own count,
    //   unchanged), and functions called thousands of times; recursion, allocation, string and
    //   DOM loops of 10-100 ms ran as fast as with the default. Maglev off altogether
    //   (`--max-opt=1`) ran those 1.5-5x slower, which would inflate the TBT sitescan reports.
    "--js-flags=--max-opt=2,--max-semi-space-size=2,--heap-growing-percent=20,--invocation-count-for-maglev=2000",
    // With the GPU disabled the compositor is software anyway: a process of its own costs memory.
    "--in-process-gpu",
    // WebRTC must not reach the network around the proxy.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    // Loopback is NOT bypassed: everything goes through the egress proxy.
    "--proxy-bypass-list=<-loopback>",
    "--remote-debugging-port=0",
];

/// The Chromium binary: `explicit`, else `$SITESCAN_CHROMIUM`, Debian's
/// `chromium-headless-shell`, `/usr/bin/chromium`, `google-chrome`.
///
/// The headless shell comes first: it has no window machinery, and on the benchmark site it
/// scans in about a quarter less time and CPU than the full browser with less memory, the same
/// findings and paint metrics closer to a lone page's (README, Benchmarks).
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, BrowserError> {
    let mut tried = Vec::new();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        candidates.push(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(CHROMIUM_ENV).filter(|v| !v.is_empty()) {
        candidates.push(PathBuf::from(p));
    }
    candidates.push(PathBuf::from("/usr/lib/chromium/chromium-headless-shell"));
    candidates.push(PathBuf::from("/usr/bin/chromium"));
    for name in ["chromium-headless-shell", "chromium", "google-chrome", "google-chrome-stable"] {
        if let Some(p) = on_path(name) {
            candidates.push(p);
        }
    }
    for c in candidates {
        if is_executable(&c) {
            return Ok(c);
        }
        tried.push(c.display().to_string());
        if explicit.is_some_and(|e| e == c) {
            return Err(BrowserError::NotFound { tried: tried.join(", ") });
        }
    }
    tried.push("chromium-headless-shell, google-chrome on PATH".into());
    Err(BrowserError::NotFound { tried: tried.join(", ") })
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// Removes temp dirs left by sitescan processes that no longer exist (after a hard kill).
pub fn sweep_stale_temp_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(TEMP_PREFIX) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A running Chromium we launched. Dropping it kills the whole process group.
#[derive(Debug)]
pub(crate) struct ChromiumProcess {
    pid: u32,
    ws_url: String,
    exited: watch::Receiver<bool>,
    killed: Arc<AtomicBool>,
    reaper: JoinHandle<()>,
    stderr: JoinHandle<()>,
    // Last: removed after the process is gone.
    _dir: TempDir,
}

impl ChromiumProcess {
    /// Starts `exe` with our flags and `proxy_server` (`http://IP:PORT`) as its proxy for
    /// everything outside the scan's browser contexts (which carry their own), and waits for its
    /// DevTools endpoint. `no_sandbox`: without Chromium's sandbox (always so as root).
    pub(crate) async fn spawn(exe: &Path, proxy_server: &str, no_sandbox: bool) -> Result<ChromiumProcess, BrowserError> {
        let launch_err = |message: String| BrowserError::Launch { path: exe.display().to_string(), message };
        let dir = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
            .tempdir()
            .map_err(|e| launch_err(format!("temp dir: {e}")))?;
        let (profile, tmp, xdg) = (dir.path().join("profile"), dir.path().join("tmp"), dir.path().join("xdg"));
        for d in [&profile, &tmp, &xdg] {
            std::fs::create_dir_all(d).map_err(|e| launch_err(format!("temp dir: {e}")))?;
        }
        let proxy_host = proxy_server.trim_start_matches("http://").rsplit_once(':').map(|(h, _)| h).unwrap_or("127.0.0.1");
        let mut cmd = std::process::Command::new(exe);
        cmd.args(CHROMIUM_FLAGS)
            .arg(format!("--proxy-server={proxy_server}"))
            // Chromium itself resolves nothing: the proxy does. Defence in depth against any
            // path that would connect around the proxy by name.
            .arg(format!("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {proxy_host}"))
            .arg(format!("--window-size={VIEWPORT_WIDTH},{VIEWPORT_HEIGHT}"))
            .arg(format!("--user-data-dir={}", profile.display()));
        if no_sandbox || running_as_root() {
            cmd.arg("--no-sandbox");
        }
        // A clean environment: nothing of the service's (database URL, secret key file,
        // `SITESCAN_*`, cloud credentials) reaches a process that runs tenants' pages.
        cmd.env_clear().envs(chromium_env(std::env::vars_os())).env("HOME", dir.path());
        cmd.arg("about:blank")
            .env("TMPDIR", &tmp)
            .env("XDG_CONFIG_HOME", &xdg)
            .env("XDG_CACHE_HOME", &xdg)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
        // SAFETY: prctl is async-signal-safe; the closure touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The data memory limit `serve` sets on its worker process is for the scanner:
                // Chromium gets it back (its renderers have limits of their own).
                let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                if libc::getrlimit(libc::RLIMIT_DATA, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
                    limit.rlim_cur = limit.rlim_max;
                    libc::setrlimit(libc::RLIMIT_DATA, &limit);
                }
                Ok(())
            });
        }
        let mut child = tokio::process::Command::from(cmd).kill_on_drop(true).spawn().map_err(|e| launch_err(e.to_string()))?;
        let pid = child.id().ok_or_else(|| launch_err("no pid".into()))?;
        let stderr = child.stderr.take().ok_or_else(|| launch_err("no stderr".into()))?;
        let mut lines = BufReader::new(stderr).lines();
        let found = tokio::time::timeout(LAUNCH_TIMEOUT, async {
            let mut tail = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(i) = line.find("ws://") {
                    return Ok(line[i..].trim().to_string());
                }
                tail.push(line);
                if tail.len() > 20 {
                    tail.remove(0);
                }
            }
            Err(tail.join(" | "))
        })
        .await;
        let ws_url = match found {
            Ok(Ok(url)) => url,
            Ok(Err(tail)) => {
                kill_group(pid);
                return Err(launch_err(format!("exited before announcing DevTools: {tail}")));
            }
            Err(_) => {
                kill_group(pid);
                return Err(launch_err(format!("no DevTools endpoint within {LAUNCH_TIMEOUT:?}")));
            }
        };
        // Keep draining stderr, or Chromium blocks on a full pipe.
        let stderr = tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::trace!(target: "sitescan::chromium", pid, "{line}");
            }
        });
        let (tx, exited) = watch::channel(false);
        let killed = Arc::new(AtomicBool::new(false));
        let reaper_killed = killed.clone();
        let reaper = tokio::spawn(async move {
            let status = child.wait().await;
            if !reaper_killed.load(Ordering::SeqCst) {
                tracing::warn!(pid, ?status, "Chromium exited");
            }
            let _ = tx.send(true);
        });
        tracing::debug!(pid, %ws_url, exe = %exe.display(), "Chromium launched");
        Ok(ChromiumProcess { pid, ws_url, exited, killed, reaper, stderr, _dir: dir })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    pub(crate) fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// Resolves when the process has exited.
    pub(crate) fn exited(&self) -> watch::Receiver<bool> {
        self.exited.clone()
    }

    /// Kills the whole process group (renderers, GPU and utility processes included).
    pub(crate) fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        kill_group(self.pid);
    }

    /// Kills the process and waits (up to 5 s) until it is reaped.
    pub(crate) async fn kill_and_wait(&self) {
        self.kill();
        let mut exited = self.exited.clone();
        let _ = tokio::time::timeout(Duration::from_secs(5), exited.wait_for(|e| *e)).await;
    }
}

impl Drop for ChromiumProcess {
    fn drop(&mut self) {
        self.kill();
        self.stderr.abort();
        // Leave the reaper running: it reaps the child (no zombie) and then ends.
        let _ = &self.reaper;
    }
}

fn kill_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: plain syscalls on a process group we created (process_group(0) made pid its id).
    unsafe {
        libc::killpg(pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
}

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_gets_no_service_secret_from_the_environment() {
        let vars = [("PATH", "/usr/bin"), ("SITESCAN_SECRET_KEY", "k"), ("SITESCAN_DATABASE_URL", "postgres://x"), ("DATABASE_URL", "x"), ("AWS_SECRET_ACCESS_KEY", "x"), ("LANG", "C.UTF-8"), ("RUST_LOG", "trace")];
        let env = chromium_env(vars.iter().map(|(k, v)| (k.into(), v.into())));
        let names: Vec<String> = env.iter().map(|(k, _)| k.to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["PATH", "LANG"]);
    }

    #[test]
    fn explicit_missing_binary_is_reported() {
        let err = find_chromium(Some(Path::new("/nonexistent/chrome"))).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/chrome"), "{err}");
    }

    #[test]
    fn flags_route_everything_through_the_proxy() {
        assert!(CHROMIUM_FLAGS.contains(&"--proxy-bypass-list=<-loopback>"));
        assert!(CHROMIUM_FLAGS.contains(&"--disable-quic"));
    }
}
