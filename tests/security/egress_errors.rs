//! Errors say what, not where: a site whose name resolves into a private network, or to a cloud
//! metadata address, is refused with the kind of range ("db-primary.corp resolves to a private
//! address"), never the address it resolved to (that would map the network from outside). An IP
//! literal the user typed is theirs and is echoed. The clouds' metadata addresses are refused
//! even when the operator's allow-list covers them.

use crate::app::{AppOptions, spawn_app_with};
use crate::dashboard_client::{PASSWORD, Web, redirect_to};
use serde_json::json;
use sitescan::accounts::{Role, users};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ownership_check_names_the_range_a_site_resolves_to_never_the_address() {
    let app = spawn_app_with(
        AppOptions::default()
            .allow_target("169.254.0.0/16")
            .host("db-primary.corp", "10.20.30.40")
            .host("imds.acme.test", "169.254.169.254")
            .host("wire.acme.test", "168.63.129.16"),
    )
    .await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    let mut web = Web::new(&app);
    redirect_to(&web.login("owner@acme.test", PASSWORD).await, "/");
    assert_eq!(web.get("/sites").await.status.as_u16(), 200);

    for (host, addr, range) in [
        ("db-primary.corp", "10.20.30.40", "a private address"),
        // The allow-list covers 169.254.0.0/16, and still the metadata address is refused.
        ("imds.acme.test", "169.254.169.254", "a cloud metadata address"),
        ("wire.acme.test", "168.63.129.16", "a cloud metadata address"),
    ] {
        let added = web.post("/sites", &[("url", &format!("http://{host}/"))]).await;
        assert_eq!(added.status.as_u16(), 303, "{host}: {}", added.text);
        let path = added.header("location").trim_end_matches("?done=added").to_string();
        let failed = web.post(&format!("{path}/verify"), &[]).await;
        assert_eq!(failed.status.as_u16(), 400, "{host}: {}", failed.text);
        let said = format!("{host} resolves to {range}");
        assert!(failed.text.contains(&said), "{host}: the page says {said:?}: {}", failed.text);
        assert!(!failed.text.contains(addr), "{host}: the page never shows {addr}: {}", failed.text);
        // The site page afterwards shows no address either.
        let shown = web.get(&path).await; // (and the form's CSRF token for the next site)
        assert!(!shown.text.contains(addr), "{host}: {}", shown.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_allow_list_opens_a_cloud_metadata_address_to_a_scan() {
    let app = spawn_app_with(AppOptions::default().allow_target("169.254.0.0/16").allow_target("168.63.129.0/24").allow_target("::/0")).await;
    let token = app.token("acme").await;
    for (target, echoed) in [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://168.63.129.16/machine", "168.63.129.16"),
        ("http://[fd00:ec2::254]/latest/api/token", "fd00:ec2::254"),
        ("http://169.254.170.2/v2/credentials", "169.254.170.2"),
    ] {
        let r = app.post("/api/v1/scans", &token, &json!({ "target": target }).to_string()).await;
        r.expect(400);
        assert_eq!(r.json["error"], "invalid_input", "{target}: {}", r.text);
        let message = r.json["message"].as_str().unwrap();
        // The user typed the address: it is echoed, with what it is.
        assert!(message.contains(echoed) && message.contains("a cloud metadata address"), "{target}: {message}");
    }
    // The allow-list still opens what it names otherwise.
    app.post("/api/v1/scans", &token, &json!({ "target": "http://169.254.1.1/" }).to_string()).await.expect(201);
    assert_eq!(app.count_scans().await, 1);
}
