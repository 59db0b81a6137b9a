//! The real web, through the real binary: patterns of real pages that used to switch checks off
//! in silence (a form field named `action`, overwritten built-ins, text cut inside an emoji, a
//! page that navigates itself), a sample of saved real pages (`tests/fixtures/real/`, see its
//! `SOURCES.tsv`), and a gatherer failure forced in a debug build, which every output must say.

use crate::fixture_site;

use fixture_site::{FixtureSite, Route};
use serde_json::Value;

async fn sitescan(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
    cmd.args(args).env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().await.expect("run sitescan");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A one-page JSON scan of `url`: the exit status and the report.
async fn scan_json(url: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["scan", url, "--format", "json", "--allow-target", "127.0.0.1/32", "--max-pages", "1"];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = sitescan(&args, &[]).await;
    let body: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("JSON report ({e}); stderr: {stderr}"));
    (code, body, stderr)
}

fn page_gaps(body: &Value) -> Vec<String> {
    let mut gaps = Vec::new();
    for p in body["report"]["pages"].as_array().into_iter().flatten() {
        for n in p["checks_not_run"].as_array().into_iter().flatten() {
            gaps.push(format!("{} {}: {}", p["url"], n["check_id"], n["reason"]));
        }
    }
    gaps
}

fn ids(body: &Value) -> Vec<String> {
    body["report"]["findings"].as_array().into_iter().flatten().filter_map(|f| f["check_id"].as_str().map(str::to_string)).collect()
}

/// Every way a page's markup and script reached into the gatherers before they ran in an
/// isolated world and read forms through their prototypes.
const HOSTILE: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Subscribe</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<div id="__sitescanHooks">clobbers window.__sitescanHooks</div><div id="__ss"></div>
<main><h1>Subscribe</h1>
<form id="sub" action="/subscribe" method="get">
  <input type="hidden" name="action" value="subscribe_widget">
  <input type="hidden" name="id" value="7"><input type="hidden" name="elements" value="x">
  <input type="hidden" name="title" value="x"><input type="hidden" name="method" value="x">
  <label for="pw">Password</label><input id="pw" type="password" name="pw">
  <button type="submit">Go</button>
</form>
<form name="title"><label>Name <input name="name"></label></form>
<p><img src="/a.png" width="10" height="10"></p>
</main>
<script>
  Array.prototype.map = function () { throw new Error('map is mine'); };
  Array.from = function () { throw new Error('from is mine'); };
  JSON.stringify = function () { return '{"hijacked":true}'; };
  Element.prototype.getAttribute = function () { throw new Error('getAttribute is mine'); };
  Node.prototype.contains = function () { throw new Error('contains is mine'); };
  String.prototype.slice = function () { return 'sliced'; };
  window.getComputedStyle = function () { throw new Error('styles are mine'); };
</script>
</body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_cannot_reach_into_the_gatherers() {
    let site = FixtureSite::start().await;
    site.route("/", Route::html(HOSTILE));
    site.route("/a.png", Route::typed("image/png", crate::media_gen::png(10, 10)));
    let (code, body, stderr) = scan_json(&site.url("/"), &[]).await;
    assert_eq!(page_gaps(&body), Vec::<String>::new(), "every check ran; stderr: {stderr}");
    assert!(body["report"]["summary"].get("checks_not_run").is_none(), "{}", body["report"]["summary"]);
    assert_ne!(code, Some(3), "a complete scan does not exit as incomplete");
    let findings = body["report"]["findings"].as_array().cloned().unwrap_or_default();
    // The form's action was read as the URL it is, not as the field named `action`.
    let get = findings.iter().find(|f| f["check_id"] == "forms.password-in-get").unwrap_or_else(|| panic!("password in GET form: {:?}", ids(&body)));
    assert_eq!(get["evidence"]["resource"], site.url("/subscribe"), "{get}");
    assert_eq!(get["evidence"]["selector"], "#sub", "{get}");
    // The image without alt was judged (the DOM and axe gatherers ran despite the page's script).
    assert!(ids(&body).iter().any(|id| id == "accessibility.image-alt"), "{:?}", ids(&body));
    assert!(!ids(&body).iter().any(|id| id == "search.title-missing"), "the document's title is read, not the form named title");
}

