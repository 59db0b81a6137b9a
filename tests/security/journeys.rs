//! Journeys run tenants' steps in a real browser: these tests are the hostile tenant. Each runs
//! the real `sitescan` binary (real Chromium, the egress proxy) on fixture sites on 127.0.0.1
//! and asserts the attack fails:
//! - a journey cannot load a file of the scanning machine, by `navigate` (refused before
//!   anything runs, by the CLI and by `OwnerService`) or by a page that sends itself there
//!   (redirect, script, link, `window.open`);
//! - a journey stays on the site's origin and the origins it lists: links, redirects, form posts
//!   and scripts towards another origin are refused in the browser, and nothing reaches it;
//! - a secret is typed only into the step's field on those origins (not into a frame the page
//!   moves the focus to), and never handed to the page's JavaScript (prototype hooks see
//!   nothing, even while screenshots mask it);
//! - its echoes in the page (base64, HTML entities, JSON escapes) are found and masked, and no
//!   log level (`RUST_LOG=trace` included) prints it.

use crate::app::{AppOptions, spawn_app_with};
use crate::fixture_site::{FixtureSite, Route, init_test_log};
use serde_json::Value;
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::owner_service_client::OwnerServiceClient;
use std::path::Path;
use tonic::{Code, Request};

const TOKEN: &str = "Journeys_Security_Token_0123456789";
/// The secret the journeys type: characters that differ in every encoding.
const PASSWORD: &str = "S3cret <pass> & \"quote\" é/1";

/// A site that proves ownership (well-known file) and has a home page.
async fn owned_site() -> FixtureSite {
    let site = FixtureSite::start().await;
    site.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", format!("{TOKEN}\n")));
    site.route("/", Route::html("<!doctype html><html lang=en><head><title>Home</title></head><body><main><h1>Home</h1></main></body></html>"));
    site
}

fn page(title: &str, body: &str) -> Route {
    Route::html(format!("<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"))
}

