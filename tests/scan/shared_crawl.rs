//! One scan's pages across workers, with real Chromium over a fixture site and the suite's
//! database (SQLite, or PostgreSQL when the suite runs on it): a scan shared with a helper finds
//! exactly what one worker alone finds, each page judged once and the site checks run once; a
//! worker that dies holding pages loses none of them; an interrupted scan resumes where it
//! stopped instead of starting again; and the host's politeness holds for all workers together.

use crate::app::spawn_app;
use crate::fixture_site::{FixtureSite, Route};
use sitescan::crawl::shared_crawl::{CrawlContext, SharedCrawl};
use sitescan::crawl::worker::{Outcome, Ownership, run_claimed};
use sitescan::crawl::{ScanOptions, Scanner, WorkerConfig};
use sitescan::model::crawl_store::CrawlStore;
use sitescan_store::Store;
use sitescan_test_support::engine::EngineSpec;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const PAGES: usize = 14;

/// Pages that link to a few others each; each answers after `delay`, so that renders overlap.
async fn site_with(delay: Duration) -> FixtureSite {
    let site = FixtureSite::start().await;
    for i in 0..PAGES {
        let links: String = [(i + 1) % PAGES, (i * 3 + 2) % PAGES, (i + 5) % PAGES]
            .iter()
            .map(|k| format!("<a href=\"/p{k}\">Page {k}</a> "))
            .collect();
        // Something for the page checks to find on some pages: an image without text.
        let extra = if i % 4 == 0 { "<img src=\"/x.png\" width=\"10\" height=\"10\">" } else { "" };
        let title = if i % 5 == 0 { "Same title".to_string() } else { format!("Page {i}") };
        site.route(
            &format!("/p{i}"),
            Route::html(format!(
                "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\
                 <body><main><h1>Page {i}</h1><p>{links}</p>{extra}</main></body></html>"
            ))
            .delay(delay),
        );
    }
    site
}

fn config(sharing: bool, lease: Duration) -> WorkerConfig {
    WorkerConfig {
        lease,
        max_attempts: 5,
        poll: Duration::from_millis(50),
        options: ScanOptions { max_pages: 40, max_depth: 10, page_concurrency: 2, link_check_budget: 40, ..ScanOptions::default() },
        ownership: Ownership::ProvedByCaller(None),
        max_running_per_org: 0,
        page_sharing: sharing,
    }
}

/// (check id, page, selector) of every stored finding of the scan, sorted (duplicates kept).
async fn finding_keys(store: &Store, scan: Uuid) -> Vec<String> {
    let mut keys: Vec<String> = store
        .scan_findings(scan)
        .await
        .unwrap()
        .into_iter()
        .map(|f| format!("{} {} {}", f.finding.check_id, f.finding.url().unwrap_or_default(), f.finding.selector().unwrap_or("")))
        .collect();
    keys.sort();
    keys
}

/// The URLs of the scan's stored pages, sorted (duplicates kept).
async fn page_urls(store: &Store, scan: Uuid) -> Vec<String> {
    let mut urls: Vec<String> = store.scan_pages(scan).await.unwrap().into_iter().map(|p| p.url).collect();
    urls.sort();
    urls
}

/// Asserts that each of the site's pages was judged and written once (`counted` is what the scan
/// says it judged); the pages' URLs.
async fn every_page_judged_once(store: &Store, scan: Uuid, counted: usize) -> Vec<String> {
    let urls = page_urls(store, scan).await;
    let mut unique = urls.clone();
    unique.dedup();
    assert_eq!(unique, urls, "no page judged twice");
    assert_eq!(urls.len(), PAGES, "every page judged: {urls:?}");
    assert_eq!(counted, PAGES);
    urls
}

/// A queued scan of `start` for the organisation `acme`.
async fn seed(store: &Store, start: &str) -> sitescan_store::ScanRow {
    seed_max(store, start, None).await
}

async fn seed_max(store: &Store, start: &str, max_pages: Option<i32>) -> sitescan_store::ScanRow {
    use sitescan::model::{AddressPolicy, ScanMode, Target, TriggeredBy};
    store.set_org("acme", None).await.unwrap();
    let target = Target::parse(start, &AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])).unwrap();
    match store.create_scan("acme", &target, ScanMode::Passive, TriggeredBy::Api, max_pages).await.unwrap() {
        sitescan_store::CreateOutcome::Created(row) => row,
        other => panic!("{other:?}"),
    }
}