/// The dialog probe presses Enter on a control that declares a dialog. A page that moves focus
/// to its "Delete my account" submit button the moment that control is focused, and a control
/// that acts when pressed without declaring a dialog, get nothing pressed.
const FOCUS_SWAP: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Settings</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main><h1>Settings</h1>
<form action="/deleted" method="get"><input type="hidden" name="really" value="yes">
  <button id="delete" type="submit">Delete my account</button></form>
<button id="open" type="button" aria-haspopup="dialog">Open the settings</button>
<button id="act" type="button" onclick="fetch('/pressed')">Send the newsletter now</button>
<dialog id="d"><p>Settings</p><button type="button" onclick="this.closest('dialog').close()">Close</button></dialog>
</main><script>
  const open = document.getElementById('open');
  open.addEventListener('click', () => document.getElementById('d').showModal());
  open.addEventListener('focus', () => setTimeout(() => document.getElementById('delete').focus(), 0));
</script></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dialog_probe_presses_only_the_control_it_focused() {
    let site = FixtureSite::start().await;
    site.route("/", Route::html(FOCUS_SWAP));
    site.route("/deleted", Route::html("<!doctype html><title>Deleted</title><p>Your account is gone.</p>"));
    site.route("/pressed", Route::new(204));
    let (_, body, stderr) = scan_json(&site.url("/"), &[]).await;
    assert_eq!(body["report"]["pages"].as_array().map(Vec::len), Some(1), "{stderr}");
    let hits: Vec<String> = site.hits().iter().map(|h| h.target.clone()).collect();
    assert!(!hits.iter().any(|t| t.starts_with("/deleted") || t.starts_with("/pressed")), "nothing was pressed but the probe's own control: {hits:?}");
    assert_eq!(page_gaps(&body), Vec::<String>::new(), "every check ran; stderr: {stderr}");
}

/// The scanner's in-page hooks report through a function on the page's window: the page's own
/// script (and a frame it makes) can call it, but a report it forges is not read.
const FORGED_REPORTS: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Forged</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main><h1>Forged reports</h1></main>
<script>
  const forged = JSON.stringify({type: 'csp', directive: 'script-src', blocked_uri: 'https://forged.invalid/x.js', source_file: null, line: null, disposition: 'enforce'});
  const call = (w) => { try { if (typeof w.__sitescanReport === 'function') for (let i = 0; i < 50; i++) w.__sitescanReport(forged); } catch (_) {} };
  call(window);
  const f = document.createElement('iframe'); document.body.appendChild(f); call(f.contentWindow);
