//! A re-scan gives back what the regions of the site's pages (header, navigation, footer and
//! each page's `main`) got in an earlier scan wherever their fingerprint is unchanged, and its
//! findings are exactly those of a scan that reuses nothing (`--no-cache`): on an unchanged
//! site, after one page's text changed, after the shared header's colour changed on every page,
//! after the style sheet alone changed, after a script alone changed (what a key press does, not
//! the markup), after an image behind a text alone changed (its contrast is settled from pixels),
//! and when the kept verdicts are of another generation (another axe-core, sitescan
//! or viewport). An unchanged page is not judged again at all: its axe-core results and its
//! other in-page facts (barriers, keyboard walk, layout, dialogs) are given back.

use super::shared_regions::{findings, footer, header};
use crate::app::spawn_app;
use crate::fixture_site::{FixtureSite, Route};
use sea_orm::ConnectionTrait;
use sitescan::crawl::{RegionCache, ScanOptions};
use sitescan_test_support::scan_harness::{Engine, Scan};

const PAGES: usize = 7;

/// What the site looks like in one round of the test.
#[derive(Clone, Copy, Default)]
struct Version {
    /// Page 3's text was edited.
    edited: bool,
    /// The header (on every page) gained an inline colour of too little contrast.
    header_grey: bool,
    /// The style sheet makes the paragraphs of `main` too light.
    css_light: bool,
    /// The site's script holds Tab on the first link of `main` (a keyboard trap); the markup is
    /// the same.
    script_trap: bool,
    /// The picture behind a text on page 1 turned mid grey (too little contrast); the markup is the
    /// same.
    bg_dark: bool,
}

/// One round of the re-scan test (`a_rescan_reuses_...`).
struct Round {
    what: &'static str,
    version: Version,
    findings_change: bool,
    pages: usize,
    facts: usize,
}

fn picture(v: Version) -> String {
    let fill = if v.bg_dark { "#999" } else { "#fafafa" };
    format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"40\"><rect width=\"40\" height=\"40\" fill=\"{fill}\"/></svg>")
}

fn js(v: Version) -> String {
    let listen = if v.script_trap { "a.addEventListener('keydown', (e) => { if (e.key === 'Tab') e.preventDefault(); });" } else { "a.addEventListener('focus', () => {});" };
    format!("(() => {{ const a = document.querySelector('main a'); if (a) {{ {listen} }} }})();")
}

fn css(v: Version) -> String {
    let p = if v.css_light { "#c4c4c4" } else { "#222" };
    format!("body{{margin:0;font-family:sans-serif;background:#fff;color:#222}}header{{background:#f6f6f6;padding:8px}}nav a{{color:#999}}main p{{color:{p}}}main p.over{{color:#555;background:#fff url(/picture.svg);padding:12px;width:480px}}footer{{background:#eee}}")
}

fn page(i: usize, v: Version) -> String {
    let mut main = format!("<h1>Page {i}</h1>");
    let words = if v.edited && i == 3 { "was rewritten today" } else { "says what it says" };
    for k in 0..(3 + (i * 5) % 11) {
        main.push_str(&format!("<p>Paragraph {k} of page {i} {words}; see <a href=\"/p{}\">page {}</a>.</p>", (i + k) % PAGES, (i + k) % PAGES));
    }
    if i == 1 {
        main.push_str("<p class=\"over\">Words over a picture</p>");
    }
    if i.is_multiple_of(3) {
        main.push_str("<img src=\"/photo.png\" width=\"20\" height=\"20\"><button></button>");
    }
    let mut head = header();
    if v.header_grey {
        head = head.replacen("<header class=\"site\">", "<header class=\"site\" style=\"color:#bbb\">", 1);
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Page {i}</title><link rel=\"stylesheet\" href=\"/site.css\"></head>\
         <body>{head}<main>{main}</main>{}<script src=\"/site.js\"></script></body></html>",
        footer()
    )
}

