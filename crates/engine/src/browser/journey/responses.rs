//! A step's navigations and submissions, and the egress proxy's own answers, read from its
//! events.

use serde_json::Value;

use crate::browser::events::RawEvent;
use crate::model::JourneySpec;
use crate::model::journey::JourneyResponse;
use crate::net::EgressProxy;

/// Navigations (document requests) and submissions by script (non-GET XHR/fetch) and their
/// answers, from a step's events.
pub(super) fn collect_responses(events: &[RawEvent], step: usize, spec: &JourneySpec, out: &mut Vec<JourneyResponse>) {
    let mut methods = std::collections::HashMap::new();
    for e in events.iter().filter(|e| e.method == "Network.requestWillBeSent") {
        let (Some(id), Some(method)) = (e.str("requestId"), e.params.get("request").and_then(|r| r.get("method")).and_then(Value::as_str)) else {
            continue;
        };
        methods.insert(id.to_string(), method.to_string());
    }
    for e in events.iter().filter(|e| e.method == "Network.responseReceived") {
        let kind = e.str("type").unwrap_or_default();
        let method = e.str("requestId").and_then(|id| methods.get(id)).cloned().unwrap_or_else(|| "GET".into());
        let is_submission = matches!(kind, "XHR" | "Fetch") && method != "GET";
        if kind != "Document" && !is_submission {
            continue;
        }
        let response = e.params.get("response");
        if response.and_then(proxy_marker).is_some() {
            continue; // The egress proxy's own answer, not the site's: the step says so.
        }
        let status = response.and_then(|r| r.get("status")).and_then(Value::as_u64).unwrap_or(0);
        let url = response.and_then(|r| r.get("url")).and_then(Value::as_str).unwrap_or_default();
        if status == 0 || url.starts_with("data:") || url.starts_with("about:") {
            continue;
        }
        out.push(JourneyResponse {
            step,
            method,
            url: spec.secrets.mask(url),
            status: u16::try_from(status).unwrap_or(0),
            resource_type: kind.to_string(),
        });
    }
}

/// The egress proxy's own answer to a document request among `events` (the guard refused the
/// address, or nothing answered there), as the reason the step failed.
pub(super) fn egress_refusal(events: &[RawEvent], proxy: &EgressProxy) -> Option<String> {
    events.iter().filter(|e| e.method == "Network.responseReceived" && e.str("type") == Some("Document")).find_map(|e| {
        let response = e.params.get("response")?;
        let marker = proxy_marker(response)?;
        let url = response.get("url").and_then(Value::as_str).unwrap_or_default();
        let parsed = url::Url::parse(url).ok();
        let reason = parsed.as_ref().and_then(|u| proxy.blocked_reason(u.host_str()?, u.port_or_known_default()?));
        Some(match marker.as_str() {
            "blocked" => format!("{url} was refused by the egress guard{}", reason.map(|r| format!(" ({r})")).unwrap_or_default()),
            _ => format!("{url} could not be reached"),
        })
    })
}

/// The `x-sitescan-egress` marker of an answer the egress proxy made itself.
fn proxy_marker(response: &Value) -> Option<String> {
    let headers = response.get("headers")?.as_object()?;
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(crate::net::EGRESS_HEADER)).and_then(|(_, v)| v.as_str()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_are_navigations_and_submissions_masked_without_the_proxys_own() {
        use serde_json::json;
        let ev = |method: &str, params: Value| RawEvent { method: method.into(), params };
        let events = vec![
            ev("Network.requestWillBeSent", json!({"requestId": "1", "type": "Document", "request": {"method": "POST", "url": "http://a.test/login"}})),
            ev("Network.responseReceived", json!({"requestId": "1", "type": "Document", "response": {"status": 500, "url": "http://a.test/login?pw=hunter2", "headers": {}}})),
            ev("Network.requestWillBeSent", json!({"requestId": "2", "type": "Fetch", "request": {"method": "GET", "url": "http://a.test/api"}})),
            ev("Network.responseReceived", json!({"requestId": "2", "type": "Fetch", "response": {"status": 404, "url": "http://a.test/api", "headers": {}}})),
            ev("Network.requestWillBeSent", json!({"requestId": "3", "type": "Fetch", "request": {"method": "PUT", "url": "http://a.test/cart"}})),
            ev("Network.responseReceived", json!({"requestId": "3", "type": "Fetch", "response": {"status": 409, "url": "http://a.test/cart", "headers": {}}})),
            ev("Network.responseReceived", json!({"requestId": "4", "type": "Document", "response": {"status": 403, "url": "http://10.0.0.1/", "headers": {"X-Sitescan-Egress": "blocked"}}})),
        ];
        let mut secrets = crate::model::JourneySecrets::new();
        secrets.insert("PASSWORD", "hunter2");
        let spec = JourneySpec { journey: crate::model::parse_journey(r#"{"name": "a", "steps": [{"navigate": "/"}]}"#).unwrap(), secrets };
        let mut out = Vec::new();
        collect_responses(&events, 3, &spec, &mut out);
        let seen: Vec<(&str, &str, u16)> = out.iter().map(|r| (r.method.as_str(), r.url.as_str(), r.status)).collect();
        assert_eq!(seen, [("POST", "http://a.test/login?pw=••••••", 500), ("PUT", "http://a.test/cart", 409)]);
        assert!(out.iter().all(|r| r.step == 3));
        assert!(proxy_marker(&events[6].params["response"]).is_some());
    }
}
