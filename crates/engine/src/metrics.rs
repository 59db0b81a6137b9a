//! Prometheus metrics: one registry for the process, written to by the API and the engine, read
//! by `GET /metrics`.

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};
use std::sync::OnceLock;

/// Every metric sitescan exports.
pub struct Metrics {
    pub registry: Registry,
    pub http_requests: IntCounterVec,
    pub http_duration: HistogramVec,
    pub grpc_requests: IntCounterVec,
    pub grpc_duration: HistogramVec,
    pub rate_limited: IntCounter,
    pub quota_exceeded: IntCounter,
    pub scans: IntGaugeVec,
    pub queue_depth: IntGauge,
    pub queue_oldest_age: prometheus::Gauge,
    pub pages_scanned: IntCounter,
    pub page_duration: Histogram,
    pub scans_finished: IntCounterVec,
    pub browsers: IntGauge,
    pub busy_pages: IntGauge,
    pub browser_crashes: IntGauge,
    pub browser_restarts: IntGauge,
    pub check_panics: IntCounter,
    pub devtools_messages_dropped: IntCounter,
}

fn build() -> Result<Metrics, prometheus::Error> {
    let registry = Registry::new_custom(Some("sitescan".into()), None)?;
    let latency = vec![0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];
    let m = Metrics {
        http_requests: IntCounterVec::new(
            Opts::new("http_requests_total", "HTTP requests by route and status"),
            &["method", "route", "status"],
        )?,
        http_duration: HistogramVec::new(
            HistogramOpts::new("http_request_duration_seconds", "HTTP request latency by route").buckets(latency.clone()),
            &["method", "route"],
        )?,
        grpc_requests: IntCounterVec::new(
            Opts::new("grpc_requests_total", "gRPC calls by method and status code"),
            &["method", "code"],
        )?,
        grpc_duration: HistogramVec::new(
            HistogramOpts::new("grpc_request_duration_seconds", "gRPC call latency by method").buckets(latency),
            &["method"],
        )?,
        rate_limited: IntCounter::new("rate_limit_rejections_total", "Requests refused by the per-token rate limit")?,
        quota_exceeded: IntCounter::new("quota_rejections_total", "Scans refused by the monthly quota")?,
        scans: IntGaugeVec::new(Opts::new("scans", "Scans by status (at the last scrape)"), &["status"])?,
        queue_depth: IntGauge::new("queue_depth", "Queued scans")?,
        queue_oldest_age: prometheus::Gauge::new("queue_oldest_age_seconds", "Age of the oldest queued scan")?,
        pages_scanned: IntCounter::new("pages_scanned_total", "Pages rendered and checked")?,
        page_duration: Histogram::with_opts(
            HistogramOpts::new("page_duration_seconds", "Time to capture one page")
                .buckets(vec![0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]),
        )?,
        scans_finished: IntCounterVec::new(
            Opts::new("scans_finished_total", "Scans this process finished, by outcome"),
            &["outcome"],
        )?,
        browsers: IntGauge::new("browser_pool_size", "Chromium processes in the pool")?,
        busy_pages: IntGauge::new("browser_busy_pages", "Pages being captured")?,
        browser_crashes: IntGauge::new("browser_crashes", "Chromium crashes detected since start")?,
        browser_restarts: IntGauge::new("browser_restarts", "Chromium processes replaced since start")?,
        check_panics: IntCounter::new("check_panics_total", "Checks that panicked on a page or site (their findings are left out)")?,
        devtools_messages_dropped: IntCounter::new(
            "devtools_messages_dropped_total",
            "Messages from Chromium over their byte budget, not read (each replaced by a short one that says so)",
        )?,
        registry,
    };
    m.registry.register(Box::new(m.http_requests.clone()))?;
    m.registry.register(Box::new(m.http_duration.clone()))?;
    m.registry.register(Box::new(m.grpc_requests.clone()))?;
    m.registry.register(Box::new(m.grpc_duration.clone()))?;
    m.registry.register(Box::new(m.rate_limited.clone()))?;
    m.registry.register(Box::new(m.quota_exceeded.clone()))?;
    m.registry.register(Box::new(m.scans.clone()))?;
    m.registry.register(Box::new(m.queue_depth.clone()))?;
    m.registry.register(Box::new(m.queue_oldest_age.clone()))?;
    m.registry.register(Box::new(m.pages_scanned.clone()))?;
    m.registry.register(Box::new(m.page_duration.clone()))?;
    m.registry.register(Box::new(m.scans_finished.clone()))?;
    m.registry.register(Box::new(m.browsers.clone()))?;
    m.registry.register(Box::new(m.busy_pages.clone()))?;
    m.registry.register(Box::new(m.browser_crashes.clone()))?;
    m.registry.register(Box::new(m.browser_restarts.clone()))?;
    m.registry.register(Box::new(m.check_panics.clone()))?;
    m.registry.register(Box::new(m.devtools_messages_dropped.clone()))?;
    Ok(m)
}

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static M: OnceLock<Metrics> = OnceLock::new();
    M.get_or_init(|| build().expect("metric definitions are valid"))
}

