//! Monitors: every N, a light probe of a site through the fetcher (and so the egress guard):
//! start page status, `<title>`, canonical, robots meta and `X-Robots-Tag`, robots.txt and
//! sitemap digests, and whether the TLS certificate is within [`NEAR_EXPIRY`] of its end. A
//! probe that differs from the last one starts one scan (`triggered_by: monitor`) whose trigger
//! lists what changed; the first probe only records. A state that stays changed starts nothing
//! more: each probe is compared with the one before it.
//!
//! Limits: a monitor needs a verified site (the probes go to a host its owner proved is
//! theirs), at most [`MAX_MONITORS_PER_SITE`] per site and [`MAX_MONITORS_PER_ORG`] per
//! organisation (monitors added before these caps keep running; only adding is refused), and
//! every probe ends by [`PROBE_DEADLINE`] whatever its requests do.
//!
//! Fairness: due probes are looked up taking organisations in turn, and at most
//! [`PROBES_PER_ORG`] of the [`PROBES_AT_ONCE`] slots go to one organisation; the rest of its
//! probes wait for its own slots, so a tenant with many monitors on a slow host cannot starve
//! another's.
//!
//! Fleet safety: a due probe is claimed by compare-and-set on `next_check_at`, and its state is
//! recorded by compare-and-set on the previous state; only the instance whose record succeeded
//! creates the scan.

use crate::tasks::{Drained, spawn_rounds};
use crate::store::Clock;
use super::error::RecurringError;
use super::sites::resolve_site;
use crate::model::{AddressPolicy, FairQueue, ScanMode, Target, TriggeredBy};
use crate::net::{FetchResponse, Fetcher};
use crate::store::time::to_rfc3339;
use crate::store::{CreateOutcome, MonitorCaps, MonitorRow, ScanExtras, ScanRow, SiteRow, Store};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The shortest interval between probes (`SITESCAN_MONITOR_MIN_SECONDS` lowers it for tests).
pub const MIN_EVERY_SECONDS: i64 = 60;
/// A certificate ending within this long counts as near expiry.
pub const NEAR_EXPIRY: Duration = Duration::from_secs(14 * 86_400);
/// How often the runner looks for due probes.
pub const DEFAULT_TICK: Duration = Duration::from_secs(5);
/// How long the TLS handshake of a probe may take.
const TLS_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes of the start page, robots.txt or sitemap read by a probe.
const PROBE_MAX_BYTES: usize = 2 * 1024 * 1024;
/// Probes looked up at a time; a round takes batch after batch until none is due.
const TICK_BATCH: i64 = 100;
/// Probes in flight at once (each is a few requests to one site, mostly waiting on the network).
pub const PROBES_AT_ONCE: usize = 16;
/// Of those, at most this many for one organisation; its other due probes wait their turn.
pub const PROBES_PER_ORG: usize = 4;
/// One probe, all of its requests (start page, robots.txt, sitemap, TLS), ends by then.
pub const PROBE_DEADLINE: Duration = Duration::from_secs(20);
/// Monitors a site may have.
pub const MAX_MONITORS_PER_SITE: i64 = 5;
/// Monitors an organisation may have over all its sites.
pub const MAX_MONITORS_PER_ORG: i64 = 50;
/// What a probe records for what its deadline cut short.
const PAST_DEADLINE: &str = "error: deadline";

/// The shortest interval allowed now: [`MIN_EVERY_SECONDS`], or the hidden test override.
pub fn min_every_seconds() -> i64 {
    std::env::var("SITESCAN_MONITOR_MIN_SECONDS").ok().and_then(|v| v.parse().ok()).filter(|v| *v >= 1).unwrap_or(MIN_EVERY_SECONDS)
}

