//! The conformance target on the dashboard: an owner sets a site's level on the site page (a
//! level that is none is refused and changes nothing), the site's next scans take it, and the
//! scan form's own choice comes first and is kept when the form is refused.

use crate::dashboard_client::{app_with_owner, owner, page, redirect_to};
use sitescan::model::Level;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_sets_the_sites_level_and_its_scans_take_it() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let now = sitescan_store::time::now_us();
    let site = app.store.add_site("acme", "https://shop.example.com", "shop.example.com", "Level_Token_0123456789abcdef", "t", now).await.unwrap().unwrap();
    let path = format!("/sites/{}", site.id);
    let shown = web.get(&path).await;
    page(&shown, 200);
    assert!(shown.text.contains("<strong>WCAG 2.2 AA</strong> (the default)"), "the default is said");

    // A level that is none: refused, nothing stored.
    let refused = web.post(&format!("{path}/level"), &[("level", "AAAA")]).await;
    page(&refused, 400);
    assert!(refused.text.contains("The conformance target was not saved") && refused.text.contains("is not a conformance level"), "{}", refused.text);
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().level, None);
    // Without the CSRF token: refused.
    assert_eq!(web.post_raw(&format!("{path}/level"), &[("level", "AAA")]).await.status.as_u16(), 403);
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().level, None);

    redirect_to(&web.post(&format!("{path}/level"), &[("level", "AAA")]).await, &format!("{path}?done=level#level"));
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().level(), Some(Level::AAA));
    let shown = web.get(&format!("{path}?done=level")).await;
    assert!(shown.text.contains("The conformance target was saved") && shown.text.contains("<strong>WCAG 2.2 AAA</strong>"), "{}", shown.text);
    assert!(shown.text.contains("<option value=\"AAA\" selected>"), "the form shows the stored level");

    // A scan of the site's origin from the scan form takes the site's level; one that names its
    // own keeps it.
    let started = web.post("/scans", &[("target", "https://shop.example.com/cart"), ("level", "")]).await;
    assert_eq!(started.status.as_u16(), 303, "{}", started.text);
    let own = web.post("/scans", &[("target", "https://shop.example.com/"), ("level", "A")]).await;
    assert_eq!(own.status.as_u16(), 303, "{}", own.text);
    let mut levels: Vec<Option<Level>> = Vec::new();
    for r in [&started, &own] {
        let location = r.headers.get("location").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        let id: uuid::Uuid = location.trim_start_matches("/scans/").parse().expect("a scan's page");
        levels.push(app.store.scan("acme", id).await.unwrap().unwrap().level);
    }
    assert_eq!(levels, [Some(Level::AAA), Some(Level::A)]);

    // A refused scan form keeps its level choice.
    let bad = web.post("/scans", &[("target", "https://shop.example.com/"), ("level", "AAAAA")]).await;
    page(&bad, 400);
    assert!(bad.text.contains("This conformance target cannot be used"), "{}", bad.text);

    // Back to the default.
    redirect_to(&web.post(&format!("{path}/level"), &[("level", "")]).await, &format!("{path}?done=level#level"));
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().level, None);
}
