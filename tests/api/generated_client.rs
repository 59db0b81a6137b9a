//! A client generated from the served OpenAPI document (openapi-python-client, from PyPI, into
//! `.tools/venv` by `scripts/setup.sh`), unmodified, reads a site's history and two scans
//! compared from a live server: what users of other languages get from the document alone.

use crate::app;

use app::spawn_app;
use sitescan::model::Severity::{High, Medium};
use std::process::Command;

const VENV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/venv/bin");

const SCRIPT: &str = r#"
import json, sys
from sitescan_client import AuthenticatedClient
from sitescan_client.api.default import list_scan_history, compare_scans
from sitescan_client.models import ScanHistory, ScanComparison, Error

base_url, token, base, head = sys.argv[1:5]
client = AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
page = list_scan_history.sync(client=client, target="shop.example.com", limit=1)
assert isinstance(page, ScanHistory), page
rest = list_scan_history.sync(client=client, target="shop.example.com", limit=1, cursor=page.next_cursor)
diff = compare_scans.sync(client=client, base=base, head=head)
assert isinstance(diff, ScanComparison), diff
bad = compare_scans.sync(client=client, base=base, head=base.replace(base[:8], "00000000"))
print(json.dumps({
    "origin": page.origin,
    "history": [str(s.scan_id) for s in page.scans + rest.scans],
    "medium": page.scans[0].findings_count.medium,
    "lcp_p75_ms": rest.scans[0].lcp_p75_ms,
    "categories": page.scans[0].categories.to_dict(),
    "last_cursor": rest.next_cursor,
    "counts": [diff.counts.new, diff.counts.fixed, diff.counts.persisting],
    "new": [(g.check_id, g.severity.value if hasattr(g.severity, "value") else g.severity, g.count, [f.locator for f in g.findings]) for g in diff.new],
    "pages_added": diff.pages_added,
    "lcp": [diff.vitals[0].lcp_ms.base, diff.vitals[0].lcp_ms.head],
    "not_found": isinstance(bad, Error) and bad.error,
}))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_generated_from_the_served_document_reads_history_and_compare() {
    let generator = format!("{VENV}/openapi-python-client");
    assert!(std::path::Path::new(&generator).exists(), "openapi-python-client is missing: run `bash scripts/setup.sh` (it installs it from PyPI into .tools/venv)");
    let app = spawn_app().await;
    let target = "https://shop.example.com/";
    let base = app.completed_scan("acme", target, &[("/", 1200.0)], &[("search.title-missing", "/", "", High)]).await;
    let head = app.completed_scan("acme", target, &[("/", 3100.0), ("/new", 800.0)], &[("accessibility.image-alt", "/", "img.logo", Medium)]).await;
    let token = app.token("acme").await;

    let dir = tempfile::tempdir().unwrap();
    let document = app.call("GET", "/docs/api/openapi", None, None).await;
    document.expect(200);
    std::fs::write(dir.path().join("openapi.yaml"), &document.text).unwrap();
    let path = format!("{VENV}:{}", std::env::var("PATH").unwrap_or_default());
    let generated = Command::new(&generator)
        .args(["generate", "--path", "openapi.yaml", "--meta", "none", "--output-path", "sitescan_client"])
        .current_dir(dir.path())
        .env("PATH", &path)
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&generated.stdout), String::from_utf8_lossy(&generated.stderr));
    assert!(generated.status.success(), "the generator reads the served document: {said}");
    for module in ["list_scan_history.py", "compare_scans.py"] {
        assert!(dir.path().join("sitescan_client/api/default").join(module).exists(), "{module} generated: {said}");
    }

    let out = Command::new(format!("{VENV}/python"))
        .args(["-c", SCRIPT, &app.base, &token, &base.to_string(), &head.to_string()])
        .current_dir(dir.path())
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(out.status.success(), "the generated client: {}", String::from_utf8_lossy(&out.stderr));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(got["origin"], "https://shop.example.com");
    assert_eq!(got["history"], serde_json::json!([head.to_string(), base.to_string()]), "two pages of one each, newest first");
    assert_eq!(got["medium"], 1);
    assert_eq!(got["lcp_p75_ms"], 1200.0);
    assert_eq!(got["categories"], serde_json::json!({"accessibility": 1}));
    assert!(got["last_cursor"].is_null());
    assert_eq!(got["counts"], serde_json::json!([1, 1, 0]));
    assert_eq!(got["new"], serde_json::json!([["accessibility.image-alt", "medium", 1, ["img.logo"]]]));
    assert_eq!(got["pages_added"], serde_json::json!(["https://shop.example.com/new"]));
    let lcp: Vec<f64> = got["lcp"].as_array().unwrap().iter().filter_map(serde_json::Value::as_f64).collect();
    assert_eq!(lcp, [1200.0, 3100.0]);
    assert_eq!(got["not_found"], "not_found", "a refusal reads as the spec's error object");
}
