//! Exceptions gatherer: uncaught exceptions and unhandled promise rejections
//! (`Runtime.exceptionThrown`; Chromium reports rejections as "Uncaught (in promise)"), with stack.

use crate::model::JsError;
use serde_json::Value;

use super::console::{clip, dropped_field, dropped_note};
use crate::browser::devtools_relay::DROPPED_METHOD;
use crate::browser::events::RawEvent;
use crate::browser::scripts::{BINDING, REPORT_TOKEN};
use serde::Deserialize;

/// Errors kept per page.
pub const MAX_JS_ERRORS: usize = 200;

pub(crate) fn gather(events: &[RawEvent]) -> Vec<JsError> {
    let signed = format!("\"t\":\"{}\"", *REPORT_TOKEN);
    events
        .iter()
        .filter_map(|e| match e.method.as_str() {
            "Runtime.exceptionThrown" => e.params.get("exceptionDetails").map(js_error),
            "Runtime.bindingCalled" if e.str("name") == Some(BINDING) => {
                e.str("payload").filter(|p| p.contains(&signed)).and_then(cut_in_page)
            }
            DROPPED_METHOD if e.str("method") == Some("Runtime.exceptionThrown") => Some(not_read(&e.params)),
            _ => None,
        })
        .take(MAX_JS_ERRORS)
        .collect()
}

/// An error or rejection whose text was too long for the browser's own report: `hooks.js`
/// cancelled it and sent it cut, with where it was thrown.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CutError {
    r#type: String,
    kind: String,
    message: String,
    stack: Option<String>,
    url: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
}

fn cut_in_page(payload: &str) -> Option<JsError> {
    let r: CutError = crate::browser::lenient::from_json(payload).ok()?;
    if r.r#type != "exception" {
        return None;
    }
    let kind = if r.kind == "unhandled-rejection" { "unhandled-rejection" } else { "exception" };
    Some(JsError {
        kind: kind.into(),
        message: clip(r.message),
        stack: r.stack.map(clip),
        url: r.url.filter(|u| !u.is_empty()),
        line: r.line,
        column: r.column,
    })
}

/// An exception whose report was over the DevTools channel's budget: the page threw, and what
/// the start of the report says (rejection or exception, the script).
fn not_read(dropped: &Value) -> JsError {
    let head = dropped.get("head").and_then(Value::as_str).unwrap_or("");
    let kind = if head.contains("\"text\":\"Uncaught (in promise)") { "unhandled-rejection" } else { "exception" };
    JsError { kind: kind.into(), message: dropped_note("exception's report", dropped), stack: None, url: dropped_field(head, "url"), line: None, column: None }
}