</script></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_the_page_forges_is_not_read() {
    let site = FixtureSite::start().await;
    site.route("/", Route::html(FORGED_REPORTS));
    let (_, body, stderr) = scan_json(&site.url("/"), &[]).await;
    assert_eq!(body["report"]["pages"].as_array().map(Vec::len), Some(1), "{stderr}");
    assert!(!ids(&body).iter().any(|id| id == "runtime.csp-violation"), "a forged CSP report became a finding: {:?}", ids(&body));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_cut_inside_an_emoji_breaks_nothing() {
    // Each text is cut at 300 (link text, headings, snippets) or 150 (barrier texts) UTF-16
    // units; an emoji straddles every one of those cuts, and the page's own script makes a
    // lone half too.
    let long = |n: usize| format!("{}😀 tail", "a".repeat(n));
    let html = format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Emoji</title></head><body><main>
<h1>{h}</h1><p><a href="/x">{a}</a></p><p title="{t}">{p}</p><div id="lone"></div>
<button>{b}</button></main>
<script>document.getElementById('lone').textContent = 'half \ud83d here'; console.log('half \ud83d logged');</script>
</body></html>"#,
        h = long(299),
        a = long(299),
        t = long(149),
        p = long(2999),
        b = long(149)
    );
    let site = FixtureSite::start().await;
    site.route("/", Route::html(html));
    site.route("/x", Route::html("<!doctype html><title>x</title>"));
    let (_, body, stderr) = scan_json(&site.url("/"), &[]).await;
    assert_eq!(page_gaps(&body), Vec::<String>::new(), "every check ran; stderr: {stderr}");
    assert!(body["report"]["summary"].get("checks_not_run").is_none());
    assert!(!ids(&body).iter().any(|id| id == "search.title-missing" || id == "semantics.h1-missing"), "{:?}", ids(&body));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_moves_itself_is_judged_where_a_visitor_ends() {
    let site = FixtureSite::start().await;
    // An interim document with nothing in it, which sends the browser on after its load.
    site.route("/", Route::html("<!doctype html><html><body><script>addEventListener('load', () => setTimeout(() => location.replace('/landing'), 50));</script></body></html>"));
    site.route(
        "/landing",
        Route::html(r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Landing page</title><meta name="description" content="Where a visitor ends up."></head><body><main><h1>Landed</h1><p>Hello.</p></main></body></html>"#),
    );
    let (_, body, stderr) = scan_json(&site.url("/"), &[]).await;
    let page = &body["report"]["pages"][0];
    assert_eq!(page["url"], site.url("/"), "{page}");
    assert_eq!(page["final_url"], site.url("/landing"), "both addresses named; stderr: {stderr}");
    assert_eq!(page["title"], "Landing page", "{page}");
    let judged_blank: Vec<String> = ids(&body).into_iter().filter(|id| ["search.title-missing", "semantics.h1-missing", "i18n.lang-missing", "accessibility.html-has-lang"].contains(&id.as_str())).collect();
    assert!(judged_blank.is_empty(), "the interim blank document was judged: {judged_blank:?}");
    assert_eq!(page_gaps(&body), Vec::<String>::new(), "the served HTML is the landing page's; stderr: {stderr}");
}

/// A forced failure of the DOM gatherer (debug builds read `SITESCAN_TEST_FAIL_GATHERERS`) is
/// said in every format, and the exit status is 3 unless allowed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gap_is_said_in_every_output() {
    let site = FixtureSite::start().await;
    site.route("/", Route::html(r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gap</title></head><body><main><h1>Gap</h1></main></body></html>"#));
    let url = site.url("/");
    let fail = [("SITESCAN_TEST_FAIL_GATHERERS", "dom")];
    let run = |format: &'static str, extra: Vec<&'static str>| {
        let url = url.clone();
        async move {
            let mut args = vec!["scan", url.as_str(), "--format", format, "--allow-target", "127.0.0.1/32", "--max-pages", "1"];
            args.extend(extra);
            sitescan(&args, &fail).await
        }
    };
    let (json, text, sarif, junit, html, allowed) = tokio::join!(
        run("json", vec![]),
        run("text", vec![]),
        run("sarif", vec![]),
        run("junit", vec![]),
        run("html", vec![]),
        run("text", vec!["--allow-incomplete"]),
    );
    // JSON: the summary counts the gap; the page lists its checks.
    assert_eq!(json.0, Some(3), "incomplete exits 3; stderr: {}", json.2);
    assert!(json.2.contains("incomplete: "), "stderr says so: {}", json.2);
    let body: Value = serde_json::from_str(&json.1).expect("json");
    let gaps = &body["report"]["summary"]["checks_not_run"];
    assert_eq!(gaps["pages"], 1, "{gaps}");
    assert!(gaps["checks"].as_u64().unwrap() > 10, "{gaps}");
    assert!(gaps["reasons"][0]["reason"].as_str().unwrap().contains("dom"), "{gaps}");
    assert!(gaps["reasons"][0]["check_ids"].as_array().unwrap().iter().any(|i| i == "search.title-missing"), "{gaps}");
    // Text: the header, under the status.
    assert_eq!(text.0, Some(3));
    let head: Vec<&str> = text.1.lines().take(4).collect();
    assert!(head[1].starts_with("status completed (incomplete)"), "{}", text.1);
    assert!(head[2].starts_with("incomplete: ") && head[2].contains("did not run on 1 page"), "{}", text.1);
    // SARIF: a tool execution notification.
    let log: Value = serde_json::from_str(&sarif.1).expect("sarif");
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().cloned().unwrap_or_default();
    assert!(notes.iter().any(|n| n["descriptor"]["id"] == "checks_not_run" && n["level"] == "error"), "{notes:?}");
    // JUnit: an error entry.
    assert!(junit.1.contains("type=\"checks_not_run\""), "{}", junit.1);
    assert!(junit.1.contains("<error "), "{}", junit.1);
    // HTML: on the first screen, before the totals.
    let incomplete = html.1.find("Incomplete scan:").expect("the HTML report says it");
    let totals = html.1.find("class=\"totals\"").expect("totals");
    assert!(incomplete < totals, "said before the totals");
    // Allowed: 0, and still said.
    assert_eq!(allowed.0, Some(0), "{}", allowed.2);
    assert!(allowed.1.contains("incomplete: "), "{}", allowed.1);
}

/// A sample of saved real pages (two public collections, `tests/fixtures/real/SOURCES.tsv`),
/// their third-party hosts unreachable: every check runs on every page, every page is judged as
/// the document it shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saved_real_pages_are_judged_whole() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the sample")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the sample has {} pages", files.len());
    let site = FixtureSite::start().await;
    let mut index = String::from("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sample</title></head><body><main><h1>Sample</h1><ul>");
    for f in &files {
        let bytes = std::fs::read(dir.join(f)).expect("page");
        site.route(&format!("/{f}"), Route::typed("text/html; charset=utf-8", bytes));
        index.push_str(&format!("<li><a href=\"/{f}\">{f}</a></li>"));
    }
    index.push_str("</ul></main></body></html>");
    site.route("/", Route::html(index));
    let max = (files.len() + 1).to_string();
    let (code, stdout, stderr) = sitescan(
        &["scan", &site.url("/"), "--format", "json", "--allow-target", "127.0.0.1/32", "--max-pages", &max, "--max-depth", "1"],
        &[],
    )
    .await;
    let body: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("JSON report ({e}); stderr: {stderr}"));
    let pages = body["report"]["pages"].as_array().cloned().unwrap_or_default();
    assert_eq!(pages.len(), files.len() + 1, "every page scanned; stderr: {stderr}");
    let failed: Vec<String> = pages.iter().filter(|p| !p["error"].is_null()).map(|p| format!("{} {}", p["url"], p["error"])).collect();
    assert!(failed.is_empty(), "pages failed: {failed:#?}");
    assert_eq!(page_gaps(&body), Vec::<String>::new(), "checks did not run; summary: {}", body["report"]["summary"]);
    assert_ne!(code, Some(3), "{stderr}");
    for p in &pages {
        assert_eq!(p["status"], 200, "{p}");
        assert_eq!(p["url"], p["final_url"], "no saved page moves itself on 127.0.0.1: {p}");
    }
}

/// A page with a barrier at each WCAG level: an image without alt (A), grey text on white at
/// 2.85:1 (AA), and at 4.54:1 with long justified lines (AAA).
const LEVELS: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Levels of conformance</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>#wide { text-align: justify; max-width: none; font-size: 14px; }</style></head><body>
<main><h1>Levels</h1>
<p><img src="/a.png" width="10" height="10"></p>
<p id="grey" style="color:#999999;background:#ffffff">Light grey text on white, under three to one.</p>
<p id="mid" style="color:#767676;background:#ffffff">Grey text on white, just over four and a half to one.</p>
<p id="wide">WORDS"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_level_adds_and_removes_checks() {
    let site = FixtureSite::start().await;
    let words = "a line of running text that goes on and on across the whole width of the desktop window ".repeat(12);
    site.route("/", Route::html(format!("{}{words}</p></main></body></html>", LEVELS.replace("WORDS", ""))));
    site.route("/a.png", Route::typed("image/png", crate::media_gen::png(10, 10)));
    let url = site.url("/");
    let has = |body: &Value, id: &str| ids(body).iter().any(|i| i == id);

    let (code, aa, stderr) = scan_json(&url, &[]).await;
    assert!(matches!(code, Some(0) | Some(1)), "exit {code:?}: {stderr}");
    assert_eq!(aa["report"]["summary"]["level"], "AA", "AA is the default: {}", aa["report"]["summary"]);
    assert!(has(&aa, "accessibility.color-contrast"), "AA contrast at AA: {:?}", ids(&aa));
    for aaa in ["accessibility.line-too-long", "accessibility.text-justified", "accessibility.color-contrast-enhanced"] {
        assert!(!has(&aa, aaa), "{aaa} is AAA, off by default: {:?}", ids(&aa));
    }
    assert!(page_gaps(&aa).is_empty(), "a check left out by level is no gap: {:?}", page_gaps(&aa));

    let (_, aaa, _) = scan_json(&url, &["--level", "aaa"]).await;
    assert_eq!(aaa["report"]["summary"]["level"], "AAA");
    for id in ["accessibility.line-too-long", "accessibility.text-justified", "accessibility.color-contrast-enhanced", "accessibility.color-contrast"] {
        assert!(has(&aaa, id), "{id} at AAA: {:?}", ids(&aaa));
    }

    let (_, a, _) = scan_json(&url, &["--level", "A"]).await;
    assert_eq!(a["report"]["summary"]["level"], "A");
    assert!(!has(&a, "accessibility.color-contrast"), "contrast is AA: {:?}", ids(&a));
    let alt = |body: &Value| ids(body).into_iter().any(|i| i == "accessibility.image-alt" || i == "media.image-alt-missing");
    assert!(alt(&a) && alt(&aa) && alt(&aaa), "a missing alt is level A: {:?}", ids(&a));

    // The text report says the target; a level that is none is refused before anything runs.
    let (_, text, _) = sitescan(&["scan", &url, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--level", "AAA"], &[]).await;
    assert!(text.lines().nth(1).is_some_and(|l| l.ends_with("level WCAG 2.2 AAA")), "{text}");
    let (code, _, stderr) = sitescan(&["scan", &url, "--allow-target", "127.0.0.1/32", "--level", "AAAA"], &[]).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("`AAAA` is not a conformance level: use A, AA or AAA"), "{stderr}");
}

/// The very long page: more elements than the layout gatherer reads and more tab stops than the
/// keyboard walk takes. Every check runs, on the part its gatherer could afford, and its
/// findings say how much that was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_very_long_page_is_judged_in_part_and_says_so() {
    let site = FixtureSite::start().await;
    let links: String = (0..120).map(|i| format!("<a href=\"/story/{i}\">Story {i}</a> ")).collect();
    let stories: String = (0..6_000).map(|i| format!("<p>Story {i}: a reader wrote in to say what happened that day.</p>")).collect();
    site.route(
        "/",
        Route::html(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Readers' stories, the archive</title>\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <style>a:focus {{ outline: none }} p {{ font-size: 8px }}</style></head>\
             <body><main><h1>Readers' stories</h1><nav>{links}</nav>{stories}</main></body></html>"
        )),
    );
    let started = std::time::Instant::now();
    let (code, body, stderr) = scan_json(&site.url("/"), &[]).await;
    eprintln!("a page of {} elements scanned in {:?}", 6_000 + 120 + 10, started.elapsed());
    assert!(matches!(code, Some(0) | Some(1)), "exit {code:?}: {stderr}");
    assert_eq!(body["scan"]["status"], "completed", "{}", body["report"]["summary"]);
    assert!(page_gaps(&body).is_empty(), "every check ran: {:?}", page_gaps(&body));
    let findings = body["report"]["findings"].as_array().cloned().unwrap_or_default();
    let sampled = |id: &str| findings.iter().filter(|f| f["check_id"] == id).map(|f| f["evidence"]["sampled_read"].as_str().unwrap_or("").to_string()).collect::<Vec<_>>();
    let small = sampled("accessibility.text-too-small");
    assert!(!small.is_empty() && small.iter().all(|s| s.starts_with("layout: the first ") && s.ends_with(" elements")), "{small:?}");
    let focus = sampled("accessibility.focus-not-visible");
    assert!(!focus.is_empty() && focus.iter().all(|s| s.starts_with("keyboard: the first ") && s.contains(" tab stops")), "{focus:?}");
    let title = findings.iter().find(|f| f["check_id"].as_str().is_some_and(|id| id.starts_with("search."))).expect("a search finding");
    assert!(title["evidence"].get("sampled").is_none(), "the DOM was read whole: {title}");
}

