//! Behind a reverse proxy, against a real `sitescan serve`: forwarding headers count only from a
//! `--trusted-proxy` peer (a spoofed `X-Forwarded-For` does not dodge the sign-in throttle; a
//! trusted proxy's forwarded addresses get counters of their own, its `X-Forwarded-Proto: https`
//! makes cookies `Secure`, and an attestation records the client it names); expired sessions and
//! stale throttle rows are deleted on a timer.

use crate::dashboard_client::{PASSWORD, page, redirect_to};
use crate::login::{OWNER, browser, serve};
use sea_orm::ConnectionTrait;
use sitescan::accounts::throttle::{ACCOUNT_THRESHOLD, ADDRESS_THRESHOLD};
use std::time::{Duration, Instant};

fn session_cookie(r: &crate::app::Resp) -> String {
    r.headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("sitescan_session="))
        .unwrap_or_else(|| panic!("no session cookie: {:?}", r.headers))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_trusted_proxy_a_spoofed_forwarded_for_does_not_dodge_the_throttle() {
    let mut s = serve(&[], &[]).await;
    // Every guess claims another client address, in both headers.
    for i in 0..ACCOUNT_THRESHOLD + 3 {
        let fake = format!("198.51.100.{}", i + 1);
        let mut w = browser(&s.base, "127.0.0.1", &[("x-forwarded-for", &fake), ("forwarded", &format!("for={fake};proto=https"))]);
        let r = w.login(OWNER, &format!("guess {i}")).await;
        page(&r, if i < ACCOUNT_THRESHOLD { 401 } else { 429 });
    }
    let mut w = browser(&s.base, "127.0.0.1", &[("x-forwarded-for", "203.0.113.77"), ("x-forwarded-proto", "https")]);
    page(&w.login(OWNER, PASSWORD).await, 429);
    // The peer is the address counted; no forwarded one reached the table.
    let rows = s.app.store.conn().query_all_raw(s.app.store.stmt("SELECT key FROM login_throttle", vec![])).await.unwrap();
    let keys: Vec<String> = rows.iter().map(|r| r.try_get("", "key").unwrap()).collect();
    assert!(keys.iter().any(|k| k == "addr:127.0.0.1"), "{keys:?}");
    assert!(!keys.iter().any(|k| k.contains("198.51.100.") || k.contains("203.0.113.")), "{keys:?}");
    // And a client's own `X-Forwarded-Proto: https` does not make the cookie Secure.
    let mut w = browser(&s.base, "127.0.0.3", &[("x-forwarded-proto", "https")]);
    let ok = w.login(OWNER, PASSWORD).await;
    redirect_to(&ok, "/");
    assert!(!session_cookie(&ok).contains("Secure"), "{}", session_cookie(&ok));
    s.server.stop(Duration::from_secs(10)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_counters() {
    let mut s = serve(&["--trusted-proxy", "127.0.0.1/32"], &[]).await;
    // The proxy (127.0.0.1) forwards client A; A had its own earlier hop forged.
    let a = [("x-forwarded-for", "10.9.9.9, 198.51.100.1")];
    let b = [("x-forwarded-for", "198.51.100.2")];
    // A uses up its address counter on unknown accounts.
    for i in 0..ADDRESS_THRESHOLD {
        let mut w = browser(&s.base, "127.0.0.1", &a);
        page(&w.login(&format!("nobody{i}@acme.test"), "wrong password").await, 401);
    }
    let mut w = browser(&s.base, "127.0.0.1", &a);
    page(&w.login("fresh@acme.test", "wrong password").await, 429);
    page(&w.login(OWNER, PASSWORD).await, 429);
    // B, through the same proxy, is another client: its counters are untouched.
    let mut w = browser(&s.base, "127.0.0.1", &b);
    page(&w.login("fresh@acme.test", "wrong password").await, 401);
    for i in 1..ACCOUNT_THRESHOLD {
        page(&w.login(OWNER, &format!("guess {i}")).await, 401);
    }
    let mut w = browser(&s.base, "127.0.0.1", &[("x-forwarded-for", "198.51.100.2"), ("x-forwarded-proto", "https")]);
    let ok = w.login(OWNER, PASSWORD).await;
    redirect_to(&ok, "/");
    assert!(session_cookie(&ok).contains("; Secure"), "the proxy says https: {}", session_cookie(&ok));
    let rows = s.app.store.conn().query_all_raw(s.app.store.stmt("SELECT key FROM login_throttle", vec![])).await.unwrap();
    let keys: Vec<String> = rows.iter().map(|r| r.try_get("", "key").unwrap()).collect();
    for k in ["addr:198.51.100.1", "addr:198.51.100.2"] {
        assert!(keys.iter().any(|x| x == k), "{k} in {keys:?}");
    }
    assert!(!keys.iter().any(|k| k.contains("127.0.0.1") || k.contains("10.9.9.9")), "neither the proxy nor a forged hop: {keys:?}");

    // A peer that is not the trusted proxy cannot borrow B's (or anyone's) address.
    let mut direct = browser(&s.base, "127.0.0.2", &[("x-forwarded-for", "198.51.100.1"), ("x-forwarded-proto", "https")]);
    let ok = direct.login(OWNER, PASSWORD).await;
    redirect_to(&ok, "/");
    assert!(!session_cookie(&ok).contains("Secure"), "{}", session_cookie(&ok));
    s.server.stop(Duration::from_secs(10)).await;
}

async fn count(s: &crate::login::Served, sql: &str) -> i64 {
    let row = s.app.store.conn().query_one_raw(s.app.store.stmt(sql, vec![])).await.unwrap().unwrap();
    row.try_get("", "n").unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_sessions_and_stale_throttle_rows_are_deleted_on_a_timer() {
    let mut s = serve(&[], &[("SITESCAN_CLEANUP_INTERVAL_SECS", "1")]).await;
    let mut live = browser(&s.base, "127.0.0.1", &[]);
    redirect_to(&live.login(OWNER, PASSWORD).await, "/");
    let (user, _) = sitescan::accounts::users::by_email(&s.app.store, OWNER).await.unwrap().unwrap();
    let now = sitescan_store::time::now_us();
    let hour = 3_600_000_000i64;
    let store = &s.app.store;
    // Idle past 12 hours; past 7 days though used a moment ago; a throttle row from an hour ago.
    for (id, created, seen) in [("expired-idle", now - 14 * hour, now - 13 * hour), ("expired-old", now - 8 * 24 * hour, now)] {
        store
            .conn()
            .execute_raw(store.stmt(
                "INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, last_seen_at) VALUES ($1, $2, 'x', $3, $4)",
                vec![id.into(), user.id.clone().into(), created.into(), seen.into()],
            ))
            .await
            .unwrap();
    }
    store
        .conn()
        .execute_raw(store.stmt(
            "INSERT INTO login_throttle (key, failures, window_start, locked_until) VALUES ('addr:192.0.2.99', 3, $1, 0)",
            vec![(now - hour).into()],
        ))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let expired = count(&s, "SELECT COUNT(*) AS n FROM sessions WHERE id_hash IN ('expired-idle', 'expired-old')").await;
        let stale = count(&s, "SELECT COUNT(*) AS n FROM login_throttle WHERE key = 'addr:192.0.2.99'").await;
        if expired == 0 && stale == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "still {expired} expired sessions and {stale} stale throttle rows; server log:\n{}", s.server.output());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The live session is kept and still opens pages.
    assert_eq!(count(&s, "SELECT COUNT(*) AS n FROM sessions").await, 1);
    page(&live.get("/").await, 200);
    s.server.stop(Duration::from_secs(10)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_an_attestation_records_the_forwarded_client() {
    use crate::fixture_site::{FixtureSite, Route};
    let mut s = serve(&["--trusted-proxy", "127.0.0.1/32", "--allow-target", "127.0.0.0/8"], &[]).await;
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><html lang=en><title>Shop</title><h1>Shop</h1>"));
    let mut web = browser(&s.base, "127.0.0.1", &[("x-forwarded-for", "203.0.113.5, 198.51.100.9")]);
    redirect_to(&web.login(OWNER, PASSWORD).await, "/");
    page(&web.get("/sites").await, 200);
    let added = web.post("/sites", &[("url", &site.url("/"))]).await;
    assert_eq!(added.status.as_u16(), 303, "{}", added.text);
    let path = added.header("location").trim_end_matches("?done=added").to_string();
    let row = s.app.store.list_sites("acme").await.unwrap().pop().expect("stored");
    site.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", row.verification_token.clone()));
    redirect_to(&web.post(&format!("{path}/verify"), &[]).await, &format!("{path}?done=verified"));
    let started = web.post(&format!("{path}/scans"), &[("attest", "yes")]).await;
    assert_eq!(started.status.as_u16(), 303, "{}", started.text);
    let scan_id: uuid::Uuid = started.header("location").trim_start_matches("/scans/").parse().expect("a scan page");
    let attested = s.app.store.attestation(scan_id).await.unwrap().expect("attestation");
    assert_eq!(attested.client_addr.as_deref(), Some("198.51.100.9"), "the client the proxy names, not the proxy nor a forged hop");
    s.server.stop(Duration::from_secs(10)).await;
}
