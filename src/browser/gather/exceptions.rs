//! Exceptions gatherer: uncaught exceptions and unhandled promise rejections
//! (`Runtime.exceptionThrown`; Chromium reports rejections as "Uncaught (in promise)"), with stack.

use crate::model::JsError;
use serde_json::Value;

use crate::browser::events::RawEvent;

/// Errors kept per page.
pub const MAX_JS_ERRORS: usize = 200;

pub(crate) fn gather(events: &[RawEvent]) -> Vec<JsError> {
    events
        .iter()
        .filter(|e| e.method == "Runtime.exceptionThrown")
        .filter_map(|e| e.params.get("exceptionDetails"))
        .take(MAX_JS_ERRORS)
        .map(js_error)
        .collect()
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
        .unwrap_or_else(|| text.to_string());
    let stack = match description {
        Some(d) if d.contains("\n    at ") => Some(d.to_string()),
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