/// Parses an interval: `90s`, `5m`, `1h` (a bare number is seconds); at least `min_seconds`.
pub fn parse_every(text: &str, min_seconds: i64) -> Result<i64, RecurringError> {
    let t = text.trim().to_ascii_lowercase();
    let (num, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t.as_str(), "s"),
    };
    let factor = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(RecurringError::Invalid(format!("every: {text:?}: expected a number with s, m or h (e.g. 5m)"))),
    };
    let n: i64 = num.parse().map_err(|_| RecurringError::Invalid(format!("every: {text:?}: expected a number with s, m or h (e.g. 5m)")))?;
    let seconds = n.checked_mul(factor).ok_or_else(|| RecurringError::Invalid(format!("every: {text:?} is too long")))?;
    if seconds < min_seconds {
        return Err(RecurringError::Invalid(format!("every: {text:?} is shorter than the minimum of {min_seconds} s")));
    }
    if seconds > 7 * 86_400 {
        return Err(RecurringError::Invalid(format!("every: {text:?} is longer than the maximum of 7 days")));
    }
    Ok(seconds)
}

/// Adds a monitor to the organisation's site `site` (id or origin); its first probe (which only
/// records) is due at once.
pub async fn add_monitor(store: &Store, org: &str, site: &str, every_seconds: i64, now: i64) -> Result<MonitorRow, RecurringError> {
    let min = min_every_seconds();
    if every_seconds < min {
        return Err(RecurringError::Invalid(format!("every: {every_seconds} s is shorter than the minimum of {min} s")));
    }
    let site = resolve_site(store, org, site).await?;
    if !site.verified() {
        return Err(RecurringError::Unverified(format!(
            "the site {} is not verified: prove ownership first (a monitor probes the site every few minutes)",
            site.origin
        )));
    }
    let caps = MonitorCaps { per_site: MAX_MONITORS_PER_SITE, per_org: MAX_MONITORS_PER_ORG };
    match store.add_monitor_within(org, site.id, every_seconds, now, now, caps).await? {
        Some(row) => Ok(row),
        None if store.list_monitors(org, Some(site.id)).await?.len() as i64 >= MAX_MONITORS_PER_SITE => Err(RecurringError::TooMany(format!(
            "the site {} has {MAX_MONITORS_PER_SITE} monitors, the most allowed; remove one first",
            site.origin
        ))),
        None => Err(RecurringError::TooMany(format!(
            "the organisation has {MAX_MONITORS_PER_ORG} monitors, the most allowed; remove one first"
        ))),
    }
}

/// The organisation's monitors, of one site (id or origin) when `site` is given.
pub async fn list_monitors(store: &Store, org: &str, site: Option<&str>) -> Result<Vec<MonitorRow>, RecurringError> {
    let site_id = match site {
        Some(s) => Some(resolve_site(store, org, s).await?.id),
        None => None,
    };
    Ok(store.list_monitors(org, site_id).await?)
}

/// Removes one of the organisation's monitors (`NotFound` otherwise).
pub async fn remove_monitor(store: &Store, org: &str, id: Uuid, site: Option<Uuid>) -> Result<(), RecurringError> {
    if store.remove_monitor(org, id, site).await? {
        Ok(())
    } else {
        Err(RecurringError::NotFound(match site {
            Some(site) => format!("no monitor {id} of site {site} in organisation {org}"),
            None => format!("no monitor {id} in organisation {org}"),
        }))
    }
}

/// What a probe saw. Every field but `tls_not_after` is compared between probes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeState {
    /// The start page's final status (`200`), or `error: KIND`.
    pub status: String,
    pub title: Option<String>,
    pub canonical: Option<String>,
    pub robots_meta: Option<String>,
    pub x_robots_tag: Option<String>,
    /// `sha256:HEX` of robots.txt, `status N`, or `error: KIND`.
    pub robots_txt: String,
    /// The same for the sitemap (the first one robots.txt names, else `/sitemap.xml`).
    pub sitemap: String,
    /// https only: whether the certificate ends within [`NEAR_EXPIRY`] (`None` when unread).
    pub tls_near_expiry: Option<bool>,
    /// https only: the certificate's `notAfter` (RFC 3339), or why it could not be read.
    pub tls_not_after: Option<String>,
}