/// The dead-host page: a page whose images sit on hosts that do not resolve (`.invalid` never
/// does), five on each of four hosts. The scan ends as usual, and each dead host is one
/// `runtime.failed-request` saying how many of the page's requests it failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_host_is_one_failure_however_many_requests() {
    let site = FixtureSite::start().await;
    let images: String = (0..20).map(|i| format!("<img src=\"http://cdn{}.dead-cdn.invalid/photo{i}.jpg\" width=\"40\" height=\"40\" alt=\"Photo {i}\">", i % 4)).collect();
    site.route(
        "/",
        Route::html(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>A gallery on a dead CDN</title>\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head><body><main><h1>Gallery</h1>{images}</main></body></html>"
        )),
    );
    let (code, body, stderr) = scan_json(&site.url("/"), &[]).await;
    assert!(matches!(code, Some(0) | Some(1)), "exit {code:?}: {stderr}");
    assert_eq!(body["scan"]["status"], "completed", "{}", body["report"]["summary"]);
    assert!(page_gaps(&body).is_empty(), "every check ran: {:?}", page_gaps(&body));
    let failed: Vec<Value> = body["report"]["findings"].as_array().into_iter().flatten().filter(|f| f["check_id"] == "runtime.failed-request").cloned().collect();
    let mut hosts: Vec<(String, u64)> = failed.iter().map(|f| (f["evidence"]["host"].as_str().unwrap_or("?").to_string(), f["evidence"]["requests"].as_u64().unwrap_or(0))).collect();
    hosts.sort();
    let expected: Vec<(String, u64)> = (0..4).map(|i| (format!("cdn{i}.dead-cdn.invalid"), 5)).collect();
    assert_eq!(hosts, expected, "{failed:?}");
}

