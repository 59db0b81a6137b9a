//! `--format html`: one self-contained, accessible HTML file.
//!
//! - Self-contained: inline CSS and one small inline script; no fonts, images, scripts or styles
//!   from anywhere else. The document's own Content-Security-Policy (`default-src 'none'`, the
//!   script allowed by its hash) makes sure of it, and keeps any markup that slipped through
//!   escaping from running.
//! - Contents: the scan (target, status, times, the failure reason of a failed scan), findings
//!   by category and severity, per-page metrics rated good / needs improvement / poor by the
//!   Core Web Vitals thresholds (rating written out, not only coloured), and the findings grouped
//!   by category then check, each with its evidence (page, element, value and limit, the rest),
//!   its HTML snippet and the remediation.
//! - Filtering by severity: checkboxes the script reveals and wires up. Without JavaScript every
//!   finding shows and no dead control is on the page.
//! - Accessibility: `lang`, a title, landmarks (header, nav, main, footer), headings h1 to h4 in
//!   order, labelled controls, table captions and header cells, text contrast of at least
//!   4.5:1 (the palette is tested), a visible focus outline.
//! - Escaping: every text from the report is escaped; links are made only of http(s) URLs.

use super::view::{FindingView, ReportPageView, ReportView, RuleView, category_rank, value_text};
use crate::model::{Change, ScanReport, ScanStatus, Severity};
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write;

/// Core Web Vitals thresholds: (good up to, needs improvement up to); above is poor.
pub const LCP_MS: (f64, f64) = (2500.0, 4000.0);
pub const CLS: (f64, f64) = (0.1, 0.25);
pub const TBT_MS: (f64, f64) = (200.0, 600.0);
pub const FCP_MS: (f64, f64) = (1800.0, 3000.0);
pub const TTFB_MS: (f64, f64) = (800.0, 1800.0);
/// Page weight rated as `performance.page-weight` judges it (2 MiB, 4 MiB).
pub const WEIGHT_BYTES: (f64, f64) = (2.0 * 1024.0 * 1024.0, 4.0 * 1024.0 * 1024.0);
/// Requests rated as `performance.request-count` judges them (more than 100 needs improvement).
pub const REQUESTS: (f64, f64) = (100.0, f64::INFINITY);

/// Colours (foreground, background) the stylesheet uses for text; each pair has a contrast
/// ratio of at least 4.5:1 (tested).
pub const TEXT_COLOURS: &[(&str, &str)] = &[
    ("#1b1f24", "#ffffff"),
    ("#1b1f24", "#f6f7f9"),
    ("#4a5560", "#ffffff"),
    ("#4a5560", "#f6f7f9"),
    ("#0a4fb4", "#ffffff"),
    ("#0a4fb4", "#f6f7f9"),
    ("#ffffff", "#7f1010"),
    ("#ffffff", "#b42318"),
    ("#ffffff", "#8a4b00"),
    ("#ffffff", "#1d5f8c"),
    ("#ffffff", "#4a5560"),
    ("#0f5f2b", "#e3f4e8"),
    ("#7a4100", "#fff1d6"),
    ("#a01818", "#fde7e7"),
    ("#1b1f24", "#f1f3f5"),
    ("#ffffff", "#1b2a3a"),
    ("#c9d4df", "#1b2a3a"),
    ("#7a1212", "#fdecec"),
];

