//! What the crawl learns about the site outside the browser: robots.txt, sitemaps, the http ->
//! https probe, and the status of URLs it does not render. All through the guarded fetcher.

use super::error::ScanError;
use super::politeness::HostGate;
use super::sitemap_parse::{ParsedSitemap, SitemapLimit, inflate, parse_sitemap_keeping};
use crate::model::robots::{self, ParsedRobots};
use crate::model::{GatherError, SiteArtifact};
use super::options::ScanOptions;
use crate::model::{HttpsProbe, PageDigest, RobotsTxt, SiteSnapshot, Sitemap, UrlStatus};
use futures::StreamExt;
use std::collections::{BTreeSet, HashMap};
use tokio_util::sync::CancellationToken;
use crate::net::{FetchErrorKind, Fetcher};
use std::collections::HashSet;
use url::Url;

/// The product token robots.txt rules are matched against.
pub const ROBOTS_AGENT: &str = "sitescan";
/// Bytes of robots.txt read (Google reads 500 KiB).
pub const ROBOTS_MAX_BYTES: usize = 500 * 1024;
/// Sitemaps read per scan, index children included.
pub const MAX_SITEMAPS: usize = 20;
/// Bytes of one sitemap read, after decompression: the protocol's limit (50 MB uncompressed);
/// the fetcher's default cap is smaller, and a valid sitemap larger than it must not read as
/// truncated.
pub const SITEMAP_MAX_BYTES: usize = 50 * 1024 * 1024;
/// Bytes of all the sitemaps of one scan together, after decompression; the sitemaps past it are
/// listed, not read.
pub const SITEMAPS_MAX_TOTAL_BYTES: usize = 100 * 1024 * 1024;
/// Sitemap URLs kept in the snapshot per sitemap.
pub const SITEMAP_URLS_KEPT: usize = 1000;

/// robots.txt as the crawler obeys it: the same reading the robots checks judge
/// (`model::robots`), asked for our user agent.
#[derive(Debug, Default)]
pub struct RobotsRules {
    parsed: Option<ParsedRobots>,
}

impl RobotsRules {
    /// Rules from a robots.txt body (undecodable bytes read as U+FFFD, as crawlers do).
    pub fn parse(body: &[u8]) -> Self {
        RobotsRules { parsed: Some(robots::parse(&String::from_utf8_lossy(body))) }
    }

    pub fn allowed(&self, url: &Url) -> bool {
        let Some(parsed) = &self.parsed else { return true };
        let mut path = url.path().to_string();
        if let Some(q) = url.query() {
            path.push('?');
            path.push_str(q);
        }
        parsed.allowed(ROBOTS_AGENT, &path)
    }

    pub fn crawl_delay(&self) -> Option<f64> {
        self.parsed.as_ref().and_then(|p| p.crawl_delay_for(ROBOTS_AGENT))
    }

    pub fn sitemaps(&self) -> Vec<String> {
        self.parsed.as_ref().map(|p| p.sitemaps.clone()).unwrap_or_default()
    }
}

/// What the crawl learns as it goes that only the site checks judge: robots.txt, sitemaps, the
/// https probe, each page's digest, the statuses renders told, the internal links seen and those
/// robots.txt kept it from.
#[derive(Debug, Default)]
pub struct SiteFacts {
    pub robots: RobotsTxt,
    pub sitemaps: Vec<Sitemap>,
    pub https_probe: Option<HttpsProbe>,
    pub digests: Vec<PageDigest>,
    /// URL -> status, for every URL a render answered (requested and final).
    pub rendered: HashMap<String, UrlStatus>,
    pub link_targets: BTreeSet<String>,
    /// (link, page it was found on).
    pub robots_blocked: BTreeSet<(String, String)>,
    /// Active scans: the scripts and folders the crawl saw, for the repository probes.
    pub probe_leads: super::probes::ProbeLeads,
    /// Active scans: the repository probes' answers.
    pub repository_probes: Vec<crate::model::ProbeAnswer>,
    /// Site gatherers that failed (their checks do not run).
    pub gather_errors: Vec<GatherError>,
}

