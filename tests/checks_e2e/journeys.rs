//! Journeys end to end: a small shop served by the test on 127.0.0.1 (a login form with a
//! session cookie, an account page, a cart and a checkout, and pages that misbehave on purpose),
//! scanned in active mode by the real engine (Chromium through the egress guard, every check).
//! A journey that logs in, fills the cart and checks out is clean and its audits carry the
//! journey and step; each `journeys.*` check is then made to fire by a journey built for it. Then
//! the CLI: OWNER.md's example runs as written, a secret never reaches the report, SARIF or the
//! log, and bad journeys are refused (exit 2) before anything runs.

use crate::fixture_site::init_test_log;
use crate::scan_harness::Engine;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::Value;
use sitescan::model::{Finding, JourneySecrets, JourneySpec, SiteArtifact, parse_journey};
use sitescan::crawl::ScanOptions;
use std::collections::HashMap;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const TOKEN: &str = "ci_token_journeys_0123456789abcd";
const EMAIL: &str = "owner@example.org";
/// The account's password: a space and an ampersand, so its URL forms differ from it.
const PASSWORD: &str = "Tr0ub4dor&3 horse";

/// OWNER.md's example journey, exactly as written there.
const OWNER_EXAMPLE: &str = r##"{"name": "sign in", "logged_in": {"text": "Sign out"}, "steps": [
  {"navigate": "/login"},
  {"fill": "#email", "value": "owner@example.org"},
  {"fill": "#password", "value": "{{secret.PASSWORD}}"},
  {"click": "button[type=submit]"},
  {"wait_for": {"url": "/account*"}},
  {"audit": "account page"}]}"##;

#[derive(Default)]
struct Shop {
    /// session id -> items in the cart.
    sessions: Mutex<HashMap<String, Vec<String>>>,
    requests: AtomicUsize,
    /// Times the account page's "Close my account" control was pressed (by no journey here).
    closed: AtomicUsize,
}

type S = State<Arc<Shop>>;

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main><h1>{title}</h1>{body}</main></body></html>"#
    ))
}

fn login_form(action: &str, error: bool) -> Html<String> {
    let error = if error { r#"<p role="alert">Wrong email or password</p>"# } else { "" };
    page(
        "Sign in to the shop",
        &format!(
            r#"{error}<form method="post" action="{action}">
<label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="username">
<label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password">
<button type="submit">Sign in</button></form>"#
        ),
    )
}

fn session(shop: &Shop, headers: &HeaderMap) -> Option<String> {
    let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
    let sid = cookies.split(';').map(str::trim).find_map(|c| c.strip_prefix("sid="))?.to_string();
    shop.sessions.lock().unwrap().contains_key(&sid).then_some(sid)
}

fn signed_in(shop: &Shop, to: &str) -> Response {
    let sid = format!("s{}", shop.sessions.lock().unwrap().len() + 1);
    shop.sessions.lock().unwrap().insert(sid.clone(), Vec::new());
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, to.to_string()), (header::SET_COOKIE, format!("sid={sid}; Path=/; HttpOnly; SameSite=Lax"))],
    )
        .into_response()
}

async fn login(State(shop): S, Form(f): Form<HashMap<String, String>>) -> Response {
    if f.get("email").map(String::as_str) == Some(EMAIL) && f.get("password").map(String::as_str) == Some(PASSWORD) {
        signed_in(&shop, "/account")
    } else {
        login_form("/login", true).into_response()
    }
}

/// The leaky login: right credentials, then a redirect carrying the password in the URL.
async fn leaky_login(State(shop): S, Form(f): Form<HashMap<String, String>>) -> Response {
    let pw = f.get("password").cloned().unwrap_or_default();
    let encoded: String = url::form_urlencoded::byte_serialize(pw.as_bytes()).collect();
    signed_in(&shop, &format!("/account?pw={encoded}"))
}

async fn account(State(shop): S, headers: HeaderMap) -> Response {
    if session(&shop, &headers).is_none() {
        return Redirect::to("/login").into_response();
    }
    // No meta description: the audit of this page has a finding to carry the journey.
    // A control that declares a dialog and acts when pressed: behind a login, the gatherers
    // press nothing the journey did not.
    page(
        "Your account",
        r#"<p>Welcome back.</p><p><a href="/shop">Shop</a></p><form method="post" action="/logout"><button type="submit">Sign out</button></form>
        <button id="close-account" type="button" aria-haspopup="dialog" onclick="fetch('/close-account', {method: 'POST'})">Close my account</button>"#,
    )
    .into_response()
}

