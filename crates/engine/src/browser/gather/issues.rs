//! Issues gatherer: browser issues from the CDP Audits domain (deprecations, mixed content,
//! cookies, CSP, ...) and deprecation/intervention reports from `ReportingObserver`.

use crate::model::BrowserIssue;
use serde_json::Value;

use crate::browser::events::RawEvent;
use crate::browser::gather::csp::binding_payloads;

/// Issues kept per page.
pub const MAX_ISSUES: usize = 300;

/// `DeprecationIssue` -> `deprecation`, `MixedContentIssue` -> `mixed-content`, ...
fn kind_of(code: &str) -> String {
    let base = code.strip_suffix("Issue").unwrap_or(code);
    match base {
        "ContentSecurityPolicy" => return "csp".into(),
        "Generic" => return "generic".into(),
        _ => {}
    }
    let mut out = String::new();
    for (i, c) in base.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn s(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).filter(|x| !x.is_empty()).map(str::to_string)
}

fn location(details: &Value) -> (Option<String>, Option<u32>) {
    let loc = details.get("sourceCodeLocation");
    let line = loc.and_then(|l| l.get("lineNumber")).and_then(Value::as_u64).and_then(|l| u32::try_from(l + 1).ok());
    (s(loc.and_then(|l| l.get("url"))), line)
}

fn from_audit(issue: &Value) -> Option<BrowserIssue> {
    let code = issue.get("code")?.as_str()?;
    let details = issue.get("details").cloned().unwrap_or(Value::Null);
    // The details object is keyed by the issue type, e.g. `deprecationIssueDetails`.
    let inner = details.as_object().and_then(|o| o.values().next()).cloned().unwrap_or(Value::Null);
    let (mut url, line) = location(&inner);
    let (sub, message) = match code {
        "DeprecationIssue" => {
            let t = s(inner.get("type"));
            (t.clone(), format!("Deprecated feature used: {}", t.unwrap_or_default()))
        }
        "MixedContentIssue" => {
            url = s(inner.get("mainResourceURL")).or(url);
            (s(inner.get("resolutionStatus")), format!("Mixed content: {}", s(inner.get("insecureURL")).unwrap_or_default()))
        }
        "CookieIssue" => {
            let reasons: Vec<String> = ["cookieWarningReasons", "cookieExclusionReasons"]
                .iter()
                .filter_map(|k| inner.get(*k).and_then(Value::as_array))
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            let name = s(inner.get("cookie").and_then(|c| c.get("name"))).or(s(inner.get("rawCookieLine"))).unwrap_or_default();
            url = s(inner.get("cookieUrl")).or(url);
            (Some(reasons.join(",")).filter(|r| !r.is_empty()), format!("Cookie {name}: {}", reasons.join(", ")))
        }
        "ContentSecurityPolicyIssue" => (
            s(inner.get("contentSecurityPolicyViolationType")),
            format!("CSP {} blocked {}", s(inner.get("violatedDirective")).unwrap_or_default(), s(inner.get("blockedURL")).unwrap_or_else(|| "inline content".into())),
        ),
        "GenericIssue" => (s(inner.get("errorType")), s(inner.get("errorType")).unwrap_or_default().to_string()),
        _ => (None, format!("{code}: {}", truncate(&inner.to_string(), 300))),
    };
    Some(BrowserIssue { kind: kind_of(code), code: sub, message, url, line })
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn from_report(payload: &str) -> Option<BrowserIssue> {
    let v: Value = crate::browser::lenient::from_json(payload).ok()?;
    if v.get("type")?.as_str()? != "report" {
        return None;
    }
    let kind = v.get("report_type").and_then(Value::as_str).unwrap_or("generic").to_string();
    let body = v.get("body").cloned().unwrap_or(Value::Null);
    Some(BrowserIssue {
        kind,
        code: s(body.get("id")),
        message: s(body.get("message")).unwrap_or_default(),
        url: s(body.get("sourceFile")).or(s(v.get("url"))),
        line: body.get("lineNumber").and_then(Value::as_u64).and_then(|l| u32::try_from(l).ok()),
    })
}

pub(crate) fn gather(events: &[RawEvent]) -> Vec<BrowserIssue> {
    let mut out: Vec<BrowserIssue> = Vec::new();
    let audits = events.iter().filter(|e| e.method == "Audits.issueAdded").filter_map(|e| e.params.get("issue")).filter_map(from_audit);
    let reports = binding_payloads(events).filter_map(from_report);
    for issue in audits.chain(reports) {
        let dup = out.iter().any(|o| o.kind == issue.kind && o.code == issue.code && o.url == issue.url && o.message == issue.message);
        // A deprecation seen by both Audits and ReportingObserver is kept once.
        let dup_deprecation = issue.kind == "deprecation"
            && out.iter().any(|o| o.kind == "deprecation" && o.code.is_some() && o.code == issue.code);
        if !dup && !dup_deprecation && out.len() < MAX_ISSUES {
            out.push(issue);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn audits_and_reports() {
        let events = vec![
            RawEvent { method: "Audits.issueAdded".into(), params: json!({"issue": {"code": "DeprecationIssue", "details": {"deprecationIssueDetails": {"type": "UnloadHandler", "sourceCodeLocation": {"url": "http://a.test/", "lineNumber": 2, "columnNumber": 0}}}}}) },
            RawEvent { method: "Runtime.bindingCalled".into(), params: json!({"name": crate::browser::scripts::BINDING, "payload": crate::browser::gather::csp::signed(r#"{"type":"report","report_type":"deprecation","url":"http://a.test/","body":{"id":"UnloadHandler","message":"unload is deprecated","lineNumber":3}}"#)}) },
            RawEvent { method: "Runtime.bindingCalled".into(), params: json!({"name": crate::browser::scripts::BINDING, "payload": crate::browser::gather::csp::signed(r#"{"type":"report","report_type":"intervention","url":"http://a.test/","body":{"id":"HeavyAd","message":"ad removed"}}"#)}) },
            RawEvent { method: "Audits.issueAdded".into(), params: json!({"issue": {"code": "MixedContentIssue", "details": {"mixedContentIssueDetails": {"resolutionStatus": "MixedContentBlocked", "insecureURL": "http://b.test/x.js", "mainResourceURL": "https://a.test/"}}}}) },
        ];
        let i = gather(&events);
        assert_eq!(i.len(), 3, "{i:?}");
        assert_eq!((i[0].kind.as_str(), i[0].code.as_deref(), i[0].line), ("deprecation", Some("UnloadHandler"), Some(3)));
        assert_eq!(i[1].kind, "mixed-content");
        assert_eq!((i[2].kind.as_str(), i[2].message.as_str()), ("intervention", "ad removed"));
    }

    #[test]
    fn kinds_are_kebab_case() {
        assert_eq!(kind_of("HeavyAdIssue"), "heavy-ad");
        assert_eq!(kind_of("ContentSecurityPolicyIssue"), "csp");
        assert_eq!(kind_of("SharedArrayBufferIssue"), "shared-array-buffer");
    }
}
