//! `--format text`: a compact summary by category and severity, then the top findings with
//! their page and selector. Colour only when asked (a terminal without NO_COLOR).

use crate::model::{PASSIVE_CATEGORIES, Severity};
use serde_json::Value;
use std::fmt::Write;

/// Findings listed in full before the rest are counted.
const TOP_FINDINGS: usize = 25;

fn paint(color: bool, code: &str, text: &str) -> String {
    if color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
}

fn severity_color(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "1;31",
        Severity::High => "31",
        Severity::Medium => "33",
        Severity::Low => "36",
        Severity::Info => "2",
    }
}

pub fn render(body: &Value, color: bool) -> String {
    let mut out = String::new();
    let scan = &body["scan"];
    let summary = &body["report"]["summary"];
    let _ = writeln!(out, "{} {}", paint(color, "1", "sitescan"), scan["target_url"].as_str().unwrap_or_default());
    let _ = writeln!(
        out,
        "status {}  pages {}  duration {:.1} s",
        scan["status"].as_str().unwrap_or_default(),
        summary["pages_scanned"],
        summary["duration_ms"].as_f64().unwrap_or(0.0) / 1000.0
    );
    if let Some(err) = summary["error"].as_object() {
        let _ = writeln!(
            out,
            "{} {}: {}",
            paint(color, "1;31", "scan failed"),
            err.get("code").and_then(Value::as_str).unwrap_or_default(),
            err.get("message").and_then(Value::as_str).unwrap_or_default()
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{:<16} {:>8} {:>6} {:>7} {:>5} {:>5}", "category", "critical", "high", "medium", "low", "info");
    for category in PASSIVE_CATEGORIES {
        let c = &summary["categories"][category];
        let cell = |s: Severity, w: usize| {
            let n = c[s.as_str()].as_u64().unwrap_or(0);
            let text = format!("{n:>w$}");
            if n > 0 { paint(color, severity_color(s), &text) } else { text }
        };
        let _ = writeln!(
            out,
            "{:<16} {} {} {} {} {}",
            category,
            cell(Severity::Critical, 8),
            cell(Severity::High, 6),
            cell(Severity::Medium, 7),
            cell(Severity::Low, 5),
            cell(Severity::Info, 5)
        );
    }
    let mut findings: Vec<&Value> = body["report"]["findings"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    let rank = |f: &Value| f["severity"].as_str().and_then(|s| s.parse::<Severity>().ok()).unwrap_or(Severity::Info);
    findings.sort_by(|a, b| rank(b).cmp(&rank(a)).then_with(|| a["check_id"].as_str().cmp(&b["check_id"].as_str())));
    let _ = writeln!(out);
    if findings.is_empty() {
        let _ = writeln!(out, "no findings");
        return out;
    }
    let _ = writeln!(out, "{} findings; the most serious:", findings.len());
    for f in findings.iter().take(TOP_FINDINGS) {
        let sev = rank(f);
        let ev = &f["evidence"];
        let _ = writeln!(
            out,
            "  {} {}  {}",
            paint(color, severity_color(sev), &format!("{:<8}", sev.as_str())),
            f["check_id"].as_str().unwrap_or_default(),
            f["title"].as_str().unwrap_or_default()
        );
        let mut place = ev["url"].as_str().unwrap_or_default().to_string();
        if let Some(sel) = ev["selector"].as_str() {
            place.push_str("  ");
            place.push_str(sel);
        }
        if !place.is_empty() {
            let _ = writeln!(out, "           {}", paint(color, "2", &place));
        }
    }
    if findings.len() > TOP_FINDINGS {
        let _ = writeln!(out, "  ... and {} more (use --format json or html for all)", findings.len() - TOP_FINDINGS);
    }
    out
}
