//! Slack: an incoming webhook's Block Kit message. `text` is the notification fallback;
//! `blocks` are a header (plain text, at most 150 characters), sections (mrkdwn, at most 3,000
//! characters; at most 10 fields of at most 2,000) and a context line; at most 50 blocks.
//! <https://api.slack.com/messaging/webhooks>, <https://api.slack.com/reference/block-kit/blocks>

use super::clip::{clip, clip_escaped, escape, join_within, units};
use super::message::{ChatMessage, MORE_TEXT_MAX, more_text};
use serde_json::{Value, json};

/// A header block's text.
pub const HEADER_MAX: usize = 150;
/// A section's text.
pub const SECTION_MAX: usize = 3000;
/// A section field's text, and how many fields a section takes.
pub const FIELD_MAX: usize = 2000;
pub const FIELDS_MAX: usize = 10;
/// A context element's text.
pub const CONTEXT_MAX: usize = 2000;
/// Blocks in one message.
pub const BLOCKS_MAX: usize = 50;
/// The fallback `text` (Slack cuts it at 40,000; a notification shows far less).
pub const TEXT_MAX: usize = 3000;
/// A finding's line in the list.
const LINE_MAX: usize = 500;

fn mrkdwn(text: String) -> Value {
    json!({"type": "mrkdwn", "text": text})
}

fn section(text: &str) -> Value {
    json!({"type": "section", "text": mrkdwn(clip_escaped(text, SECTION_MAX))})
}

/// The message Slack's incoming webhook accepts.
pub fn payload(m: &ChatMessage) -> Value {
    let mut blocks = vec![json!({"type": "header", "text": {"type": "plain_text", "text": clip(&m.headline, HEADER_MAX), "emoji": false}})];
    if !m.summary.is_empty() {
        blocks.push(section(&escape(&m.summary)));
    }
    if !m.facts.is_empty() {
        let fields: Vec<Value> = m
            .facts
            .iter()
            .take(FIELDS_MAX)
            .map(|f| mrkdwn(clip_escaped(&format!("*{}*\n{}", escape(&f.label), escape(&f.value)), FIELD_MAX)))
            .collect();
        blocks.push(json!({"type": "section", "fields": fields}));
    }
    if !m.findings.is_empty() {
        let lines: Vec<String> = m
            .findings
            .iter()
            .map(|f| clip_escaped(&format!("• {}", escape(&ChatMessage::finding_text(f))), LINE_MAX))
            .collect();
        let heading = format!("*{}*", m.findings_heading());
        let room = SECTION_MAX - units(&heading) - 1 - MORE_TEXT_MAX - 1;
        let (list, dropped) = join_within(&lines, "\n", room);
        let mut text = format!("{heading}\n{list}");
        if let Some(more) = more_text(m.more_findings + dropped as u64, m.first_scan) {
            text.push('\n');
            text.push_str(&more);
        }
        blocks.push(section(&text));
    }
    if let Some(link) = m.link.as_ref().filter(|l| l.url.len() < SECTION_MAX / 2) {
        blocks.push(section(&format!("<{}|{}>", link.url, escape(&clip(&link.label, 200)))));
    }
    let mut context = format!("sitescan · {}", m.event);
    if let Some(at) = &m.timestamp {
        context.push_str(" · ");
        context.push_str(at);
    }
    blocks.push(json!({"type": "context", "elements": [mrkdwn(clip_escaped(&escape(&context), CONTEXT_MAX))]}));
    blocks.truncate(BLOCKS_MAX);
    // The fallback is read as mrkdwn too: escaped like every other mrkdwn text.
    json!({"text": clip_escaped(&escape(&m.headline), TEXT_MAX), "blocks": blocks})
}

#[cfg(test)]
mod tests {
    use super::super::message::huge_event;
    use super::*;

    fn texts(v: &Value, out: &mut Vec<(String, String)>, path: &str) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    texts(x, out, &format!("{path}.{k}"));
                }
            }
            Value::Array(a) => a.iter().for_each(|x| texts(x, out, path)),
            Value::String(s) => out.push((path.to_string(), s.clone())),
            _ => {}
        }
    }

    #[test]
    fn a_huge_event_stays_within_every_limit() {
        let dashboard = url::Url::parse("https://scan.example.com/").unwrap();
        let p = payload(&ChatMessage::from_envelope(&huge_event(10_000), Some(&dashboard)));
        let blocks = p["blocks"].as_array().unwrap();
        assert!(blocks.len() <= BLOCKS_MAX);
        assert!(units(p["text"].as_str().unwrap()) <= TEXT_MAX);
        for b in blocks {
            match b["type"].as_str().unwrap() {
                "header" => {
                    assert_eq!(b["text"]["type"], "plain_text");
                    assert!(units(b["text"]["text"].as_str().unwrap()) <= HEADER_MAX);
                }
                "section" => {
                    if let Some(t) = b["text"]["text"].as_str() {
                        assert!(units(t) <= SECTION_MAX, "{}", units(t));
                    }
                    if let Some(f) = b["fields"].as_array() {
                        assert!(f.len() <= FIELDS_MAX);
                        assert!(f.iter().all(|x| units(x["text"].as_str().unwrap()) <= FIELD_MAX));
                    }
                }
                "context" => assert!(b["elements"].as_array().unwrap().iter().all(|e| units(e["text"].as_str().unwrap()) <= CONTEXT_MAX)),
                other => panic!("unexpected block {other}"),
            }
        }
        let mut all = Vec::new();
        texts(&p, &mut all, "");
        assert!(all.iter().any(|(_, t)| t.contains(" more new findings") && t.contains("…and 99")), "the rest are counted");
        assert!(all.iter().any(|(_, t)| t.contains("<https://scan.example.com/compare?base=")), "the compare link");
        assert!(all.iter().all(|(_, t)| !t.contains("?q=<&>")), "page text is escaped");
        let e = serde_json::json!({"type": "scan.failed", "data": {"target_url": "https://x.example/?a=<b>&c"}});
        assert_eq!(payload(&ChatMessage::from_envelope(&e, None))["text"], "Scan of https://x.example/?a=&lt;b&gt;&amp;c failed");
    }

    #[test]
    fn a_short_event_reads_plainly() {
        let e = serde_json::json!({"type": "webhook.test", "data": {}});
        let p = payload(&ChatMessage::from_envelope(&e, None));
        assert_eq!(p["text"], "Test message from sitescan");
        assert_eq!(p["blocks"][0]["text"]["text"], "Test message from sitescan");
    }
}