/// The document's own layout: page, header, main and footer (the standalone report only).
const DOCUMENT_STYLE: &str = r#"
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1b1f24;background:#f6f7f9}
a{color:#0a4fb4}
a:focus-visible,input:focus-visible,[tabindex]:focus-visible{outline:3px solid #0a4fb4;outline-offset:2px;border-radius:2px}
.skip{position:absolute;left:1rem;top:-3rem;background:#1b2a3a;color:#fff;padding:.5rem 1rem;z-index:1}
.skip:focus{top:.5rem;color:#fff}
header.top{background:#1b2a3a;color:#fff;padding:1.25rem 1.5rem}
header.top .brand{margin:0;font-size:.85rem;letter-spacing:.08em;text-transform:uppercase;color:#c9d4df}
header.top h1{margin:.25rem 0 0;font-size:1.6rem;line-height:1.25;overflow-wrap:anywhere}
main{max-width:78rem;margin:0 auto;padding:1rem 1.5rem 2rem}
footer.bottom{max-width:78rem;margin:0 auto;padding:0 1.5rem 2rem;font-size:.875rem;color:#4a5560;overflow-wrap:anywhere}
@media (max-width:600px){header.top{padding:1rem}header.top h1{font-size:1.25rem}main{padding:.5rem .75rem 1.5rem}}
@media print{.skip{display:none}body{background:#fff}}
"#;

/// The report's content: sections, tables, findings (also the dashboard's `/assets/report.css`).
pub const CONTENT_STYLE: &str = r#"
nav.sections{background:#fff;border-bottom:1px solid #d0d7de;padding:.5rem 1.5rem}
nav.sections ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:1.25rem}
section.block{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1rem 1.25rem;margin:1.25rem 0}
h2{font-size:1.35rem;margin:.25rem 0 .75rem}
h3{font-size:1.15rem;margin:1.5rem 0 .5rem;padding-bottom:.25rem;border-bottom:2px solid #d0d7de}
h4{font-size:1rem;margin:0 0 .25rem}
.muted{color:#4a5560}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.failed{border-color:#b42318;background:#fdecec;color:#7a1212}
.failed h2{color:#7a1212}
.not-run{border-left:4px solid #8a4b00;background:#fff1d6;color:#7a4100;padding:.5rem .75rem;margin:.75rem 0;overflow-wrap:anywhere}
.not-run ul{padding-left:1.25rem}
ul.totals{list-style:none;display:flex;flex-wrap:wrap;gap:.5rem;padding:0;margin:.75rem 0 1rem}
.badge{display:inline-block;min-width:4.5rem;text-align:center;font-size:.8rem;font-weight:700;letter-spacing:.02em;padding:.1rem .5rem;border-radius:999px;color:#fff;text-transform:uppercase}
.sev-critical{background:#7f1010}.sev-high{background:#b42318}.sev-medium{background:#8a4b00}.sev-low{background:#1d5f8c}.sev-info{background:#4a5560}
ul.totals .badge{font-size:.85rem;padding:.25rem .75rem}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.25rem 0 .5rem;position:sticky;left:0;max-width:calc(100vw - 3rem)}
th,td{border-bottom:1px solid #d0d7de;padding:.4rem .6rem;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}
thead th{background:#f6f7f9;font-weight:600}
tbody th{font-weight:400}
td.zero{color:#4a5560}
th.page{min-width:12rem;max-width:28rem;overflow-wrap:anywhere}
th.page .title{display:block;color:#4a5560;font-size:.875rem}
td.m .v{white-space:nowrap}
td.m .r{display:block;font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.03em}
td.good{background:#e3f4e8;color:#0f5f2b}
td.ni{background:#fff1d6;color:#7a4100}
td.poor{background:#fde7e7;color:#a01818}
ul.legend{list-style:none;padding:0;margin:.75rem 0 0;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;font-size:.875rem}
ul.legend span{display:inline-block;padding:0 .4rem;border-radius:4px;font-weight:600}
.good-key{background:#e3f4e8;color:#0f5f2b}.ni-key{background:#fff1d6;color:#7a4100}.poor-key{background:#fde7e7;color:#a01818}
fieldset.filters{border:1px solid #d0d7de;border-radius:8px;padding:.5rem 1rem .75rem;margin:0 0 1rem}
fieldset.filters legend{font-weight:600;padding:0 .25rem}
fieldset.filters label{display:inline-flex;align-items:center;gap:.35rem;margin:.25rem 1.25rem .25rem 0;cursor:pointer}
fieldset.filters input{width:1.1rem;height:1.1rem;margin:0}
section.check{border-left:4px solid #d0d7de;padding:.25rem 0 .25rem 1rem;margin:1.25rem 0}
section.check.top-critical{border-left-color:#7f1010}section.check.top-high{border-left-color:#b42318}section.check.top-medium{border-left-color:#8a4b00}section.check.top-low{border-left-color:#1d5f8c}
p.meta{margin:.25rem 0;font-size:.9rem}
p.meta code{font-size:.85rem}
p.fix{margin:.5rem 0}
p.finding-title{margin:.25rem 0 0}
ol.items{list-style:none;padding:0;margin:.5rem 0 0}
li.finding{border:1px solid #d0d7de;border-radius:6px;padding:.6rem .75rem;margin:.5rem 0;background:#fff}
li.finding dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;margin:.4rem 0 0}
li.finding dt{font-weight:600;font-size:.9rem}
li.finding dd{margin:0;overflow-wrap:anywhere;white-space:pre-line}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.875rem}
code{background:#f1f3f5;color:#1b1f24;padding:0 .2rem;border-radius:3px}
ul.changes li{overflow-wrap:anywhere}
pre.snippet{background:#f1f3f5;color:#1b1f24;padding:.5rem .75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;margin:.5rem 0 0}
pre.snippet code{padding:0;background:none}
pre{max-width:100%;overflow-x:auto}
section.block,nav.sections{overflow-wrap:anywhere}
section.block table{overflow-wrap:normal}
[hidden]{display:none!important}
@media (max-width:600px){nav.sections{padding:.5rem 1rem}section.block{padding:.75rem}section.check{padding-left:.6rem}th,td{padding:.35rem .45rem}}
@media print{nav.sections,fieldset.filters{display:none}section.block{border:0;padding:0}}
"#;

/// The one script: reveals the severity filter and applies it (also the dashboard's
/// `/assets/report.js`).
pub const SCRIPT: &str = r#"
(function () {
  var box = document.getElementById("filters");
  if (!box) return;
  var inputs = box.querySelectorAll("input[type=checkbox]");
  var status = document.getElementById("filter-status");
  function apply() {
    var on = {};
    inputs.forEach(function (i) { on[i.value] = i.checked; });
    var shown = 0, total = 0;
    document.querySelectorAll("li.finding").forEach(function (li) {
      var visible = on[li.getAttribute("data-severity")] !== false;
      li.hidden = !visible;
      total += 1;
      if (visible) shown += 1;
    });
    document.querySelectorAll("section.check").forEach(function (s) {
      s.hidden = !s.querySelector("li.finding:not([hidden])");
    });
    document.querySelectorAll("section.cat").forEach(function (s) {
      s.hidden = !s.querySelector("section.check:not([hidden])");
    });
    status.textContent = "Showing " + shown + " of " + total + " findings.";
  }
  inputs.forEach(function (i) { i.addEventListener("change", apply); });
  box.hidden = false;
  apply();
})();
"#;

/// The document's Content-Security-Policy: nothing from anywhere, inline styles, the one
/// script by its hash, `data:` images (the empty icon).
pub fn content_security_policy() -> String {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(SCRIPT.as_bytes()));
    format!("default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{hash}'; img-src data:; base-uri 'none'; form-action 'none'")
}

/// Escapes text for an HTML text node or a double-quoted attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Controls other than tab and newlines are not allowed in HTML text.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A link to `url` when it is an http(s) URL, else the URL as plain text.
fn link(url: &str, text: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => format!("<a href=\"{}\">{}</a>", escape(u.as_str()), escape(text)),
        _ => escape(text),
    }
}

fn severity_label(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "Critical",
        Severity::High => "High",
        Severity::Medium => "Medium",
        Severity::Low => "Low",
        Severity::Info => "Info",
    }
}

fn badge(s: Severity) -> String {
    format!("<span class=\"badge sev-{}\">{}</span>", s.as_str(), severity_label(s))
}

fn category_label(category: &str) -> String {
    match category {
        "i18n" => "Internationalisation (i18n)".to_string(),
        "structured-data" => "Structured data".to_string(),
        other => {
            let mut chars = other.chars();
            chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default().replace('-', " ")
        }
    }
}

/// An id fragment made of `[a-z0-9-]`.
fn slug(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn when(rfc3339: Option<&str>) -> Option<String> {
    let t = chrono::DateTime::parse_from_rfc3339(rfc3339?).ok()?;
    Some(t.with_timezone(&chrono::Utc).format("%Y-%m-%d %H:%M:%S UTC").to_string())
}

/// A rating against (good up to, needs improvement up to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rating {
    Good,
    NeedsImprovement,
    Poor,
}

pub fn rate(value: f64, (good, ni): (f64, f64)) -> Rating {
    if value <= good {
        Rating::Good
    } else if value <= ni {
        Rating::NeedsImprovement
    } else {
        Rating::Poor
    }
}

fn ms(v: f64) -> String {
    if v >= 1000.0 { format!("{:.2} s", v / 1000.0) } else { format!("{} ms", v.round()) }
}

fn bytes(v: f64) -> String {
    if v >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", v / (1024.0 * 1024.0))
    } else if v >= 1024.0 {
        format!("{:.0} KiB", v / 1024.0)
    } else {
        format!("{v} B")
    }
}

fn metric_cell(value: Option<f64>, bounds: (f64, f64), show: impl Fn(f64) -> String) -> String {
    let Some(v) = value else {
        return "<td class=\"m\"><span class=\"muted\">n/a</span></td>".to_string();
    };
    let (class, label) = match rate(v, bounds) {
        Rating::Good => ("good", "good"),
        Rating::NeedsImprovement => ("ni", "needs improvement"),
        Rating::Poor => ("poor", "poor"),
    };
    format!("<td class=\"m {class}\"><span class=\"v\">{}</span><span class=\"r\">{label}</span></td>", escape(&show(v)))
}

/// Renders the report as one self-contained HTML document.
pub fn render(report: &ScanReport) -> anyhow::Result<String> {
    let view = ReportView::new(report);
    let mut out = String::with_capacity(32 * 1024 + view.findings.len() * 1024);
    document(&mut out, &view)?;
    Ok(out)
}

fn document(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    let scan = &view.scan;
    let target = if scan.target_url.is_empty() { "(unknown target)" } else { scan.target_url };
    let host = if scan.target_hostname.is_empty() { target } else { scan.target_hostname };
    let n = view.findings.len();
    let title = match scan.status {
        ScanStatus::Completed => format!("{host}: {} · sitescan report", plural(n, "finding", "findings")),
        ScanStatus::Failed => format!("{host}: scan failed · sitescan report"),
        other => format!("{host}: scan {other} · sitescan report"),
    };
    let description = match &view.summary {
        Some(s) => format!(
            "Website quality report by sitescan for {target}: {} on {}.",
            plural(n, "finding", "findings"),
            plural(s.pages_scanned as usize, "page", "pages")
        ),
        None => format!("Website quality report by sitescan for {target}: the scan has not run yet."),
    };
    writeln!(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">")?;
    writeln!(o, "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">", content_security_policy())?;
    writeln!(o, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")?;
    writeln!(o, "<meta name=\"color-scheme\" content=\"light\">")?;
    writeln!(o, "<meta name=\"generator\" content=\"sitescan {}\">", escape(crate::VERSION))?;
    writeln!(o, "<meta name=\"description\" content=\"{}\">", escape(&description))?;
    writeln!(o, "<title>{}</title>", escape(&title))?;
    writeln!(o, "<link rel=\"icon\" href=\"data:,\">")?;
    writeln!(o, "<style>{DOCUMENT_STYLE}{CONTENT_STYLE}</style>\n</head>\n<body>")?;
    writeln!(o, "<a class=\"skip\" href=\"#main\">Skip to the report</a>")?;
    writeln!(o, "<header class=\"top\">\n<p class=\"brand\">sitescan report</p>")?;
    writeln!(o, "<h1>Quality report for {}</h1>\n</header>", escape(target))?;
    sections_nav(o, view)?;
    writeln!(o, "<main id=\"main\" tabindex=\"-1\">")?;
    sections(o, view, true)?;
    writeln!(o, "</main>")?;
    writeln!(
        o,
        "<footer class=\"bottom\"><p>Generated by sitescan {} from scan <code>{}</code>. Thresholds: Core Web Vitals (web.dev); checks and severities: <code>sitescan checks</code>.</p></footer>",
        escape(crate::VERSION),
        escape(scan.id)
    )?;
    writeln!(o, "<script>{SCRIPT}</script>\n</body>\n</html>")
}

/// The links to the report's sections.
fn sections_nav(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    writeln!(o, "<nav class=\"sections\" aria-label=\"Report sections\"><ul>")?;
    writeln!(
        o,
        "{}{}<li><a href=\"#summary\">Summary</a></li><li><a href=\"#pages\">Pages</a></li><li><a href=\"#findings\">Findings</a></li>",
        if view.summary.as_ref().is_some_and(|s| s.raw.budget.is_some()) { "<li><a href=\"#budget\">Budget</a></li>" } else { "" },
        if view.summary.as_ref().is_some_and(|s| s.changes.is_some()) { "<li><a href=\"#changes\">Changes</a></li>" } else { "" }
    )?;
    writeln!(o, "</ul></nav>")
}

/// The report's sections: the failure, the budget, the changes, the summary, the pages, the findings.
/// `with_budget: false` leaves the budget to the page the content sits in (the dashboard's scan
/// page shows it in its own card, `#budget`, which the section links still reach).
fn sections(o: &mut String, view: &ReportView<'_>, with_budget: bool) -> std::fmt::Result {
    failure(o, view)?;
    if with_budget {
        budget(o, view)?;
    }
    changes(o, view)?;
    summary(o, view)?;
    pages(o, view)?;
    findings(o, view)
}

/// The report's content alone (its section links and sections, headings from `h2`), to sit
/// inside another page: the dashboard's scan page, styled by `CONTENT_STYLE` and filtered by
/// `SCRIPT` served beside it.
pub fn render_content(report: &ScanReport) -> anyhow::Result<String> {
    let view = ReportView::new(report);
    let mut out = String::with_capacity(32 * 1024 + view.findings.len() * 1024);
    sections_nav(&mut out, &view)?;
    sections(&mut out, &view, false)?;
    Ok(out)
}

fn failure(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    let error = view.summary.as_ref().and_then(|s| s.error);
    match (view.scan.status, error) {
        (_, Some((code, message))) => {
            writeln!(o, "<section class=\"block failed\" aria-labelledby=\"failed-h\">")?;
            writeln!(o, "<h2 id=\"failed-h\">The scan failed</h2>")?;
            writeln!(o, "<p><code>{}</code>: {}</p>", escape(code), escape(message))?;
            if !view.findings.is_empty() {
                writeln!(o, "<p>The findings below are from the pages scanned before it stopped.</p>")?;
            }
            writeln!(o, "</section>")
        }
        (ScanStatus::Failed, None) => writeln!(
            o,
            "<section class=\"block failed\" aria-labelledby=\"failed-h\"><h2 id=\"failed-h\">The scan failed</h2><p>No reason was recorded.</p></section>"
        ),
        (ScanStatus::Queued | ScanStatus::Running, _) => writeln!(
            o,
            "<section class=\"block\" aria-labelledby=\"unfinished-h\"><h2 id=\"unfinished-h\">This scan has not finished</h2><p>Its status is <strong>{}</strong>; the report fills in once it has run.</p></section>",
            escape(view.scan.status.as_str())
        ),
        _ => Ok(()),
    }
}

/// The budget's verdict, assertion by assertion: which one failed is the first thing a reader
/// of a failed build looks for.
fn budget(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    use crate::model::budget::AssertionLevel;
    let Some(b) = view.summary.as_ref().and_then(|s| s.raw.budget.as_ref()) else { return Ok(()) };
    let failed = b.failed().count();
    writeln!(o, "<section class=\"block\" id=\"budget\" aria-labelledby=\"budget-h\">\n<h2 id=\"budget-h\">Budget</h2>")?;
    if b.passed {
        writeln!(o, "<p>The budget <strong>passed</strong> ({}).</p>", plural(b.assertions.len(), "assertion", "assertions"))?;
    } else {
        writeln!(o, "<p>The budget <strong>failed</strong>: {} of {} failed.</p>", plural(failed, "error assertion", "error assertions"), plural(b.assertions.len(), "assertion", "assertions"))?;
    }
    let number = |v: f64| if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v:.3}") };
    writeln!(o, "<div class=\"table-wrap\" role=\"region\" aria-labelledby=\"budget-h\" tabindex=\"0\"><table>\n<thead><tr><th scope=\"col\">Assertion</th><th scope=\"col\">Result</th><th scope=\"col\">Measured</th><th scope=\"col\">Most allowed</th><th scope=\"col\">Level</th></tr></thead>\n<tbody>")?;
    for a in &b.assertions {
        let (class, result) = match (a.passed, a.level) {
            (true, _) => ("good", "passed"),
            (false, AssertionLevel::Error) => ("poor", "failed"),
            (false, AssertionLevel::Warn) => ("ni", "warning"),
        };
        let limit = match a.min_severity {
            Some(s) => format!("{} ({} and above)", number(a.max), s),
            None => number(a.max),
        };
        writeln!(
            o,
            "<tr><th scope=\"row\" class=\"page\"><code>{}</code></th><td class=\"{class}\"><strong>{result}</strong></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&a.assertion),
            a.actual.map_or("not measured".to_string(), number),
            escape(&limit),
            a.level.as_str(),
        )?;
    }
    writeln!(o, "</tbody></table></div>\n</section>")
}

/// What changed since the baseline scan, first: the counts, then the new findings and the
/// fixed ones, one line each.
fn changes(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    let Some(c) = view.summary.as_ref().and_then(|s| s.changes) else { return Ok(()) };
    writeln!(o, "<section class=\"block\" id=\"changes\" aria-labelledby=\"changes-h\">\n<h2 id=\"changes-h\">Changes since the previous scan</h2>")?;
    // A first scan has nothing to compare with: its findings are simply there, not new.
    let Some(baseline) = c.baseline_scan_id else {
        return writeln!(
            o,
            "<p>The first completed scan of this target: nothing to compare with yet ({}).</p>\n</section>",
            plural(c.new as usize, "finding", "findings")
        );
    };
    writeln!(
        o,
        "<p>Compared with scan <code>{}</code>: <strong>{} new</strong>, <strong>{} fixed</strong>, {} persisting.</p>",
        escape(baseline),
        c.new,
        c.fixed,
        c.persisting
    )?;
    let line = |o: &mut String, f: &FindingView<'_>| -> std::fmt::Result {
        let title = if f.title.trim().is_empty() { f.check_id } else { f.title.trim() };
        let url = view.finding_url(f);
        write!(o, "<li>{} {} <code>{}</code> on {}", badge(f.severity), escape(title), escape(f.check_id), link(url, url))?;
        if let Some(sel) = f.resource().or(f.selector()) {
            write!(o, ", <code>{}</code>", escape(sel))?;
        }
        writeln!(o, "</li>")
    };
    let new: Vec<&FindingView<'_>> = view.findings.iter().filter(|f| f.change == Some(Change::New)).collect();
    if !new.is_empty() {
        writeln!(o, "<h3>New</h3>\n<ul class=\"changes new\">")?;
        for f in new {
            line(o, f)?;
        }
        writeln!(o, "</ul>")?;
    }
    if !view.fixed.is_empty() {
        writeln!(o, "<h3>Fixed</h3>\n<ul class=\"changes fixed\">")?;
        for f in &view.fixed {
            line(o, f)?;
        }
        writeln!(o, "</ul>")?;
    }
    writeln!(o, "</section>")
}

fn summary(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    let scan = &view.scan;
    writeln!(o, "<section class=\"block\" id=\"summary\" aria-labelledby=\"summary-h\">\n<h2 id=\"summary-h\">Summary</h2>")?;
    writeln!(o, "<dl class=\"facts\">")?;
    writeln!(o, "<dt>Target</dt><dd>{}</dd>", link(scan.target_url, scan.target_url))?;
    let incomplete = view.summary.as_ref().is_some_and(|s| s.raw.incomplete());
    writeln!(o, "<dt>Status</dt><dd>{}{}</dd>", escape(scan.status.as_str()), if incomplete { " (incomplete: some checks did not run)" } else { "" })?;
    if let Some(s) = &view.summary {
        writeln!(o, "<dt>Pages scanned</dt><dd>{}</dd>", s.pages_scanned)?;
        writeln!(o, "<dt>Duration</dt><dd>{}</dd>", escape(&ms(s.duration_ms as f64)))?;
        if let Some(level) = s.raw.level {
            writeln!(o, "<dt>Conformance target</dt><dd>WCAG 2.2 {level} (checks of criteria above it did not run)</dd>")?;
        }
    }
    if let Some(t) = when(scan.started_at.as_deref()) {
        writeln!(o, "<dt>Started</dt><dd>{}</dd>", escape(&t))?;
    }
    if let Some(t) = when(scan.completed_at.as_deref()) {
        writeln!(o, "<dt>Finished</dt><dd>{}</dd>", escape(&t))?;
    }
    writeln!(o, "<dt>Scan id</dt><dd><code>{}</code></dd>\n</dl>", escape(scan.id))?;
    if let Some(not_run) = view.summary.as_ref().map(|s| &s.raw.site_checks_not_run).filter(|n| !n.is_empty()) {
        // Their silence is not a pass: say so where the totals are read.
        let reasons: std::collections::BTreeSet<&str> = not_run.iter().map(|n| n.reason.as_str()).collect();
        let ids: Vec<String> = not_run.iter().map(|n| format!("<code>{}</code>", escape(&n.check_id))).collect();
        writeln!(
            o,
            "<p class=\"not-run\"><strong>{} not run</strong> ({}): {}. Their absence of findings is not a pass.</p>",
            plural(not_run.len(), "site check", "site checks"),
            reasons.into_iter().map(escape).collect::<Vec<_>>().join("; "),
            ids.join(", ")
        )?;
    }
    if let Some(gaps) = view.summary.as_ref().and_then(|s| s.raw.checks_not_run.as_ref()) {
        // An incomplete scan says so before any total: those pages were not judged clean.
        writeln!(o, "<div class=\"not-run\" role=\"alert\"><p><strong>Incomplete scan:</strong> {}.</p><ul>", escape(&gaps.headline()))?;
        for reason in gaps.reasons.iter().take(5) {
            let ids: Vec<String> = reason.check_ids.iter().take(12).map(|id| format!("<code>{}</code>", escape(id))).collect();
            let more = reason.check_ids.len().saturating_sub(12);
            writeln!(
                o,
                "<li>{} ({}, e.g. <code>{}</code>): {}{}</li>",
                escape(&reason.reason),
                plural(reason.pages as usize, "page", "pages"),
                escape(&reason.example_url),
                ids.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            )?;
        }
        writeln!(o, "</ul><p>Their absence of findings on those pages is not a pass.</p></div>")?;
    }

    let mut totals = [0usize; 5];
    for f in &view.findings {
        totals[Severity::ALL.iter().position(|s| *s == f.severity).unwrap_or(4)] += 1;
    }
    writeln!(o, "<ul class=\"totals\" aria-label=\"Findings by severity\">")?;
    for (i, s) in Severity::ALL.iter().enumerate() {
        writeln!(o, "<li><span class=\"badge sev-{}\">{} {}</span></li>", s.as_str(), totals[i], severity_label(*s))?;
    }
    writeln!(o, "</ul>")?;

    // Counts per category: the summary's, or (without one) counted from the findings.
    let categories = view.categories();
    if categories.is_empty() {
        return writeln!(o, "</section>");
    }
    let with_findings: Vec<&str> = view.findings.iter().map(|f| f.category()).collect();
    writeln!(o, "<div class=\"table-wrap\" role=\"region\" aria-labelledby=\"cat-caption\" tabindex=\"0\">")?;
    writeln!(o, "<table>\n<caption id=\"cat-caption\">Findings by category and severity</caption>")?;
    write!(o, "<thead><tr><th scope=\"col\">Category</th>")?;
    for s in Severity::ALL {
        write!(o, "<th scope=\"col\">{}</th>", severity_label(s))?;
    }
    writeln!(o, "<th scope=\"col\">Total</th></tr></thead>\n<tbody>")?;
    for category in &categories {
        let counts: Vec<u64> = Severity::ALL
            .iter()
            .map(|s| {
                view.summary
                    .as_ref()
                    .and_then(|sum| sum.categories.iter().find(|(c, _)| c == category))
                    .map(|(_, counts)| counts.get(s).copied().unwrap_or(0))
                    .unwrap_or_else(|| view.findings.iter().filter(|f| f.category() == category && f.severity == *s).count() as u64)
            })
            .collect();
        let label = category_label(category);
        let head = if with_findings.contains(&category.as_str()) {
            format!("<a href=\"#cat-{}\">{}</a>", slug(category), escape(&label))
        } else {
            escape(&label)
        };
        write!(o, "<tr><th scope=\"row\">{head}</th>")?;
        for c in &counts {
            if *c == 0 {
                write!(o, "<td class=\"zero\">0</td>")?;
            } else {
                write!(o, "<td><strong>{c}</strong></td>")?;
            }
        }
        writeln!(o, "<td>{}</td></tr>", counts.iter().sum::<u64>())?;
    }
    writeln!(o, "</tbody>\n</table>\n</div>\n</section>")
}

fn pages(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    writeln!(o, "<section class=\"block\" id=\"pages\" aria-labelledby=\"pages-h\">\n<h2 id=\"pages-h\">Pages</h2>")?;
    if view.pages.is_empty() {
        return writeln!(o, "<p>No page was rendered.</p>\n</section>");
    }
    writeln!(o, "<div class=\"table-wrap\" role=\"region\" aria-labelledby=\"pages-caption\" tabindex=\"0\">")?;
    writeln!(o, "<table>\n<caption id=\"pages-caption\">Loading metrics per page, rated by the Core Web Vitals thresholds</caption>")?;
    writeln!(
        o,
        "<thead><tr><th scope=\"col\">Page</th><th scope=\"col\">HTTP status</th><th scope=\"col\"><abbr title=\"Time to first byte\">TTFB</abbr></th><th scope=\"col\"><abbr title=\"First contentful paint\">FCP</abbr></th><th scope=\"col\"><abbr title=\"Largest contentful paint\">LCP</abbr></th><th scope=\"col\"><abbr title=\"Cumulative layout shift\">CLS</abbr></th><th scope=\"col\"><abbr title=\"Total blocking time\">TBT</abbr></th><th scope=\"col\">Weight</th><th scope=\"col\">Requests</th></tr></thead>\n<tbody>"
    )?;
    for p in &view.pages {
        page_row(o, p)?;
    }
    writeln!(o, "</tbody>\n</table>\n</div>")?;
    writeln!(
        o,
        "<ul class=\"legend\" aria-label=\"Ratings\"><li><span class=\"good-key\">good</span> LCP ≤ 2.5 s, FCP ≤ 1.8 s, TTFB ≤ 0.8 s, CLS ≤ 0.1, TBT ≤ 200 ms</li><li><span class=\"ni-key\">needs improvement</span> up to LCP 4 s, FCP 3 s, TTFB 1.8 s, CLS 0.25, TBT 600 ms</li><li><span class=\"poor-key\">poor</span> above those</li><li>Weight: 2 MiB / 4 MiB; requests: over 100 needs improvement</li></ul>\n</section>"
    )
}

fn page_row(o: &mut String, p: &ReportPageView<'_>) -> std::fmt::Result {
    let m = p.metrics;
    let num = |k: &str| m.get(k).and_then(Value::as_f64);
    write!(o, "<tr><th scope=\"row\" class=\"page\">{}", link(p.url, p.url))?;
    if let Some(fin) = p.final_url.filter(|f| *f != p.url) {
        write!(o, "<span class=\"title\">redirected to {}</span>", escape(fin))?;
    }
    if let Some(t) = p.title.filter(|t| !t.trim().is_empty()) {
        write!(o, "<span class=\"title\">{}</span>", escape(t))?;
    }
    if let Some((kind, message)) = p.error {
        write!(o, "<span class=\"title\">Not rendered ({}): {}</span>", escape(kind), escape(message))?;
    }
    if !p.checks_not_run.is_empty() {
        let ids: Vec<String> = p.checks_not_run.iter().map(|(id, _)| escape(id)).collect();
        let reasons: std::collections::BTreeSet<&str> = p.checks_not_run.iter().map(|(_, r)| *r).collect();
        let reasons: Vec<String> = reasons.into_iter().map(escape).collect();
        write!(
            o,
            "<span class=\"title\">{} check{} not run ({}): {}</span>",
            ids.len(),
            if ids.len() == 1 { "" } else { "s" },
            reasons.join("; "),
            ids.join(", ")
        )?;
    }
    write!(o, "</th><td>{}</td>", p.status.map_or("n/a".to_string(), |s| s.to_string()))?;
    o.push_str(&metric_cell(num("ttfb_ms"), TTFB_MS, ms));
    o.push_str(&metric_cell(num("fcp_ms"), FCP_MS, ms));
    o.push_str(&metric_cell(num("lcp_ms"), LCP_MS, ms));
    o.push_str(&metric_cell(num("cls"), CLS, |v| format!("{v:.3}")));
    o.push_str(&metric_cell(num("tbt_ms"), TBT_MS, ms));
    o.push_str(&metric_cell(num("transfer_bytes"), WEIGHT_BYTES, bytes));
    o.push_str(&metric_cell(num("requests"), REQUESTS, |v| format!("{v}")));
    writeln!(o, "</tr>")
}

/// Evidence keys shown in their own places (page, element, value, limit, snippet, help link).
const PLACED_KEYS: &[&str] = &["url", "selector", "snippet", "value", "limit", "expected", "help_url"];

fn evidence_label(key: &str) -> String {
    match key {
        "wcag" => "WCAG".to_string(),
        "failure_summary" => "What fails".to_string(),
        other => {
            let words = other.replace('_', " ");
            let mut chars = words.chars();
            chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
        }
    }
}

fn evidence_value(v: &Value) -> String {
    match v {
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            escape(&items.iter().map(value_text).collect::<Vec<_>>().join(", "))
        }
        Value::Object(_) | Value::Array(_) => format!("<code>{}</code>", escape(&v.to_string())),
        Value::String(s) if s.starts_with("http://") || s.starts_with("https://") => link(s, s),
        other => escape(&value_text(other)),
    }
}

fn finding_item(o: &mut String, view: &ReportView<'_>, f: &FindingView<'_>, rule: &RuleView) -> std::fmt::Result {
    writeln!(o, "<li class=\"finding\" data-severity=\"{}\">{}", f.severity.as_str(), badge(f.severity))?;
    // A title that names its thing (a header, a cookie) comes first: what this one is about.
    let own = f.title.trim();
    if !own.is_empty() && own != rule.title.trim() {
        let shown = own.strip_prefix(rule.title.trim()).and_then(|r| r.strip_prefix(": ")).unwrap_or(own);
        writeln!(o, "<p class=\"finding-title\"><strong>{}</strong></p>", escape(shown))?;
    }
    let compared = view.summary.as_ref().and_then(|s| s.changes).is_some_and(|c| c.baseline_scan_id.is_some());
    if compared && f.change == Some(Change::New) {
        writeln!(o, "<p class=\"change-new\"><strong>New</strong> since the previous scan</p>")?;
    }
    let url = view.finding_url(f);
    write!(o, "<dl><dt>Page</dt><dd>{}</dd>", link(url, url))?;
    if let Some(sel) = f.selector() {
        write!(o, "<dt>Element</dt><dd><code>{}</code></dd>", escape(sel))?;
    }
    let (value, limit) = f.value_and_limit();
    if let Some(v) = value {
        write!(o, "<dt>Value</dt><dd>{}</dd>", escape(&v))?;
    }
    if let Some(l) = limit {
        let label = if f.evidence.get("limit").is_some_and(|v| !v.is_null()) { "Limit" } else { "Expected" };
        write!(o, "<dt>{label}</dt><dd>{}</dd>", escape(&l))?;
    }
    for (key, v) in f.evidence.iter().filter(|(k, v)| !PLACED_KEYS.contains(&k.as_str()) && !v.is_null()) {
        write!(o, "<dt>{}</dt><dd>{}</dd>", escape(&evidence_label(key)), evidence_value(v))?;
    }
    if let Some(help) = f.evidence.get("help_url").and_then(Value::as_str).filter(|h| Some(*h) != rule.help_url.as_deref()) {
        write!(o, "<dt>Reference</dt><dd>{}</dd>", link(help, help))?;
    }
    writeln!(o, "</dl>")?;
    if let Some(snippet) = f.snippet() {
        writeln!(o, "<pre class=\"snippet\"><code>{}</code></pre>", escape(snippet))?;
    }
    let own_fix = f.remediation.trim();
    if !own_fix.is_empty() && own_fix != rule.remediation.trim() {
        writeln!(o, "<p class=\"fix\"><strong>How to fix:</strong> {}</p>", escape(own_fix))?;
    }
    writeln!(o, "</li>")
}

fn findings(o: &mut String, view: &ReportView<'_>) -> std::fmt::Result {
    writeln!(o, "<section class=\"block\" id=\"findings\" aria-labelledby=\"findings-h\">\n<h2 id=\"findings-h\">Findings</h2>")?;
    if view.findings.is_empty() {
        let text = if view.summary.is_some() { "No findings: every check passed." } else { "No findings yet." };
        return writeln!(o, "<p>{text}</p>\n</section>");
    }
    writeln!(o, "<fieldset class=\"filters\" id=\"filters\" hidden>\n<legend>Show findings of severity</legend>")?;
    for s in Severity::ALL {
        let count = view.findings.iter().filter(|f| f.severity == s).count();
        writeln!(
            o,
            "<label for=\"show-{0}\"><input type=\"checkbox\" id=\"show-{0}\" value=\"{0}\" checked> {1} ({2})</label>",
            s.as_str(),
            severity_label(s),
            count
        )?;
    }
    writeln!(o, "<p id=\"filter-status\" role=\"status\" class=\"muted\"></p>\n</fieldset>")?;

    let rules = view.rules();
    let mut categories: Vec<&str> = Vec::new();
    for f in &view.findings {
        if !categories.contains(&f.category()) {
            categories.push(f.category());
        }
    }
    categories.sort_by(|a, b| category_rank(a).cmp(&category_rank(b)));
    let mut check_no = 0usize;
    for category in categories {
        let mine: Vec<&FindingView<'_>> = view.findings.iter().filter(|f| f.category() == category).collect();
        let id = slug(category);
        writeln!(o, "<section class=\"cat\" id=\"cat-{id}\" aria-labelledby=\"cat-{id}-h\">")?;
        writeln!(o, "<h3 id=\"cat-{id}-h\">{} <span class=\"muted\">({})</span></h3>", escape(&category_label(category)), mine.len())?;
        // Checks in order of their most serious finding, then id.
        let mut checks: Vec<(&str, Severity)> = Vec::new();
        for f in &mine {
            match checks.iter_mut().find(|(c, _)| *c == f.check_id) {
                Some((_, worst)) => *worst = (*worst).max(f.severity),
                None => checks.push((f.check_id, f.severity)),
            }
        }
        checks.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        for (check, worst) in checks {
            check_no += 1;
            let items: Vec<&&FindingView<'_>> = mine.iter().filter(|f| f.check_id == check).collect();
            let fallback;
            let rule = match rules.iter().find(|r| r.id == check) {
                Some(r) => r,
                None => {
                    fallback = RuleView {
                        id: check.to_string(),
                        title: check.to_string(),
                        description: String::new(),
                        remediation: String::new(),
                        fires_when: None,
                        cwe_id: None,
                        help_url: None,
                        severity: worst,
                        wcag: Vec::new(),
                        registered: false,
                    };
                    &fallback
                }
            };
            writeln!(
                o,
                "<section class=\"check top-{}\" aria-labelledby=\"check-{check_no}-h\">",
                if worst == Severity::Info { "low" } else { worst.as_str() }
            )?;
            writeln!(o, "<h4 id=\"check-{check_no}-h\">{}</h4>", escape(rule.title.trim()))?;
            write!(o, "<p class=\"meta\">{} <code>{}</code> · {}", badge(worst), escape(check), plural(items.len(), "finding", "findings"))?;
            if let Some(cwe) = &rule.cwe_id {
                write!(o, " · {}", escape(cwe))?;
            }
            writeln!(o, "</p>")?;
            if !rule.description.trim().is_empty() {
                writeln!(o, "<p>{}</p>", escape(rule.description.trim()))?;
            }
            if !rule.remediation.trim().is_empty() {
                writeln!(o, "<p class=\"fix\"><strong>How to fix:</strong> {}</p>", escape(rule.remediation.trim()))?;
            }
            if let Some(help) = &rule.help_url {
                writeln!(o, "<p class=\"meta\">{}</p>", link(help, &format!("More about {}", rule.title.trim())))?;
            }
            writeln!(o, "<ol class=\"items\">")?;
            for f in items {
                finding_item(o, view, f, rule)?;
            }
            writeln!(o, "</ol>\n</section>")?;
        }
        writeln!(o, "</section>")?;
    }
    writeln!(o, "</section>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn luminance(hex: &str) -> f64 {
        let channel = |i: usize| {
            let c = u8::from_str_radix(&hex[1 + i * 2..3 + i * 2], 16).unwrap() as f64 / 255.0;
            if c <= 0.03928 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
    }

    #[test]
    fn palette_contrast_is_at_least_4_5() {
        for (fg, bg) in TEXT_COLOURS {
            let (a, b) = (luminance(fg), luminance(bg));
            let ratio = (a.max(b) + 0.05) / (a.min(b) + 0.05);
            assert!(ratio >= 4.5, "{fg} on {bg}: {ratio:.2}");
        }
        // Every colour the stylesheet names is in the tested palette (or a border/background).
        for colour in [DOCUMENT_STYLE, CONTENT_STYLE].concat().split(|c: char| !(c == '#' || c.is_ascii_hexdigit())).filter(|w| w.starts_with('#') && w.len() == 7) {
            let known = TEXT_COLOURS.iter().any(|(f, b)| *f == colour || *b == colour) || colour == "#d0d7de";
            assert!(known, "{colour} is not in TEXT_COLOURS");
        }
    }

    #[test]
    fn ratings_follow_core_web_vitals() {
        assert_eq!(rate(2500.0, LCP_MS), Rating::Good);
        assert_eq!(rate(2501.0, LCP_MS), Rating::NeedsImprovement);
        assert_eq!(rate(4001.0, LCP_MS), Rating::Poor);
        assert_eq!(rate(0.1, CLS), Rating::Good);
        assert_eq!(rate(0.26, CLS), Rating::Poor);
        assert_eq!(rate(201.0, TBT_MS), Rating::NeedsImprovement);
        assert_eq!(rate(1800.0, FCP_MS), Rating::Good);
        assert_eq!(rate(1801.0, TTFB_MS), Rating::Poor);
    }

    #[test]
    fn escapes_everything_and_links_only_http() {
        let body = json!({
            "scan": {"id": "<id>", "target_url": "https://a.test/\"><script>alert(0)</script>", "status": "completed"},
            "report": {"summary": {"pages_scanned": 1, "duration_ms": 1, "categories": {}, "error": null},
                "pages": [{"url": "javascript:alert(1)", "title": "<b>t</b>", "metrics": {"lcp_ms": 5000}}],
                "findings": [{"check_id": "x.<y>", "severity": "high", "title": "<i>T</i>", "remediation": "<u>fix</u>",
                    "evidence": {"url": "javascript:alert(2)", "selector": "a[href='x']", "snippet": "<script>alert(3)</script>",
                                 "note": "</dd><img src=x onerror=alert(4)>"}}]}
        });
        let html = render(&ScanReport::from_body(&body).unwrap()).unwrap();
        assert_eq!(html.matches("<script>").count(), 1, "only our own script");
        assert!(!html.contains("<img"));
        assert!(!html.contains("href=\"javascript:"));
        assert!(html.contains("&lt;script&gt;alert(3)&lt;/script&gt;"));
        assert!(html.contains("<code>a[href=&#39;x&#39;]</code>"));
        assert!(html.contains("<td class=\"m poor\"><span class=\"v\">5.00 s</span><span class=\"r\">poor</span></td>"));
    }

    #[test]
    fn site_checks_not_run_are_said_beside_the_totals() {
        let body = json!({
            "scan": {"id": "s", "target_url": "https://a.test/", "status": "completed"},
            "report": {"summary": {"pages_scanned": 1, "duration_ms": 1, "categories": {}, "error": null,
                "site_checks_not_run": [{"check_id": "crawlability.sitemap-invalid", "reason": "the sitemap could not be read"},
                                        {"check_id": "security.<x>", "reason": "the sitemap could not be read"}]}}
        });
        let html = render(&ScanReport::from_body(&body).unwrap()).unwrap();
        assert!(html.contains("<strong>2 site checks not run</strong> (the sitemap could not be read): <code>crawlability.sitemap-invalid</code>, <code>security.&lt;x&gt;</code>."), "{html}");
        let all_ran = json!({"scan": {"id": "s", "target_url": "https://a.test/", "status": "completed"},
            "report": {"summary": {"pages_scanned": 1, "duration_ms": 1, "categories": {}, "error": null}}});
        assert!(!render(&ScanReport::from_body(&all_ran).unwrap()).unwrap().contains("not run"));
    }

    #[test]
    fn csp_hashes_the_script() {
        let csp = content_security_policy();
        assert!(csp.starts_with("default-src 'none'"));
        assert!(csp.contains("'sha256-"));
        let body = json!({"scan": {"id": "s", "target_url": "https://a.test/", "status": "queued"}, "report": null});
        let html = render(&ScanReport::from_body(&body).unwrap()).unwrap();
        assert!(html.contains(&csp));
        assert!(html.contains("This scan has not finished"));
    }

    #[test]
    fn a_first_scan_says_findings_not_new_ones() {
        let body = |baseline: serde_json::Value| {
            json!({
                "scan": {"id": "s", "target_url": "https://a.test/", "status": "completed"},
                "report": {"summary": {"pages_scanned": 1, "duration_ms": 1, "categories": {}, "error": null,
                    "changes": {"new": 2, "fixed": 0, "persisting": 0, "baseline_scan_id": baseline}},
                    "findings": [
                        {"check_id": "search.title-missing", "severity": "medium", "title": "Title missing", "change": "new", "evidence": {"url": "https://a.test/"}},
                        {"check_id": "search.meta-description-missing", "severity": "low", "title": "No description", "change": "new", "evidence": {"url": "https://a.test/"}}]}
            })
        };
        let first = render(&ScanReport::from_body(&body(serde_json::Value::Null)).unwrap()).unwrap();
        assert!(first.contains("The first completed scan of this target: nothing to compare with yet (2 findings)."), "{first}");
        assert!(!first.contains("every finding is new") && !first.contains("since the previous scan</p>"), "{first}");
        let later = render(&ScanReport::from_body(&body(json!("b"))).unwrap()).unwrap();
        assert!(later.contains("<strong>2 new</strong>"), "{later}");
        assert_eq!(later.matches("<strong>New</strong> since the previous scan").count(), 2);
    }
}
