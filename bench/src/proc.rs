//! Measuring processes: peak memory of a process tree (sampled from /proc), the load average,
//! and running a command to completion with both.

use serde::Serialize;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the memory of a process tree is sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);
/// PSS (smaps_rollup) is dearer to read: every this many RSS samples.
const PSS_EVERY: usize = 5;

fn parent_map() -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let ppid = rest.split_whitespace().nth(1).and_then(|x| x.parse().ok()).unwrap_or(0);
        out.push((pid, ppid));
    }
    out
}

/// `root` and every descendant alive right now.
pub fn tree(root: u32) -> Vec<u32> {
    let parents = parent_map();
    let mut pids = vec![root];
    let mut i = 0;
    while i < pids.len() {
        let cur = pids[i];
        pids.extend(parents.iter().filter(|(_, pp)| *pp == cur).map(|(p, _)| *p));
        i += 1;
    }
    pids
}

fn kib_field(text: &str, name: &str) -> u64 {
    text.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Summed RSS (and PSS when asked) of `root`'s tree, in bytes, and the process count.
pub fn tree_memory(root: u32, with_pss: bool) -> (u64, u64, usize) {
    let pids = tree(root);
    let (mut rss, mut pss) = (0, 0);
    let mut alive = 0;
    for p in &pids {
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{p}/status")) {
            rss += kib_field(&s, "VmRSS:");
            alive += 1;
        }
        if with_pss && let Ok(s) = std::fs::read_to_string(format!("/proc/{p}/smaps_rollup")) {
            pss += kib_field(&s, "Pss:");
        }
    }
    (rss * 1024, pss * 1024, alive)
}

/// The peak memory of a process tree over a sampled period.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Peak {
    pub rss_bytes: u64,
    pub pss_bytes: u64,
    pub processes: usize,
    pub samples: usize,
}

/// CPU seconds (user + system) a process has used so far, and what kind of process it is
/// (Chromium's `--type=`, with the utility's sub-type, else the program's name); the kind is
/// empty for a process whose command line is gone (exited, not yet reaped), so that its last
/// sample does not relabel it.
pub fn process_cpu(pid: u32) -> Option<(f64, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields after the command: state(0) ppid(1) ... utime(11) stime(12).
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let args: Vec<&str> = cmdline.split(['\0', ' ']).collect();
    let arg = |name: &str| args.iter().find_map(|a| a.strip_prefix(name)).map(str::to_string);
    let kind = match arg("--type=") {
        _ if fields.first() == Some(&"Z") || cmdline.is_empty() => String::new(),
        Some(t) if t == "utility" => format!("chromium {}", arg("--utility-sub-type=").unwrap_or_default().split('.').next().unwrap_or("utility")),
        Some(t) => format!("chromium {t}"),
        // The program's own name (`comm` would cut `chromium-headless-shell` at 15 bytes).
        None => {
            let program = args.first().copied().unwrap_or_default();
            program.rsplit('/').next().unwrap_or(program).to_string()
        }
    };
    Some((ticks / hz, kind))
}

/// CPU time of a process tree: every process seen, at its last sample (a process that exits
/// between two samples loses at most one sampling period).
#[derive(Debug, Clone, Default, Serialize)]
pub struct CpuUse {
    pub total_s: f64,
    /// Process kind -> CPU seconds.
    pub by_kind: std::collections::BTreeMap<String, f64>,
    /// (seconds since sampling started, CPU seconds of the tree so far) at every sample.
    #[serde(skip)]
    pub timeline: Vec<(f64, f64)>,
}

impl Peak {
    pub fn merge(self, other: Peak) -> Peak {
        Peak {
            rss_bytes: self.rss_bytes.max(other.rss_bytes),
            pss_bytes: self.pss_bytes.max(other.pss_bytes),
            processes: self.processes.max(other.processes),
            samples: self.samples + other.samples,
        }
    }

    pub fn rss_mib(&self) -> f64 {
        self.rss_bytes as f64 / 1048576.0
    }

    pub fn pss_mib(&self) -> f64 {
        self.pss_bytes as f64 / 1048576.0
    }
}