fn js_error(d: &Value) -> JsError {
    let text = d.get("text").and_then(Value::as_str).unwrap_or("");
    let exception = d.get("exception");
    let description = exception.and_then(|e| e.get("description")).and_then(Value::as_str);
    let value = exception.and_then(|e| e.get("value")).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let kind = if text.starts_with("Uncaught (in promise)") { "unhandled-rejection" } else { "exception" };
    let frames = d.get("stackTrace").and_then(|s| s.get("callFrames")).and_then(Value::as_array).cloned().unwrap_or_default();
    let message = description
        .map(|d| d.lines().next().unwrap_or("").to_string())
        .or(value.clone())
        .filter(|m| !m.is_empty())
        .map_or_else(|| clip(text.to_string()), clip);
    let stack = match description {
        Some(d) if d.contains("\n    at ") => Some(clip(d.to_string())),
        _ if !frames.is_empty() => Some(
            frames
                .iter()
                .map(|f| {
                    let s = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("");
                    let n = |k: &str| f.get(k).and_then(Value::as_u64).unwrap_or(0) + 1;
                    let name = if s("functionName").is_empty() { "<anonymous>" } else { s("functionName") };
                    format!("    at {name} ({}:{}:{})", s("url"), n("lineNumber"), n("columnNumber"))
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    };
    let top = frames.first();
    let url = d
        .get("url")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
        .or_else(|| top.and_then(|f| f.get("url")).and_then(Value::as_str).filter(|u| !u.is_empty()))
        .map(str::to_string);
    let num = |k: &str| d.get(k).and_then(Value::as_u64).and_then(|n| u32::try_from(n + 1).ok());
    JsError { kind: kind.into(), message, stack, url, line: num("lineNumber"), column: num("columnNumber") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_exception_over_the_channel_budget_is_still_an_exception() {
        let head = "{\"method\":\"Runtime.exceptionThrown\",\"params\":{\"timestamp\":1,\"exceptionDetails\":{\"exceptionId\":1,\"text\":\"Uncaught (in promise)\",\"lineNumber\":2,\"url\":\"http://a.test/app.js\",\"exception\":{\"value\":\"xxx";
        let events = vec![RawEvent { method: DROPPED_METHOD.into(), params: json!({"method": "Runtime.exceptionThrown", "bytes": 16u64 << 20, "budget": 4u64 << 20, "head": head}) }];
        let e = &gather(&events)[0];
        assert_eq!(e.kind, "unhandled-rejection");
        assert!(e.message.contains("sent 16.0 MB, over sitescan's budget of 4 MB"), "{}", e.message);
        assert_eq!(e.url.as_deref(), Some("http://a.test/app.js"));
        let long = vec![RawEvent { method: "Runtime.exceptionThrown".into(), params: json!({"exceptionDetails": {"text": "Uncaught", "exception": {"description": format!("Error: {}", "x".repeat(100_000))}}}) }];
        assert!(gather(&long)[0].message.len() <= super::super::console::MAX_MESSAGE_CHARS);
    }

    #[test]
    fn an_error_cut_in_the_page_is_an_exception_where_it_was_thrown() {
        let signed = crate::browser::gather::csp::signed;
        let payload = r#"{"type":"exception","kind":"exception","message":"Error: xxx… [cut by sitescan: 16777216 characters]","stack":"    at boom (http://a.test/app.js:3:9)","chars":16777216,"url":"http://a.test/app.js","line":3,"column":9}"#;
        let call = |p: String| RawEvent { method: "Runtime.bindingCalled".into(), params: json!({"name": BINDING, "payload": p}) };
        let e = gather(&[call(signed(payload)), call(payload.to_string())]);
        assert_eq!(e.len(), 1, "a report without the token is the page's, not ours: {e:?}");
        assert_eq!((e[0].kind.as_str(), e[0].url.as_deref(), e[0].line, e[0].column), ("exception", Some("http://a.test/app.js"), Some(3), Some(9)));
        assert!(e[0].message.ends_with("[cut by sitescan: 16777216 characters]"));
        assert_eq!(e[0].stack.as_deref(), Some("    at boom (http://a.test/app.js:3:9)"));
    }

    #[test]
    fn exceptions_and_rejections() {
        let events = vec![
            RawEvent { method: "Runtime.exceptionThrown".into(), params: json!({"exceptionDetails": {"text": "Uncaught", "lineNumber": 4, "columnNumber": 2, "url": "http://a.test/", "exception": {"description": "TypeError: x is undefined\n    at f (http://a.test/:5:3)"}}}) },
            RawEvent { method: "Runtime.exceptionThrown".into(), params: json!({"exceptionDetails": {"text": "Uncaught (in promise)", "lineNumber": 0, "columnNumber": 0, "exception": {"type": "string", "value": "nope"}, "stackTrace": {"callFrames": [{"functionName": "", "url": "http://a.test/r.js", "lineNumber": 1, "columnNumber": 7}]}}}) },
        ];
        let e = gather(&events);
        assert_eq!((e[0].kind.as_str(), e[0].message.as_str(), e[0].line), ("exception", "TypeError: x is undefined", Some(5)));
        assert!(e[0].stack.as_deref().unwrap().contains("at f"));
        assert_eq!((e[1].kind.as_str(), e[1].message.as_str()), ("unhandled-rejection", "nope"));
        assert_eq!(e[1].stack.as_deref(), Some("    at <anonymous> (http://a.test/r.js:2:8)"));
        assert_eq!(e[1].url.as_deref(), Some("http://a.test/r.js"));
    }
}
