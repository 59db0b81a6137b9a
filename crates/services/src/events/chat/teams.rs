//! Microsoft Teams: a message with one Adaptive Card attachment (version 1.4), as Teams
//! workflows ("Post to a channel when a webhook request is received") and incoming webhooks
//! accept it: text blocks, a fact set, the top new findings and an `Action.OpenUrl` to the
//! dashboard. Text blocks and facts are Markdown in Teams: what a page controls is escaped, so it
//! cannot add a disguised link. Teams refuses a message over about 28 KB, so the whole payload is kept under
//! [`PAYLOAD_MAX`] bytes, dropping listed findings from the end when it would not fit.
//! <https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using>

use super::clip::clip;
use super::markdown::clip_escape;
use super::message::{ChatMessage, more_text};
use serde_json::{Value, json};

/// The card's schema version.
pub const CARD_VERSION: &str = "1.4";
/// The attachment's content type.
pub const CONTENT_TYPE: &str = "application/vnd.microsoft.card.adaptive";
/// The most bytes of a whole message (Teams' limit is about 28 KB).
pub const PAYLOAD_MAX: usize = 27_000;
/// The headline's text block.
pub const HEADLINE_MAX: usize = 400;
/// The summary's text block.
pub const SUMMARY_MAX: usize = 1000;
/// A fact's title and value.
pub const FACT_TITLE_MAX: usize = 100;
pub const FACT_VALUE_MAX: usize = 500;
/// A finding's line.
pub const LINE_MAX: usize = 300;

fn text_block(text: String) -> Value {
    json!({"type": "TextBlock", "text": text, "wrap": true})
}

fn card(m: &ChatMessage, listed: usize) -> Value {
    let mut body = vec![json!({
        "type": "TextBlock", "text": clip_escape(&m.headline, HEADLINE_MAX), "wrap": true,
        "size": "Medium", "weight": "Bolder", "color": m.tone.card_color(),
    })];
    if !m.summary.is_empty() {
        body.push(text_block(clip_escape(&m.summary, SUMMARY_MAX)));
    }
    if !m.facts.is_empty() {
        let facts: Vec<Value> =
            m.facts.iter().map(|f| json!({"title": clip_escape(&f.label, FACT_TITLE_MAX), "value": clip_escape(&f.value, FACT_VALUE_MAX)})).collect();
        body.push(json!({"type": "FactSet", "facts": facts}));
    }
    if !m.findings.is_empty() {
        body.push(json!({"type": "TextBlock", "text": m.findings_heading(), "weight": "Bolder", "wrap": true, "spacing": "Medium"}));
        for f in m.findings.iter().take(listed) {
            body.push(json!({"type": "TextBlock", "text": format!("- {}", clip_escape(&ChatMessage::finding_text(f), LINE_MAX - 2)), "wrap": true, "spacing": "None"}));
        }
        let more = m.more_findings + (m.findings.len() - listed.min(m.findings.len())) as u64;
        if let Some(more) = more_text(more, m.first_scan) {
            body.push(json!({"type": "TextBlock", "text": more, "wrap": true, "isSubtle": true}));
        }
    }
    body.push(json!({"type": "TextBlock", "text": format!("sitescan · {}", clip_escape(&m.event, 100)), "wrap": true, "isSubtle": true, "size": "Small"}));
    let mut content = json!({
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": CARD_VERSION,
        "body": body,
        "msteams": {"width": "Full"},
    });
    if let Some(link) = &m.link {
        content["actions"] = json!([{"type": "Action.OpenUrl", "title": clip(&link.label, 100), "url": link.url}]);
    }
    json!({"type": "message", "attachments": [{"contentType": CONTENT_TYPE, "contentUrl": null, "content": content}]})
}

/// The message a Teams workflow or incoming webhook accepts.
pub fn payload(m: &ChatMessage) -> Value {
    super::fit_listed(m.findings.len(), PAYLOAD_MAX, |listed| card(m, listed))
}

#[cfg(test)]
mod tests {
    use super::super::clip::units;
    use super::super::message::huge_event;
    use super::*;

    #[test]
    fn a_huge_event_is_one_adaptive_card_under_the_size_limit() {
        let dashboard = url::Url::parse("https://scan.example.com/").unwrap();
        let p = payload(&ChatMessage::from_envelope(&huge_event(10_000), Some(&dashboard)));
        assert!(p.to_string().len() <= PAYLOAD_MAX, "{} bytes", p.to_string().len());
        assert_eq!(p["type"], "message");
        let a = &p["attachments"][0];
        assert_eq!(a["contentType"], CONTENT_TYPE);
        assert_eq!(a["content"]["type"], "AdaptiveCard");
        assert_eq!(a["content"]["version"], CARD_VERSION);
        let body = a["content"]["body"].as_array().unwrap();
        assert!(body.iter().all(|b| b["type"] == "TextBlock" || b["type"] == "FactSet"));
        assert!(units(body[0]["text"].as_str().unwrap()) <= HEADLINE_MAX);
        assert!(body.iter().any(|b| b["text"].as_str().is_some_and(|t| t.contains("more new findings"))));
        let action = &a["content"]["actions"][0];
        assert_eq!(action["type"], "Action.OpenUrl");
        assert!(action["url"].as_str().unwrap().starts_with("https://scan.example.com/compare?base="));
    }

    /// Text blocks and facts are Markdown in Teams: a page's URL cannot become a disguised link.
    #[test]
    fn what_a_page_controls_is_inert_markdown() {
        let hostile = "https://site.example/[Reset your password](https://evil.example/)";
        let e = serde_json::json!({"type": "scan.completed", "data": {"target_url": hostile, "changes": {"new": 1},
            "new_findings": [{"check_id": "security.csp-missing", "severity": "high", "page_url": hostile, "title": "No CSP"}]}});
        let p = payload(&ChatMessage::from_envelope(&e, None));
        let content = &p["attachments"][0]["content"];
        let mut texts: Vec<String> = content["body"].as_array().unwrap().iter().filter_map(|b| b["text"].as_str().map(str::to_string)).collect();
        texts.extend(content["body"].as_array().unwrap().iter().filter_map(|b| b["facts"].as_array()).flatten().filter_map(|f| f["value"].as_str().map(str::to_string)));
        assert!(texts.iter().any(|t| t.contains("Reset your password")), "{texts:?}");
        assert!(texts.iter().all(|t| !t.contains("](") && (!t.contains("Reset") || t.contains(r"\[Reset your password\]"))), "{texts:?}");
    }

    #[test]
    fn without_a_link_there_is_no_action() {
        let p = payload(&ChatMessage::from_envelope(&serde_json::json!({"type": "webhook.test", "data": {}}), None));
        assert!(p["attachments"][0]["content"].get("actions").is_none());
    }
}
