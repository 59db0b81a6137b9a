//! The scans table as a job queue, on SQLite and PostgreSQL: no double claims between workers
//! (each with its own connection pool, as separate processes would have), lease expiry hands a
//! scan to another worker, exhausted retries fail the scan, lost leases refuse completion.

use crate::app;

use sitescan::model::{ReportSummary, ScanMode, Target, TriggeredBy};
use sitescan_store::{CreateOutcome, Store};
use std::collections::HashSet;
use std::time::Duration;

async fn queue(store: &Store, n: usize) -> Vec<uuid::Uuid> {
    store.set_org("jobs", Some(10_000)).await.unwrap();
    let target = Target::parse("https://example.com/", &Default::default()).unwrap();
    let mut ids = Vec::new();
    for _ in 0..n {
        match store.create_scan("jobs", &target, ScanMode::Passive, TriggeredBy::Api, None).await.unwrap() {
            CreateOutcome::Created(row) => ids.push(row.id),
            CreateOutcome::QuotaExceeded(_) => panic!("quota"),
        }
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_workers_never_claim_the_same_scan() {
    let app = app::spawn_app().await;
    let ids = queue(&app.store, 40).await;
    // Four workers, each with its own pool (as four processes would have).
    let mut tasks = Vec::new();
    for w in 0..4 {
        let url = app.db_url.clone();
        tasks.push(tokio::spawn(async move {
            let store = Store::open(&url, false).await.unwrap();
            let owner = format!("worker-{w}");
            let mut mine = Vec::new();
            while let Some(scan) = store.claim_scan(&owner, Duration::from_secs(60), 3).await.unwrap() {
                assert_eq!(scan.status.as_str(), "running");
                assert_eq!(scan.lease_owner.as_deref(), Some(owner.as_str()));
                assert!(scan.started_at.is_some());
                mine.push(scan.id);
            }
            mine
        }));
    }
    let mut claimed = Vec::new();
    for t in tasks {
        claimed.extend(t.await.unwrap());
    }
    let unique: HashSet<_> = claimed.iter().collect();
    assert_eq!(claimed.len(), ids.len(), "every scan claimed exactly once");
    assert_eq!(unique.len(), ids.len());
}

#[tokio::test]
async fn an_expired_lease_is_claimed_again_and_the_old_owner_cannot_finish() {
    let app = app::spawn_app().await;
    let ids = queue(&app.store, 1).await;
    let store = &app.store;
    let first = store.claim_scan("dead-worker", Duration::from_millis(200), 3).await.unwrap().unwrap();
    assert_eq!(first.id, ids[0]);
    assert_eq!(first.attempts, 1);
    // Live lease: nobody else gets it.
    assert!(store.claim_scan("other", Duration::from_secs(60), 3).await.unwrap().is_none());
    tokio::time::sleep(Duration::from_millis(350)).await;
    let second = store.claim_scan("other", Duration::from_secs(60), 3).await.unwrap().unwrap();
    assert_eq!(second.id, ids[0]);
    assert_eq!(second.attempts, 2);
    assert_eq!(second.started_at, first.started_at, "started_at is set on the first claim only");
    // The dead worker woke up: its lease is gone, it can neither renew nor complete.
    assert!(!store.renew_lease(first.id, "dead-worker", Duration::from_secs(60)).await.unwrap());
    let report = sitescan::model::StoredReport::of(ReportSummary::empty());
    assert!(!store.complete_scan(first.id, "dead-worker", &report).await.unwrap());
    assert!(store.complete_scan(first.id, "other", &report).await.unwrap());
    let done = store.scan_any_org(first.id).await.unwrap().unwrap();
    assert_eq!(done.status.as_str(), "completed");
    assert!(done.completed_at.is_some());
    assert!(done.lease_owner.is_none());
}

#[tokio::test]
async fn a_scan_that_keeps_losing_its_worker_fails_with_a_reason() {
    let app = app::spawn_app().await;
    let ids = queue(&app.store, 1).await;
    let store = &app.store;
    for attempt in 1..=2 {
        let s = store.claim_scan(&format!("w{attempt}"), Duration::from_millis(50), 2).await.unwrap().unwrap();
        assert_eq!(s.attempts, attempt);
        tokio::time::sleep(Duration::from_millis(120)).await;
    }
    // The third claim exceeds max_attempts = 2: the scan is failed, nothing is handed out.
    assert!(store.claim_scan("w3", Duration::from_secs(60), 2).await.unwrap().is_none());
    let failed = store.scan_any_org(ids[0]).await.unwrap().unwrap();
    assert_eq!(failed.status.as_str(), "failed");
    let report: serde_json::Value = serde_json::from_str(failed.report.as_deref().unwrap()).unwrap();
    assert_eq!(report["summary"]["error"]["code"], "retries_exhausted");
    assert!(failed.completed_at.is_some());
}

#[tokio::test]
async fn a_released_scan_goes_back_to_the_queue() {
    let app = app::spawn_app().await;
    let ids = queue(&app.store, 1).await;
    let store = &app.store;
    let s = store.claim_scan("w1", Duration::from_secs(60), 3).await.unwrap().unwrap();
    assert!(store.release_scan(s.id, "w1").await.unwrap());
    let again = store.claim_scan("w2", Duration::from_secs(60), 3).await.unwrap().unwrap();
    assert_eq!(again.id, ids[0]);
    assert_eq!(again.attempts, 1, "a release does not count as a failed attempt");
}

async fn queue_for(store: &Store, org: &str, n: usize) -> Vec<uuid::Uuid> {
    store.set_org(org, Some(10_000)).await.unwrap();
    let target = Target::parse(&format!("https://{org}.example.com/"), &Default::default()).unwrap();
    let mut ids = Vec::new();
    for _ in 0..n {
        match store.create_scan(org, &target, ScanMode::Passive, TriggeredBy::Api, None).await.unwrap() {
            CreateOutcome::Created(row) => ids.push(row.id),
            CreateOutcome::QuotaExceeded(_) => panic!("quota"),
        }
    }
    ids
}

/// Organisation A floods the queue, then B queues one scan: B's scan is the next one claimed
/// after A's first, not after all of A's (round-robin across organisations, one worker).
#[tokio::test]
async fn one_organisations_backlog_does_not_hold_back_anothers_scan() {
    let app = app::spawn_app().await;
    let store = &app.store;
    let flood = queue_for(store, "flood", 30).await;
    let single = queue_for(store, "single", 1).await;
    let mut order = Vec::new();
    while let Some(scan) = store.claim_scan("w", Duration::from_secs(60), 3).await.unwrap() {
        order.push(scan.id);
        assert!(store.complete_scan(scan.id, "w", &sitescan::model::StoredReport::of(ReportSummary::empty())).await.unwrap());
    }
    assert_eq!(order.len(), 31, "every scan claimed once");
    assert_eq!(order[0], flood[0], "the oldest scan goes first");
    assert_eq!(order[1], single[0], "the other organisation's scan is next, not 30th");
    assert_eq!(&order[2..], &flood[1..], "each organisation's own scans keep their order");
}

/// With a cap, an organisation's running scans never exceed it, and the others' are claimed.
#[tokio::test]
async fn the_cap_on_running_scans_per_organisation_holds_across_workers() {
    let app = app::spawn_app().await;
    let store = &app.store;
    queue_for(store, "big", 10).await;
    let small = queue_for(store, "small", 2).await;
    let mut claimed = Vec::new();
    for w in 0..8 {
        if let Some(scan) = store.claim_scan_fair(&format!("w{w}"), Duration::from_secs(60), 3, 3).await.unwrap() {
            claimed.push(scan);
        }
    }
    let big_running = claimed.iter().filter(|s| s.org_id == "big").count();
    let small_running: Vec<_> = claimed.iter().filter(|s| s.org_id == "small").map(|s| s.id).collect();
    assert_eq!(big_running, 3, "big stops at its cap of 3");
    assert_eq!(small_running, small, "small's scans are claimed too");
    assert_eq!(claimed.len(), 5, "the other workers find nothing they may claim");
    // One of big's scans ends: its next one may run.
    let done = claimed.iter().find(|s| s.org_id == "big").unwrap();
    assert!(store.complete_scan(done.id, &done.lease_owner.clone().unwrap(), &sitescan::model::StoredReport::of(ReportSummary::empty())).await.unwrap());
    let next = store.claim_scan_fair("w9", Duration::from_secs(60), 3, 3).await.unwrap().expect("big has room again");
    assert_eq!(next.org_id, "big");
    assert!(store.claim_scan_fair("w10", Duration::from_secs(60), 3, 3).await.unwrap().is_none());
}