/// The families the scan workers write to: a worker process (`serve`'s) reports them to the
/// process that serves `/metrics` through [`worker_file`].
pub const ENGINE_FAMILIES: [&str; 9] = [
    "sitescan_pages_scanned_total",
    "sitescan_page_duration_seconds",
    "sitescan_scans_finished_total",
    "sitescan_browser_pool_size",
    "sitescan_browser_busy_pages",
    "sitescan_browser_crashes",
    "sitescan_browser_restarts",
    "sitescan_check_panics_total",
    "sitescan_devtools_messages_dropped_total",
];

/// The environment variable naming the file a worker process writes its engine metrics to.
pub const WORKER_FILE_ENV: &str = "SITESCAN_WORKER_METRICS_FILE";

/// Where this process reads its worker process's engine metrics (set by `serve` when its
/// workers run in a process of their own).
pub fn worker_file() -> &'static OnceLock<std::path::PathBuf> {
    static F: OnceLock<std::path::PathBuf> = OnceLock::new();
    &F
}

fn encode(families: &[prometheus::proto::MetricFamily]) -> String {
    let mut buf = Vec::new();
    let _ = TextEncoder::new().encode(families, &mut buf);
    String::from_utf8(buf).unwrap_or_default()
}

/// The registry in Prometheus text format; with a worker process, its engine families in place
/// of this process's (which stay at zero: no scan runs here).
pub fn render() -> String {
    let families = metrics().registry.gather();
    let worker = worker_file().get().and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default();
    if worker.is_empty() {
        return encode(&families);
    }
    let theirs: std::collections::BTreeSet<&str> = worker.lines().filter_map(|l| l.strip_prefix("# TYPE ")?.split_whitespace().next()).collect();
    let ours: Vec<_> = families.into_iter().filter(|f| !theirs.contains(f.name())).collect();
    let mut out = encode(&ours);
    out.push_str(&worker);
    out
}

/// This process's engine families in Prometheus text format (what a worker process reports).
pub fn render_engine() -> String {
    let families: Vec<_> = metrics().registry.gather().into_iter().filter(|f| ENGINE_FAMILIES.contains(&f.name())).collect();
    encode(&families)
}

/// Writes [`render_engine`] to `path` whole (a temporary file renamed over it).
pub fn write_engine(path: &std::path::Path) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, render_engine())?;
    std::fs::rename(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_process_engine_families_replace_ours_once() {
        metrics().pages_scanned.inc();
        let engine = render_engine();
        assert!(engine.contains("# TYPE sitescan_pages_scanned_total counter"), "{engine}");
        assert!(!engine.contains("sitescan_http_requests_total"), "only the engine's families: {engine}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("worker.prom");
        std::fs::write(&file, "# HELP sitescan_pages_scanned_total Pages rendered and checked\n# TYPE sitescan_pages_scanned_total counter\nsitescan_pages_scanned_total 41\n").unwrap();
        let _ = worker_file().set(file);
        let all = render();
        assert_eq!(all.matches("# TYPE sitescan_pages_scanned_total").count(), 1, "{all}");
        assert!(all.contains("sitescan_pages_scanned_total 41"), "the worker's value: {all}");
        assert!(all.contains("# TYPE sitescan_queue_depth"), "ours stay: {all}");
    }
}