impl SiteFacts {
    /// Fetches the statuses of links, sitemap URLs and resources the crawl did not render, then
    /// builds the site snapshot.
    pub async fn into_snapshot(
        self,
        fetcher: &Fetcher,
        gate: &HostGate,
        start: &Url,
        options: &ScanOptions,
        cancel: &CancellationToken,
    ) -> Result<SiteSnapshot, ScanError> {
        let SiteFacts { robots, sitemaps, https_probe: probe, digests, rendered, link_targets, robots_blocked, probe_leads: _, repository_probes, gather_errors } =
            self;
        let blocked: std::collections::HashSet<&String> = robots_blocked.iter().map(|(u, _)| u).collect();
        let unrendered_links: Vec<String> = link_targets
            .iter()
            .filter(|u| !rendered.contains_key(*u) && !blocked.contains(u))
            .take(options.link_check_budget)
            .cloned()
            .collect();
        let sitemap_listed: Vec<String> = listed_pages(&sitemaps)
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .take(options.sitemap_url_budget)
            .collect();
        let mut resources: BTreeSet<String> = digests.iter().filter_map(|d| d.og_image.clone()).collect();
        for d in &digests {
            if let Some(c) = &d.canonical
                && !rendered.contains_key(c)
            {
                resources.insert(c.clone());
            }
        }
        if let Ok(favicon) = start.join("/favicon.ico") {
            resources.insert(favicon.to_string());
        }
        let to_fetch: BTreeSet<String> = unrendered_links
            .iter()
            .chain(sitemap_listed.iter().filter(|u| !rendered.contains_key(*u)))
            .chain(resources.iter().filter(|u| !rendered.contains_key(*u)))
            .cloned()
            .collect();
        let fetched: HashMap<String, UrlStatus> = tokio::select! {
            r = futures::stream::iter(to_fetch)
                .map(|u| async move { (u.clone(), url_status(fetcher, gate, &u).await) })
                .buffer_unordered(options.host_concurrency.max(1))
                .collect::<HashMap<_, _>>() => r,
            _ = cancel.cancelled() => return Err(ScanError::Interrupted),
        };
        let lookup = |u: &String| rendered.get(u).or_else(|| fetched.get(u)).cloned();
        let mut link_statuses: Vec<UrlStatus> = rendered.values().cloned().collect();
        link_statuses.extend(unrendered_links.iter().filter_map(|u| fetched.get(u).cloned()));
        link_statuses.sort_by(|a, b| a.url.cmp(&b.url));
        let sitemap_url_statuses = sitemap_listed.iter().filter_map(lookup).collect();
        let resource_statuses = resources.iter().filter_map(lookup).collect();
        Ok(SiteSnapshot {
            start_url: start.to_string(),
            robots: Some(robots),
            sitemaps,
            sitemap_url_statuses,
            link_statuses,
            resource_statuses,
            robots_blocked_links: robots_blocked.into_iter().collect(),
            https_probe: probe,
            pages: digests,
            repository_probes,
            journeys: Vec::new(),
            gather_errors,
        })
    }
}

/// The page URLs the sitemaps list. A sitemap index lists sitemaps, not pages: its entries were
/// fetched as sitemaps, they are neither rendered nor judged as listed pages.
pub fn listed_pages(sitemaps: &[crate::model::Sitemap]) -> impl Iterator<Item = &String> {
    sitemaps.iter().filter(|s| s.root.as_deref() != Some("sitemapindex")).flat_map(|s| s.urls.iter())
}

fn origin_url(start: &Url, path: &str) -> Option<Url> {
    let mut u = start.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.set_path(path);
    Some(u)
}

