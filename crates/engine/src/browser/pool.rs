//! `BrowserPool`: N Chromium processes (or remote DevTools endpoints) behind the egress proxy,
//! with a pool-wide page permit (browsers x pages per browser), crash and hang detection,
//! replacement, and recycling after a number of pages. No Chromium outlives the pool: shutdown
//! closes every browser, dropping the pool kills them.

use chromiumoxide::cdp::browser_protocol::browser::GetVersionParams;
use futures::future::join_all;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use crate::net::{EgressGuard, EgressProxy};

use super::error::BrowserError;
use super::instance::Instance;
use super::launch::{find_chromium, sweep_stale_temp_dirs};
use super::options::BrowserOptions;
use super::session::BrowserSession;

/// How often the watchdog looks at the browsers.
pub const WATCHDOG_INTERVAL: Duration = Duration::from_secs(2);
/// How often a browser is probed with `Browser.getVersion`.
pub const PING_INTERVAL: Duration = Duration::from_secs(10);
/// Failed probes in a row before a browser counts as hung and is replaced.
pub const PING_FAILURES: usize = 2;
/// Tries to start one Chromium before its slot counts as failed.
const LAUNCH_ATTEMPTS: u32 = 3;

/// A snapshot of the pool's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Browsers alive right now.
    pub browsers: usize,
    /// Pages being captured right now.
    pub busy_pages: usize,
    pub pages_captured: u64,
    /// Browsers found dead (crashed, killed or hung).
    pub crashes: u64,
    /// Browsers launched (or reconnected) to replace a dead or recycled one.
    pub restarts: u64,
    /// Regions of pages (header, navigation, footer) whose findings were given back from an
    /// earlier page of the same scan instead of judged again, over the scans that ended.
    pub regions_reused: u64,
    /// Of those, regions judged by an earlier scan of the site (`crawl::RegionCache`).
    pub regions_from_earlier_scans: u64,
    /// Pages seen unchanged (in the same scan or an earlier one) whose whole axe-core results
    /// were given back: axe-core did not run on them.
    pub pages_given_back: u64,
    /// Of those, pages whose other in-page facts (barriers, keyboard walk, layout, dialogs) were
    /// given back too: the page was only rendered and measured.
    pub facts_given_back: u64,
    /// Images whose animation was known from an earlier page of the same scan (a response its
    /// server lets be reused): their bytes were not read again.
    pub images_reused: u64,
}

#[derive(Debug, Default)]
struct Slot {
    endpoint: Option<String>,
    current: RwLock<Option<Arc<Instance>>>,
    draining: Mutex<Vec<Arc<Instance>>>,
    relaunch: tokio::sync::Mutex<()>,
    ping_failures: AtomicUsize,
}

impl Slot {
    fn current(&self) -> Option<Arc<Instance>> {
        self.current.read().ok().and_then(|c| c.clone())
    }

    fn set_current(&self, inst: Option<Arc<Instance>>) -> Option<Arc<Instance>> {
        match self.current.write() {
            Ok(mut c) => std::mem::replace(&mut *c, inst),
            Err(_) => None,
        }
    }
}

#[derive(Debug)]
pub struct BrowserPool {
    pub(crate) options: BrowserOptions,
    exe: Option<PathBuf>,
    pub(crate) proxy: EgressProxy,
    /// Where launched browsers send their own (non-page) traffic: nowhere.
    null_proxy: Option<EgressProxy>,
    slots: Vec<Slot>,
    permits: Arc<Semaphore>,
    next_id: AtomicU64,
    pages_captured: AtomicU64,
    pub(crate) regions_reused: AtomicU64,
    pub(crate) images_reused: AtomicU64,
    pub(crate) regions_from_earlier_scans: AtomicU64,
    pub(crate) pages_given_back: AtomicU64,
    pub(crate) facts_given_back: AtomicU64,
    crashes: AtomicU64,
    restarts: AtomicU64,
    busy: AtomicUsize,
    shut: AtomicBool,
    pub(crate) user_agent: Option<String>,
    watchdog: Mutex<Option<JoinHandle<()>>>,
}

/// Chromium's own user agent without "Headless", plus who we are.
fn scanner_user_agent(browser_ua: &str) -> String {
    format!("{} sitescan/{} (+https://github.com/sitescan)", browser_ua.replace("HeadlessChrome", "Chrome"), crate::VERSION)
}

