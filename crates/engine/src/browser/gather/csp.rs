//! CSP gatherer: `securitypolicyviolation` events, reported by `browser/hooks.js` through the
//! CDP binding.

use crate::model::CspViolation;
use serde::Deserialize;

use crate::browser::events::RawEvent;
use crate::browser::scripts::{BINDING, REPORT_TOKEN};

/// Violations kept per page.
pub const MAX_CSP_VIOLATIONS: usize = 200;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Report {
    r#type: String,
    directive: String,
    blocked_uri: String,
    source_file: Option<String>,
    line: Option<u32>,
    disposition: Option<String>,
}

/// The binding payloads (JSON text) of every `Runtime.bindingCalled` of our binding that
/// `hooks.js` sent (signed with [`REPORT_TOKEN`]); a page's script can call the binding too.
pub(crate) fn binding_payloads(events: &[RawEvent]) -> impl Iterator<Item = &str> {
    let signed = format!("\"t\":\"{}\"", *REPORT_TOKEN);
    events
        .iter()
        .filter(|e| e.method == "Runtime.bindingCalled" && e.str("name") == Some(BINDING))
        .filter_map(|e| e.str("payload"))
        .filter(move |p| p.contains(&signed))
}

/// `payload` as `hooks.js` sends it (for tests).
#[cfg(test)]
pub(crate) fn signed(payload: &str) -> String {
    format!("{{\"t\":\"{}\",{}", *REPORT_TOKEN, payload.trim_start().trim_start_matches('{'))
}

pub(crate) fn gather(events: &[RawEvent]) -> Vec<CspViolation> {
    let mut out: Vec<CspViolation> = Vec::new();
    for payload in binding_payloads(events) {
        let Ok(r) = crate::browser::lenient::from_json::<Report>(payload) else { continue };
        if r.r#type != "csp" {
            continue;
        }
        let v = CspViolation {
            directive: r.directive,
            blocked_uri: r.blocked_uri,
            source_file: r.source_file.filter(|s| !s.is_empty()),
            line: r.line.filter(|l| *l > 0),
            disposition: r.disposition,
        };
        if !out.contains(&v) && out.len() < MAX_CSP_VIOLATIONS {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_and_dedupes_binding_reports() {
        let payload = r#"{"type":"csp","directive":"img-src","blocked_uri":"http://x.test/a.png","source_file":"http://a.test/","line":3,"disposition":"enforce"}"#;
        let call = RawEvent { method: "Runtime.bindingCalled".into(), params: json!({"name": BINDING, "payload": signed(payload)}) };
        let other = RawEvent { method: "Runtime.bindingCalled".into(), params: json!({"name": "someoneElse", "payload": signed(payload)}) };
        // The page's own script calling the binding: no token.
        let forged = RawEvent { method: "Runtime.bindingCalled".into(), params: json!({"name": BINDING, "payload": payload.replace("img-src", "script-src")}) };
        let v = gather(&[call.clone(), call, other, forged]);
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].directive.as_str(), v[0].line), ("img-src", Some(3)));
    }
}