/// Fetches and parses `/robots.txt`. A 404 means no rules; 5xx or no answer is recorded (the
/// check reports it) and the crawl goes on with no rules, since the owner asked for the scan.
pub async fn fetch_robots(fetcher: &Fetcher, gate: &HostGate, start: &Url, errors: &mut Vec<GatherError>) -> (RobotsTxt, RobotsRules) {
    let Some(url) = origin_url(start, "/robots.txt") else {
        return (RobotsTxt::default(), RobotsRules::default());
    };
    let _permit = gate.enter().await;
    // Read no further than a crawler does: the rest of a larger file is not part of the rules.
    let response = fetcher.get_capped(url.as_str(), ROBOTS_MAX_BYTES).await;
    let mut robots = RobotsTxt {
        url: url.to_string(),
        status: response.status,
        error: response.error.as_ref().filter(|e| e.kind != FetchErrorKind::TooLarge).map(|e| e.message.clone()),
        ..RobotsTxt::default()
    };
    let mut rules = RobotsRules::default();
    if response.status.is_some_and(|s| (200..300).contains(&s)) {
        let mut body = response.body;
        body.truncate(ROBOTS_MAX_BYTES);
        // Parsed off the async runtime, like every parser of target bytes.
        let (parsed, body) = match tokio::task::spawn_blocking(move || (RobotsRules::parse(&body), body)).await {
            Ok(done) => done,
            Err(e) => {
                tracing::error!(error = %e, "the robots.txt parser failed; crawling without rules");
                // Our failure, not the site's: the robots checks do not judge it.
                errors.push(GatherError { gatherer: SiteArtifact::Robots.gatherer().into(), message: "the robots.txt parser failed".into() });
                return (robots, rules);
            }
        };
        rules = parsed;
        let body = &body[..];
        robots.body = Some(String::from_utf8_lossy(body).to_string());
        robots.sitemaps = rules.sitemaps();
        robots.crawl_delay_s = rules.crawl_delay();
        // The checks judge the reading the crawl obeys, not a second parse of the body.
        if let Some(parsed) = &rules.parsed {
            let _ = robots.parsed.0.set(parsed.clone());
        }
    }
    (robots, rules)
}

