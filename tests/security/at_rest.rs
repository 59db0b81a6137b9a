//! Secrets at rest and in the process: a sealed value opens only in the row and under the name it
//! was sealed for (someone who can write the database cannot move one site's secret to another
//! site they control); a key file that cannot be read stops `serve` instead of running without
//! a key; and Chromium, which runs tenants' pages, gets none of the service's environment.

use crate::app::{self, AppOptions, spawn_app_with};
use crate::fixture_site::{FixtureSite, Route};
use crate::process::Proc;
use sea_orm::ConnectionTrait;
use sitescan::model::AddressPolicy;
use std::collections::HashMap;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_copied_to_another_sites_row_does_not_open() {
    let app = spawn_app_with(AppOptions::default().allow_target("127.0.0.0/8")).await;
    let sites = app::site_service(&app.store, AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]), None);
    let now = sitescan_store::time::now_us();
    let victim = app.store.add_site("acme", "https://victim.example.com", "victim.example.com", "Victim_Token_0123456789abcd", "t", now).await.unwrap().unwrap();
    let mine = app.store.add_site("evil", "https://evil.example.com", "evil.example.com", "Evil_Token_0123456789abcdef", "t", now).await.unwrap().unwrap();
    sites.put_secret(sitescan::model::OrgId::new("acme"), victim.id, "PASSWORD", "victims-password-123").await.expect("put");
    assert_eq!(sites.secret_values(victim.id).await.expect("opens where it was sealed"), vec![("PASSWORD".to_string(), "victims-password-123".to_string())]);

    // Copied by hand into the attacker's site, under the same name: it does not open there.
    let copy = app.store.stmt(
        "INSERT INTO site_secrets (site_id, name, value_enc, created_at) SELECT $1, name, value_enc, created_at FROM site_secrets WHERE site_id = $2",
        vec![mine.id.into(), victim.id.into()],
    );
    app.store.conn().execute_raw(copy).await.expect("copy the row");
    let err = sites.secret_values(mine.id).await.expect_err("moved: no longer opens");
    assert!(err.to_string().contains("could not be decrypted"), "{err}");
    // Under another name of the same site: neither.
    let rename = app.store.stmt("UPDATE site_secrets SET name = 'OTHER' WHERE site_id = $1", vec![victim.id.into()]);
    app.store.conn().execute_raw(rename).await.expect("rename");
    assert!(sites.secret_values(victim.id).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_key_file_stops_serve_with_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no-such-key");
    let db = format!("sqlite://{}?mode=rwc", dir.path().join("s.db").display());
    let mut server = Proc::spawn(&["serve", "--no-workers", "--listen", "127.0.0.1:0", "--database", &db, "--secret-key-file", missing.to_str().unwrap()], &[]);
    let status = tokio::time::timeout(Duration::from_secs(30), server.child.wait()).await.expect("exits at once").expect("status");
    assert!(!status.success(), "serve ran without its key");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let out = server.output();
    assert!(out.contains(missing.to_str().unwrap()) && out.contains("cannot be read"), "the error names the file: {out}");
    assert!(!out.contains("listening"), "{out}");
}

/// `pid`'s environment (NUL-separated `KEY=VALUE`).
fn environ(pid: u32) -> Option<String> {
    std::fs::read(format!("/proc/{pid}/environ")).ok().map(|b| String::from_utf8_lossy(&b).replace('\0', "\n"))
}

/// `pid`'s parent.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
}

/// The pids of `root`'s descendants whose command name contains `name`.
fn descendants_named(root: u32, name: &str) -> Vec<u32> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    let mut comm: HashMap<u32, String> = HashMap::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some((head, rest)) = stat.rsplit_once(')') else { continue };
        comm.insert(pid, head.split_once('(').map(|(_, c)| c.to_string()).unwrap_or_default());
        if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|s| s.parse::<u32>().ok()) {
            parent.insert(pid, ppid);
        }
    }
    parent
        .keys()
        .copied()
        .filter(|pid| {
            let mut cur = *pid;
            for _ in 0..64 {
                match parent.get(&cur) {
                    Some(&pp) if pp == root => return comm.get(pid).is_some_and(|c| c.contains(name)),
                    Some(&pp) if pp > 1 => cur = pp,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_gets_none_of_the_services_environment() {
    let site = FixtureSite::start().await;
    // A page slow enough to look at the browser while it renders.
    site.route("/", Route::html("<!doctype html><html lang=en><head><title>Slow</title></head><body><main><h1>Slow</h1></main></body></html>").delay(Duration::from_secs(4)));
    let key = "c2l0ZXNjYW4tdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=";
    let db_url = "postgres://postgres:hunter2@127.0.0.1:5432/never";
    let scan = Proc::spawn(
        &["scan", &site.url("/"), "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--quiet"],
        &[("SITESCAN_SECRET_KEY", key), ("SITESCAN_DATABASE_URL", db_url), ("DATABASE_URL", db_url), ("AWS_SECRET_ACCESS_KEY", "aws-secret-value")],
    );
    // Chromium's helper processes write their process title over the memory /proc shows as
    // their environment; the browser process itself (the scan's own child) keeps it whole.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen: Vec<(u32, bool, String)> = Vec::new();
    while Instant::now() < deadline && !seen.iter().any(|(_, main, env)| *main && env.contains("PATH=")) {
        for pid in descendants_named(scan.pid, "chrom") {
            // Empty while the process is being created or reaped: look again later.
            let Some(env) = environ(pid).filter(|e| !e.trim().is_empty()) else { continue };
            let main = parent_of(pid) == Some(scan.pid);
            seen.retain(|(p, _, _)| *p != pid);
            seen.push((pid, main, env));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(seen.iter().any(|(_, main, env)| *main && env.contains("PATH=")), "the browser process was seen with the environment it needs: {seen:?}\n{}", scan.output());
    for (pid, _, env) in &seen {
        for leak in ["SITESCAN_", key, "hunter2", "DATABASE_URL", "aws-secret-value"] {
            assert!(!env.contains(leak), "Chromium (pid {pid}) got {leak}: {env}");
        }
    }
}