/// Claims the next queued scan as `owner` and runs it to its end.
async fn run_as(store: &Store, scanner: &Scanner, owner: &str, config: &WorkerConfig, shutdown: &CancellationToken) -> Outcome {
    let scan = store.claim_scan(owner, config.lease, config.max_attempts).await.unwrap().expect("a queued scan");
    run_claimed(store, scanner, scan, owner, config, shutdown, None).await.expect("the scan runs")
}

/// A helper worker: takes shares of `scan` until it has ended; how many pages it judged.
fn helper(store: Store, scanner: Arc<Scanner>, scan: Uuid, options: ScanOptions, lease: Duration) -> tokio::task::JoinHandle<usize> {
    tokio::spawn(async move {
        let cancel = CancellationToken::new();
        let mut judged = 0;
        loop {
            let row = store.scan_any_org(scan).await.unwrap().unwrap();
            if sitescan::crawl::worker::is_finished(&row) {
                return judged;
            }
            let crawl = SharedCrawl { store: &shared(&store), scan_id: scan, org: "acme", holder: "helper", lease, org_cap: i64::MAX };
            judged += scanner.help(crawl, &options, &cancel).await.expect("the helper's share");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
}

/// Claims `n` of the scan's pages as `holder` as soon as the crawl is open to other workers (its
/// start page judged), from a task of its own; the pages it got.
fn claim_once_open(store: &Store, scan: Uuid, holder: &'static str, lease: Duration, n: usize) -> tokio::task::JoinHandle<Vec<sitescan_store::crawl::ClaimedPage>> {
    let store = store.clone();
    tokio::spawn(async move {
        let began = Instant::now();
        loop {
            if let Some((text, _)) = store.crawl_context(scan).await.unwrap() {
                let context: CrawlContext = serde_json::from_str(&text).unwrap();
                if context.start_done {
                    let claimed = store.claim_pages(scan, holder, lease, n).await.unwrap();
                    if !claimed.is_empty() {
                        return claimed;
                    }
                }
            }
            assert!(began.elapsed() < Duration::from_secs(60), "the crawl never opened to other workers");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_scan_splits_its_pages_and_finds_exactly_what_one_worker_finds() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = site_with(Duration::from_millis(150)).await;
    let start = site.url("/p0");
    let scanner = EngineSpec::default().scanner().await;
    let lease = Duration::from_secs(30);

    let alone = seed(&store, &start).await;
    let outcome = run_as(&store, &scanner, "alone", &config(false, lease), &CancellationToken::new()).await;
    assert!(matches!(outcome, Outcome::Completed(_)), "{outcome:?}");

    let shared = seed(&store, &start).await;
    let help = helper(store.clone(), scanner.clone(), shared.id, config(true, lease).options, lease);
    let outcome = run_as(&store, &scanner, "owner", &config(true, lease), &CancellationToken::new()).await;
    let Outcome::Completed(stats) = outcome else { panic!("the shared scan: {outcome:?}") };
    let helped = help.await.unwrap();

    let (pages_alone, pages_shared) = (page_urls(&store, alone.id).await, page_urls(&store, shared.id).await);
    assert_eq!(pages_alone.len(), PAGES, "one worker renders every page: {pages_alone:?}");
    assert_eq!(pages_shared, pages_alone, "the shared scan renders the same pages, each once");
    assert_eq!(stats.pages, PAGES);
    assert!(helped > 0 && helped < PAGES, "both workers took a share: the helper judged {helped} of {PAGES}");

    let (a, b) = (finding_keys(&store, alone.id).await, finding_keys(&store, shared.id).await);
    assert!(a.iter().any(|k| k.starts_with("search.title-duplicate")), "the site checks found the duplicate titles: {a:#?}");
    assert!(!a.is_empty());
    assert_eq!(b, a, "findings by check, page and selector are those of one worker (site checks once)");

    let report = store.scan_any_org(shared.id).await.unwrap().unwrap();
    assert_eq!(report.status, sitescan::model::ScanStatus::Completed);
    assert!(store.crawl_context(shared.id).await.unwrap().is_none(), "a finished scan's crawl is removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_helper_keeps_to_the_scans_page_budget_whatever_its_own() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = site_with(Duration::from_millis(100)).await;
    let start = site.url("/p0");
    let scanner = EngineSpec::default().scanner().await;
    let lease = Duration::from_secs(30);
    let scan = seed_max(&store, &start, Some(6)).await;
    // The helper would render up to 1,000 pages of a scan of its own.
    let generous = ScanOptions { max_pages: 1000, ..config(true, lease).options };
    let help = helper(store.clone(), scanner.clone(), scan.id, generous, lease);
    let outcome = run_as(&store, &scanner, "owner", &config(true, lease), &CancellationToken::new()).await;
    let Outcome::Completed(stats) = outcome else { panic!("{outcome:?}") };
    let helped = help.await.unwrap();
    let urls = page_urls(&store, scan.id).await;
    assert_eq!(urls.len(), 6, "the scan's budget of 6 pages holds across workers: {urls:?}");
    assert_eq!(stats.pages, 6);
    assert!(helped <= 5, "the helper judged {helped}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_dies_holding_pages_loses_none_of_them() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = site_with(Duration::from_millis(50)).await;
    let start = site.url("/p0");
    let scanner = EngineSpec::default().scanner().await;
    let scan = seed(&store, &start).await;

    // A worker claims three pages as soon as the crawl is open to others, then dies (it never
    // writes them, nor renews their leases).
    let dead = claim_once_open(&store, scan.id, "dead", Duration::from_secs(2), 3);
    let outcome = run_as(&store, &scanner, "owner", &config(true, Duration::from_secs(30)), &CancellationToken::new()).await;
    let lost = dead.await.unwrap();
    let Outcome::Completed(stats) = outcome else { panic!("{outcome:?}") };
    let urls = every_page_judged_once(&store, scan.id, stats.pages).await;
    for page in &lost {
        assert!(urls.contains(&page.url), "{} (held by the dead worker) was judged by another", page.url);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_claimed_in_a_workers_name_but_never_written_is_judged_again() {
    // On PostgreSQL a page's write does not wait for its WAL flush, so a database crash can
    // lose it after its worker moved on: the page stays claimed in that worker's name, and the
    // worker renews the leases of everything claimed in its name. Such a page is made here by
    // claiming it in the owner's name from outside; the owner must give it back once it has
    // nothing in flight, judge it, and complete.
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = site_with(Duration::from_millis(20)).await;
    let start = site.url("/p0");
    let scanner = EngineSpec::default().scanner().await;
    let scan = seed(&store, &start).await;
    let phantom = claim_once_open(&store, scan.id, "owner", Duration::from_secs(60), 1);
    let (config, shutdown) = (config(true, Duration::from_secs(60)), CancellationToken::new());
    let outcome = tokio::time::timeout(Duration::from_secs(90), run_as(&store, &scanner, "owner", &config, &shutdown)).await.expect("the scan ends (the page was given back, not renewed for ever)");
    let phantom = phantom.await.unwrap().remove(0);
    let Outcome::Completed(stats) = outcome else { panic!("{outcome:?}") };
    let urls = every_page_judged_once(&store, scan.id, stats.pages).await;
    assert!(urls.contains(&phantom.url), "{} (claimed but never written) was judged", phantom.url);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_shared_scan_resumes_where_it_stopped() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = site_with(Duration::from_millis(100)).await;
    let start = site.url("/p0");
    let scanner = EngineSpec::default().scanner().await;
    let scan = seed(&store, &start).await;
    let config = config(true, Duration::from_secs(30));

    // The first attempt stops (as at a shutdown) once a few pages are judged.
    let shutdown = CancellationToken::new();
    let stopper = {
        let (store, shutdown) = (store.clone(), shutdown.clone());
        tokio::spawn(async move {
            loop {
                if store.crawl_counts(scan.id).await.unwrap().done >= 5 {
                    shutdown.cancel();
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let first = run_as(&store, &scanner, "first", &config, &shutdown).await;
    stopper.await.unwrap();
    assert!(matches!(first, Outcome::Interrupted), "{first:?}");
    let kept = store.crawl_counts(scan.id).await.unwrap().done;
    assert!(kept >= 5, "the judged pages stay: {kept}");
    let renders_before: usize = (0..PAGES).map(|i| site.hit_count(&format!("/p{i}"))).sum();

    let second = run_as(&store, &scanner, "second", &config, &CancellationToken::new()).await;
    let Outcome::Completed(stats) = second else { panic!("{second:?}") };
    every_page_judged_once(&store, scan.id, stats.pages).await;
    let renders_after: usize = (0..PAGES).map(|i| site.hit_count(&format!("/p{i}"))).sum();
    let second_renders = renders_after - renders_before;
    assert!(
        second_renders <= PAGES - kept as usize + config.options.page_concurrency,
        "the second attempt rendered {second_renders} pages; only the {} left (and those in flight at the stop) were due",
        PAGES - kept as usize
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_politeness_holds_across_workers() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let host = format!("polite-{}.test", Uuid::new_v4().simple());
    // Two workers' gates (each its own holder) on one host: one request at a time, 80 ms apart.
    let context = CrawlContext {
        start: format!("http://{host}/"),
        site: sitescan::crawl::frontier::Site::new(&url::Url::parse(&format!("http://{host}/")).unwrap()),
        robots: None,
        host: host.clone(),
        host_concurrency: 1,
        interval_ms: 80,
        start_done: true,
        max_pages: 10,
        max_depth: 5,
        first: false,
    };
    let spans = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for worker in ["w1", "w2"] {
        let (store, context, spans) = (store.clone(), context.clone(), spans.clone());
        tasks.push(tokio::spawn(async move {
            let crawl = SharedCrawl { store: &shared(&store), scan_id: Uuid::nil(), org: "acme", holder: worker, lease: Duration::from_secs(30), org_cap: i64::MAX };
            let gate = context.gate(crawl);
            let cancel = CancellationToken::new();
            for _ in 0..4 {
                let permit = gate.enter(&cancel).await.unwrap();
                let began = Instant::now();
                tokio::time::sleep(Duration::from_millis(30)).await;
                spans.lock().unwrap().push((began, Instant::now()));
                gate.leave(permit).await;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let mut spans = spans.lock().unwrap().clone();
    spans.sort();
    assert_eq!(spans.len(), 8);
    for pair in spans.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(b.0 >= a.1, "two requests to the host at once across workers");
        // Measured where the test's tasks wake, which a loaded machine delays by some
        // milliseconds; without the pace the requests would follow each other (30 ms apart).
        let gap = b.0.duration_since(a.0);
        assert!(gap >= Duration::from_millis(60), "requests started {gap:?} apart; the host asked for 80 ms");
    }
}


#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_slots_are_never_held_by_more_than_its_concurrency() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let host = format!("slots-{}.test", Uuid::new_v4().simple());
    const SLOTS: usize = 3;
    // Twelve takers race for three slots, each taking and giving back a slot five times.
    let held = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let most = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for taker in 0..12 {
        let (store, host, held, most) = (store.clone(), host.clone(), held.clone(), most.clone());
        tasks.push(tokio::spawn(async move {
            let mut slots = Vec::new();
            for round in 0..5 {
                let holder = format!("t{taker}#{round}");
                let slot = loop {
                    if let Some(slot) = store.enter_host_slot(&host, SLOTS, &holder, Duration::from_secs(30)).await.unwrap() {
                        break slot;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                };
                let now = held.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                most.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(10)).await;
                held.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                store.leave_host_slot(&host, slot, &holder).await.unwrap();
                slots.push(slot);
            }
            slots
        }));
    }
    let mut used = std::collections::BTreeSet::new();
    for t in tasks {
        used.extend(t.await.unwrap());
    }
    let most = most.load(std::sync::atomic::Ordering::SeqCst);
    assert!(most <= SLOTS, "{most} takers held a slot of the host at once; it allows {SLOTS}");
    assert_eq!(used, (0..SLOTS as i32).collect(), "only the host's own slots are handed out");

    // All three held: nobody gets one; a holder whose lease ran out loses its slot to the next.
    for (i, lease) in [(0, 30_000), (1, 30_000), (2, 1)] {
        assert!(store.enter_host_slot(&host, SLOTS, &format!("full#{i}"), Duration::from_millis(lease)).await.unwrap().is_some());
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    let taken = store.enter_host_slot(&host, SLOTS, "next", Duration::from_secs(30)).await.unwrap();
    assert!(taken.is_some(), "the expired holder's slot is taken over");
    assert_eq!(store.enter_host_slot(&host, SLOTS, "late", Duration::from_secs(30)).await.unwrap(), None, "every slot is held");
    // A scan of the same host allowed one more request at once gets the slot it adds, once.
    assert_eq!(store.enter_host_slot(&host, SLOTS + 1, "wider", Duration::from_secs(30)).await.unwrap(), Some(SLOTS as i32));
    assert_eq!(store.enter_host_slot(&host, SLOTS + 1, "wider#2", Duration::from_secs(30)).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_of_one_scan_number_its_pages_once_each_and_without_gaps() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let scan = seed(&store, "http://127.0.0.1:9/").await;
    let page = |i: usize| sitescan::model::ReportPage {
        url: format!("http://127.0.0.1:9/p{i}"),
        final_url: None,
        status: Some(200),
        title: Some(format!("Page {i}")),
        metrics: serde_json::json!({}),
        error: None,
        checks_not_run: Vec::new(),
    };
    // One page written before (a scan that had pages when the counter came): the counter starts
    // after it. Then 24 writers at once.
    store.insert_page_results(scan.id, "acme", 1, &page(0), &[]).await.unwrap();
    let writers: Vec<_> = (1..=24)
        .map(|i| {
            let (store, page) = (store.clone(), page(i));
            tokio::spawn(async move { store.append_page_results(scan.id, "acme", &page, &[]).await.unwrap() })
        })
        .collect();
    for w in writers {
        w.await.unwrap();
    }
    let numbers: Vec<i32> = store.scan_pages(scan.id).await.unwrap().into_iter().map(|p| p.seq).collect();
    assert_eq!(numbers, (1..=25).collect::<Vec<i32>>(), "every page numbered once, in order, no gaps");
}

/// A worker that claims again and again searches the queue past what it took last, yet a page
/// given back behind that point, or left by a worker whose lease expired, is still claimed once
/// the queue ahead is empty; leases are renewed for the pages named, and only while held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_cursor_still_finds_pages_given_back_behind_it() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let scan = seed(&store, "http://127.0.0.1:9/").await;
    assert!(store.open_crawl(scan.id, "{}").await.unwrap());
    let url = |i: usize| format!("http://127.0.0.1:9/p{i}");
    let pages: Vec<(String, u32)> = (0..8).map(|i| (url(i), 1)).collect();
    assert_eq!(store.enqueue_pages(scan.id, &pages, 100).await.unwrap().added, 8);
    let lease = Duration::from_secs(30);
    let names = |claimed: Vec<sitescan_store::crawl::ClaimedPage>| -> Vec<String> { claimed.into_iter().map(|p| p.url).collect() };
    let mut cursor = sitescan_store::crawl::ClaimCursor::default();
    let claim = async |holder: &str, n: usize, cursor: &mut sitescan_store::crawl::ClaimCursor| names(store.claim_pages_from(scan.id, holder, lease, n, cursor).await.unwrap());

    assert_eq!(claim("a", 2, &mut cursor).await, vec![url(0), url(1)]);
    assert_eq!(claim("a", 2, &mut cursor).await, vec![url(2), url(3)]);
    assert_eq!(store.renew_pages(scan.id, "a", lease, &[url(2), url(3), url(4)]).await.unwrap(), 2, "only the named pages a holds");
    assert_eq!(store.renew_pages(scan.id, "b", lease, &[url(2)]).await.unwrap(), 0, "b holds none of them");
    // `a` gives its pages back: they are behind its cursor.
    assert_eq!(store.release_pages(scan.id, "a").await.unwrap(), 4);
    // Another worker claims two under a lease that is over at once.
    let lost = names(store.claim_pages(scan.id, "b", Duration::ZERO, 2).await.unwrap());
    assert_eq!(lost, vec![url(0), url(1)], "a fresh claim searches the whole queue, breadth first");
    assert_eq!(claim("a", 2, &mut cursor).await, vec![url(4), url(5)], "the queue past the cursor first");
    assert_eq!(claim("a", 3, &mut cursor).await, vec![url(6), url(7)]);
    // Nothing past the cursor: the expired pages, then the queue behind it.
    assert_eq!(claim("a", 3, &mut cursor).await, vec![url(0), url(1), url(2)]);
    assert_eq!(claim("a", 3, &mut cursor).await, vec![url(3)]);
    assert!(claim("a", 3, &mut cursor).await.is_empty());
    let counts = store.crawl_counts(scan.id).await.unwrap();
    assert_eq!((counts.queued, counts.claimed, counts.abandoned), (0, 8, 0), "every page claimed once: {counts:?}");
}

/// A start page that redirects to another host (`example.com` to `www.example.com`; here
/// `127.0.0.1` to `localhost`) makes that host the site's: the start page's links there are
/// followed, by one worker alone and by a shared crawl alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_that_redirects_to_another_host_is_crawled_there() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = FixtureSite::start().await;
    let port = url::Url::parse(&site.url("/")).unwrap().port().unwrap();
    let there = |path: &str| format!("http://localhost:{port}{path}");
    site.route("/", Route::redirect(301, &there("/home")));
    let page = |title: &str, links: &str| {
        Route::html(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body><main><h1>{title}</h1>{links}</main></body></html>"
        ))
    };
    site.route("/home", page("Home", "<a href=\"/a\">A</a> <a href=\"/b\">B</a>"));
    site.route("/a", page("A", "<a href=\"/b\">B</a>"));
    site.route("/b", page("B", "<a href=\"/home\">Home</a>"));
    let scanner = EngineSpec::default().scanner().await;
    let lease = Duration::from_secs(30);
    for sharing in [false, true] {
        let scan = seed(&store, &site.url("/")).await;
        let outcome = run_as(&store, &scanner, if sharing { "owner" } else { "alone" }, &config(sharing, lease), &CancellationToken::new()).await;
        assert!(matches!(outcome, Outcome::Completed(_)), "sharing {sharing}: {outcome:?}");
        let urls = page_urls(&store, scan.id).await;
        assert_eq!(urls, vec![site.url("/"), there("/a"), there("/b")], "sharing {sharing}: the redirect's host is crawled");
    }
}

/// A helper serves another organisation's scan only while no other organisation's scan waits
/// for a worker: with one queued it judges nothing more and returns (its worker then claims the
/// waiting scan); once none waits, it helps again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_helper_goes_back_to_the_queue_while_another_organisations_scan_waits() {
    use sitescan::model::{AddressPolicy, ScanMode, Target, TriggeredBy};
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = site_with(Duration::from_millis(300)).await;
    let scanner = EngineSpec::default().scanner().await;
    let lease = Duration::from_secs(30);
    let scan = seed(&store, &site.url("/p0")).await;
    let owner = {
        let (store, scanner) = (store.clone(), scanner.clone());
        tokio::spawn(async move { run_as(&store, &scanner, "owner", &config(true, lease), &CancellationToken::new()).await })
    };
    // Another organisation's scan waits in the queue (no worker here claims it).
    store.set_org("globex", None).await.unwrap();
    let target = Target::parse(&site.url("/p3"), &AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])).unwrap();
    let waiting = match store.create_scan("globex", &target, ScanMode::Passive, TriggeredBy::Api, None).await.unwrap() {
        sitescan_store::CreateOutcome::Created(row) => row,
        other => panic!("{other:?}"),
    };
    let began = Instant::now();
    loop {
        if let Some((text, _)) = store.crawl_context(scan.id).await.unwrap()
            && serde_json::from_str::<CrawlContext>(&text).unwrap().start_done
        {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(60), "the crawl never opened to other workers");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let options = config(true, lease).options;
    let crawl = SharedCrawl { store: &shared(&store), scan_id: scan.id, org: "acme", holder: "helper", lease, org_cap: i64::MAX };
    let judged = scanner.help(crawl, &options, &CancellationToken::new()).await.unwrap();
    assert_eq!(judged, 0, "with globex's scan waiting, the helper goes back to the queue");

    // globex's scan is taken (by a worker elsewhere): nothing waits, and the helper helps.
    assert!(store.claim_scan("elsewhere", lease, 3).await.unwrap().is_some_and(|s| s.id == waiting.id));
    let judged = scanner.help(crawl, &options, &CancellationToken::new()).await.unwrap();
    let outcome = owner.await.unwrap();
    assert!(matches!(outcome, Outcome::Completed(_)), "{outcome:?}");
    assert!(judged > 0, "with nothing waiting, the helper took a share of the pages");
    every_page_judged_once(&store, scan.id, PAGES).await;
}

/// A scan of another organisation that no worker could claim (its organisation is at its cap of
/// running scans) sends no helper back to the queue; one under the cap does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_its_organisations_cap_holds_back_sends_no_helper_back() {
    use sitescan::model::{AddressPolicy, ScanMode, Target, TriggeredBy};
    let app = spawn_app().await;
    let store = app.store.clone();
    store.set_org("globex", None).await.unwrap();
    let target = Target::parse("http://127.0.0.1:9/a", &AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])).unwrap();
    for _ in 0..2 {
        assert!(matches!(store.create_scan("globex", &target, ScanMode::Passive, TriggeredBy::Api, None).await.unwrap(), sitescan_store::CreateOutcome::Created(_)));
    }
    assert!(store.scan_waits_beside("acme", 1).await.unwrap(), "nothing of globex runs: its scan could be claimed");
    assert!(store.claim_scan("elsewhere", Duration::from_secs(30), 3).await.unwrap().is_some());
    assert!(!store.scan_waits_beside("acme", 1).await.unwrap(), "globex runs one scan of its cap of one: its other scan cannot be claimed");
    assert!(store.scan_waits_beside("acme", 2).await.unwrap(), "under a cap of two it can");
    assert!(store.scan_waits_beside("acme", i64::MAX).await.unwrap(), "and with no cap");
    assert!(!store.scan_waits_beside("globex", i64::MAX).await.unwrap(), "an organisation's own scans never send its helpers back");
}

/// Helpers count against the organisation of the scan they help, as its own scans do: with a
/// cap of one running scan an organisation gets no helper; with two, one helper, not more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helpers_count_against_their_organisations_cap() {
    let app = spawn_app().await;
    let store = app.store.clone();
    let site = site_with(Duration::from_millis(300)).await;
    let scanner = EngineSpec::default().scanner().await;
    let lease = Duration::from_secs(30);
    let scan = seed(&store, &site.url("/p0")).await;
    let owner = {
        let (store, scanner) = (store.clone(), scanner.clone());
        tokio::spawn(async move { run_as(&store, &scanner, "owner", &config(true, lease), &CancellationToken::new()).await })
    };
    let began = Instant::now();
    while store.help_wanted(i64::MAX).await.unwrap().is_none() {
        assert!(began.elapsed() < Duration::from_secs(60), "the crawl never opened to other workers");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Plenty to claim, whatever the owner holds.
    let more: Vec<(String, u32)> = (6..PAGES).map(|i| (site.url(&format!("/p{i}")), 1)).collect();
    store.enqueue_pages(scan.id, &more, 40).await.unwrap();
    assert!(store.help_wanted(1).await.unwrap().is_none(), "at a cap of one, the running scan is all acme gets");
    assert_eq!(store.help_wanted(2).await.unwrap().map(|w| w.scan_id), Some(scan.id));
    let held = store.claim_pages(scan.id, "helper-1", lease, 1).await.unwrap();
    assert_eq!(held.len(), 1);
    assert!(store.help_wanted(2).await.unwrap().is_none(), "the scan and one helper make two");
    assert!(store.help_wanted(3).await.unwrap().is_some(), "pages are left to help with");
    store.release_pages(scan.id, "helper-1").await.unwrap();
    let outcome = owner.await.unwrap();
    assert!(matches!(outcome, Outcome::Completed(_)), "{outcome:?}");
}

/// The store as the crawl sees it.
fn shared(store: &Store) -> Arc<dyn CrawlStore> {
    Arc::new(store.clone())
}
