//! Report bodies shaped exactly like `GET /api/v1/scans/{id}?include_findings=true`, built by
//! hand so the report tests depend on no registry entry and no browser.

#![allow(dead_code)]

use serde_json::{Value, json};

const SCAN_ID: &str = "0194b3c2-7d1e-7c40-9a51-2f0e8d6b1a01";

#[allow(clippy::too_many_arguments)]
fn finding(n: u32, check_id: &str, severity: &str, title: &str, description: &str, remediation: &str, cwe: Option<&str>, evidence: Value) -> Value {
    json!({
        "id": format!("0194b3c2-7d1e-7c40-9a51-{n:012}"),
        "scan_id": SCAN_ID,
        "check_id": check_id,
        "severity": severity,
        "title": title,
        "description": description,
        "evidence": evidence,
        "remediation": remediation,
        "cwe_id": cwe,
        "created_at": "2026-01-31T10:00:07.250000Z",
    })
}

fn categories(counts: &[(&str, &str, u64)]) -> Value {
    let mut cats = serde_json::Map::new();
    for c in sitescan::model::PASSIVE_CATEGORIES {
        cats.insert(c.to_string(), json!({"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0}));
    }
    for (cat, sev, n) in counts {
        let entry = cats.get_mut(*cat).expect("a passive category");
        entry[*sev] = json!(entry[*sev].as_u64().unwrap_or(0) + n);
    }
    Value::Object(cats)
}

/// A completed scan of three pages with findings in most categories: element-level findings
/// with selectors and snippets (one of them hostile markup), page-level ones with value and
/// limit, a site-level one on robots.txt, axe rules that are not in the registry, a CWE.
pub fn completed() -> Value {
    let findings = vec![
        finding(1, "accessibility.image-alt", "critical", "Images must have alternative text",
            "Ensure <img> elements have alternative text or a role of none or presentation",
            "Give every informative image an alt attribute that says what it shows; give decorative images alt=\"\".", None,
            json!({"url": "https://shop.example.com/", "selector": "main > .hero img", "snippet": "<img src=\"/img/hero.jpg\" class=\"hero-img\">",
                   "failure_summary": "Fix any of the following:\n  Element does not have an alt attribute\n  aria-label attribute does not exist or is empty",
                   "wcag": ["wcag2a", "wcag111"], "impact": "critical", "help_url": "https://dequeuniversity.com/rules/axe/4.14/image-alt?application=axeAPI"})),
        finding(2, "accessibility.color-contrast", "high", "Elements must meet minimum color contrast ratio thresholds",
            "Ensure the contrast between foreground and background colors meets WCAG 2 AA minimum contrast ratio thresholds",
            "Raise the contrast of the text against its background to at least 4.5:1 (3:1 for large text).", None,
            json!({"url": "https://shop.example.com/pricing", "selector": ".plan-card > .price-note", "snippet": "<p class=\"price-note\">Billed yearly</p>",
                   "failure_summary": "Fix any of the following:\n  Element has insufficient color contrast of 2.51 (foreground color: #9aa0a6, background color: #ffffff, font size: 10.5pt (14px), font weight: normal). Expected contrast ratio of 4.5:1",
                   "wcag": ["wcag2aa", "wcag143"], "impact": "serious", "help_url": "https://dequeuniversity.com/rules/axe/4.14/color-contrast?application=axeAPI"})),
        finding(3, "accessibility.color-contrast", "high", "Elements must meet minimum color contrast ratio thresholds",
            "Ensure the contrast between foreground and background colors meets WCAG 2 AA minimum contrast ratio thresholds",
            "Raise the contrast of the text against its background to at least 4.5:1 (3:1 for large text).", None,
            json!({"url": "https://shop.example.com/", "selector": "footer .legal", "snippet": "<small class=\"legal\">© 2026 Example Shop</small>",
                   "wcag": ["wcag2aa", "wcag143"], "impact": "serious", "help_url": "https://dequeuniversity.com/rules/axe/4.14/color-contrast?application=axeAPI"})),
        finding(4, "forms.password-over-http", "critical", "Password field on a page served over plain HTTP",
            "Passwords typed on an http:// page travel unencrypted and can be read or changed by anyone on the network path.",
            "Serve the page, and the form's action, over HTTPS only, and redirect http:// to https://.", Some("CWE-319"),
            json!({"url": "http://shop.example.com/login", "selector": "form#login input[type=password]", "snippet": "<input type=\"password\" name=\"pw\">"})),
        finding(5, "performance.lcp", "high", "Largest Contentful Paint is slow",
            "The largest element in the first viewport appears late: visitors wait for the page's main content.",
            "Serve the LCP image in a modern format at its rendered size, preload it, and cut render-blocking work before it.", None,
            json!({"url": "https://shop.example.com/", "value": 4820.5, "limit": 4000, "resource": "https://shop.example.com/img/hero.jpg"})),
        finding(6, "crawlability.robots-txt-unreachable", "high", "robots.txt answers with a server error",
            "Search engines treat a robots.txt that answers 5xx as \"disallow everything\" and stop crawling the site.",
            "Make /robots.txt answer 200 (with rules) or 404 (no rules); never 5xx.", None,
            json!({"url": "https://shop.example.com/robots.txt", "status": 503})),
        finding(7, "search.meta-description-missing", "medium", "Page has no meta description",
            "Search engines then pick a snippet from the page text, often a poor one.",
            "Add <meta name=\"description\" content=\"...\"> with 50 to 160 characters that summarise the page.", None,
            json!({"url": "https://shop.example.com/pricing"})),
        finding(8, "semantics.duplicate-id", "medium", "Two elements share an id",
            "Duplicate ids break label associations, ARIA references and in-page links.",
            "Give every element a unique id.", None,
            json!({"url": "https://shop.example.com/pricing", "selector": "#plan", "value": "plan", "snippet": "<div id=\"plan\"><script>alert('xss')</script></div>"})),
        finding(9, "runtime.console-error", "medium", "The page logs errors to the console",
            "Console errors usually mean a feature of the page is broken.",
            "Fix the script error the message names.", None,
            json!({"url": "https://shop.example.com/", "value": "Uncaught TypeError: Cannot read properties of undefined (reading 'price') \u{1b}[0m", "resource": "https://shop.example.com/app.js"})),
        finding(10, "search.title-length", "low", "Title is too short or too long",
            "Titles over 60 characters are cut in search results; very short ones say little.",
            "Write a title of 10 to 60 characters that names the page.", None,
            json!({"url": "https://shop.example.com/pricing", "value": 74, "limit": 60})),
        finding(11, "structured-data.none", "info", "The page carries no structured data",
            "Structured data lets search engines show rich results for products, articles and more.",
            "Describe the page's main entity in JSON-LD with schema.org types.", None,
            json!({"url": "https://shop.example.com/pricing"})),
    ];
    let counts = [
        ("accessibility", "critical", 1), ("accessibility", "high", 2), ("forms", "critical", 1), ("performance", "high", 1),
        ("crawlability", "high", 1), ("search", "medium", 1), ("semantics", "medium", 1), ("runtime", "medium", 1),
        ("search", "low", 1), ("structured-data", "info", 1),
    ];
    json!({
        "scan": {
            "id": SCAN_ID,
            "target_url": "https://shop.example.com/",
            "target_hostname": "shop.example.com",
            "mode": "passive",
            "status": "completed",
            "started_at": "2026-01-31T10:00:00.125000Z",
            "completed_at": "2026-01-31T10:00:08.525000Z",
            "findings_count": {"critical": 2, "high": 4, "medium": 3, "low": 1, "info": 1},
            "triggered_by": "manual",
            "created_at": "2026-01-31T09:59:59.900000Z",
        },
        "report": {
            "summary": {"pages_scanned": 3, "duration_ms": 8400, "categories": categories(&counts), "error": null},
            "pages": [
                {"url": "https://shop.example.com/", "final_url": "https://shop.example.com/", "status": 200, "title": "Example Shop: garden tools",
                 "metrics": {"ttfb_ms": 420.0, "fcp_ms": 1650.2, "lcp_ms": 4820.5, "cls": 0.02, "tbt_ms": 310.0, "transfer_bytes": 2_621_440, "requests": 64}, "error": null},
                {"url": "https://shop.example.com/pricing", "final_url": "https://shop.example.com/pricing/", "status": 200,
                 "title": "Pricing for every garden, from balcony boxes to allotments and market gardens",
                 "metrics": {"ttfb_ms": 1900.0, "fcp_ms": 2100.0, "lcp_ms": 2300.0, "cls": 0.31, "tbt_ms": 90.0, "transfer_bytes": 812_000, "requests": 131}, "error": null},
                {"url": "http://shop.example.com/login", "final_url": "http://shop.example.com/login", "status": 200, "title": "Sign in",
                 "metrics": {"ttfb_ms": 95.0, "fcp_ms": 380.0, "lcp_ms": null, "cls": 0.0, "tbt_ms": 0.0, "transfer_bytes": 48_200, "requests": 7}, "error": null},
            ],
            "findings": findings,
        }
    })
}

/// A scan that could not reach its target.
pub fn failed() -> Value {
    json!({
        "scan": {
            "id": "0194b3c2-7d1e-7c40-9a51-2f0e8d6b1a02",
            "target_url": "https://down.example.com/",
            "target_hostname": "down.example.com",
            "mode": "passive",
            "status": "failed",
            "started_at": "2026-01-31T11:00:00Z",
            "completed_at": "2026-01-31T11:00:03Z",
            "findings_count": {"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0},
            "triggered_by": "api",
            "created_at": "2026-01-31T10:59:59Z",
        },
        "report": {
            "summary": {"pages_scanned": 0, "duration_ms": 3100, "categories": categories(&[]),
                        "error": {"code": "target_unreachable", "message": "connection refused by 203.0.113.10:443 <after 3 attempts>"}},
            "pages": [],
            "findings": [],
        }
    })
}