/// Samples a process tree's memory on a thread of its own until stopped.
pub struct TreeSampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<(Peak, CpuUse)>,
}

impl TreeSampler {
    pub fn start(root: u32) -> TreeSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut peak = Peak::default();
            let mut seen: std::collections::HashMap<u32, (f64, String)> = std::collections::HashMap::new();
            let mut n = 0usize;
            let started = Instant::now();
            let mut timeline = Vec::new();
            while !flag.load(Ordering::SeqCst) {
                let (rss, pss, procs) = tree_memory(root, n % PSS_EVERY == 0);
                if procs == 0 {
                    break;
                }
                for pid in tree(root) {
                    if let Some((cpu, kind)) = process_cpu(pid) {
                        let entry = seen.entry(pid).or_insert((cpu, kind.clone()));
                        entry.0 = cpu;
                        if !kind.is_empty() {
                            entry.1 = kind;
                        }
                    }
                }
                timeline.push((started.elapsed().as_secs_f64(), seen.values().map(|(cpu, _)| cpu).sum::<f64>()));
                peak.rss_bytes = peak.rss_bytes.max(rss);
                peak.pss_bytes = peak.pss_bytes.max(pss);
                peak.processes = peak.processes.max(procs);
                peak.samples += 1;
                n += 1;
                std::thread::sleep(SAMPLE_EVERY);
            }
            let mut cpu = CpuUse { timeline, ..CpuUse::default() };
            for (s, mut kind) in seen.into_values() {
                if kind.is_empty() {
                    kind = "exited before its kind was read".into();
                }
                cpu.total_s += s;
                *cpu.by_kind.entry(kind).or_default() += s;
            }
            (peak, cpu)
        });
        TreeSampler { stop, handle }
    }

    pub fn finish(self) -> (Peak, CpuUse) {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap_or_default()
    }
}

/// The 1-minute load average.
pub fn loadavg() -> f64 {
    std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok())).unwrap_or(f64::NAN)
}

/// Samples the load average every few seconds for the whole run.
pub struct LoadSampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<f64>>,
}

impl LoadSampler {
    pub fn start(every: Duration) -> LoadSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut out = vec![loadavg()];
            let mut last = Instant::now();
            while !flag.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(200));
                if last.elapsed() >= every {
                    out.push(loadavg());
                    last = Instant::now();
                }
            }
            out.push(loadavg());
            out
        });
        LoadSampler { stop, handle }
    }

    pub fn finish(self) -> Vec<f64> {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap_or_default()
    }
}

/// What a finished command left.
#[derive(Debug)]
pub struct Run {
    /// When the command was started (its log's timestamps are read against it).
    pub started_at: std::time::SystemTime,
    pub wall: Duration,
    /// User + system CPU seconds of the whole process tree, sampled from /proc.
    pub cpu: CpuUse,
    pub peak: Peak,
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.status.success()
    }
}

/// Runs `cmd` to completion, timing it and sampling its process tree's memory.
pub async fn run_measured(mut cmd: tokio::process::Command, timeout: Duration) -> anyhow::Result<Run> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let started = Instant::now();
    let started_at = std::time::SystemTime::now();
    let child = cmd.spawn()?;
    let pid = child.id().unwrap_or(0);
    let sampler = TreeSampler::start(pid);
    let out = tokio::time::timeout(timeout, child.wait_with_output()).await;
    let wall = started.elapsed();
    let (peak, cpu) = sampler.finish();
    let out = match out {
        Ok(o) => o?,
        Err(_) => anyhow::bail!("timed out after {timeout:?} (and was killed)"),
    };
    Ok(Run {
        started_at,
        wall,
        cpu,
        peak,
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Asks a child process to stop (SIGTERM), then waits for it a little.
pub async fn terminate(child: &mut tokio::process::Child) {
    if let Some(pid) = child.id() {
        // SAFETY: sending a signal to a process we started.
        unsafe {
            libc::kill(pid as i32, libc::SIGTERM);
        }
    }
    if tokio::time::timeout(Duration::from_secs(10), child.wait()).await.is_err() {
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
}