impl ProbeState {
    /// What differs from `before`, as `{"field", "before", "after"}` objects.
    pub fn changes_since(&self, before: &ProbeState) -> Vec<Value> {
        let mut out = Vec::new();
        let mut cmp = |field: &str, b: Value, a: Value| {
            if a != b {
                out.push(json!({"field": field, "before": b, "after": a}));
            }
        };
        cmp("status", json!(before.status), json!(self.status));
        cmp("title", json!(before.title), json!(self.title));
        cmp("canonical", json!(before.canonical), json!(self.canonical));
        cmp("robots_meta", json!(before.robots_meta), json!(self.robots_meta));
        cmp("x_robots_tag", json!(before.x_robots_tag), json!(self.x_robots_tag));
        cmp("robots_txt", json!(before.robots_txt), json!(self.robots_txt));
        cmp("sitemap", json!(before.sitemap), json!(self.sitemap));
        if before.tls_near_expiry.is_some() && self.tls_near_expiry.is_some() {
            cmp("tls_near_expiry", json!(before.tls_near_expiry), json!(self.tls_near_expiry));
        }
        if let Some(last) = out.last_mut()
            && last["field"] == "tls_near_expiry"
        {
            last["not_after"] = json!(self.tls_not_after);
        }
        out
    }
}

fn failure(resp: &FetchResponse) -> Option<String> {
    match (&resp.error, resp.status) {
        (Some(e), None) => Some(format!("error: {}", e.kind.as_str())),
        _ => None,
    }
}

fn digest(resp: &FetchResponse) -> String {
    if let Some(f) = failure(resp) {
        return f;
    }
    match resp.status {
        Some(200) => format!("sha256:{:x}", Sha256::digest(&resp.body)),
        Some(s) => format!("status {s}"),
        None => "error: no answer".into(),
    }
}

