//! Guessing passwords against a real `sitescan serve`: a burst of parallel wrong sign-ins gets
//! no more than the threshold of real checks (they are counted before the hash is checked); a
//! stranger's failures lock the stranger, not the victim signing in from elsewhere, until
//! failures come from many addresses; `/account/password` cannot be used to guess the current
//! password of a stolen session.

use crate::app::{self, TestApp};
use crate::dashboard_client::{PASSWORD, Web, page, redirect_to};
use crate::process::Proc;
use sitescan::accounts::throttle::{ACCOUNT_ADDRESSES, ACCOUNT_THRESHOLD, PASSWORD_CHANGE_THRESHOLD};
use sitescan::accounts::{Role, users};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

pub const OWNER: &str = "owner@acme.test";

/// A real server (`sitescan serve` as a child process) on a database with one owner.
pub struct Served {
    pub app: TestApp,
    pub server: Proc,
    pub base: String,
}

/// Starts `sitescan serve --no-workers` with `args` and `envs` on a fresh database holding the
/// owner `owner@acme.test` (password [`PASSWORD`]).
pub async fn serve(args: &[&str], envs: &[(&str, &str)]) -> Served {
    let app = app::spawn_app().await;
    users::create_user(&app.store, "acme", OWNER, Role::Owner, PASSWORD).await.expect("create the owner");
    let db = app.db_url.clone();
    let mut all = vec!["serve", "--no-workers", "--listen", "127.0.0.1:0", "--database", db.as_str()];
    all.extend_from_slice(args);
    let server = Proc::spawn(&all, envs);
    let base = server.base_url().await;
    Served { app, server, base }
}

/// A browser-like client whose connections come from `from` (any 127.0.0.0/8 address reaches
/// the server on 127.0.0.1), sending `headers` with every request.
pub fn browser(base: &str, from: &str, headers: &[(&str, &str)]) -> Web {
    let mut default_headers = reqwest::header::HeaderMap::new();
    for (k, v) in headers {
        default_headers.insert(reqwest::header::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
    }
    let http = reqwest::Client::builder()
        .local_address(from.parse::<IpAddr>().expect("address"))
        .default_headers(default_headers)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(60))
        .build()
        .expect("HTTP client");
    Web { base: base.to_string(), http, cookies: BTreeMap::new(), csrf: String::new(), origin: None }
}

/// Sends `n` sign-ins of `OWNER` with wrong passwords at once, all with the CSRF cookie of one
/// login form; returns their statuses.
async fn burst(web: &mut Web, n: usize) -> Vec<u16> {
    page(&web.get("/login").await, 200);
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let mut one = Web { base: web.base.clone(), http: web.http.clone(), cookies: web.cookies.clone(), csrf: web.csrf.clone(), origin: None };
            tokio::spawn(async move { one.post("/login", &[("email", OWNER), ("password", &format!("wrong guess number {i}"))]).await.status.as_u16() })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.expect("sign-in task"));
    }
    statuses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_parallel_guesses_gets_no_more_than_the_threshold_of_checks() {
    let mut s = serve(&[], &[]).await;
    let mut attacker = browser(&s.base, "127.0.0.1", &[]);
    let statuses = burst(&mut attacker, 30).await;
    let checked = statuses.iter().filter(|&&c| c == 401).count() as i64;
    let refused = statuses.iter().filter(|&&c| c == 429).count() as i64;
    assert_eq!(checked + refused, 30, "every guess is either checked (401) or refused (429): {statuses:?}");
    assert!((1..=ACCOUNT_THRESHOLD).contains(&checked), "at most {ACCOUNT_THRESHOLD} guesses were checked, not {checked}: {statuses:?}");
    // The lock holds against the right password too: the burst bought no extra tries.
    let locked = attacker.login(OWNER, PASSWORD).await;
    page(&locked, 429);
    assert!(locked.header_u64("retry-after") >= 1);
    assert!(attacker.session().is_none());
    s.server.stop(Duration::from_secs(10)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strangers_failures_do_not_lock_out_the_victim_until_many_addresses_fail() {
    let mut s = serve(&[], &[]).await;
    // The stranger locks their own (account, address) pair.
    let mut stranger = browser(&s.base, "127.0.0.2", &[]);
    for i in 0..ACCOUNT_THRESHOLD {
        page(&stranger.login(OWNER, &format!("stranger guess {i}")).await, 401);
    }
    page(&stranger.login(OWNER, "stranger guess again").await, 429);
    page(&stranger.login(OWNER, PASSWORD).await, 429);
    // The victim, from their own address, signs in.
    let mut victim = browser(&s.base, "127.0.0.1", &[]);
    redirect_to(&victim.login(OWNER, PASSWORD).await, "/");
    assert!(victim.session().is_some());

    // Failures from ACCOUNT_ADDRESSES distinct addresses (the stranger's and these) lock the
    // account for everyone.
    for i in 0..ACCOUNT_ADDRESSES - 1 {
        let mut bot = browser(&s.base, &format!("127.0.1.{}", i + 1), &[]);
        page(&bot.login(OWNER, "distributed guess").await, 401);
    }
    let mut victim = browser(&s.base, "127.0.0.1", &[]);
    page(&victim.login(OWNER, PASSWORD).await, 429);
    assert!(victim.session().is_none());
    s.server.stop(Duration::from_secs(10)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessing_the_current_password_on_account_password_is_throttled() {
    let mut s = serve(&[], &[]).await;
    let mut thief = browser(&s.base, "127.0.0.1", &[]);
    redirect_to(&thief.login(OWNER, PASSWORD).await, "/");
    page(&thief.get("/account/password").await, 200);
    let new = [("new", "a brand new password"), ("confirm", "a brand new password")];
    for i in 0..PASSWORD_CHANGE_THRESHOLD {
        let guess = format!("guess number {i}");
        let mut fields = vec![("current", guess.as_str())];
        fields.extend_from_slice(&new);
        let r = thief.post("/account/password", &fields).await;
        page(&r, 400);
        assert!(r.text.contains("The current password is not correct."), "{}", r.text);
    }
    let mut fields = vec![("current", PASSWORD)];
    fields.extend_from_slice(&new);
    let locked = thief.post("/account/password", &fields).await;
    page(&locked, 429);
    assert!(locked.header_u64("retry-after") >= 1);
    // The password did not change.
    let (_, phc) = users::by_email(&s.app.store, OWNER).await.unwrap().unwrap();
    assert!(sitescan::accounts::password::verify(PASSWORD, Some(phc)).await, "the password is unchanged");
    s.server.stop(Duration::from_secs(10)).await;
}