fn publish(site: &FixtureSite, v: Version) {
    site.route("/site.css", Route::typed("text/css", css(v)));
    site.route("/site.js", Route::typed("text/javascript", js(v)));
    site.route("/picture.svg", Route::typed("image/svg+xml", picture(v)));
    for i in 0..PAGES {
        site.route(&format!("/p{i}"), Route::html(page(i, v)));
    }
}

fn differences(a: &Scan, b: &Scan) -> Vec<String> {
    let (fa, fb) = (findings(a), findings(b));
    let mut out: Vec<String> = fa.iter().filter(|(k, n)| fb.get(*k) != Some(n)).map(|(k, n)| format!("cached {n} x {k}")).collect();
    out.extend(fb.iter().filter(|(k, n)| fa.get(*k) != Some(n)).map(|(k, n)| format!("no-cache {n} x {k}")));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rescan_reuses_unchanged_regions_and_finds_exactly_what_a_full_judgement_finds() {
    let site = FixtureSite::start().await;
    let start = site.url("/p0");
    let url = url::Url::parse(&start).unwrap();
    // The verdicts live in the suite's database (PostgreSQL when the suite runs on it).
    let app = spawn_app().await;
    let cache = app.store.clone();
    let options = ScanOptions {
        max_pages: PAGES,
        max_depth: 3,
        page_concurrency: 4,
        region_cache: Some(RegionCache::new(std::sync::Arc::new(cache.clone())).for_site("acme", &url)),
        ..ScanOptions::default()
    };
    let plain = ScanOptions { region_cache: None, ..options.clone() };
    let cached = Engine::start(4).await;
    let full = Engine::start_unshared(4).await;
    let earlier = || cached.scanner.pool().stats().regions_from_earlier_scans;
    let whole = || cached.scanner.pool().stats().pages_given_back;
    let facts = || cached.scanner.pool().stats().facts_given_back;

    let all = Version { edited: true, header_grey: true, css_light: true, ..Version::default() };
    let trap = Version { script_trap: true, ..all };
    let dark = Version { bg_dark: true, ..trap };
    let p = PAGES;
    // What each round expects of the cached scan: whether its findings differ from the round
    // before (so the round tests something), the pages whose axe-core results were given back
    // whole, and of those, the pages whose other in-page facts were given back too.
    let rounds = [
        Round { what: "first scan", version: Version::default(), findings_change: false, pages: 0, facts: 0 },
        Round { what: "unchanged", version: Version::default(), findings_change: false, pages: p, facts: p },
        // Page 3 is judged again, where it changed; the rest is given back.
        Round { what: "one page's text changed", version: Version { edited: true, ..Version::default() }, findings_change: false, pages: p - 1, facts: p - 1 },
        // Every page changed (its header; its style sheet): none is given back whole.
        Round { what: "the shared header's colour changed", version: Version { edited: true, header_grey: true, ..Version::default() }, findings_change: true, pages: 0, facts: 0 },
        Round { what: "the style sheet alone changed", version: all, findings_change: true, pages: 0, facts: 0 },
        // The markup is the same, so axe-core's results are given back (but page 1's: a script
        // may paint what its pixels read); what a key press does changed, so the keyboard walk
        // runs again on every page.
        Round { what: "the script alone changed", version: trap, findings_change: true, pages: p - 1, facts: 0 },
        Round { what: "unchanged again", version: trap, findings_change: false, pages: p, facts: p },
        // The picture behind page 1's text: its contrast is settled from pixels again.
        Round { what: "an image alone changed", version: dark, findings_change: true, pages: p - 1, facts: p - 1 },
        Round { what: "unchanged once more", version: dark, findings_change: false, pages: p, facts: p },
    ];
    let mut previous: Option<Scan> = None;
    let mut problems = Vec::new();
    for (k, round) in rounds.iter().enumerate() {
        let what = round.what;
        publish(&site, round.version);
        let (before, pages_before, facts_before) = (earlier(), whole(), facts());
        let a = cached.scan_with(&start, options.clone()).await;
        let reused = earlier() - before;
        let unchanged_pages = whole() - pages_before;
        let unchanged_facts = facts() - facts_before;
        let b = full.scan_with(&start, plain.clone()).await;
        assert_eq!(a.pages.len(), PAGES, "{what}: every page scanned");
        let diff = differences(&a, &b);
        if !diff.is_empty() {
            problems.push(format!("{what}: {} differences:\n{}", diff.len(), diff.join("\n")));
        }
        // Never more than may be given back (a changed page given back would be stale); at most
        // one page fewer, since a page whose key cannot be read at that moment (a loaded machine:
        // a response not yet readable) is judged in full, which is always sound.
        let (pages, facts) = (round.pages as u64, round.facts as u64);
        assert!(unchanged_pages <= pages && unchanged_facts <= facts, "{what}: given back {unchanged_pages} whole, {unchanged_facts} with their facts; at most {pages} and {facts}");
        assert!(unchanged_pages + 1 >= pages && unchanged_facts + 1 >= facts, "{what}: given back {unchanged_pages} whole, {unchanged_facts} with their facts; expected {pages} and {facts}");
        match (k, round.pages) {
            (0, _) => assert_eq!(reused, 0, "nothing kept before the first scan"),
            // Every page's main, header and footer (but a page judged in full, as above).
            (_, n) if n == PAGES => assert!(reused >= 3 * (PAGES as u64 - 1), "{what}: every region given back: {reused}"),
            _ => assert!(reused > 0, "{what}: some regions given back ({reused})"),
        }
        if let Some(p) = &previous {
            let changed = !differences(&a, p).is_empty();
            assert_eq!(changed, round.findings_change, "{what}: findings changed against the previous round: {changed}");
        }
        previous = Some(a);
    }
    // The header's contrast finding appears on every page once it turned grey, given back or not.
    let last = previous.as_ref().unwrap();
    // The script's trap on every page, found by the walk and then given back with the page's facts.
    let traps = last.findings.iter().filter(|f| f.check_id == "accessibility.keyboard-trap").count();
    assert_eq!(traps, PAGES, "the keyboard trap on every page");
    let contrast: Vec<String> = last.findings.iter().filter(|f| f.check_id == "accessibility.color-contrast").filter_map(|f| f.selector().map(str::to_string)).collect();
    let grey = contrast.iter().filter(|s| *s == "span").count();
    assert!(grey >= PAGES, "the header's text of too little contrast on every page: {contrast:?}");

    // Verdicts of another generation (another axe-core, here) are never given back.
    let rows = cache.conn().execute_unprepared("UPDATE region_verdicts SET generation = 'axe-core 0.0.1'").await.unwrap().rows_affected();
    assert!(rows > 0, "verdicts were kept");
    let before = earlier();
    let a = cached.scan_with(&start, options.clone()).await;
    assert_eq!(earlier() - before, 0, "another generation's verdicts were given back");
    let diff = differences(&a, last);
    if !diff.is_empty() {
        problems.push(format!("after a generation change: {}", diff.join("\n")));
    }
    cached.shutdown().await;
    full.shutdown().await;
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// `sitescan scan --cache FILE`: the second scan of the site gives back what the first one kept
/// in the file, with the same report; a cache that cannot be opened is a usage error before
/// anything runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_keeps_verdicts_in_the_cache_file() {
    let site = FixtureSite::start().await;
    publish(&site, Version::default());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("verdicts.db");
    let file_arg = file.display().to_string();
    let start = site.url("/p0");
    let scan = |extra: Vec<String>| {
        let start = start.clone();
        async move {
            let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
                .args(["--log-format", "json", "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "3", "--format", "json", "--quiet"])
                .args(&extra)
                .env("RUST_LOG", "warn,sitescan_engine::browser::session=debug")
                .output()
                .await
                .expect("run sitescan");
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let earlier: u64 = stderr
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter(|v| v["message"] == "regions judged once and given back")
                .map(|v| v["from_earlier_scans"].as_u64().unwrap_or(0))
                .sum();
            (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), stderr, earlier)
        }
    };
    let cached = vec!["--cache".to_string(), file_arg.clone()];
    let (code, first, err, earlier) = scan(cached.clone()).await;
    assert!(matches!(code, Some(0) | Some(1)), "first scan: {err}");
    assert_eq!(earlier, 0, "nothing to give back before the first scan");
    assert!(file.exists(), "the cache file was made");
    // The file is left whole: its write-ahead log folded in when the scan ends.
    let wal = std::path::PathBuf::from(format!("{}-wal", file.display()));
    assert!(std::fs::metadata(&wal).map_or(true, |m| m.len() == 0), "a write-ahead log was left beside the cache file");
    let (_, second, err, earlier) = scan(cached.clone()).await;
    assert!(earlier >= 3, "the second scan gave back the first one's regions: {earlier}\n{err}");
    let ids = |report: &str| {
        let v: serde_json::Value = serde_json::from_str(report).expect("a JSON report");
        let mut ids: Vec<String> = v["report"]["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| !f["check_id"].as_str().unwrap_or_default().starts_with("performance."))
            .map(|f| format!("{} {} {}", f["check_id"], f["evidence"]["url"], f["evidence"]["selector"]))
            .collect();
        ids.sort();
        ids
    };
    assert!(!ids(&first).is_empty(), "the fixture site has findings");
    assert_eq!(ids(&first), ids(&second), "the same findings with verdicts given back");
    // --no-cache reads nothing from the file.
    let (_, third, _, earlier) = scan(vec!["--cache".to_string(), file_arg, "--no-cache".to_string()]).await;
    assert_eq!(earlier, 0, "--no-cache gave nothing back");
    assert_eq!(ids(&first), ids(&third));
    // A cache path that cannot be a file: exit 2 with the reason, before any scan.
    let (code, _, err, _) = scan(vec!["--cache".to_string(), dir.path().display().to_string()]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--cache"), "the error names the flag: {err}");
}

/// `sitescan scan --max-pages 1` without `--cache`: no other page can be given back what its
/// regions got, so they are not fingerprinted; with `--cache` they are (the next scan reads
/// them). The findings are the same either way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_page_scan_fingerprints_its_regions_only_to_keep_them() {
    let site = FixtureSite::start().await;
    publish(&site, Version::default());
    let dir = tempfile::tempdir().unwrap();
    let file_arg = dir.path().join("verdicts.db").display().to_string();
    let start = site.url("/p0");
    let scan = |extra: Vec<String>| {
        let start = start.clone();
        async move {
            let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
                .args(["--log-format", "json", "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--quiet"])
                .args(&extra)
                .env("RUST_LOG", "warn,sitescan_engine::browser::capture=debug")
                .output()
                .await
                .expect("run sitescan");
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let phases: Vec<String> = stderr
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter(|v| v["message"] == "capture phases")
                .map(|v| v["phases"].as_str().unwrap_or_default().to_string())
                .collect();
            let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("a JSON report ({e}): {stderr}"));
            let mut ids: Vec<String> = report["report"]["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|f| !f["check_id"].as_str().unwrap_or_default().starts_with("performance."))
                .map(|f| format!("{} {} {}", f["check_id"], f["evidence"]["selector"], f["evidence"]["snippet"]))
                .collect();
            ids.sort();
            assert!(matches!(out.status.code(), Some(0) | Some(1)), "{stderr}");
            (phases, ids)
        }
    };
    let fingerprinted = |phases: &[String]| phases.iter().any(|p| p.split_whitespace().any(|kv| kv.starts_with("regions=")));
    let (alone, alone_ids) = scan(Vec::new()).await;
    assert_eq!(alone.len(), 1, "one page captured: {alone:?}");
    assert!(!fingerprinted(&alone), "a one-page scan that keeps nothing fingerprinted its regions: {alone:?}");
    let (kept, kept_ids) = scan(vec!["--cache".to_string(), file_arg]).await;
    assert!(fingerprinted(&kept), "a one-page scan with --cache fingerprints its regions for the next scan: {kept:?}");
    assert!(!alone_ids.is_empty(), "the fixture page has findings");
    assert_eq!(alone_ids, kept_ids, "the same findings whether the regions were fingerprinted or not");
}