async fn shop_page(State(shop): S, headers: HeaderMap) -> Response {
    if session(&shop, &headers).is_none() {
        return Redirect::to("/login").into_response();
    }
    page("Products", r#"<form method="post" action="/cart/add"><input type="hidden" name="item" value="teapot"><button id="add" type="submit">Add the teapot to the cart</button></form>"#).into_response()
}

async fn cart_add(State(shop): S, headers: HeaderMap, Form(f): Form<HashMap<String, String>>) -> Response {
    let Some(sid) = session(&shop, &headers) else { return StatusCode::FORBIDDEN.into_response() };
    shop.sessions.lock().unwrap().entry(sid).or_default().push(f.get("item").cloned().unwrap_or_default());
    Redirect::to("/cart").into_response()
}

async fn cart(State(shop): S, headers: HeaderMap) -> Response {
    let Some(sid) = session(&shop, &headers) else { return Redirect::to("/login").into_response() };
    let items = shop.sessions.lock().unwrap().get(&sid).cloned().unwrap_or_default();
    let list: String = items.iter().map(|i| format!("<li>{i}</li>")).collect();
    page("Your cart", &format!(r#"<ul id="items">{list}</ul><form method="post" action="/checkout"><button id="checkout" type="submit">Check out</button></form>"#))
        .into_response()
}

async fn checkout(State(shop): S, headers: HeaderMap) -> Response {
    match session(&shop, &headers) {
        Some(sid) if !shop.sessions.lock().unwrap().get(&sid).is_some_and(Vec::is_empty) => Redirect::to("/thanks").into_response(),
        _ => (StatusCode::CONFLICT, page("Your cart is empty", "<p>Nothing to check out.</p>")).into_response(),
    }
}

async fn start_shop() -> (String, Arc<Shop>) {
    let shop = Arc::new(Shop::default());
    let counter = shop.clone();
    let app = axum::Router::new()
        .route("/", get(|| async { page("The teapot shop", r#"<p><a href="/login">Sign in</a></p>"#) }))
        .route("/.well-known/sitescan-verification.txt", get(|| async { format!("{TOKEN}\n") }))
        .route("/login", get(|| async { login_form("/login", false) }).post(login))
        .route("/leaky-login", get(|| async { login_form("/leaky-login", false) }).post(leaky_login))
        .route(
            "/storing-login",
            get(|| async {
                let form = login_form("/login", false).0;
                Html(form.replace("</main>", r#"<script>document.querySelector('form').addEventListener('submit', () => {
  const pw = document.getElementById('password').value;
  localStorage.setItem('last_password', pw);
  document.cookie = 'remember=' + encodeURIComponent(pw) + '; path=/';
});</script></main>"#))
            }),
        )
        .route(
            "/token",
            get(|| async { page("API token", r#"<label for="token">Token</label> <input id="token" type="text" size="30"><p id="done">ok</p>"#) }),
        )
        .route(
            "/preferences",
            get(|| async {
                page("Search the shop", r#"<form method="get" action="/search">
<label for="size">Size</label> <select id="size" name="size"><option value="S">Small</option><option value="M" selected>Medium</option><option value="L">Large</option></select>
<input id="news" name="news" type="checkbox"> <label for="news">News</label>
<label for="q">Search</label> <input id="q" name="q" type="search"></form>
<p id="spinner">Loading…</p><p id="toast">Saved</p>
<script>setTimeout(() => { document.getElementById('spinner').style.display = 'none'; document.getElementById('toast').remove(); }, 300);</script>"#)
            }),
        )
        .route(
            "/search",
            get(|q: axum::extract::Query<HashMap<String, String>>| async move {
                let get = |k: &str| q.get(k).cloned().unwrap_or_else(|| "-".into());
                page("Search results", &format!("<p>Results for {}, size {}, news {}</p>", get("q"), get("size"), get("news")))
            }),
        )
        .route("/account", get(account))
        .route("/close-account", post(|State(shop): S| async move { shop.closed.fetch_add(1, Ordering::SeqCst); StatusCode::NO_CONTENT }))
        .route("/shop", get(shop_page))
        .route("/cart/add", post(cart_add))
        .route("/cart", get(cart))
        .route("/checkout", post(checkout))
        .route("/thanks", get(|| async { page("Order placed", r#"<p id="thanks">Thank you for your order.</p>"#) }))
        .route(
            "/broken-checkout",
            get(|| async { page("Pay now", r#"<form method="post" action="/pay"><button id="pay" type="submit">Pay</button></form>"#) }),
        )
        .route("/pay", post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, page("Server error", "<p>Something broke.</p>")) }))
        .route(
            "/throw",
            get(|| async {
                page("Buttons", r#"<button id="boom" type="button">Apply the coupon</button>
<script>document.getElementById('boom').addEventListener('click', () => { const coupon = undefined; coupon.apply(); });</script>"#)
            }),
        )
        .route(
            "/slow",
            get(|| async {
                page("Filters", r#"<button id="slow" type="button">Filter the list</button><p id="out">all</p>
<script>document.getElementById('slow').addEventListener('click', () => { const t = performance.now(); while (performance.now() - t < 400) {} document.getElementById('out').textContent = 'filtered'; });</script>"#)
            }),
        )
        .with_state(shop.clone())
        .layer(axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
            let counter = counter.clone();
            async move {
                counter.requests.fetch_add(1, Ordering::SeqCst);
                next.run(req).await
            }
        }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    (format!("http://{addr}/"), shop)
}

fn spec(text: &str, password: &str) -> JourneySpec {
    let mut secrets = JourneySecrets::new();
    secrets.insert("PASSWORD", password);
    JourneySpec::new(parse_journey(text).expect("journey parses"), secrets).expect("secrets known")
}

fn of_journey<'a>(findings: &'a [Finding], journey: &'a str) -> impl Iterator<Item = &'a Finding> + 'a {
    findings.iter().filter(move |f| f.evidence.get("journey").and_then(Value::as_str) == Some(journey))
}

fn ids(findings: &[Finding], journey: &str) -> Vec<String> {
    let mut out: Vec<String> = of_journey(findings, journey).filter(|f| f.check_id.starts_with("journeys.")).map(|f| f.check_id.clone()).collect();
    out.sort();
    out.dedup();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journeys_run_behind_a_login_and_every_journeys_check_fires() {
    init_test_log();
    let (start, shop) = start_shop().await;
    let good = r##"{"name": "buy a teapot", "logged_in": {"text": "Sign out"}, "steps": [
      {"navigate": "/login"},
      {"fill": "#email", "value": "owner@example.org"},
      {"fill": "#password", "value": "{{secret.PASSWORD}}"},
      {"click": "button[type=submit]"},
      {"wait_for": {"url": "/account*"}},
      {"audit": "account page"},
      {"navigate": "/shop"},
      {"click": "#add"},
      {"wait_for": {"url": "/cart"}},
      {"assert": {"text": "teapot"}},
      {"audit": "cart"},
      {"click": "#checkout"},
      {"wait_for": {"selector": "#thanks", "state": "visible"}},
      {"assert": {"text": "Thank you"}},
      {"screenshot": "order placed"}]}"##;
    let journeys = vec![
        spec(good, PASSWORD),
        spec(
            r##"{"name": "preferences", "steps": [{"navigate": "/preferences"}, {"select": "#size", "value": "L"}, {"check": "#news"}, {"uncheck": "#news"}, {"check": "#news"},
              {"wait_for": {"selector": "#spinner", "state": "hidden"}}, {"wait_for": {"selector": "#toast", "state": "gone"}},
              {"fill": "#q", "value": "teapots"}, {"press": "Enter"}, {"wait_for": {"url": "/search*"}},
              {"assert": {"text": "Results for teapots, size L, news on"}}, {"assert": {"url": "/search?size=L&news=on&q=teapots"}}]}"##,
            PASSWORD,
        ),
        spec(r##"{"name": "missing button", "steps": [{"navigate": "/"}, {"click": "#does-not-exist", "timeout_ms": 1500}, {"audit": "never"}]}"##, PASSWORD),
        spec(r##"{"name": "never ready", "steps": [{"navigate": "/"}, {"wait_for": {"selector": "#never", "state": "visible"}, "timeout_ms": 1500}]}"##, PASSWORD),
        spec(
            r##"{"name": "wrong password", "logged_in": {"text": "Sign out"}, "steps": [{"navigate": "/login"}, {"fill": "#email", "value": "owner@example.org"}, {"fill": "#password", "value": "{{secret.PASSWORD}}"}, {"click": "button[type=submit]"}, {"wait_for": {"url": "/account*"}, "timeout_ms": 1500}]}"##,
            "not-the-password",
        ),
        spec(r##"{"name": "checkout error", "steps": [{"navigate": "/broken-checkout"}, {"click": "#pay"}]}"##, PASSWORD),
        spec(r##"{"name": "coupon throws", "steps": [{"navigate": "/throw"}, {"click": "#boom"}]}"##, PASSWORD),
        spec(r##"{"name": "slow filter", "steps": [{"navigate": "/slow"}, {"click": "#slow"}, {"assert": {"text": "filtered"}}]}"##, PASSWORD),
        spec(
            r##"{"name": "remembers the password", "steps": [{"navigate": "/storing-login"}, {"fill": "#email", "value": "owner@example.org"}, {"fill": "#password", "value": "{{secret.PASSWORD}}"}, {"click": "button[type=submit]"}, {"wait_for": {"url": "/account"}}]}"##,
            PASSWORD,
        ),
        spec(
            r##"{"name": "leaky login", "steps": [{"navigate": "/leaky-login"}, {"fill": "#email", "value": "owner@example.org"}, {"fill": "#password", "value": "{{secret.PASSWORD}}"}, {"click": "button[type=submit]"}, {"wait_for": {"url": "/account*"}}]}"##,
            PASSWORD,
        ),
    ];
    let engine = Engine::start(2).await;
    let options = ScanOptions { max_pages: 2, max_depth: 1, page_concurrency: 2, active: true, probe_budget: 4, journeys, ..ScanOptions::default() };
    let scan = engine.scan_with(&start, options.clone()).await;
    // The same journeys with their gatherer broken: every journeys.* check is reported as not
    // run, with the gatherer's error, and none reports a finding.
    let broken = engine.scan_with(&start, ScanOptions { fail_site_gatherers: vec![SiteArtifact::Journeys], ..options.clone() }).await;
    // The same journeys in a passive scan: nothing runs.
    let before = shop.requests.load(Ordering::SeqCst);
    let passive = engine.scan_with(&start, ScanOptions { active: false, ..options }).await;
    engine.shutdown().await;
    let all = &scan.findings;
    let describe = || all.iter().filter(|f| f.evidence.contains_key("journey")).map(|f| format!("{} {}", f.check_id, Value::Object(f.evidence.clone()))).collect::<Vec<_>>().join("\n");

    // The good journey: logged in, clean, its two audits judged with the journey and step.
    assert!(ids(all, "buy a teapot").is_empty(), "no journeys.* findings for the good journey:\n{}", describe());
    assert!(ids(all, "preferences").is_empty(), "select, check, uncheck, wait_for hidden and gone, press work:\n{}", describe());
    let audited: Vec<&Finding> = of_journey(all, "buy a teapot").collect();
    assert!(!audited.is_empty(), "the audits report page findings:\n{}", describe());
    for f in &audited {
        assert!(f.evidence["step_index"] == 5 || f.evidence["step_index"] == 10, "{f:?}");
        assert!(f.evidence["step"].as_str().is_some_and(|s| s.starts_with("audit ")), "{f:?}");
    }
    let account = format!("{start}account");
    assert!(
        audited.iter().any(|f| f.check_id == "search.meta-description-missing" && f.url() == Some(account.as_str()) && f.evidence["step_index"] == 5),
        "the account page (behind the login) was audited:\n{}",
        describe()
    );
    assert!(audited.iter().any(|f| f.url() == Some(format!("{start}cart").as_str()) && f.evidence["step"] == "audit \"cart\""), "{}", describe());
    assert!(scan.pages.iter().any(|p| p.url == account), "the audit page is recorded at the reached URL");
    assert_eq!(shop.closed.load(Ordering::SeqCst), 0, "no gatherer pressed the account page's control behind the login");
    let audit_page = scan.pages.iter().find(|p| p.url == account).expect("audit page");
    assert!(audit_page.checks_not_run.iter().any(|c| c.check_id == "*"), "an audit page never counts crawl findings there as fixed");
    assert_eq!(audit_page.status, Some(200), "the audit's page is the account page after the login's redirect");

    // Every journeys.* check fires on the journey built for it.
    let expect = [
        ("missing button", vec!["journeys.step-failed"]),
        ("never ready", vec!["journeys.step-timeout"]),
        ("wrong password", vec!["journeys.login-failed", "journeys.step-timeout"]),
        ("checkout error", vec!["journeys.error-response"]),
        ("coupon throws", vec!["journeys.uncaught-exception"]),
        ("slow filter", vec!["journeys.slow-interaction"]),
        ("leaky login", vec!["journeys.secret-exposed"]),
        ("remembers the password", vec!["journeys.secret-exposed"]),
    ];
    for (journey, want) in &expect {
        assert_eq!(&ids(all, journey), want, "{journey}:\n{}", describe());
    }
    let find = |journey: &str, id: &str| of_journey(all, journey).find(|f| f.check_id == id).cloned().expect("finding");
    let failed = find("missing button", "journeys.step-failed");
    assert_eq!((failed.evidence["step_index"].as_u64(), failed.evidence["selector"].as_str()), (Some(1), Some("#does-not-exist")));
    assert_eq!(failed.evidence["screenshot"], "step-1-failed");
    assert_eq!(failed.severity, sitescan::model::Severity::High);
    assert!(of_journey(all, "missing button").all(|f| f.evidence["step_index"] != 2), "the step after a failure is skipped, not audited");
    let login = find("wrong password", "journeys.login-failed");
    assert_eq!((login.evidence["step_index"].as_u64(), login.evidence["proof"].as_str()), (Some(3), Some("text \"Sign out\"")));
    assert_eq!(login.severity, sitescan::model::Severity::Critical);
    let error = find("checkout error", "journeys.error-response");
    assert_eq!((error.evidence["method"].as_str(), error.evidence["status"].as_u64()), (Some("POST"), Some(500)));
    assert_eq!(error.url(), Some(format!("{start}pay").as_str()));
    let thrown = find("coupon throws", "journeys.uncaught-exception");
    assert!(thrown.evidence["message"].as_str().is_some_and(|m| m.contains("TypeError")), "{thrown:?}");
    let slow = find("slow filter", "journeys.slow-interaction");
    assert!(slow.evidence["value"].as_f64().is_some_and(|ms| ms >= 390.0), "{slow:?}");
    let exposed = find("leaky login", "journeys.secret-exposed");
    assert_eq!((exposed.evidence["secret"].as_str(), exposed.evidence["location"].as_str()), (Some("PASSWORD"), Some("url")));
    assert!(exposed.url().is_some_and(|u| u.ends_with("/account?pw=••••••")), "{exposed:?}");
    let mut stored: Vec<String> = of_journey(all, "remembers the password")
        .filter(|f| f.check_id == "journeys.secret-exposed")
        .map(|f| f.evidence["location"].as_str().unwrap_or_default().to_string())
        .collect();
    stored.sort();
    assert_eq!(stored, ["cookie \"remember\"", "localStorage[\"last_password\"]"], "script-readable storage is searched; the HttpOnly session cookie is not reported");

    // The secret never leaves the runner.
    let everything = serde_json::to_string(&all).expect("json") + &format!("{:?}", scan.pages);
    let encoded: String = url::form_urlencoded::byte_serialize(PASSWORD.as_bytes()).collect();
    assert!(!everything.contains(PASSWORD) && !everything.contains(&encoded), "a secret leaked into the findings or pages");
    assert!(everything.contains("{{secret.PASSWORD}}") || !everything.contains("Tr0ub4dor"), "summaries show the reference, not the value");

    assert!(passive.findings.iter().all(|f| !f.check_id.starts_with("journeys.") && !f.evidence.contains_key("journey")));
    let from_journeys: Vec<&str> =
        sitescan::checks::catalogue().filter(|m| m.site_requires.contains(&SiteArtifact::Journeys)).map(|m| m.id).collect();
    assert!(from_journeys.len() >= 7, "every journeys check declares the journeys: {from_journeys:?}");
    assert!(scan.site_checks_not_run.is_empty(), "with the journeys run, every site check ran: {:?}", scan.site_checks_not_run);
    let fired: Vec<&str> = broken.findings.iter().filter(|f| from_journeys.contains(&f.check_id.as_str())).map(|f| f.check_id.as_str()).collect();
    assert!(fired.is_empty(), "the journeys gatherer failed, yet its checks found {fired:?}");
    let not_run: Vec<&str> = broken.site_checks_not_run.iter().filter(|n| n.reason.contains("failed on purpose")).map(|n| n.check_id.as_str()).collect();
    assert!(from_journeys.iter().all(|id| not_run.contains(id)), "reported as not run: {not_run:?}, expected {from_journeys:?}");
    let passive_hits = shop.requests.load(Ordering::SeqCst) - before;
    assert!(passive_hits < 10, "a passive scan runs no journey ({passive_hits} requests)");
}

/// Runs the built binary with a clean `SITESCAN_*` environment.
fn sitescan(args: &[&str]) -> std::process::Output {
    let bin = std::env::var("CARGO_BIN_EXE_sitescan").unwrap_or_else(|_| env!("CARGO_BIN_EXE_sitescan").to_string());
    let mut cmd = Command::new(bin);
    cmd.args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("SITESCAN_") || k == "RUST_LOG" {
            cmd.env_remove(k);
        }
    }
    cmd.output().expect("run sitescan")
}

async fn cli(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || sitescan(&args.iter().map(String::as_str).collect::<Vec<_>>())).await.expect("join")
}

fn scan_args(start: &str, format: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "scan", start, "--active", "--verification-token", TOKEN, "--allow-target", "127.0.0.1/32", "--format", format, "--max-pages", "1",
        "--probe-budget", "4", "--quiet", "-vv",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_runs_the_owner_example_and_never_shows_a_secret() {
    init_test_log();
    let (start, _shop) = start_shop().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let owner = dir.path().join("sign-in.json");
    std::fs::write(&owner, OWNER_EXAMPLE).expect("write");
    let leaky = dir.path().join("leaky.yaml");
    std::fs::write(
        &leaky,
        "name: leaky login\nsteps:\n  - navigate: /leaky-login\n  - fill: '#email'\n    value: owner@example.org\n  - fill: '#password'\n    value: '{{secret.PASSWORD}}'\n  - click: button[type=submit]\n  - wait_for: {url: '/account*'}\n  - screenshot: after login\n",
    )
    .expect("write");
    let secret = dir.path().join("password.txt");
    std::fs::write(&secret, format!("{PASSWORD}\n")).expect("write");
    let secret_arg = format!("PASSWORD=@{}", secret.display());
    let extra = ["--journey", owner.to_str().unwrap(), "--journey", leaky.to_str().unwrap(), "--secret", &secret_arg];
    let encoded: String = url::form_urlencoded::byte_serialize(PASSWORD.as_bytes()).collect();
    let leaks = |out: &std::process::Output| {
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        all.contains(PASSWORD) || all.contains(&encoded) || all.contains("Tr0ub4dor")
    };

    let shots = dir.path().join("shots");
    let json_extra: Vec<&str> = extra.iter().copied().chain(["--screenshots", shots.to_str().unwrap()]).collect();
    let (json, sarif) = tokio::join!(cli(scan_args(&start, "json", &json_extra)), cli(scan_args(&start, "sarif", &extra)));
    assert_eq!(json.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&json.stderr));
    assert!(!leaks(&json), "the JSON report or the -vv log shows the secret");
    assert!(!leaks(&sarif), "the SARIF report or the -vv log shows the secret");
    assert!(String::from_utf8_lossy(&json.stderr).contains("journey done"), "the debug log was on: {}", String::from_utf8_lossy(&json.stderr));
    let body: Value = serde_json::from_slice(&json.stdout).expect("json report");
    let findings = body["report"]["findings"].as_array().expect("findings").clone();
    let of = |journey: &str| findings.iter().filter(|f| f["evidence"]["journey"] == journey).cloned().collect::<Vec<_>>();
    let sign_in = of("sign in");
    assert!(sign_in.iter().all(|f| !f["check_id"].as_str().unwrap_or_default().starts_with("journeys.")), "OWNER.md's example runs as written: {sign_in:?}");
    assert!(
        sign_in.iter().any(|f| f["evidence"]["step_index"] == 5 && f["evidence"]["step"] == "audit \"account page\"" && f["evidence"]["url"] == format!("{start}account")),
        "its audit judged the account page: {sign_in:?}"
    );
    let leaky_ids: Vec<String> = of("leaky login").iter().filter_map(|f| f["check_id"].as_str().map(str::to_string)).collect();
    assert_eq!(leaky_ids, vec!["journeys.secret-exposed"], "{findings:?}");
    assert!(body["report"]["summary"]["categories"]["journeys"]["critical"].as_u64().unwrap_or(0) >= 1, "{}", body["report"]["summary"]);
    let sarif: Value = serde_json::from_slice(&sarif.stdout).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(results.iter().any(|r| r["ruleId"] == "journeys.secret-exposed"), "SARIF has the journey finding");
    // --screenshots: the `screenshot` step's picture, as a PNG file named after its journey,
    // step and name; only the picture the journeys took.
    let written: Vec<String> = std::fs::read_dir(&shots).expect("the folder").map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(written, vec!["leaky-login-step5-after-login.png".to_string()], "{written:?}");
    let png = std::fs::read(shots.join(&written[0])).expect("read");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000, "a PNG of the page: {} bytes", png.len());
    if std::env::var_os("SITESCAN_TEST_DUMP").is_some() {
        std::fs::write(std::env::temp_dir().join("sitescan-journey-shot.png"), &png).expect("dump");
    }
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert_eq!(width, sitescan::browser::VIEWPORT_WIDTH, "the viewport's width");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_refuses_bad_journeys_before_anything_runs() {
    init_test_log();
    let (start, shop) = start_shop().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r##"{"name": "x", "steps": [{"navigate": "/login"}, {"fill": "#email", "value": "a@b.c"}, {"click": "button"}, {"fill": "#password"}]}"##).expect("write");
    let good = dir.path().join("good.json");
    std::fs::write(&good, OWNER_EXAMPLE).expect("write");
    let secret = dir.path().join("pw.txt");
    std::fs::write(&secret, "hunter2-secret-value\n").expect("write");
    let other = format!("OTHER=@{}", secret.display());

    let out = cli(scan_args(&start, "json", &["--journey", bad.to_str().unwrap()])).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("steps[3].fill: \"value\" is required"), "{err}");

    let out = cli(scan_args(&start, "json", &["--journey", good.to_str().unwrap(), "--secret", &other])).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("steps[2].value: unknown secret \"PASSWORD\""), "{err}");
    assert!(!err.contains("hunter2-secret-value"), "{err}");

    let out = cli(scan_args(&start, "json", &["--journey", good.to_str().unwrap(), "--secret", "PASSWORD=hunter2-secret-value"])).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("NAME=@FILE") && !err.contains("hunter2-secret-value"), "{err}");
    let out = cli(scan_args(&start, "json", &["--journey", good.to_str().unwrap(), "--secret", "hunter2-secret-value"])).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("NAME=@FILE") && !err.contains("hunter2-secret-value"), "{err}");

    let out = cli(vec![
        "scan".into(), start.clone(), "--allow-target".into(), "127.0.0.1/32".into(), "--journey".into(), good.to_str().unwrap().into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(2), "--journey without --active is a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--active"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(shop.requests.load(Ordering::SeqCst), 0, "nothing was requested from the site");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journeys_stay_behind_the_egress_guard_and_share_no_cookies() {
    init_test_log();
    let (start, _shop) = start_shop().await;
    // A second site on 127.0.0.2, outside the scan's allowed range (127.0.0.1/32 only).
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let outside = axum::Router::new().fallback(move || {
        let counter = counter.clone();
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            page("Internal admin", "<p>internal</p>")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.expect("bind 127.0.0.2");
    let outside_url = format!("http://{}/", listener.local_addr().expect("addr"));
    let outside_origin = outside_url.trim_end_matches('/').to_string();
    tokio::spawn(async move { axum::serve(listener, outside).await.expect("serve") });

    let browser = sitescan::cli::args::BrowserArgs { browsers: 1, pages_per_browser: 2, cdp: vec![], chromium: None, proxy_listen: "127.0.0.1:0".parse().expect("addr"), no_share: false, no_cache: false, ocr: false, no_ocr: false, chromium_no_sandbox: false };
    let policy = sitescan::model::AddressPolicy::new(vec!["127.0.0.1/32".parse().expect("cidr")]);
    let scanner = sitescan::cli::engine::scanner(&browser, policy).await.expect("start the browser pool");
    let journeys = vec![
        spec(OWNER_EXAMPLE, PASSWORD),
        // Signed in by the journey before? Not here: each journey starts with no cookies.
        spec(r##"{"name": "fresh context", "steps": [{"navigate": "/account"}, {"assert": {"url": "/login"}}]}"##, PASSWORD),
        // Listed as one of the journey's origins, the address still goes through the egress guard.
        spec(&format!(r##"{{"name": "escape", "origins": ["{outside_origin}"], "steps": [{{"navigate": "{outside_url}"}}, {{"assert": {{"text": "internal"}}}}]}}"##), PASSWORD),
        spec(
            &format!(r##"{{"name": "escape by link", "origins": ["{outside_origin}"], "steps": [{{"navigate": "/"}}, {{"navigate": "{outside_url}admin"}}]}}"##),
            PASSWORD,
        ),
    ];
    let options = ScanOptions { max_pages: 1, max_depth: 0, page_concurrency: 1, active: true, probe_budget: 2, journeys, ..ScanOptions::default() };
    let mut sink = crate::sink::Collect::default();
    scanner
        .run(&url::Url::parse(&start).expect("url"), &options, &mut sink, None, tokio_util::sync::CancellationToken::new())
        .await
        .expect("scan");
    scanner.pool().shutdown().await;
    let all = &sink.findings;
    assert!(ids(all, "sign in").is_empty(), "{:?}", ids(all, "sign in"));
    assert!(ids(all, "fresh context").is_empty(), "the next journey did not inherit the login's cookie: {:?}", of_journey(all, "fresh context").collect::<Vec<_>>());
    for journey in ["escape", "escape by link"] {
        let failed: Vec<&Finding> = of_journey(all, journey).filter(|f| f.check_id.starts_with("journeys.")).collect();
        assert_eq!(failed.len(), 1, "{journey}: {failed:?}");
        assert_eq!(failed[0].check_id, "journeys.step-failed", "{failed:?}");
        assert!(failed[0].evidence["error"].as_str().is_some_and(|e| e.contains("egress guard")), "{failed:?}");
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing reached the address outside the policy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_hide_typed_secrets() {
    init_test_log();
    let (start, _shop) = start_shop().await;
    let browser = sitescan::cli::args::BrowserArgs { browsers: 1, pages_per_browser: 1, cdp: vec![], chromium: None, proxy_listen: "127.0.0.1:0".parse().expect("addr"), no_share: false, no_cache: false, ocr: false, no_ocr: false, chromium_no_sandbox: false };
    let policy = sitescan::model::AddressPolicy::new(vec!["127.0.0.1/32".parse().expect("cidr")]);
    let scanner = sitescan::cli::engine::scanner(&browser, policy).await.expect("start the browser pool");
    let session = scanner.pool().session().await.expect("session");
    // The same journey typing two different secrets of one length into a plain text field: hidden
    // while the picture is taken, both pictures are the same; the third types a plain value.
    let journey = |value: &str| {
        format!(r##"{{"name": "token", "steps": [{{"navigate": "/token"}}, {{"fill": "#token", "value": "{value}"}}, {{"click": "#done"}}, {{"screenshot": "token"}}, {{"wait_for": {{"selector": "input#token[type=text]"}}, "timeout_ms": 1000}}]}}"##)
    };
    let mut runs = Vec::new();
    for (value, secret) in [("{{secret.TOKEN}}", "first-secret-11"), ("{{secret.TOKEN}}", "other-secret-22"), ("plain-value-333", "unused-secret-4")] {
        let mut secrets = JourneySecrets::new();
        secrets.insert("TOKEN", secret);
        let spec = JourneySpec::new(parse_journey(&journey(value)).expect("parses"), secrets).expect("spec");
        runs.push(session.run_journey(&start, &spec, &mut sitescan::browser::JourneyAllowance::for_scan(), None).await);
    }
    session.close().await;
    scanner.pool().shutdown().await;
    for run in &runs {
        assert!(run.outcome.steps.iter().all(|s| s.status == sitescan::model::StepStatus::Ok), "{:?}", run.outcome.steps);
        assert_eq!(run.outcome.screenshots.len(), 1);
    }
    let png = |i: usize| runs[i].outcome.screenshots[0].png_base64.clone();
    assert_eq!(png(0), png(1), "the typed secrets are not in the screenshots");
    assert_ne!(png(0), png(2), "a plain value is shown (the comparison can tell)");
    assert!(format!("{:?}", runs[0].outcome).contains("{{secret.TOKEN}}") && !format!("{:?}", runs[0].outcome).contains("first-secret-11"));
}

/// The service path: a verified site with a stored journey and a stored (sealed) secret, an
/// active scan started with the attestation, and a worker that proves ownership again, loads the
/// site's journeys with their decrypted secrets and runs them. The secret never reaches the
/// database, the v1 body or the SARIF report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_journey_runs_in_an_active_scan_started_from_the_service() {
    use sitescan::model::AddressPolicy;
    use sitescan::crawl::{WorkerConfig, Workers, worker::Ownership};
    init_test_log();
    let (start, _shop) = start_shop().await;
    let app = crate::app::spawn_app_with(crate::app::AppOptions::default().allow_target("127.0.0.0/8")).await;
    let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]);
    const ACME: sitescan::model::OrgId<'static> = sitescan::model::OrgId::new("acme");
    let sites = crate::app::site_service(&app.store, policy.clone(), None);
    let origin = start.trim_end_matches('/').to_string();
    let host = url::Url::parse(&start).unwrap().host_str().unwrap().to_string();
    app.store.set_org("acme", None).await.unwrap();
    let site = app.store.add_site("acme", &origin, &host, TOKEN, "test", 1).await.unwrap().expect("site");
    sites.put_journey(ACME, site.id, OWNER_EXAMPLE).await.expect("the OWNER.md example is accepted");
    let broken = r##"{"name": "broken", "steps": [{"navigate": "/shop"}, {"click": "#no-such-button", "timeout_ms": 1500}]}"##;
    sites.put_journey(ACME, site.id, broken).await.expect("stored");
    let bad = sites.put_journey(ACME, site.id, r##"{"name": "bad", "steps": [{"fill": "#x"}]}"##).await.expect_err("refused");
    assert!(bad.to_string().contains("steps[0].fill"), "{bad}");
    sites.put_secret(ACME, site.id, "PASSWORD", PASSWORD).await.expect("secret");

    let statement = sitescan::sites::attestation_statement(&origin);
    let attester = sitescan::model::Attester { actor: "user:test".into(), client_addr: Some("127.0.0.1".into()) };
    let scan = sites
        .start_active_scan(sitescan::sites::StartActive {
            org: ACME,
            site_id: site.id,
            attestation: sitescan::model::Attestation::confirm(&origin, sitescan::model::Confirmation::Typed(&statement), attester).expect("confirmed"),
            triggered_by: sitescan::model::TriggeredBy::Manual,
            max_pages: Some(3),
        })
        .await
        .expect("queued");

    let browser = sitescan::cli::args::BrowserArgs { browsers: 1, pages_per_browser: 2, cdp: vec![], chromium: None, proxy_listen: "127.0.0.1:0".parse().unwrap(), no_share: false, no_cache: false, ocr: false, no_ocr: false, chromium_no_sandbox: false };
    let scanner = sitescan::cli::engine::scanner(&browser, policy.clone()).await.expect("browser pool");
    let config = WorkerConfig {
        lease: std::time::Duration::from_secs(60),
        max_attempts: 1,
        poll: std::time::Duration::from_millis(100),
        options: ScanOptions { max_pages: 3, ..ScanOptions::default() },
        ownership: Ownership::Reverify(crate::app::site_service(&app.store, policy, None)),
        max_running_per_org: sitescan::crawl::DEFAULT_MAX_RUNNING_PER_ORG,
        page_sharing: false,
    };
    let workers = Workers::spawn(app.store.clone(), scanner, 1, config);
    let token = app.token("acme").await;
    let began = std::time::Instant::now();
    let body = loop {
        let resp = app.get(&format!("/api/v1/scans/{}?include_findings=true", scan.id), &token).await;
        let status = resp.json["scan"]["status"].as_str().unwrap_or_default().to_string();
        if status == "completed" || status == "failed" {
            break resp.json.clone();
        }
        assert!(began.elapsed() < std::time::Duration::from_secs(120), "the scan never ended");
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    };
    let sarif = app.get(&format!("/api/v1/scans/{}/report.sarif", scan.id), &token).await;
    workers.shutdown().await;

    assert_eq!(body["scan"]["status"], "completed", "{body:#}");
    assert_eq!(body["scan"]["mode"], "active");
    let findings = body["report"]["findings"].as_array().expect("findings");
    let of = |journey: &str, id: &str| {
        findings.iter().filter(|f| f["check_id"] == id && f["evidence"]["journey"] == journey).count()
    };
    // It ran and stopped at its missing button (as a failed step; a loaded machine may turn
    // the wait into a timeout, which is the same story for this test).
    let stopped = of("broken", "journeys.step-failed") + of("broken", "journeys.step-timeout");
    assert_eq!(stopped, 1, "the broken journey ran: {findings:#?}");
    // The page at the failure, kept with the scan under the name its finding's evidence gives.
    let failure = findings.iter().find(|f| f["evidence"]["journey"] == "broken").expect("the failure");
    let shots = app.store.list_journey_screenshots("acme", scan.id).await.unwrap();
    let names: Vec<(&str, &str, i32)> = shots.iter().map(|s| (s.journey.as_str(), s.name.as_str(), s.step)).collect();
    assert_eq!(names.len(), 1, "only the failed step took a picture: {names:?}");
    assert_eq!((names[0].0, names[0].2), ("broken", 1), "{names:?}");
    assert_eq!(failure["evidence"]["screenshot"], names[0].1, "{failure:#}");
    let png = app.store.journey_screenshot_png("acme", scan.id, shots[0].id).await.unwrap().expect("its bytes");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() as i64 == shots[0].bytes, "a PNG of {} bytes", png.len());
    assert!(app.store.journey_screenshot_png("globex", scan.id, shots[0].id).await.unwrap().is_none());
    for id in ["journeys.step-failed", "journeys.login-failed", "journeys.secret-exposed", "journeys.step-timeout"] {
        assert_eq!(of("sign in", id), 0, "the stored OWNER.md journey is clean: {findings:#?}");
    }
    let pages = body["report"]["pages"].as_array().expect("pages");
    assert!(
        pages.iter().any(|p| p["url"].as_str().is_some_and(|u| u.contains("/account"))),
        "the audit step's page is in the report: {pages:#?}"
    );
    let everything = format!("{body}{}", sarif.text);
    assert!(!everything.contains(PASSWORD), "the secret leaked into the report");
    let encoded: String = url::form_urlencoded::byte_serialize(PASSWORD.as_bytes()).collect();
    assert!(!everything.contains(&encoded), "the secret leaked, URL-encoded");
    for (table, column) in [("findings", "evidence"), ("scan_pages", "metrics"), ("site_secrets", "value_enc"), ("journeys", "definition")] {
        use sea_orm::ConnectionTrait;
        let stmt = app.store.stmt(&format!("SELECT {column} AS v FROM {table}"), vec![]);
        for row in app.store.conn().query_all_raw(stmt).await.unwrap() {
            let v: Option<String> = row.try_get("", "v").unwrap();
            assert!(!v.unwrap_or_default().contains(PASSWORD), "{table}.{column} holds the secret in clear");
        }
    }
    assert!(app.store.attestation(scan.id).await.unwrap().is_some());
}
