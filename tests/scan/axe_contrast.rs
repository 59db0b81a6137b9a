//! The AAA contrast verdicts that `browser/axe_contrast.js` settles from axe's AA run are axe's
//! own: on pages of edge cases, in real Chromium, the scripts the scanner embeds give the same
//! violations and incomplete results (every rule, every node, every message) as the same run
//! with axe's `color-contrast-enhanced` rule doing its own pass.

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use futures::StreamExt;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const COMMON: &str = include_str!("../../browser/common.js");
const CONTRAST: &str = include_str!("../../browser/axe_contrast.js");
const RUN: &str = include_str!("../../browser/axe_run.js");
const SHARE: &str = include_str!("../../browser/axe_share.js");
/// The line of `axe_run.js` that installs the derivation.
const INSTALL: &str = "const contrast = installEnhancedContrast(window.axe);";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// As `crates/engine/src/browser/scripts.rs` composes it for a page judged in full: the helpers, the
/// derivation, the sharing (with nothing to share), the run.
fn script(derived: bool) -> String {
    assert!(RUN.contains(INSTALL), "axe_run.js no longer installs the derivation with `{INSTALL}`");
    let run = if derived { RUN.to_string() } else { RUN.replace(INSTALL, "const contrast = null;") };
    format!("(async () => {{\n{COMMON}\nconst SHARE = null;\n{CONTRAST}\n{SHARE}\n{run}\n}})()")
}

/// Evaluates `expr` (awaiting a promise) and returns its value.
async fn eval(page: &chromiumoxide::Page, expr: &str) -> Value {
    let params = EvaluateParams::builder().expression(expr).await_promise(true).return_by_value(true).build().unwrap();
    let result = tokio::time::timeout(Duration::from_secs(60), page.evaluate_expression(params)).await.expect("evaluates within 60 s").expect("evaluates");
    result.value().cloned().unwrap_or(Value::Null)
}

/// Each rule's violations and incomplete nodes of one axe run, as `rule|kind|target|impact|summary`.
fn lines(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for kind in ["violations", "incomplete"] {
        for rule in report[kind].as_array().expect("rules") {
            for node in rule["nodes"].as_array().expect("nodes") {
                out.push(format!(
                    "{}|{kind}|{}|{}|{}|{}",
                    rule["id"].as_str().unwrap(),
                    node["target"].as_str().unwrap(),
                    node["impact"],
                    node["html"],
                    node["failure_summary"]
                ));
            }
        }
    }
    out
}

#[tokio::test]
async fn aaa_contrast_from_the_aa_run_is_what_axes_own_rule_reports() {
    let chromium = sitescan::browser::find_chromium(None).expect("Chromium: run `bash scripts/setup.sh`");
    let profile = tempfile::tempdir().unwrap();
    let mut config = BrowserConfig::builder()
        .chrome_executable(&chromium)
        .no_sandbox()
        .user_data_dir(profile.path())
        .window_size(1280, 900)
        .viewport(None)
        .args(["disable-gpu", "no-first-run", "disable-background-networking", "disable-component-update", "hide-scrollbars", "proxy-server=127.0.0.1:9"])
        .env("TMPDIR", profile.path().to_string_lossy());
    if !chromium.to_string_lossy().contains("headless-shell") {
        config = config.new_headless_mode();
    }
    let (mut browser, mut handler) = tokio::time::timeout(Duration::from_secs(30), Browser::launch(config.build().unwrap()))
        .await
        .expect("Chromium starts within 30 s")
        .expect("Chromium starts");
    let events = tokio::spawn(async move { while handler.next().await.is_some() {} });
    let axe = std::fs::read_to_string(repo().join("browser/node_modules/axe-core/axe.min.js")).expect("axe-core: run `bash scripts/setup.sh`");
    let inject = format!("(function (define, module, exports) {{\n{axe}\n}}).call(window, undefined, undefined, undefined); String(typeof window.axe)");

    let pages: [(&Path, &[&str]); 3] = [
        (
            Path::new("tests/fixtures/axe-contrast/edges.html"),
            &["#fail-aaa", "#near-seven", "#large", "#filled-input", "#shadow-0"],
        ),
        (Path::new("tests/fixtures/sites/interact/a11y/contrast-aaa.html"), &["#aa-grey", "#near-aaa", "#large-grey", "#shadow-grey"]),
        (Path::new("tests/fixtures/sites/interact/a11y/contrast-aaa-good.html"), &[]),
    ];
    for (file, failing) in pages {
        let url = format!("file://{}", repo().join(file).display());
        let page = browser.new_page(url.as_str()).await.expect("page opens");
        tokio::time::timeout(Duration::from_secs(30), page.wait_for_navigation()).await.expect("loads within 30 s").expect("loads");
        assert_eq!(eval(&page, &inject).await, "object", "axe-core loads");
        // The derivation installs on the embedded axe (else the rule would silently run as axe
        // defines it and this comparison would prove nothing).
        let installs = eval(&page, &format!("(() => {{ {CONTRAST}\n const c = installEnhancedContrast(window.axe); if (c) c.restore(); return c !== null; }})()")).await;
        assert_eq!(installs, true, "installEnhancedContrast accepts axe-core {}", sitescan::browser::axe_version());

        let own: Value = serde_json::from_str(eval(&page, &script(false)).await.as_str().expect("JSON text")).unwrap();
        let derived: Value = serde_json::from_str(eval(&page, &script(true)).await.as_str().expect("JSON text")).unwrap();
        let (own, derived) = (lines(&own), lines(&derived));
        let aaa: Vec<&String> = own.iter().filter(|l| l.starts_with("color-contrast-enhanced|violations|")).collect();
        for selector in failing {
            assert!(
                aaa.iter().any(|l| l.split('|').nth(2) == Some(*selector)),
                "{}: axe's own AAA rule fails {selector}:\n{aaa:#?}",
                file.display()
            );
        }
        if failing.is_empty() {
            assert!(aaa.is_empty(), "{}: nothing fails AAA:\n{aaa:#?}", file.display());
        }
        let missing: Vec<&String> = own.iter().filter(|l| !derived.contains(l)).collect();
        let extra: Vec<&String> = derived.iter().filter(|l| !own.contains(l)).collect();
        assert!(missing.is_empty() && extra.is_empty(), "{}: derived run differs from axe's own\nmissing: {missing:#?}\nextra: {extra:#?}", file.display());
        assert_eq!(own, derived, "{}: same results in the same order", file.display());
        page.close().await.ok();
    }
    let _ = browser.close().await;
    let _ = browser.wait().await;
    events.abort();
}