/// Runs `sitescan args` with `envs` (nothing else of the `SITESCAN_*` environment); returns the
/// exit code, stdout and stderr.
async fn sitescan(args: Vec<String>, envs: Vec<(String, String)>) -> (Option<i32>, String, String) {
    tokio::task::spawn_blocking(move || {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
        cmd.args(&args);
        for (k, _) in std::env::vars() {
            // Which Chromium runs is the caller's choice (SITESCAN_CHROMIUM), nothing else.
            if (k.starts_with("SITESCAN_") && k != "SITESCAN_CHROMIUM") || k == "RUST_LOG" {
                cmd.env_remove(k);
            }
        }
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run sitescan");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    })
    .await
    .expect("join")
}

/// An active one-shot scan of `start` with these journey files and the PASSWORD secret.
fn scan_args(start: &str, dir: &Path, journeys: &[&str]) -> Vec<String> {
    let secret = dir.join("password.txt");
    std::fs::write(&secret, PASSWORD).expect("secret file");
    let mut a: Vec<String> = [
        "scan", start, "--active", "--verification-token", TOKEN, "--allow-target", "127.0.0.1/32", "--format", "json", "--max-pages", "1",
        "--probe-budget", "0", "--quiet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for (i, j) in journeys.iter().enumerate() {
        let file = dir.join(format!("journey-{i}.json"));
        std::fs::write(&file, j).expect("journey file");
        a.push("--journey".into());
        a.push(file.display().to_string());
    }
    a.push("--secret".into());
    a.push(format!("PASSWORD=@{}", secret.display()));
    a
}

/// The report's findings of journey `name`: (check id, step index, evidence).
fn of_journey(report: &Value, name: &str) -> Vec<(String, u64, Value)> {
    report["report"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["evidence"]["journey"] == name)
        .map(|f| (f["check_id"].as_str().unwrap_or_default().to_string(), f["evidence"]["step_index"].as_u64().unwrap_or(u64::MAX), f["evidence"].clone()))
        .collect()
}

/// The step that failed in journey `name`, and its error.
fn failed_step(report: &Value, name: &str) -> (u64, String) {
    let failed = of_journey(report, name).into_iter().find(|(id, _, _)| id == "journeys.step-failed");
    let (_, step, evidence) = failed.unwrap_or_else(|| panic!("{name}: no journeys.step-failed in {}", report["report"]["findings"]));
    (step, evidence["error"].as_str().unwrap_or_default().to_string())
}

/// Every form a page or log could show the secret in.
fn secret_forms() -> Vec<String> {
    use base64::Engine as _;
    let mut forms = vec![PASSWORD.to_string(), "S3cret".to_string()];
    forms.push(url::form_urlencoded::byte_serialize(PASSWORD.as_bytes()).collect());
    forms.push(base64::engine::general_purpose::STANDARD.encode(PASSWORD));
    forms.push(serde_json::to_string(PASSWORD).unwrap().trim_matches('"').to_string());
    forms
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journey_cannot_read_files_of_the_scanning_machine() {
    init_test_log();
    let dir = tempfile::tempdir().expect("tempdir");
    // The journeys look for the first line; the second is in no journey, so it can only reach
    // the report or the log by being read from the file.
    let marker = format!("LOCAL-FILE-CONTENT-{}", uuid::Uuid::new_v4().simple());
    let unseen = format!("NEVER-IN-A-JOURNEY-{}", uuid::Uuid::new_v4().simple());
    let file = dir.path().join("machine-secret.txt");
    std::fs::write(&file, format!("{marker}\n{unseen}\n")).expect("marker file");
    let file_url = format!("file://{}", file.display());
    let site = owned_site().await;

    // Refused before anything runs: the CLI, for every scheme that is not the web's.
    for target in [file_url.as_str(), "data:text/html,<p>hi</p>", "javascript:location='file:///etc/passwd'", "chrome://version", "view-source:file:///etc/passwd"] {
        let journey = format!(r#"{{"name": "read", "steps": [{{"navigate": {}}}, {{"screenshot": "x"}}]}}"#, serde_json::to_string(target).unwrap());
        let (code, out, err) = sitescan(scan_args(&site.url("/"), dir.path(), &[&journey]), vec![]).await;
        assert_eq!(code, Some(2), "{target}: refused with exit 2; stdout {out}; stderr {err}");
        assert!(err.contains("steps[0].navigate") && err.contains("only http and https"), "{target}: the error names the step: {err}");
        assert!(!out.contains(&unseen));
    }
    assert_eq!(site.hit_count("/"), 0, "nothing ran");

    // Pages that send the browser to the file themselves: a redirect, a script, a link, a popup.
    site.route("/redirect", Route::redirect(302, &file_url));
    let q = serde_json::to_string(&file_url).unwrap();
    site.route("/script", page("Script", &format!(r#"<button id="go" type="button" onclick='location.href = {q}'>Go</button>"#)));
    site.route("/link", page("Link", &format!(r#"<a id="go" href="{file_url}">Open the file</a>"#)));
    site.route("/popup", page("Popup", &format!(r#"<button id="go" type="button" onclick='window.open({q})'>Open</button>"#)));
    let read = |name: &str, steps: &str| {
        format!(r#"{{"name": "{name}", "steps": [{steps}, {{"assert": {{"text": "{marker}"}}}}, {{"screenshot": "after"}}]}}"#)
    };
    let journeys = [
        read("redirect", r#"{"navigate": "/redirect"}"#),
        read("script", r##"{"navigate": "/script"}, {"click": "#go"}"##),
        read("link", r##"{"navigate": "/link"}, {"click": "#go"}"##),
        read("popup", r##"{"navigate": "/popup"}, {"click": "#go"}"##),
    ];
    let refs: Vec<&str> = journeys.iter().map(String::as_str).collect();
    let (code, out, err) = sitescan(scan_args(&site.url("/"), dir.path(), &refs), vec![]).await;
    assert!(code.is_some(), "the scan ran: {err}");
    assert!(!out.contains(&unseen) && !err.contains(&unseen), "the file's content reached the report or the log");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("json report ({e}): {out}\n{err}"));
    for name in ["redirect", "script", "link", "popup"] {
        let (step, error) = failed_step(&report, name);
        // The journey never shows the file: it stops at the navigation or at the assert.
        assert!(step <= 2, "{name}: failed at step {step}: {error}");
        assert!(!error.contains(&unseen), "{name}: {error}");
    }
    let (redirect_step, redirect_error) = failed_step(&report, "redirect");
    assert_eq!(redirect_step, 0, "the redirect to the file fails its navigation: {redirect_error}");
}

/// The other origin's page: a field that sends whatever is typed into it home.
fn stealing_page() -> Route {
    page(
        "Other origin",
        r#"<label for="field">Field</label> <input id="field" name="field">
<script>document.getElementById('field').addEventListener('input', (e) => { new Image().src = '/collect?v=' + encodeURIComponent(e.target.value); });</script>"#,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journey_stays_on_its_origins_and_types_a_secret_nowhere_else() {
    init_test_log();
    let dir = tempfile::tempdir().expect("tempdir");
    let site = owned_site().await;
    let other = FixtureSite::start().await;
    other.route("/steal", stealing_page());
    other.route("/frame", stealing_page());
    other.route("/collect", Route::typed("image/gif", "GIF89a"));
    let steal = other.url("/steal");
    site.route("/link", page("Link", &format!(r#"<a id="out" href="{steal}">Elsewhere</a>"#)));
    site.route("/redirect", Route::redirect(302, &steal));
    site.route("/form", page("Form", &format!(r#"<form method="get" action="{steal}"><input name="q" value="x"><button id="out" type="submit">Send</button></form>"#)));
    site.route("/script", page("Script", &format!(r#"<button id="out" type="button" onclick='location.href = {}'>Go</button>"#, serde_json::to_string(&steal).unwrap())));
    // Windows of their own: a script's popup and a link to a new tab.
    site.route(
        "/popup",
        page(
            "Popup",
            &format!(
                r#"<button id="open" type="button" onclick='window.open({})'>Open</button> <a id="tab" href="{}" target="_blank">New tab</a>"#,
                serde_json::to_string(&other.url("/popup")).unwrap(),
                other.url("/tab")
            ),
        ),
    );
    // A field of the site whose focus the page hands to a frame of the other origin.
    site.route(
        "/frame",
        page(
            "Frame",
            &format!(
                r#"<label for="pw">Password</label> <input id="pw" type="password"><iframe id="f" title="other" src="{}"></iframe>
<script>document.getElementById('pw').addEventListener('focus', () => document.getElementById('f').contentWindow.focus());</script>"#,
                other.url("/frame")
            ),
        ),
    );
    let fill = r##"{"fill": "#field", "value": "{{secret.PASSWORD}}"}"##;
    let journeys = [
        format!(r##"{{"name": "link", "steps": [{{"navigate": "/link"}}, {{"click": "#out"}}, {fill}]}}"##),
        format!(r##"{{"name": "redirect", "steps": [{{"navigate": "/redirect"}}, {fill}]}}"##),
        format!(r##"{{"name": "form", "steps": [{{"navigate": "/form"}}, {{"click": "#out"}}, {fill}]}}"##),
        format!(r##"{{"name": "script", "steps": [{{"navigate": "/script"}}, {{"click": "#out"}}, {fill}]}}"##),
        r##"{"name": "popup", "steps": [{"navigate": "/popup"}, {"click": "#open"}, {"click": "#tab"}, {"wait_for": {"selector": "#nothing"}, "timeout_ms": 1500}]}"##.to_string(),
        // The other origin is listed (an identity provider, say): the frame may load, but the
        // secret still goes only into the step's own field, which lost the focus to the frame.
        format!(
            r##"{{"name": "frame", "origins": ["{}"], "steps": [{{"navigate": "/frame"}}, {{"fill": "#pw", "value": "{{{{secret.PASSWORD}}}}"}}]}}"##,
            other.origin()
        ),
        // The same link with the other origin listed: followed (the guard is not a wall).
        format!(r##"{{"name": "listed", "origins": ["{}"], "steps": [{{"navigate": "/link"}}, {{"click": "#out"}}, {{"fill": "#field", "value": "not a secret"}}]}}"##, other.origin()),
    ];
    let refs: Vec<&str> = journeys.iter().map(String::as_str).collect();
    let (code, out, err) = sitescan(scan_args(&site.url("/"), dir.path(), &refs), vec![]).await;
    assert!(code.is_some(), "{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("json report ({e}): {out}\n{err}"));
    for (name, step) in [("link", 1), ("redirect", 0), ("form", 1), ("script", 1)] {
        let (failed, error) = failed_step(&report, name);
        assert_eq!(failed, step, "{name}: {error}");
        assert!(error.contains("refused") && error.contains(&other.origin()), "{name}: the error says where and why: {error}");
    }
    let (failed, error) = failed_step(&report, "frame");
    assert_eq!(failed, 1, "{error}");
    assert!(error.contains("secret was not typed"), "{error}");
    assert!(!of_journey(&report, "listed").iter().any(|(id, _, _)| id.starts_with("journeys.step")), "a listed origin is followed: {:?}", of_journey(&report, "listed"));

    let collected: Vec<String> = other.hits().iter().filter(|h| h.path == "/collect").map(|h| h.target.clone()).collect();
    assert!(collected.iter().any(|t| t.contains("not+a+secret") || t.contains("not%20a%20secret")), "the listed journey typed there: {collected:?}");
    for t in &collected {
        for form in secret_forms() {
            assert!(!t.contains(&form), "the other origin received the secret: {t}");
        }
    }
    assert_eq!(other.hit_count("/popup") + other.hit_count("/tab"), 0, "a popup or a new tab reached the other origin");
    let steal_hits = other.hits().iter().filter(|h| h.path == "/steal").count();
    assert_eq!(steal_hits, 1, "only the listed journey ever reached the other origin's page");

    // Refused before it runs: a navigate to an origin the journey does not list.
    let journey = format!(r#"{{"name": "off", "steps": [{{"navigate": "{steal}"}}]}}"#);
    let (code, _, err) = sitescan(scan_args(&site.url("/"), dir.path(), &[&journey]), vec![]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("steps[0].navigate") && err.contains(&other.origin()), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_never_enters_the_pages_javascript_and_no_log_prints_it() {
    init_test_log();
    let dir = tempfile::tempdir().expect("tempdir");
    let site = owned_site().await;
    site.route("/hook", Route::typed("image/gif", "GIF89a"));
    // The page hooks every prototype method a masking or matching script would call, and sends
    // home every string argument; a canary call proves the hooks report.
    let hooks = r#"<script>
(() => {
  const send = (what, args) => { for (const a of args) if (typeof a === 'string' && a.length > 3) new Image().src = '/hook?' + what + '=' + encodeURIComponent(a); };
  for (const [proto, names] of [[String.prototype, ['includes', 'indexOf', 'split', 'replace', 'replaceAll', 'startsWith', 'endsWith']], [Array.prototype, ['includes', 'indexOf', 'join', 'push']]]) {
    for (const n of names) { const orig = proto[n]; proto[n] = function (...args) { send(n, args); return orig.apply(this, args); }; }
  }
  const parse = JSON.parse; JSON.parse = function (...a) { send('parse', a); return parse.apply(this, a); };
  'canary'.includes('canary-probe');
})();
</script>"#;
    // The site echoes the typed password in three encodings (as a careless site might).
    site.route(
        "/login",
        page(
            "Sign in",
            &format!(
                r#"{hooks}<form method="get" action="/echo"><label for="pw">Password</label> <input id="pw" name="pw" type="password">
<label for="acct">Account</label> <select id="acct" name="acct"><option value="public">Public</option><option value="{}">Private</option></select>
<button id="go" type="submit">Sign in</button></form>"#,
                html_escape(PASSWORD)
            ),
        ),
    );
    let echo = {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD.encode(PASSWORD);
        let json = serde_json::to_string(PASSWORD).unwrap();
        page("Welcome", &format!("<p id=b64>token {b64}</p><p id=html>you typed {}</p><script type=\"application/json\" id=j>{{\"pw\": {json}}}</script><p>{}</p>", html_escape(&html_escape(PASSWORD)), html_escape(&json)))
    };
    site.route("/echo", echo);
    let journey = r##"{"name": "hooked", "steps": [{"navigate": "/login"}, {"fill": "#pw", "value": "{{secret.PASSWORD}}"}, {"select": "#acct", "value": "{{secret.PASSWORD}}"},
      {"screenshot": "filled"}, {"click": "#go"}, {"wait_for": {"url": "/echo*"}}, {"screenshot": "echoed"}, {"audit": "welcome"}]}"##;
    let (code, out, err) = sitescan(scan_args(&site.url("/"), dir.path(), &[journey]), vec![("RUST_LOG".into(), "trace".into())]).await;
    assert!(code.is_some(), "{err}");
    assert!(err.lines().count() > 100, "the trace log was on ({} lines)", err.lines().count());
    let hooked: Vec<String> = site.hits().iter().filter(|h| h.path == "/hook").map(|h| h.target.clone()).collect();
    assert!(hooked.iter().any(|t| t.contains("canary-probe")), "the hooks report: {hooked:?}");
    for t in &hooked {
        for form in secret_forms() {
            let encoded: String = url::form_urlencoded::byte_serialize(form.as_bytes()).collect();
            assert!(!t.contains(&encoded) && !t.contains(&form), "the page's script saw the secret: {t}");
        }
    }
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("json report ({e}): {out}\n{err}"));
    assert!(
        !of_journey(&report, "hooked").iter().any(|(id, _, _)| id == "journeys.step-failed" || id == "journeys.step-timeout"),
        "the journey ran: {:?}",
        of_journey(&report, "hooked")
    );
    let exposed: Vec<String> =
        of_journey(&report, "hooked").into_iter().filter(|(id, _, _)| id == "journeys.secret-exposed").map(|(_, _, e)| e["location"].to_string()).collect();
    assert!(exposed.iter().any(|l| l.contains("url")) && exposed.iter().any(|l| l.contains("page text")), "the echoes are found: {exposed:?}");
    for form in secret_forms() {
        assert!(!out.contains(&form), "the report shows the secret as {form}");
        let lines: Vec<&str> = err.lines().filter(|l| l.contains(&form)).take(3).collect();
        assert!(lines.is_empty(), "the trace log shows the secret as {form}: {lines:#?}");
    }
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

async fn owner_client(app: &crate::app::TestApp) -> OwnerServiceClient<tonic::transport::Channel> {
    OwnerServiceClient::connect(app.base.clone()).await.expect("gRPC on the REST port")
}

fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_journeys_are_refused_unless_they_stay_on_the_web_and_within_bounds() {
    let app = spawn_app_with(AppOptions::default().allow_target("127.0.0.0/8")).await;
    let site = owned_site().await;
    let other = FixtureSite::start().await;
    let mut c = owner_client(&app).await;
    let (owner, _) = app.token_with("acme", &["scans:active"]).await;
    let added = c.add_site(authed(pb::AddSiteRequest { url: site.url("/") }, &owner)).await.expect("add").into_inner();
    let put = |text: String| pb::PutJourneyRequest { site: added.id.clone(), definition: text };
    let refused = [
        (r#"{"name": "f", "steps": [{"navigate": "file:///etc/passwd"}]}"#.to_string(), "steps[0].navigate"),
        (r#"{"name": "f", "steps": [{"click": "a"}, {"navigate": "data:text/html,x"}]}"#.to_string(), "steps[1].navigate"),
        (format!(r#"{{"name": "f", "steps": [{{"navigate": "{}"}}]}}"#, other.url("/login")), "steps[0].navigate"),
        (r#"{"name": "f", "steps": [{"navigate": "//evil.test/x"}]}"#.to_string(), "steps[0].navigate"),
        (r#"{"name": "f", "origins": ["https://id.example.com/path"], "steps": [{"navigate": "/"}]}"#.to_string(), "origins[0]"),
        ("name: lol\nsteps:\n  - &a {click: a}\n  - *a\n".to_string(), "anchors"),
        (format!(r#"{{"name": "{}", "steps": [{{"navigate": "/"}}]}}"#, "x".repeat(64 * 1024)), "64 KiB"),
        (format!(r#"{{"name": "long", "steps": [{}]}}"#, vec![r#"{"click": "a"}"#; 201].join(",")), "at most 200 steps"),
    ];
    for (text, says) in refused {
        let err = c.put_journey(authed(put(text.clone()), &owner)).await.expect_err("refused");
        assert_eq!(err.code(), Code::InvalidArgument, "{}: {err:?}", &text[..text.len().min(80)]);
        assert!(err.message().contains(says), "{} -> {}", &text[..text.len().min(80)], err.message());
    }
    // A billion laughs costs nothing: refused before it is expanded.
    let mut laughs = String::from("name: lol\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        laughs.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n", p = i - 1));
    }
    laughs.push_str("steps: [{click: a}]\n");
    let started = std::time::Instant::now();
    let err = c.put_journey(authed(put(laughs), &owner)).await.expect_err("laughs");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "answered at once");

    // The listed origin may be navigated to; the journeys per site are capped.
    let ok = format!(r#"{{"name": "sso", "origins": ["{}"], "steps": [{{"navigate": "/"}}, {{"navigate": "{}"}}]}}"#, other.origin(), other.url("/login"));
    c.put_journey(authed(put(ok), &owner)).await.expect("a listed origin");
    for i in 1..20 {
        c.put_journey(authed(put(format!(r#"{{"name": "j{i}", "steps": [{{"navigate": "/"}}]}}"#)), &owner)).await.expect("within the cap");
    }
    let err = c.put_journey(authed(put(r#"{"name": "one too many", "steps": [{"navigate": "/"}]}"#.into()), &owner)).await.expect_err("cap");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("at most 20 journeys"), "{}", err.message());
    c.put_journey(authed(put(r#"{"name": "j1", "steps": [{"navigate": "/again"}]}"#.into()), &owner)).await.expect("replacing one is fine");
}
