//! The list endpoints against the size of the findings table: `GET /api/v1/findings` (first
//! page, by severity, by check, since a date, ten pages deep by cursor) and `GET /api/v1/scans`
//! (first page, ten pages deep), through the real API on loopback, over a database holding F
//! findings (10,000 and 10,000,000), as p50 and p99 of `REPEAT` requests each. Pages are of 10
//! (5 for the scans ten pages deep), which every request fills at both sizes, so that the two
//! sizes compare the same work.
//!
//! Seeding is bulk SQL (`INSERT ... SELECT generate_series`), not the store's insert path: ten
//! million findings through the worker's writes would take hours and measure the writes, not the
//! reads. The rows are shaped as the worker writes them (ids, organisation, check ids of every
//! category, severities in the proportions real scans show, page URLs, evidence of a few hundred
//! bytes, times spread over 90 days). Findings are spread over `ORGS` organisations and `PER_SCAN` per
//! scan; the measured organisation holds its share, as any tenant of a large fleet would.

use sea_orm::ConnectionTrait;
use sitescan::api::{ApiSettings, Application, RateWindow};
use sitescan_store::Store;
use std::time::{Duration, Instant};

const ORGS: usize = 10;
const PER_SCAN: usize = 20;
const REPEAT: usize = 1000;
const DAY_US: i64 = 86_400_000_000;

