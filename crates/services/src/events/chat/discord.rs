//! Discord: a channel webhook's message with one embed (title at most 256 characters,
//! description at most 4,096, at most 25 fields of name 256 and value 1,024, footer 2,048, and
//! at most 6,000 characters over the whole embed). Mentions are switched off, so no page title
//! can ping a channel, and what a page controls is escaped where Discord reads Markdown
//! (description and fields), so it cannot add a disguised link.
//! <https://discord.com/developers/docs/resources/webhook#execute-webhook>,
//! <https://discord.com/developers/docs/resources/message#embed-object-embed-limits>

use super::clip::{clip, join_within, units};
use super::markdown::clip_escape;
use super::message::{ChatMessage, MORE_TEXT_MAX, more_text};
use serde_json::{Value, json};

pub const TITLE_MAX: usize = 256;
pub const DESCRIPTION_MAX: usize = 4096;
pub const FIELDS_MAX: usize = 25;
pub const FIELD_NAME_MAX: usize = 256;
pub const FIELD_VALUE_MAX: usize = 1024;
pub const FOOTER_MAX: usize = 2048;
/// Characters over every text of the embeds of one message.
pub const EMBED_TOTAL_MAX: usize = 6000;
/// Embeds in one message.
pub const EMBEDS_MAX: usize = 10;
/// A fact's value here (under the field limit, so the facts leave room for the description).
const FACT_VALUE_MAX: usize = 512;
/// A fact's name here.
const FACT_NAME_MAX: usize = 64;
/// A finding's line.
const LINE_MAX: usize = 400;

/// The message Discord's webhook accepts.
pub fn payload(m: &ChatMessage) -> Value {
    let title = clip(&m.headline, TITLE_MAX);
    let footer = clip(&format!("sitescan · {}", m.event), 200);
    let fields: Vec<Value> = m
        .facts
        .iter()
        .filter(|f| !f.label.is_empty() && !f.value.is_empty())
        .take(FIELDS_MAX)
        .map(|f| json!({"name": clip_escape(&f.label, FACT_NAME_MAX), "value": clip_escape(&f.value, FACT_VALUE_MAX), "inline": units(&f.value) <= 40}))
        .collect();
    let used = units(&title)
        + units(&footer)
        + fields.iter().map(|f| units(f["name"].as_str().unwrap_or("")) + units(f["value"].as_str().unwrap_or(""))).sum::<usize>();
    let room = DESCRIPTION_MAX.min(EMBED_TOTAL_MAX.saturating_sub(used));
    // The link is ours (the dashboard's URL); the summary may hold what a page controls.
    let link = m.link.as_ref().map(|l| format!("[{}]({})", l.label, l.url));
    let summary_room = (room / 2).saturating_sub(link.as_deref().map_or(0, |l| units(l) + 2));
    let parts: Vec<String> = [(!m.summary.is_empty()).then(|| clip_escape(&m.summary, summary_room)), link].into_iter().flatten().collect();
    let head = clip(&parts.join("\n\n"), room / 2);
    let mut description = head.clone();
    if !m.findings.is_empty() {
        let heading = format!("**{}**", m.findings_heading());
        let reserve = units(&head) + 2 + units(&heading) + 1 + MORE_TEXT_MAX + 1;
        let lines: Vec<String> = m.findings.iter().map(|f| format!("• {}", clip_escape(&ChatMessage::finding_text(f), LINE_MAX - 2))).collect();
        let (list, dropped) = join_within(&lines, "\n", room.saturating_sub(reserve));
        let more = more_text(m.more_findings + dropped as u64, m.first_scan);
        if !description.is_empty() {
            description.push_str("\n\n");
        }
        description.push_str(&heading);
        description.push('\n');
        description.push_str(&list);
        if let Some(more) = more {
            description.push('\n');
            description.push_str(&more);
        }
    }
    let mut embed = json!({
        "title": title,
        "description": clip(&description, room),
        "color": m.tone.rgb(),
        "fields": fields,
        "footer": {"text": clip(&footer, FOOTER_MAX)},
    });
    if let Some(link) = m.link.as_ref().filter(|l| l.url.len() <= 2000) {
        embed["url"] = json!(link.url);
    }
    if let Some(at) = &m.timestamp {
        embed["timestamp"] = json!(at);
    }
    json!({"embeds": [embed], "allowed_mentions": {"parse": []}})
}

#[cfg(test)]
mod tests {
    use super::super::message::huge_event;
    use super::*;

    fn embed_total(e: &Value) -> usize {
        let s = |v: &Value| v.as_str().map_or(0, units);
        s(&e["title"])
            + s(&e["description"])
            + s(&e["footer"]["text"])
            + s(&e["author"]["name"])
            + e["fields"].as_array().map_or(0, |f| f.iter().map(|x| s(&x["name"]) + s(&x["value"])).sum())
    }

    #[test]
    fn a_huge_event_stays_within_every_embed_limit() {
        let dashboard = url::Url::parse("https://scan.example.com/").unwrap();
        let p = payload(&ChatMessage::from_envelope(&huge_event(10_000), Some(&dashboard)));
        let embeds = p["embeds"].as_array().unwrap();
        assert!(!embeds.is_empty() && embeds.len() <= EMBEDS_MAX);
        let e = &embeds[0];
        assert!(units(e["title"].as_str().unwrap()) <= TITLE_MAX);
        assert!(units(e["description"].as_str().unwrap()) <= DESCRIPTION_MAX);
        let fields = e["fields"].as_array().unwrap();
        assert!(fields.len() <= FIELDS_MAX);
        for f in fields {
            assert!(units(f["name"].as_str().unwrap()) <= FIELD_NAME_MAX);
            assert!(units(f["value"].as_str().unwrap()) <= FIELD_VALUE_MAX);
        }
        assert!(embed_total(e) <= EMBED_TOTAL_MAX, "{}", embed_total(e));
        assert!(e["description"].as_str().unwrap().contains("more new findings"));
        assert_eq!(e["timestamp"], "2026-11-29T06:00:00Z");
        assert!(e["url"].as_str().unwrap().starts_with("https://scan.example.com/compare?base="));
        assert_eq!(e["color"], 0xDC2626);
    }

    /// A scanned page's URL cannot become a link with other text, a heading or a code span.
    #[test]
    fn what_a_page_controls_is_inert_markdown() {
        let hostile = "https://site.example/[Reset your password](https://evil.example/)`x`";
        let e = serde_json::json!({"type": "scan.failed", "data": {"target_url": hostile, "error": "# Boom **now**"}});
        let p = payload(&ChatMessage::from_envelope(&e, None));
        let embed = &p["embeds"][0];
        let description = embed["description"].as_str().unwrap();
        assert!(!description.contains("](") && description.contains(r"\# Boom \*\*now\*\*"), "{description}");
        let target = embed["fields"][0]["value"].as_str().unwrap();
        assert!(!target.contains("](") && target.contains(r"\[Reset your password\]\(https://evil.example/\)\`x\`"), "{target}");
    }

    #[test]
    fn an_event_without_facts_or_link_is_still_a_valid_embed() {
        let p = payload(&ChatMessage::from_envelope(&serde_json::json!({"type": "webhook.test", "data": {}}), None));
        assert_eq!(p["embeds"][0]["title"], "Test message from sitescan");
        assert!(p["embeds"][0].get("url").is_none());
    }
}
