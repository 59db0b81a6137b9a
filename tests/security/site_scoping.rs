//! A site's dashboard page acts on that site only. An owner who posts another site's schedule or
//! monitor id to one site's removal form (the same organisation's other site, or another
//! organisation's) gets a 404 and nothing is removed. Through the real dashboard.

use crate::dashboard_client::*;
use sitescan::model::ScanMode;
use sitescan::recurring::{add_monitor, add_schedule};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sites_removal_forms_never_reach_another_sites_schedules_or_monitors() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let now = sitescan_store::time::now_us();
    let mut ids = Vec::new();
    for (org, origin) in [("acme", "https://shop.example.com"), ("acme", "https://blog.example.com"), ("rival", "https://rival.example.com")] {
        let site = app.store.add_site(org, origin, &origin[8..], "Scoping_Token_0123456789abcdef", "seed", now).await.expect("site").expect("new");
        app.store.record_site_verification(site.id, Ok("file"), now).await.expect("verified");
        let schedule = add_schedule(&app.store, org, origin, "0 3 * * *", None, ScanMode::Passive, None, now).await.expect("schedule");
        let monitor = add_monitor(&app.store, org, origin, 900, now).await.expect("monitor");
        ids.push((site.id, schedule.id, monitor.id));
    }
    let (shop, shop_schedule, shop_monitor) = ids[0];
    let path = format!("/sites/{shop}");
    page(&web.get(&path).await, 200);

    for (_, schedule, monitor) in &ids[1..] {
        page(&web.post(&format!("{path}/schedules/remove"), &[("id", &schedule.to_string())]).await, 404);
        page(&web.post(&format!("{path}/monitors/remove"), &[("id", &monitor.to_string())]).await, 404);
    }
    assert_eq!(count(&app, "schedules").await, 3, "no schedule removed through another site's page");
    assert_eq!(count(&app, "monitors").await, 3, "no monitor removed through another site's page");

    // The site's own ones go.
    redirect_to(&web.post(&format!("{path}/schedules/remove"), &[("id", &shop_schedule.to_string())]).await, &format!("{path}?done=schedule-removed#schedules"));
    redirect_to(&web.post(&format!("{path}/monitors/remove"), &[("id", &shop_monitor.to_string())]).await, &format!("{path}?done=monitor-removed#monitors"));
    assert_eq!(count(&app, "schedules").await, 2);
    assert_eq!(count(&app, "monitors").await, 2);
}