fn clean(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Title, canonical and robots meta of a start page.
fn page_facts(html: &str) -> (Option<String>, Option<String>, Option<String>) {
    let doc = scraper::Html::parse_document(html);
    let sel = |s: &str| scraper::Selector::parse(s).expect("a valid selector");
    let title = doc.select(&sel("title")).next().map(|t| clean(&t.text().collect::<String>()));
    let canonical = doc
        .select(&sel("link[rel]"))
        .find(|l| l.value().attr("rel").is_some_and(|r| r.split_whitespace().any(|t| t.eq_ignore_ascii_case("canonical"))))
        .and_then(|l| l.value().attr("href"))
        .map(|h| h.trim().to_string());
    let robots = doc
        .select(&sel("meta[name]"))
        .find(|m| m.value().attr("name").is_some_and(|n| n.trim().eq_ignore_ascii_case("robots")))
        .and_then(|m| m.value().attr("content"))
        .map(|c| clean(&c.to_ascii_lowercase()));
    (title, canonical, robots)
}

/// `work`, unless `until` comes first.
async fn within<T>(until: tokio::time::Instant, work: impl std::future::Future<Output = T>) -> Option<T> {
    tokio::time::timeout_at(until, work).await.ok()
}

/// Probes `site` now (`now` decides "near expiry"), all of it within `deadline`: what the
/// deadline cuts short reads `error: deadline` and what would come after it is not requested.
pub async fn probe(fetcher: &Fetcher, site: &SiteRow, now: i64, deadline: Duration) -> ProbeState {
    let until = tokio::time::Instant::now() + deadline;
    let origin = site.origin.trim_end_matches('/');
    let Some(start) = within(until, fetcher.get_capped(&format!("{origin}/"), PROBE_MAX_BYTES)).await else {
        return ProbeState { status: PAST_DEADLINE.into(), robots_txt: PAST_DEADLINE.into(), sitemap: PAST_DEADLINE.into(), ..ProbeState::default() };
    };
    let mut state = ProbeState {
        status: failure(&start).unwrap_or_else(|| start.status.map_or("error: no answer".into(), |s| s.to_string())),
        x_robots_tag: start.header("x-robots-tag").map(|v| clean(&v.to_ascii_lowercase())),
        ..ProbeState::default()
    };
    let html = start.header("content-type").is_none_or(|c| c.to_ascii_lowercase().contains("html"));
    if start.status.is_some() && html {
        (state.title, state.canonical, state.robots_meta) = page_facts(&start.text());
    }
    let Some(robots) = within(until, fetcher.get_capped(&format!("{origin}/robots.txt"), PROBE_MAX_BYTES)).await else {
        (state.robots_txt, state.sitemap) = (PAST_DEADLINE.into(), PAST_DEADLINE.into());
        return state;
    };
    state.robots_txt = digest(&robots);
    // The first `Sitemap:` line, read as the scan's crawler reads robots.txt.
    let named = (robots.status == Some(200)).then(|| crate::model::robots::parse(&robots.text()).sitemaps.into_iter().next()).flatten();
    let sitemap_url = named.unwrap_or_else(|| format!("{origin}/sitemap.xml"));
    let Some(sitemap) = within(until, fetcher.get_capped(&sitemap_url, PROBE_MAX_BYTES)).await else {
        state.sitemap = PAST_DEADLINE.into();
        return state;
    };
    state.sitemap = digest(&sitemap);
    if let Ok(url) = url::Url::parse(&site.origin)
        && url.scheme() == "https"
        && let Some(host) = url.host_str()
    {
        let port = url.port_or_known_default().unwrap_or(443);
        match within(until, crate::net::certificate_validity(fetcher.guard(), host, port, TLS_TIMEOUT)).await {
            Some(Ok(v)) => {
                let left = v.not_after * 1_000_000 - now;
                state.tls_near_expiry = Some(left < NEAR_EXPIRY.as_micros() as i64);
                state.tls_not_after = Some(to_rfc3339(v.not_after * 1_000_000));
            }
            Some(Err(e)) => state.tls_not_after = Some(format!("unread: {e}")),
            None => state.tls_not_after = Some("unread: the probe's deadline passed".into()),
        }
    }
    state
}

/// A monitor that saw a change and the scan it started.
#[derive(Debug, Clone)]
pub struct MonitorTriggered {
    pub monitor: MonitorRow,
    pub scan: ScanRow,
    pub changes: Vec<Value>,
}

/// Called for each scan a monitor started (the `monitor.triggered` webhook event).
pub type TriggerHook =
    Arc<dyn Fn(Store, MonitorTriggered) -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// What one round did with one due monitor.
#[derive(Debug, Clone, PartialEq)]
pub enum Probe {
    /// The first probe: recorded, nothing compared.
    Recorded { monitor_id: Uuid },
    /// Nothing changed since the last probe.
    Unchanged { monitor_id: Uuid },
    /// Something changed, and this scan was started.
    Triggered { monitor_id: Uuid, scan_id: Uuid, changes: Vec<Value> },
    /// Something changed but no scan was started (why).
    Changed { monitor_id: Uuid, changes: Vec<Value>, reason: String },
    /// Another instance claimed or recorded this moment.
    Lost { monitor_id: Uuid },
}

/// Runs due probes.
#[derive(Clone)]
pub struct MonitorRunner {
    pub store: Store,
    pub fetcher: Arc<Fetcher>,
    pub clock: Arc<dyn Clock>,
    /// The egress policy scan targets are parsed under (`--allow-target`).
    pub policy: AddressPolicy,
    pub on_trigger: Option<TriggerHook>,
    /// How long one probe may take in all ([`PROBE_DEADLINE`]).
    pub probe_deadline: Duration,
}

impl std::fmt::Debug for MonitorRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MonitorRunner").field("clock", &self.clock).finish_non_exhaustive()
    }
}