impl BrowserPool {
    /// Starts the egress proxy and the browsers (launched, or connected when `cdp_endpoints` is
    /// set). Fails when no browser can be started.
    pub async fn start(options: BrowserOptions, guard: Arc<EgressGuard>) -> Result<Arc<BrowserPool>, BrowserError> {
        if options.pages_per_browser == 0 || options.browsers == 0 {
            return Err(BrowserError::Options("browsers and pages per browser must be at least 1".into()));
        }
        if options.page_timeout.is_zero() || options.navigation_timeout.is_zero() {
            return Err(BrowserError::Options("timeouts must be positive".into()));
        }
        let exe = if options.cdp_endpoints.is_empty() {
            sweep_stale_temp_dirs();
            Some(find_chromium(options.chromium.as_deref())?)
        } else {
            None
        };
        let proxy = EgressProxy::start(guard, options.proxy_listen).await?;
        let null_proxy = match &exe {
            Some(_) => Some(EgressProxy::start_deny_all(std::net::SocketAddr::from(([127, 0, 0, 1], 0))).await?),
            None => None,
        };
        let slots: Vec<Slot> = if options.cdp_endpoints.is_empty() {
            (0..options.browsers).map(|_| Slot::default()).collect()
        } else {
            options.cdp_endpoints.iter().map(|e| Slot { endpoint: Some(e.clone()), ..Slot::default() }).collect()
        };
        let mut pool = BrowserPool {
            permits: Arc::new(Semaphore::new(options.page_permits())),
            options,
            exe,
            proxy,
            null_proxy,
            slots,
            next_id: AtomicU64::new(1),
            pages_captured: AtomicU64::new(0),
            regions_reused: AtomicU64::new(0),
            images_reused: AtomicU64::new(0),
            regions_from_earlier_scans: AtomicU64::new(0),
            pages_given_back: AtomicU64::new(0),
            facts_given_back: AtomicU64::new(0),
            crashes: AtomicU64::new(0),
            restarts: AtomicU64::new(0),
            busy: AtomicUsize::new(0),
            shut: AtomicBool::new(false),
            user_agent: None,
            watchdog: Mutex::new(None),
        };
        let launched = join_all(pool.slots.iter().map(|s| pool.launch_for(s))).await;
        let mut first_error = None;
        for (slot, result) in pool.slots.iter().zip(launched) {
            match result {
                Ok(inst) => {
                    slot.set_current(Some(inst));
                }
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        if let Some(e) = first_error {
            for slot in &pool.slots {
                if let Some(inst) = slot.set_current(None) {
                    inst.close().await;
                }
            }
            pool.proxy.stop();
            if let Some(p) = &pool.null_proxy {
                p.stop();
            }
            return Err(e);
        }
        if let Some(inst) = pool.slots.first().and_then(Slot::current)
            && let Ok(Ok(v)) = tokio::time::timeout(Duration::from_secs(5), inst.browser.execute(GetVersionParams::default())).await {
                pool.user_agent = Some(scanner_user_agent(&v.result.user_agent));
            }
        let pool = Arc::new(pool);
        let weak = Arc::downgrade(&pool);
        let task = tokio::spawn(watchdog(weak));
        if let Ok(mut w) = pool.watchdog.lock() {
            *w = Some(task);
        }
        tracing::info!(browsers = pool.slots.len(), permits = pool.options.page_permits(), proxy = %pool.proxy.addr(), "browser pool started");
        Ok(pool)
    }

    /// The `--proxy-server` value browsers use.
    pub(crate) fn proxy_server(&self) -> String {
        let addr = self.proxy.addr();
        if addr.ip().is_unspecified() { format!("http://127.0.0.1:{}", addr.port()) } else { format!("http://{addr}") }
    }

    /// The `--proxy-server` of launched browsers: their own background traffic (update checks,
    /// sign-in, ...) goes to the deny-all proxy; pages use the egress proxy set on their browser
    /// context.
    fn browser_proxy_server(&self) -> String {
        self.null_proxy.as_ref().map(|p| format!("http://{}", p.addr())).unwrap_or_else(|| self.proxy_server())
    }

    /// The egress proxy every browser request goes through.
    pub fn proxy(&self) -> &EgressProxy {
        &self.proxy
    }

    async fn launch_for(&self, slot: &Slot) -> Result<Arc<Instance>, BrowserError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let timeout = self.options.navigation_timeout;
        match (&slot.endpoint, &self.exe) {
            (Some(endpoint), _) => Instance::connect(id, endpoint, timeout).await,
            (None, Some(exe)) => {
                // A Chromium that dies while starting (seen under load: a crash before it
                // announces DevTools) is tried again before the pool gives up on the slot.
                let mut attempt = 1;
                loop {
                    match Instance::launch(id, exe, &self.browser_proxy_server(), timeout, self.options.no_sandbox).await {
                        Err(BrowserError::Launch { message, .. }) if attempt < LAUNCH_ATTEMPTS => {
                            tracing::warn!(attempt, %message, "Chromium did not start; trying again");
                            tokio::time::sleep(Duration::from_millis(250 * attempt as u64)).await;
                            attempt += 1;
                        }
                        result => break result,
                    }
                }
            }
            (None, None) => Err(BrowserError::NotFound { tried: "nothing".into() }),
        }
    }

    /// One isolated browser context per scan (cookies, cache and storage of its own).
    pub async fn session(self: &Arc<Self>) -> Result<BrowserSession, BrowserError> {
        if self.shut.load(Ordering::SeqCst) {
            return Err(BrowserError::ShutDown);
        }
        Ok(BrowserSession::new(self.clone()))
    }

    pub fn stats(&self) -> PoolStats {
        PoolStats {
            browsers: self.slots.iter().filter_map(Slot::current).filter(|i| i.is_alive()).count(),
            busy_pages: self.busy.load(Ordering::SeqCst),
            pages_captured: self.pages_captured.load(Ordering::SeqCst),
            crashes: self.crashes.load(Ordering::SeqCst),
            restarts: self.restarts.load(Ordering::SeqCst),
            regions_reused: self.regions_reused.load(Ordering::SeqCst),
            regions_from_earlier_scans: self.regions_from_earlier_scans.load(Ordering::SeqCst),
            pages_given_back: self.pages_given_back.load(Ordering::SeqCst),
            facts_given_back: self.facts_given_back.load(Ordering::SeqCst),
            images_reused: self.images_reused.load(Ordering::SeqCst),
        }
    }

    /// Process ids of the launched browsers (for tests and measurements).
    pub fn browser_pids(&self) -> Vec<u32> {
        self.slots.iter().filter_map(Slot::current).filter_map(|i| i.pid()).collect()
    }

    /// Closes every browser and stops the proxy. Captures in flight end as crashed.
    pub async fn shutdown(&self) {
        if self.shut.swap(true, Ordering::SeqCst) {
            return;
        }
        self.permits.close();
        if let Some(w) = self.watchdog.lock().ok().and_then(|mut w| w.take()) {
            w.abort();
        }
        let mut all = Vec::new();
        for slot in &self.slots {
            all.extend(slot.set_current(None));
            if let Ok(mut d) = slot.draining.lock() {
                all.append(&mut d);
            }
        }
        join_all(all.iter().map(|i| i.close())).await;
        self.proxy.stop();
        if let Some(p) = &self.null_proxy {
            p.stop();
        }
        tracing::info!("browser pool shut down");
    }

    pub(crate) async fn acquire(&self) -> Result<OwnedSemaphorePermit, BrowserError> {
        self.permits.clone().acquire_owned().await.map_err(|_| BrowserError::ShutDown)
    }

    pub(crate) fn page_started(&self) {
        self.busy.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn page_finished(&self) {
        self.busy.fetch_sub(1, Ordering::SeqCst);
        self.pages_captured.fetch_add(1, Ordering::SeqCst);
    }

    /// The least busy usable browser, replacing dead or retired ones as needed.
    pub(crate) async fn instance_for_page(&self) -> Result<Arc<Instance>, BrowserError> {
        let mut last_error = None;
        for _ in 0..3 {
            if self.shut.load(Ordering::SeqCst) {
                return Err(BrowserError::ShutDown);
            }
            let best = self
                .slots
                .iter()
                .filter_map(Slot::current)
                .filter(|i| i.is_available())
                .min_by_key(|i| i.active.load(Ordering::SeqCst));
            if let Some(inst) = best {
                return Ok(inst);
            }
            for slot in &self.slots {
                if let Err(e) = self.ensure(slot).await {
                    tracing::warn!(error = %e, "cannot replace a browser");
                    last_error = Some(e);
                }
            }
        }
        Err(last_error.unwrap_or(BrowserError::BrowserGone))
    }

    /// Marks a page as started on `inst`; retires the browser once it reached its page budget.
    pub(crate) fn note_page(self: &Arc<Self>, inst: &Arc<Instance>) {
        inst.active.fetch_add(1, Ordering::SeqCst);
        let started = inst.started.fetch_add(1, Ordering::SeqCst) + 1;
        if !inst.is_remote() && self.options.recycle_after_pages > 0 && started >= self.options.recycle_after_pages && !inst.is_retiring() {
            tracing::info!(browser = inst.id, pages = started, "recycling browser");
            inst.retire();
            let pool = self.clone();
            tokio::spawn(async move { pool.replace_retired().await });
        }
    }

    /// Marks a page on `inst` as done; closes a retired browser once its last page is done.
    pub(crate) fn end_page(self: &Arc<Self>, inst: &Arc<Instance>) {
        let left = inst.active.fetch_sub(1, Ordering::SeqCst).saturating_sub(1);
        if left == 0 && inst.is_retiring() {
            let pool = self.clone();
            tokio::spawn(async move { pool.close_drained().await });
        }
    }

    /// Called when a capture found its browser dead or hung: count it, replace it.
    pub(crate) async fn browser_failed(&self, inst: &Arc<Instance>) {
        inst.mark_dead();
        for slot in &self.slots {
            if slot.current().is_some_and(|c| c.id == inst.id)
                && let Err(e) = self.ensure(slot).await {
                    tracing::warn!(error = %e, "cannot replace a dead browser");
                }
        }
    }

    async fn replace_retired(&self) {
        for slot in &self.slots {
            if slot.current().is_some_and(|c| c.is_retiring())
                && let Err(e) = self.ensure(slot).await {
                    tracing::warn!(error = %e, "cannot replace a recycled browser");
                }
        }
        self.close_drained().await;
    }

    async fn close_drained(&self) {
        let mut done = Vec::new();
        for slot in &self.slots {
            if let Ok(mut d) = slot.draining.lock() {
                let (idle, busy): (Vec<_>, Vec<_>) = d.drain(..).partition(|i| i.active.load(Ordering::SeqCst) == 0);
                *d = busy;
                done.extend(idle);
            }
        }
        join_all(done.iter().map(|i| i.close())).await;
    }

    /// Makes sure `slot` has a usable browser: a dead one is counted and replaced, a retiring one
    /// drains while a fresh one takes its place.
    async fn ensure(&self, slot: &Slot) -> Result<Arc<Instance>, BrowserError> {
        let _guard = slot.relaunch.lock().await;
        if self.shut.load(Ordering::SeqCst) {
            return Err(BrowserError::ShutDown);
        }
        if let Some(cur) = slot.current().filter(|c| c.is_available()) {
            return Ok(cur);
        }
        // The old browser stays visible (unavailable) until its replacement is up.
        let old = slot.current();
        if let Some(old) = &old
            && old.take_crash() {
                self.crashes.fetch_add(1, Ordering::SeqCst);
                tracing::warn!(browser = old.id, "browser died; replacing it");
            }
        let inst = self.launch_for(slot).await?;
        slot.ping_failures.store(0, Ordering::SeqCst);
        slot.set_current(Some(inst.clone()));
        if let Some(old) = old {
            self.restarts.fetch_add(1, Ordering::SeqCst);
            if old.is_alive() {
                if let Ok(mut d) = slot.draining.lock() {
                    d.push(old);
                }
            } else {
                old.close().await;
            }
        }
        Ok(inst)
    }
}

/// Every `WATCHDOG_INTERVAL`: replace dead browsers, close drained ones; every `PING_INTERVAL`:
/// probe each browser and replace one that stopped answering.
async fn watchdog(pool: Weak<BrowserPool>) {
    let mut ticks: u64 = 0;
    loop {
        tokio::time::sleep(WATCHDOG_INTERVAL).await;
        ticks += 1;
        let Some(pool) = pool.upgrade() else { return };
        if pool.shut.load(Ordering::SeqCst) {
            return;
        }
        let ping = ticks.is_multiple_of((PING_INTERVAL.as_secs() / WATCHDOG_INTERVAL.as_secs()).max(1));
        for slot in &pool.slots {
            let Some(cur) = slot.current() else {
                let _ = pool.ensure(slot).await;
                continue;
            };
            if !cur.is_alive() || cur.is_retiring() {
                if let Err(e) = pool.ensure(slot).await {
                    tracing::warn!(error = %e, "watchdog cannot replace a browser");
                }
                continue;
            }
            if ping {
                if cur.ping().await {
                    slot.ping_failures.store(0, Ordering::SeqCst);
                } else if slot.ping_failures.fetch_add(1, Ordering::SeqCst) + 1 >= PING_FAILURES {
                    tracing::warn!(browser = cur.id, "browser stopped answering");
                    cur.mark_dead();
                    let _ = pool.ensure(slot).await;
                }
            }
        }
        pool.close_drained().await;
    }
}

impl Drop for BrowserPool {
    fn drop(&mut self) {
        // Instances kill their process group when dropped; make sure captures still holding one
        // cannot keep a browser alive either.
        for slot in &self.slots {
            if let Some(inst) = slot.set_current(None) {
                inst.mark_dead();
            }
            if let Ok(d) = slot.draining.lock() {
                d.iter().for_each(|i| i.mark_dead());
            }
        }
        if let Ok(mut w) = self.watchdog.lock()
            && let Some(w) = w.take() {
                w.abort();
            }
        self.proxy.stop();
        if let Some(p) = &self.null_proxy {
            p.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_names_the_scanner() {
        let ua = scanner_user_agent("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36");
        assert!(ua.contains(" Chrome/156") && !ua.contains("Headless"));
        assert!(ua.ends_with(&format!("sitescan/{} (+https://github.com/sitescan)", crate::VERSION)));
    }
}
