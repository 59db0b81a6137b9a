//! Console gatherer: console API calls (`Runtime.consoleAPICalled`) and browser log entries
//! (`Log.entryAdded`), in order.

use crate::model::ConsoleMessage;
use serde_json::Value;

use crate::browser::devtools_relay::DROPPED_METHOD;
use crate::browser::events::RawEvent;

/// Messages kept per page.
pub const MAX_CONSOLE_MESSAGES: usize = 500;
/// Characters kept per message.
pub const MAX_MESSAGE_CHARS: usize = 2000;

fn level_of(console_type: &str) -> &'static str {
    match console_type {
        "error" | "assert" => "error",
        "warning" | "warn" => "warning",
        "info" => "info",
        "debug" => "debug",
        _ => "log",
    }
}

fn arg_text(arg: &Value) -> String {
    match arg.get("value") {
        Some(Value::String(s)) => return s.clone(),
        Some(Value::Null) | None => {}
        Some(other) => return other.to_string(),
    }
    if let Some(s) = arg.get("unserializableValue").and_then(Value::as_str) {
        return s.to_string();
    }
    if let Some(s) = arg.get("description").and_then(Value::as_str) {
        return s.to_string();
    }
    arg.get("type").and_then(Value::as_str).unwrap_or("undefined").to_string()
}

/// `s` cut to [`MAX_MESSAGE_CHARS`] characters.
pub(crate) fn clip(s: String) -> String {
    match s.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => s[..cut].to_string(),
        None => s,
    }
}

/// What a gatherer says of a message the DevTools relay did not read (`what`: "exception's
/// report", "console message").
pub(crate) fn dropped_note(what: &str, dropped: &Value) -> String {
    let mb = |k: &str| dropped.get(k).and_then(Value::as_u64).unwrap_or(0) as f64 / f64::from(1u32 << 20);
    format!(
        "[sitescan did not read this {what}: Chromium sent {:.1} MB, over sitescan's budget of {:.0} MB a DevTools message]",
        mb("bytes"),
        mb("budget")
    )
}

/// A string field of a dropped message's start (`"key":"value"`), when it is whole there.
pub(crate) fn dropped_field(head: &str, key: &str) -> Option<String> {
    let start = head.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let rest = &head[start..];
    let end = rest.find('"')?;
    Some(rest[..end].to_string()).filter(|v| !v.is_empty() && !v.contains('\\'))
}

/// The page's own frame: the first that is not sitescan's console guard (`hooks.js`).
fn top_frame(stack: Option<&Value>) -> (Option<String>, Option<u32>) {
    let ours = |f: &&Value| f.get("url").and_then(Value::as_str) == Some(crate::browser::scripts::HOOKS_SOURCE_URL);
    let frame = stack.and_then(|s| s.get("callFrames")).and_then(Value::as_array).and_then(|f| f.iter().find(|f| !ours(f)));
    let url = frame.and_then(|f| f.get("url")).and_then(Value::as_str).filter(|u| !u.is_empty()).map(str::to_string);
    let line = frame.and_then(|f| f.get("lineNumber")).and_then(Value::as_u64).and_then(|l| u32::try_from(l + 1).ok());
    (url, line)
}

pub(crate) fn gather(events: &[RawEvent]) -> Vec<ConsoleMessage> {
    let mut out = Vec::new();
    for ev in events {
        if out.len() >= MAX_CONSOLE_MESSAGES {
            break;
        }
        match ev.method.as_str() {
            "Runtime.consoleAPICalled" => {
                let kind = ev.str("type").unwrap_or("log");
                let args = ev.params.get("args").and_then(Value::as_array).cloned().unwrap_or_default();
                let text = args.iter().map(arg_text).collect::<Vec<_>>().join(" ");
                let (url, line) = top_frame(ev.params.get("stackTrace"));
                out.push(ConsoleMessage { level: level_of(kind).into(), source: "console".into(), text: clip(text), url, line });
            }
            DROPPED_METHOD if matches!(ev.str("method"), Some("Runtime.consoleAPICalled" | "Log.entryAdded")) => {
                let head = ev.str("head").unwrap_or("");
                let (level, source) = match ev.str("method") {
                    Some("Log.entryAdded") => (
                        dropped_field(head, "level").unwrap_or_else(|| "info".into()),
                        dropped_field(head, "source").unwrap_or_else(|| "other".into()),
                    ),
                    _ => (level_of(&dropped_field(head, "type").unwrap_or_default()).to_string(), "console".into()),
                };
                out.push(ConsoleMessage { level, source, text: dropped_note("console message", &ev.params), url: dropped_field(head, "url"), line: None });
            }
            "Log.entryAdded" => {
                let Some(entry) = ev.params.get("entry") else { continue };
                let s = |k: &str| entry.get(k).and_then(Value::as_str).map(str::to_string);
                out.push(ConsoleMessage {
                    level: s("level").unwrap_or_else(|| "info".into()),
                    source: s("source").unwrap_or_else(|| "other".into()),
                    text: clip(s("text").unwrap_or_default()),
                    url: s("url").filter(|u| !u.is_empty()),
                    line: entry.get("lineNumber").and_then(Value::as_u64).and_then(|l| u32::try_from(l + 1).ok()),
                });
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_page_frame_is_read_past_the_console_guard() {
        let events = vec![RawEvent {
            method: "Runtime.consoleAPICalled".into(),
            params: json!({"type": "error", "args": [{"type": "string", "value": "bad"}], "stackTrace": {"callFrames": [
                {"url": crate::browser::scripts::HOOKS_SOURCE_URL, "lineNumber": 160},
                {"url": "http://a.test/app.js", "lineNumber": 9}]}}),
        }];
        let m = &gather(&events)[0];
        assert_eq!((m.url.as_deref(), m.line), (Some("http://a.test/app.js"), Some(10)));
    }

    #[test]
    fn a_message_over_the_channel_budget_is_a_short_note_at_its_level() {
        let events = vec![RawEvent {
            method: DROPPED_METHOD.into(),
            params: json!({"method": "Runtime.consoleAPICalled", "bytes": 16u64 << 20, "budget": 4u64 << 20,
                "head": "{\"method\":\"Runtime.consoleAPICalled\",\"params\":{\"type\":\"error\",\"args\":[{\"type\":\"string\",\"value\":\"xxxx"}),
        }];
        let m = &gather(&events)[0];
        assert_eq!(m.level, "error");
        assert_eq!(m.text, "[sitescan did not read this console message: Chromium sent 16.0 MB, over sitescan's budget of 4 MB a DevTools message]");
        assert_eq!(clip("é".repeat(MAX_MESSAGE_CHARS + 5)).chars().count(), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn console_calls_and_log_entries() {
        let events = vec![
            RawEvent { method: "Runtime.consoleAPICalled".into(), params: json!({"type": "error", "args": [{"type": "string", "value": "bad"}, {"type": "number", "value": 42}, {"type": "object", "description": "Object"}], "stackTrace": {"callFrames": [{"url": "http://a.test/app.js", "lineNumber": 9}]}}) },
            RawEvent { method: "Log.entryAdded".into(), params: json!({"entry": {"source": "network", "level": "error", "text": "Failed to load resource", "url": "http://a.test/x.png"}}) },
        ];
        let c = gather(&events);
        assert_eq!(c[0], ConsoleMessage { level: "error".into(), source: "console".into(), text: "bad 42 Object".into(), url: Some("http://a.test/app.js".into()), line: Some(10) });
        assert_eq!((c[1].source.as_str(), c[1].level.as_str()), ("network", "error"));
    }
}