impl MonitorRunner {
    /// Claims and probes every monitor due now, until none is due or in flight; returns what
    /// became of each (in the order they ended). Up to `PROBES_AT_ONCE` run at once, at most
    /// `PROBES_PER_ORG` of one organisation, organisations taking turns; each probe that ends
    /// frees its slot for the next (no probe waits for a batch).
    pub async fn run_once(&self) -> Result<Vec<Probe>, RecurringError> {
        use futures::StreamExt;
        let mut queue: FairQueue<MonitorRow> = FairQueue::new(PROBES_PER_ORG);
        let mut seen = std::collections::HashSet::new();
        let mut running = futures::stream::FuturesUnordered::new();
        let mut drained: Drained<Probe, RecurringError> = Drained::new();
        let mut look = true;
        loop {
            if look && !drained.failed() {
                match self.store.due_monitors(self.clock.now_us(), TICK_BATCH).await {
                    // A row seen this round is never taken twice in it (a claimed one is no
                    // longer due; an unstarted one is already queued).
                    Ok(rows) => rows.into_iter().filter(|r| seen.insert(r.id)).for_each(|r| queue.push(&r.org_id.clone(), r)),
                    Err(e) => drained.fail(e.into()),
                }
            }
            while running.len() < PROBES_AT_ONCE && !drained.failed() {
                let Some((org, row)) = queue.next_ready() else { break };
                running.push(async move { (org, self.claim_and_check(row).await) });
            }
            // Look for more when a slot is free that nothing queued may take.
            look = running.len() < PROBES_AT_ONCE;
            let Some((org, result)) = running.next().await else {
                break;
            };
            queue.done(&org);
            match result {
                Ok(Some(p)) => drained.push(p),
                Ok(None) => {}
                Err(e) => drained.fail(e),
            }
        }
        drained.finish()
    }

    /// Claims one due probe (a claim moves its next check past now, so no other instance takes
    /// it) and runs it; `None` when the probe itself failed (logged).
    async fn claim_and_check(&self, row: MonitorRow) -> Result<Option<Probe>, RecurringError> {
        let next = self.clock.now_us() + row.every_seconds * 1_000_000;
        if !self.store.claim_monitor(row.id, row.next_check_at, next).await? {
            return Ok(Some(Probe::Lost { monitor_id: row.id }));
        }
        match self.check(&row).await {
            Ok(p) => Ok(Some(p)),
            Err(e) => {
                tracing::warn!(monitor = %row.id, error = %e, "monitor probe failed");
                Ok(None)
            }
        }
    }

    async fn check(&self, row: &MonitorRow) -> Result<Probe, RecurringError> {
        let monitor_id = row.id;
        let Some(site) = self.store.site_any_org(row.site_id).await? else {
            return Ok(Probe::Changed { monitor_id, changes: vec![], reason: "the site is gone".into() });
        };
        let state = probe(&self.fetcher, &site, self.clock.now_us(), self.probe_deadline).await;
        let now = self.clock.now_us();
        let encoded = serde_json::to_string(&state).map_err(|e| RecurringError::Invalid(e.to_string()))?;
        let before: Option<ProbeState> = row.last_state.as_deref().and_then(|s| serde_json::from_str(s).ok());
        let Some(before) = before else {
            if !self.store.record_monitor_state(row.id, row.last_state.as_deref(), &encoded, None, now).await? {
                return Ok(Probe::Lost { monitor_id });
            }
            tracing::info!(monitor = %row.id, site = %site.origin, "monitor: first probe recorded");
            return Ok(Probe::Recorded { monitor_id });
        };
        let changes = state.changes_since(&before);
        if changes.is_empty() {
            if !self.store.record_monitor_state(row.id, row.last_state.as_deref(), &encoded, None, now).await? {
                return Ok(Probe::Lost { monitor_id });
            }
            return Ok(Probe::Unchanged { monitor_id });
        }
        let change = json!({"at": to_rfc3339(now), "changes": changes}).to_string();
        if !self.store.record_monitor_state(row.id, row.last_state.as_deref(), &encoded, Some(&change), now).await? {
            return Ok(Probe::Lost { monitor_id });
        }
        tracing::info!(monitor = %row.id, site = %site.origin, changes = changes.len(), "monitor: the site changed");
        let target = match Target::parse(&site.origin, &self.policy) {
            Ok(t) => t,
            Err(e) => {
                let reason = format!("the site's origin is not a valid target: {e}");
                return Ok(Probe::Changed { monitor_id, changes, reason });
            }
        };
        // A monitor starts a passive scan: no one attested to an active one at that moment.
        let mode = ScanMode::Passive;
        let trigger = crate::model::ScanTrigger {
            kind: "monitor".into(),
            monitor_id: Some(row.id.to_string()),
            detected_at: Some(to_rfc3339(now)),
            changes: changes.iter().filter_map(|c| serde_json::from_value(c.clone()).ok()).collect(),
            ..Default::default()
        };
        let extras = ScanExtras { site_id: Some(site.id), trigger: serde_json::to_string(&trigger).ok(), attestation: None, schedule_due: None, level: site.level() };
        match self.store.create_scan_with(&row.org_id, &target, mode, TriggeredBy::Monitor, None, extras).await? {
            Some(CreateOutcome::Created(scan)) => {
                tracing::info!(monitor = %row.id, scan_id = %scan.id, "monitor: scan started");
                if let Some(hook) = &self.on_trigger {
                    hook(self.store.clone(), MonitorTriggered { monitor: row.clone(), scan: scan.clone(), changes: changes.clone() })
                        .await;
                }
                Ok(Probe::Triggered { monitor_id, scan_id: scan.id, changes })
            }
            Some(CreateOutcome::QuotaExceeded(q)) => {
                let reason = format!("the organisation's monthly scan quota ({}) is used up", q.limit);
                tracing::warn!(monitor = %row.id, reason = %reason, "monitor: no scan");
                Ok(Probe::Changed { monitor_id, changes, reason })
            }
            None => Ok(Probe::Lost { monitor_id }),
        }
    }

