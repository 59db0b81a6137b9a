//! Google Chat: a space webhook's message, `text` (the notification) and one card of
//! `cardsV2` (a header with title and subtitle, sections of widgets: a paragraph, the facts as
//! decorated text, the top new findings, a button to the dashboard). Card text is a small HTML
//! subset, so text is escaped; Google Chat refuses a message over 32,000 bytes, so the whole
//! payload stays under [`PAYLOAD_MAX`], dropping listed findings from the end when it would not fit.
//! <https://developers.google.com/workspace/chat/quickstart/webhooks>,
//! <https://developers.google.com/workspace/chat/api/reference/rest/v1/cards>

use super::clip::{clip, clip_escaped, escape};
use super::message::{ChatMessage, more_text};
use serde_json::{Value, json};

/// The most bytes of a whole message (Google Chat's limit is 32,000).
pub const PAYLOAD_MAX: usize = 30_000;
/// The notification text.
pub const TEXT_MAX: usize = 4000;
/// The card header's title and subtitle.
pub const TITLE_MAX: usize = 200;
pub const SUBTITLE_MAX: usize = 200;
/// A paragraph's text.
pub const PARAGRAPH_MAX: usize = 2000;
/// A fact's label and value.
const LABEL_MAX: usize = 100;
const VALUE_MAX: usize = 500;
/// A finding's line.
const LINE_MAX: usize = 400;

fn card(m: &ChatMessage, listed: usize) -> Value {
    let mut subtitle = format!("sitescan · {}", m.event);
    if let Some(at) = &m.timestamp {
        subtitle.push_str(" · ");
        subtitle.push_str(at);
    }
    let mut sections = Vec::new();
    if !m.summary.is_empty() {
        sections.push(json!({"widgets": [{"textParagraph": {"text": clip_escaped(&escape(&m.summary), PARAGRAPH_MAX)}}]}));
    }
    if !m.facts.is_empty() {
        let widgets: Vec<Value> = m
            .facts
            .iter()
            .map(|f| json!({"decoratedText": {"topLabel": clip_escaped(&escape(&f.label), LABEL_MAX), "text": clip_escaped(&escape(&f.value), VALUE_MAX), "wrapText": true}}))
            .collect();
        sections.push(json!({"widgets": widgets}));
    }
    if !m.findings.is_empty() {
        let mut widgets: Vec<Value> = m
            .findings
            .iter()
            .take(listed)
            .map(|f| json!({"textParagraph": {"text": clip_escaped(&escape(&ChatMessage::finding_text(f)), LINE_MAX)}}))
            .collect();
        let more = m.more_findings + (m.findings.len() - listed.min(m.findings.len())) as u64;
        if let Some(more) = more_text(more, m.first_scan) {
            widgets.push(json!({"textParagraph": {"text": more}}));
        }
        sections.push(json!({"header": m.findings_heading(), "collapsible": false, "widgets": widgets}));
    }
    if let Some(link) = &m.link {
        sections.push(json!({"widgets": [{"buttonList": {"buttons": [{"text": clip(&link.label, 100), "onClick": {"openLink": {"url": link.url}}}]}}]}));
    }
    if sections.is_empty() {
        sections.push(json!({"widgets": [{"textParagraph": {"text": clip_escaped(&escape(&m.headline), PARAGRAPH_MAX)}}]}));
    }
    let card_id = format!("sitescan-{}", m.event.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-').take(60).collect::<String>());
    json!({
        "text": clip(&m.headline, TEXT_MAX),
        "cardsV2": [{
            "cardId": card_id,
            "card": {
                "header": {"title": clip(&m.headline, TITLE_MAX), "subtitle": clip(&subtitle, SUBTITLE_MAX)},
                "sections": sections,
            }
        }]
    })
}

/// The message a Google Chat space webhook accepts.
pub fn payload(m: &ChatMessage) -> Value {
    super::fit_listed(m.findings.len(), PAYLOAD_MAX, |listed| card(m, listed))
}

#[cfg(test)]
mod tests {
    use super::super::clip::units;
    use super::super::message::huge_event;
    use super::*;

    #[test]
    fn a_huge_event_is_one_card_under_the_size_limit() {
        let dashboard = url::Url::parse("https://scan.example.com/").unwrap();
        let p = payload(&ChatMessage::from_envelope(&huge_event(10_000), Some(&dashboard)));
        assert!(p.to_string().len() <= PAYLOAD_MAX, "{} bytes", p.to_string().len());
        assert!(units(p["text"].as_str().unwrap()) <= TEXT_MAX);
        let card = &p["cardsV2"][0];
        assert_eq!(card["cardId"], "sitescan-scan.completed");
        assert!(units(card["card"]["header"]["title"].as_str().unwrap()) <= TITLE_MAX);
        let sections = card["card"]["sections"].as_array().unwrap();
        assert!(sections.iter().all(|s| !s["widgets"].as_array().unwrap().is_empty()));
        let all = p.to_string();
        assert!(all.contains("more new findings"));
        assert!(!all.contains("?q=<&>"), "card text is escaped");
        assert!(all.contains("\"openLink\":{\"url\":\"https://scan.example.com/compare?base="));
    }
}