/// Fetches the sitemaps robots.txt lists, or `/sitemap.xml`, following sitemap indexes, within
/// [`MAX_SITEMAPS`], [`SITEMAP_MAX_BYTES`] each and [`SITEMAPS_MAX_TOTAL_BYTES`] together. Each is
/// parsed off the async runtime; one that exceeds a budget says which (`Sitemap::limit`).
pub async fn fetch_sitemaps(fetcher: &Fetcher, gate: &HostGate, start: &Url, listed: &[String], errors: &mut Vec<GatherError>) -> Vec<Sitemap> {
    let mut queue: Vec<(String, String)> = listed.iter().map(|u| (u.clone(), "robots.txt".to_string())).collect();
    if queue.is_empty()
        && let Some(default) = origin_url(start, "/sitemap.xml")
    {
        queue.push((default.to_string(), "default".to_string()));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut spent = 0usize;
    while let Some((url, source)) = queue.pop() {
        if out.len() >= MAX_SITEMAPS || !seen.insert(url.clone()) {
            continue;
        }
        let mut sitemap = Sitemap { url: url.clone(), source: source.clone(), ..Sitemap::default() };
        let room = SITEMAPS_MAX_TOTAL_BYTES.saturating_sub(spent).min(SITEMAP_MAX_BYTES);
        if room == 0 {
            sitemap.limit = Some(format!(
                "not read: the scan's sitemaps already reached sitescan's limit of {SITEMAPS_MAX_TOTAL_BYTES} bytes together"
            ));
            out.push(sitemap);
            continue;
        }
        let _permit = gate.enter().await;
        let response = fetcher.get_capped(&url, room).await;
        drop(_permit);
        sitemap.status = response.status;
        sitemap.error = response.error.as_ref().filter(|e| e.kind != FetchErrorKind::TooLarge).map(|e| e.message.clone());
        let ok = response.status.is_some_and(|s| (200..300).contains(&s));
        // A missing default sitemap is not a sitemap at all.
        if source == "default" && !ok {
            continue;
        }
        if ok {
            let truncated = response.truncated;
            let body = response.body;
            let parsed = tokio::task::spawn_blocking(move || {
                let (xml, inflated_limit) = inflate(&body, room);
                let limit = inflated_limit.or(truncated.then_some(SitemapLimit::Bytes(room)));
                let parsed = parse_sitemap_keeping(&xml, SITEMAP_URLS_KEPT.max(MAX_SITEMAPS));
                (xml.len(), limit, parsed)
            })
            .await;
            let (bytes, limit, parsed) = match parsed {
                Ok(p) => p,
                Err(e) => {
                    tracing::error!(url, error = %e, "the sitemap parser failed");
                    // Our failure, not the site's: the sitemap checks do not judge it.
                    errors.push(GatherError { gatherer: SiteArtifact::Sitemaps.gatherer().into(), message: format!("the sitemap parser failed on {url}") });
                    (0, None, ParsedSitemap { error: Some("the sitemap could not be parsed".into()), ..Default::default() })
                }
            };
            spent += bytes;
            sitemap.bytes = bytes as u64;
            // A cut document's parse error is the cut's doing: the limit is what to report.
            sitemap.limit = limit.or(parsed.limit).map(SitemapLimit::describe);
            if sitemap.limit.is_none() {
                sitemap.parse_error = parsed.error.clone();
            }
            sitemap.root = parsed.root.clone();
            sitemap.url_count = parsed.count;
            if parsed.root.as_deref() == Some("sitemapindex") {
                for child in parsed.locs.iter().take(MAX_SITEMAPS) {
                    queue.push((child.clone(), url.clone()));
                }
            }
            sitemap.urls = parsed.locs.into_iter().take(SITEMAP_URLS_KEPT).collect();
        }
        out.push(sitemap);
    }
    out.sort_by(|a, b| a.url.cmp(&b.url));
    out
}

/// For an https start URL: does its http:// form redirect to https://?
pub async fn https_probe(fetcher: &Fetcher, gate: &HostGate, start: &Url) -> Option<HttpsProbe> {
    if start.scheme() != "https" {
        return None;
    }
    let mut http = start.clone();
    http.set_scheme("http").ok()?;
    if start.port().is_some() {
        // A non-default https port has no http twin to probe.
        return None;
    }
    let _permit = gate.enter().await;
    let response = fetcher.get(http.as_str()).await;
    let first = response.redirects.first();
    Some(HttpsProbe {
        http_url: http.to_string(),
        status: first.map(|h| h.status).or(response.status),
        location: first.and_then(|h| h.location.clone()),
        error: response.error.map(|e| e.message),
    })
}

/// The status of a URL without rendering it (HEAD, falling back to GET), through the gate.
pub async fn url_status(fetcher: &Fetcher, gate: &HostGate, url: &str) -> UrlStatus {
    let _permit = gate.enter().await;
    fetcher.status(url).await
}

/// How the start URL answered before rendering: `Err` when it cannot be reached at all (DNS,
/// connect, TLS, refused by the egress guard, no answer in time). Any HTTP answer is fine: a 500
/// start page is a finding, not a failed scan.
pub async fn preflight(fetcher: &Fetcher, start: &Url) -> Result<(), ScanError> {
    let response = fetcher.get(start.as_str()).await;
    match response.error {
        None => Ok(()),
        Some(_) if response.status.is_some() => Ok(()),
        Some(e) => match e.kind {
            FetchErrorKind::Blocked => Err(ScanError::TargetBlocked(e.message)),
            FetchErrorKind::Timeout => Err(ScanError::TargetTimeout(e.message)),
            FetchErrorKind::TooManyRedirects | FetchErrorKind::TooLarge => Ok(()),
            _ => Err(ScanError::TargetUnreachable(e.message)),
        },
    }
}