pub struct Listing {
    pub findings: usize,
    pub seeded_in: Duration,
    pub table_bytes: i64,
    /// (name, p50 ms, p99 ms, rows in the timed page)
    pub timings: Vec<(&'static str, f64, f64, usize)>,
}

/// Seeds `findings` findings (and their scans) with SQL.
async fn seed(store: &Store, findings: usize) -> anyhow::Result<Duration> {
    let began = Instant::now();
    let conn = store.conn();
    for org in 0..ORGS {
        store.set_org(&format!("org-{org}"), Some(10_000_000)).await?;
    }
    let scans = findings.div_ceil(PER_SCAN);
    let now = chrono::Utc::now().timestamp_micros();
    conn.execute_unprepared(&format!(
        "INSERT INTO scans (id, org_id, target_url, target_hostname, mode, status, triggered_by, created_at, started_at, completed_at, attempts)
         SELECT md5('scan-' || s)::uuid, 'org-' || (s % {ORGS}), 'https://site-' || (s % 5000) || '.scale.test/', 'site-' || (s % 5000) || '.scale.test',
                'passive', 'completed', 'schedule', {now} - (s::bigint * {span} / {scans}), {now} - (s::bigint * {span} / {scans}) + 1000000,
                {now} - (s::bigint * {span} / {scans}) + 60000000, 1
         FROM generate_series(0, {last}) AS s",
        span = 90 * DAY_US,
        last = scans - 1,
    ))
    .await?;
    // Check ids of every category; severities roughly as scans report them (few critical, many low).
    let checks = "ARRAY['accessibility.color-contrast','accessibility.image-alt','accessibility.link-name','search.meta-description-missing',\
                  'security.missing-security-header','performance.lcp','performance.cache-policy','links.broken-internal','semantics.h1-missing',\
                  'i18n.lang-missing','structured-data.none','forms.label-missing','media.image-too-large','runtime.console-error','crawlability.sitemap-missing']";
    let severities = "ARRAY['critical','high','high','medium','medium','medium','low','low','low','low','info','info']";
    let batch = 1_000_000usize;
    let mut from = 0usize;
    while from < findings {
        let to = (from + batch).min(findings) - 1;
        conn.execute_unprepared(&format!(
            "INSERT INTO findings (id, scan_id, org_id, check_id, severity, title, description, evidence, remediation, page_url, created_at, change)
             SELECT md5('finding-' || f)::uuid, md5('scan-' || (f / {PER_SCAN}))::uuid, 'org-' || ((f / {PER_SCAN}) % {ORGS}),
                    ({checks})[1 + (f % 15)], ({severities})[1 + ((f / 7) % 12)],
                    'A finding title of ordinary length', 'What the check found and why it matters to the people using the page.',
                    '{{\"url\":\"https://site.scale.test/page-' || (f % 300) || '\",\"selector\":\"main > section:nth-of-type(2) > p\",\"snippet\":\"<p class=\\\"lead\\\">Some text of the page</p>\"}}',
                    'Fix it as the check says.', 'https://site-' || ((f / {PER_SCAN}) % 5000) || '.scale.test/page-' || (f % 300),
                    {now} - ((f / {PER_SCAN})::bigint * {span} / {scans}), 'new'
             FROM generate_series({from}, {to}) AS f",
            span = 90 * DAY_US,
        ))
        .await?;
        from = to + 1;
    }
    conn.execute_unprepared("ANALYZE scans; ANALYZE findings").await?;
    Ok(began.elapsed())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    super::percentile(sorted, p)
}

/// Times `REPEAT` GETs of `path` (following `depth` cursors first, each timed as one request).
async fn time_get(http: &reqwest::Client, base: &str, token: &str, path: &str, depth: usize) -> anyhow::Result<(f64, f64, usize)> {
    let mut samples = Vec::with_capacity(REPEAT);
    let mut rows = 0;
    // Warm the connection and the plan once.
    http.get(format!("{base}{path}")).bearer_auth(token).send().await?.error_for_status()?;
    let key = if path.contains("/findings") { "findings" } else { "scans" };
    for _ in 0..REPEAT {
        let mut url = format!("{base}{path}");
        if depth > 0 {
            // Walk to the page `depth` deep, then time that page's request.
            for _ in 0..depth {
                let body: serde_json::Value = serde_json::from_slice(&http.get(&url).bearer_auth(token).send().await?.error_for_status()?.bytes().await?)?;
                let Some(cursor) = body["next_cursor"].as_str() else { break };
                let sep = if path.contains('?') { '&' } else { '?' };
                url = format!("{base}{path}{sep}cursor={cursor}");
            }
        }
        let began = Instant::now();
        let body: serde_json::Value = serde_json::from_slice(&http.get(&url).bearer_auth(token).send().await?.error_for_status()?.bytes().await?)?;
        samples.push(began.elapsed().as_secs_f64() * 1000.0);
        rows = body[key].as_array().map_or(0, Vec::len);
        anyhow::ensure!(body[key].is_array(), "{path}: no {key} array in {body}");
    }
    samples.sort_by(f64::total_cmp);
    Ok((percentile(&samples, 0.5), percentile(&samples, 0.99), rows))
}

/// Seeds a fresh database with `findings` findings and times the list endpoints over it.
pub async fn measure(url: &str, findings: usize) -> anyhow::Result<Listing> {
    let store = Store::open(url, true).await?;
    let seeded_in = seed(&store, findings).await?;
    let table_bytes = super::count(&store, "SELECT pg_total_relation_size('findings')").await?;
    let settings = ApiSettings {
        listen: "127.0.0.1:0".into(),
        rate_windows: vec![RateWindow { limit: 1_000_000, period: Duration::from_secs(1) }],
        rate_limit_backend: "memory".into(),
    };
    let app = Application::build(&settings, sitescan::app::App::new(store.clone(), sitescan::app::AppConfig::default())).await?;
    let base = format!("http://{}", app.addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = stopped.await;
    }));
    let (token, _) = store.create_token("org-0", Some("scale"), &["scans:read".to_string()]).await?;
    let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build()?;
    let since = (chrono::Utc::now() - chrono::Duration::days(1)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut timings = Vec::new();
    for (name, path, depth) in [
        ("findings, first page", "/api/v1/findings?limit=10".to_string(), 0),
        ("findings, severity=critical,high", "/api/v1/findings?limit=10&severity=critical,high".to_string(), 0),
        ("findings, check_id", "/api/v1/findings?limit=10&check_id=accessibility.color-contrast".to_string(), 0),
        ("findings, since a day ago", format!("/api/v1/findings?limit=10&since={since}"), 0),
        ("findings, 10th page by cursor", "/api/v1/findings?limit=10".to_string(), 9),
        ("scans, first page", "/api/v1/scans?limit=10".to_string(), 0),
        ("scans, 10th page by cursor", "/api/v1/scans?limit=5".to_string(), 9),
    ] {
        let (p50, p99, rows) = time_get(&http, &base, &token, &path, depth).await?;
        timings.push((name, p50, p99, rows));
    }
    let _ = stop.send(());
    let _ = server.await;
    store.close().await;
    Ok(Listing { findings, seeded_in, table_bytes, timings })
}
