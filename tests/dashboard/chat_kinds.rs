//! `/settings/webhooks` with kinds, over real HTTP: the add form offers each kind; a chat
//! endpoint is added without a signing secret to show and listed with its kind and its URL
//! shortened (the platform's secret is in it); an unknown kind is refused with a form error and
//! adds nothing; a standard endpoint still shows its secret once.

use crate::dashboard_client::{PASSWORD, Web, count, page, redirect_to};
use sitescan::accounts::{Role, users};

const SLACK_URL: &str = "http://127.0.0.1:9/services/T000/B000/XXXXSECRETXXXX";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_picks_a_kind_and_the_list_shows_it() {
    let app = crate::app::spawn_app_with(crate::app::AppOptions::default().allow_target("127.0.0.0/8")).await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    let mut web = Web::new(&app);
    redirect_to(&web.login("owner@acme.test", PASSWORD).await, "/");
    let form = web.get("/settings/webhooks").await;
    page(&form, 200);
    assert!(form.text.contains(r#"<select id="hook-kind" name="kind">"#), "{}", form.text);
    for (value, label) in [("standard", "Standard Webhooks"), ("slack", "Slack"), ("teams", "Microsoft Teams"), ("discord", "Discord"), ("google-chat", "Google Chat")] {
        assert!(form.text.contains(&format!(r#"<option value="{value}""#)) && form.text.contains(label), "{value}");
    }

    let unknown = web.post("/settings/webhooks", &[("url", SLACK_URL), ("kind", "msteams"), ("events", "scan.completed"), ("min_severity", "high")]).await;
    page(&unknown, 400);
    assert!(unknown.text.contains("Choose a kind from the list."), "{}", unknown.text);
    assert_eq!(count(&app, "webhook_endpoints").await, 0, "nothing added");

    let slack = web.post("/settings/webhooks", &[("url", SLACK_URL), ("kind", "slack"), ("events", "scan.regressed"), ("min_severity", "high")]).await;
    page(&slack, 201);
    assert!(!slack.text.contains("id=\"secret-value\""), "no signing secret for a chat endpoint");
    assert!(slack.text.contains("The Slack endpoint was added"), "{}", slack.text);
    let listed = web.get("/settings/webhooks").await;
    assert!(listed.text.contains("Kind: Slack;"), "{}", listed.text);
    assert!(listed.text.contains("http://127.0.0.1:9/services/…"), "the URL shortened: {}", listed.text);
    assert!(!listed.text.contains("XXXXSECRETXXXX"), "the platform's secret is not shown");
    let row = app.store.list_webhooks("acme").await.unwrap().pop().unwrap();
    assert_eq!((row.kind.as_str(), row.url.as_str()), ("slack", "http://127.0.0.1:9/services/…"), "only the short form in the clear");
    assert!(!row.secret_enc.contains("XXXXSECRETXXXX"), "the whole URL is sealed");

    let standard = web.post("/settings/webhooks", &[("url", "http://127.0.0.1:9/hook"), ("kind", "standard"), ("events", "scan.completed"), ("min_severity", "high")]).await;
    page(&standard, 201);
    assert!(standard.text.contains("id=\"secret-value\" class=\"secret\">whsec_"), "a standard endpoint shows its secret once");
    let listed = web.get("/settings/webhooks").await;
    assert!(listed.text.contains("Kind: Standard Webhooks (signed JSON);") && listed.text.contains("http://127.0.0.1:9/hook"));
    assert_eq!(count(&app, "webhook_endpoints").await, 2);
}