    /// Runs until `stop`: a round every `every`.
    pub fn spawn(self, every: Duration, stop: CancellationToken) -> tokio::task::JoinHandle<()> {
        spawn_rounds(self, every, stop, "monitor round failed", |runner| async move { runner.run_once().await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_take_s_m_h_and_a_minimum() {
        assert_eq!(parse_every("5m", 60).unwrap(), 300);
        assert_eq!(parse_every("1h", 60).unwrap(), 3600);
        assert_eq!(parse_every("90s", 60).unwrap(), 90);
        assert_eq!(parse_every("120", 60).unwrap(), 120);
        for bad in ["30s", "5x", "m", "", "-5m", "8d"] {
            assert!(parse_every(bad, 60).unwrap_err().to_string().starts_with("every: "), "{bad}");
        }
        assert_eq!(parse_every("2s", 1).unwrap(), 2);
    }

    #[test]
    fn page_facts_read_title_canonical_and_robots() {
        let (t, c, r) = page_facts(
            r#"<html><head><title> Shop
            home </title><link rel="canonical" href="https://shop.example.com/"><meta name="ROBOTS" content="NoIndex, follow"></head></html>"#,
        );
        assert_eq!(t.as_deref(), Some("Shop home"));
        assert_eq!(c.as_deref(), Some("https://shop.example.com/"));
        assert_eq!(r.as_deref(), Some("noindex, follow"));
        assert_eq!(page_facts("<p>no head</p>"), (None, None, None));
    }

    #[test]
    fn changes_list_each_field_that_differs_and_ignore_the_expiry_date() {
        let before = ProbeState {
            status: "200".into(),
            robots_txt: "sha256:aa".into(),
            sitemap: "status 404".into(),
            tls_near_expiry: Some(false),
            tls_not_after: Some("2027-01-01T00:00:00Z".into()),
            ..ProbeState::default()
        };
        let mut after = before.clone();
        after.tls_not_after = Some("2027-03-01T00:00:00Z".into());
        assert!(after.changes_since(&before).is_empty(), "a renewed certificate alone is no change");
        after.robots_meta = Some("noindex".into());
        after.tls_near_expiry = Some(true);
        let changes = after.changes_since(&before);
        let fields: Vec<&str> = changes.iter().map(|c| c["field"].as_str().unwrap()).collect();
        assert_eq!(fields, ["robots_meta", "tls_near_expiry"]);
        assert_eq!(changes[0]["before"], Value::Null);
        assert_eq!(changes[0]["after"], "noindex");
        assert_eq!(changes[1]["not_after"], "2027-03-01T00:00:00Z");
    }
}