/// A page whose own script never yields after load (a busy loop; millions of elements being
/// laid out block the renderer the same way): the first command that times out finds the
/// renderer silent, and the page's later steps are not sent at all. The scan ends with the gap
/// said, and why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_yields_is_reported_not_waited_on() {
    let site = FixtureSite::start().await;
    site.route(
        "/",
        Route::html(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Busy</title></head><body><main><h1>Busy</h1></main>\
             <script>addEventListener('load', () => setTimeout(() => { const t = Date.now(); while (Date.now() - t < 45000); }, 300));</script></body></html>",
        ),
    );
    let (code, body, stderr) = scan_json(&site.url("/"), &[]).await;
    assert_eq!(code, Some(3), "an incomplete scan: {stderr}");
    assert_eq!(body["scan"]["status"], "completed");
    let gaps = &body["report"]["summary"]["checks_not_run"];
    let reasons: Vec<&str> = gaps["reasons"].as_array().into_iter().flatten().filter_map(|r| r["reason"].as_str()).collect();
    assert!(reasons.iter().any(|r| r.contains("the page's renderer stopped answering")), "{reasons:?}");
    assert!(gaps["checks"].as_u64().unwrap_or(0) > 50, "{gaps}");
}

/// An image whose error handler loads it again, forever (a real page's fallback pointing at the
/// same dead address): the page's event log reaches its budget within seconds. The checks that
/// read it judge the part recorded and say so, rather than not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_that_reloads_itself_forever_is_judged_on_what_was_recorded() {
    let site = FixtureSite::start().await;
    site.route(
        "/",
        Route::html(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>A logo that never loads</title>\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head><body><main><h1>Welcome</h1>\
             <img src=\"/missing-logo.png\" width=\"40\" height=\"40\" alt=\"Logo\" onerror=\"this.src = '/missing-logo.png?' + 'x'.repeat(4000) + Math.random()\">\
             </main></body></html>",
        ),
    );
    let (code, body, stderr) = scan_json(&site.url("/"), &[]).await;
    assert!(matches!(code, Some(0) | Some(1)), "exit {code:?}: {stderr}");
    assert_eq!(body["scan"]["status"], "completed", "{}", body["report"]["summary"]);
    assert!(page_gaps(&body).is_empty(), "every check ran: {:?}", page_gaps(&body));
    let findings: Vec<Value> = body["report"]["findings"].as_array().into_iter().flatten().cloned().collect();
    let sampled: Vec<&Value> = findings.iter().filter(|f| f["evidence"]["sampled"] == true).collect();
    assert!(!sampled.is_empty(), "the event checks say they judged a part: {findings:#?}");
    for f in &sampled {
        let read = f["evidence"]["sampled_read"].as_str().unwrap_or_default();
        assert!(read.contains("browser events"), "{}: {read}", f["check_id"]);
    }
    assert!(sampled.iter().any(|f| f["check_id"] == "performance.request-count" || f["check_id"] == "runtime.failed-request"), "{sampled:#?}");
}
