//! Retention through a real `sitescan serve`: with `SITESCAN_RETENTION_DAYS`, the purge timer
//! deletes the scans past the period with their findings; the API then answers 404 for them and
//! lists none of their findings, while each target's newest scan and a scan still queued stay;
//! the webhook delivery log past the period goes with them.

use crate::app::spawn_app;
use crate::process::{free_port, sitescan_with_env, wait_ready};
use sea_orm::ConnectionTrait;
use sitescan::model::{Finding, Severity};
use std::time::{Duration, Instant};

const DAY_US: i64 = 86_400_000_000;

fn finding(check: &str) -> Finding {
    Finding {
        check_id: check.into(),
        severity: Severity::Medium,
        title: "A finding".into(),
        description: "d".into(),
        remediation: "r".into(),
        cwe_id: None,
        evidence: serde_json::Map::new(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scans_past_the_retention_period_leave_with_their_findings_and_each_targets_newest_stays() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let now = sitescan_store::time::now_us();
    // (target, status, age in days): two old scans of a.test and its recent one; b.test scanned
    // once, long ago; c.test queued long ago and never run.
    let mut ids = Vec::new();
    for (target, status, days) in [
        ("https://a.test/", "completed", 90),
        ("https://a.test/", "failed", 60),
        ("https://a.test/", "completed", 2),
        ("https://b.test/", "completed", 90),
        ("https://c.test/", "queued", 90),
    ] {
        let scan = app.seed_scan("acme", target).await;
        app.store
            .conn()
            .execute_raw(app.store.stmt(
                "UPDATE scans SET status = $1, created_at = $2 WHERE id = $3",
                vec![status.into(), (now - days * DAY_US).into(), scan.id.into()],
            ))
            .await
            .unwrap();
        app.seed_findings(scan.id, "acme", &[finding("search.title-missing"), finding("links.broken-internal")]).await;
        ids.push(scan.id);
    }
    let (old, old_failed, recent, only_b, queued) = (ids[0], ids[1], ids[2], ids[3], ids[4]);
    // A webhook endpoint's delivery log: a message delivered 90 days ago and one yesterday, an
    // attempt logged for each.
    let endpoint = uuid::Uuid::now_v7();
    let events = vec!["scan.completed".to_string()];
    app.store.add_webhook_within(endpoint, "acme", "http://127.0.0.1:9/hook", "standard", &events, None, "x2:unused", now, 100).await.unwrap().unwrap();
    let mut messages = Vec::new();
    for days in [90, 1] {
        let at = now - days * DAY_US;
        let message = format!("msg_{days}");
        app.store.enqueue_webhook(endpoint, &message, "scan.completed", "{}", at).await.unwrap();
        app.store
            .conn()
            .execute_raw(app.store.stmt("UPDATE webhook_outbox SET state = 'delivered' WHERE message_id = $1", vec![message.clone().into()]))
            .await
            .unwrap();
        app.store.log_webhook_delivery(uuid::Uuid::now_v7(), endpoint, 1, Some(204), 5, None, at).await.unwrap();
        messages.push(message);
    }
    assert_eq!(app.get("/api/v1/findings?limit=200", &token).await.json["findings"].as_array().unwrap().len(), 10);

    // The server's own timer, every second, keeping 30 days.
    let listen = format!("127.0.0.1:{}", free_port());
    let server = sitescan_with_env(
        &["serve", "--no-workers", "--listen", &listen, "--database", &app.db_url],
        &[("SITESCAN_CLEANUP_INTERVAL_SECS", "1"), ("SITESCAN_RETENTION_DAYS", "30")],
    );
    wait_ready(&format!("http://{listen}/healthz"), Duration::from_secs(30)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while app.get(&format!("/api/v1/scans/{old}"), &token).await.status != 404 {
        assert!(Instant::now() < deadline, "the old scan is still there after 30 s; server log:\n{}", server.tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for gone in [old, old_failed] {
        assert_eq!(app.get(&format!("/api/v1/scans/{gone}"), &token).await.status, 404, "{gone} deleted");
    }
    for kept in [recent, only_b, queued] {
        assert_eq!(app.get(&format!("/api/v1/scans/{kept}"), &token).await.status, 200, "{kept} kept");
    }
    let findings = app.get("/api/v1/findings?limit=200", &token).await.json;
    let scans: std::collections::BTreeSet<String> =
        findings["findings"].as_array().unwrap().iter().map(|f| f["scan_id"].as_str().unwrap().to_string()).collect();
    let kept: std::collections::BTreeSet<String> = [recent, only_b, queued].iter().map(ToString::to_string).collect();
    assert_eq!(scans, kept, "only the kept scans' findings are listed");
    assert!(server.tail().contains("deleted scans past the retention period"), "{}", server.tail());
    let deadline = Instant::now() + Duration::from_secs(30);
    while app.store.webhook_deliveries(endpoint).await.unwrap().len() != 1 {
        assert!(Instant::now() < deadline, "the old delivery attempt is still logged after 30 s; server log:\n{}", server.tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(app.store.webhook_deliveries(endpoint).await.unwrap()[0].created_at > now - 2 * DAY_US, "yesterday's attempt stays");
    let left = app
        .store
        .conn()
        .query_all_raw(app.store.stmt("SELECT message_id FROM webhook_outbox WHERE endpoint_id = $1", vec![endpoint.into()]))
        .await
        .unwrap()
        .iter()
        .map(|r| r.try_get::<String>("", "message_id").unwrap())
        .collect::<Vec<_>>();
    assert_eq!(left, [messages[1].clone()], "the delivered message past the period goes");
    drop(server);
}
