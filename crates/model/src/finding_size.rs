//! The size limits of one finding: whatever a target page holds (a 4 MB `<title>`, a megabyte
//! attribute), a finding's strings are cut to [`MAX_VALUE_BYTES`] each and its evidence to
//! [`MAX_FINDING_BYTES`] serialised, so the same bytes are never copied into the store, every
//! report format, the findings export and webhooks. A cut finding says so in its evidence:
//! `truncated: true` and `original_lengths` (JSON pointer of each cut value -> its length in
//! bytes before the cut).

use super::finding::Finding;
use serde_json::{Map, Value};

/// Bytes of one string in a finding (evidence value, title, description, remediation).
pub const MAX_VALUE_BYTES: usize = 2 * 1024;
/// Bytes of one finding's evidence, serialised as JSON.
pub const MAX_FINDING_BYTES: usize = 16 * 1024;
/// Cut values whose original lengths are listed (the rest are cut all the same).
const MAX_LISTED_CUTS: usize = 16;
/// Evidence keys that locate a finding and survive the last resort.
const LOCATING_KEYS: [&str; 3] = ["url", "selector", "check"];

/// `text` cut to at most `max` bytes on a character boundary, `…` appended when cut.
pub fn cut(text: &str, max: usize) -> Option<String> {
    if text.len() <= max {
        return None;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}…", &text[..end]))
}

/// Cuts every string under `value` longer than `max` bytes and every array longer than
/// `max_items`, noting each cut string's pointer and original length in `cuts`.
fn cut_value(value: &mut Value, path: &mut String, max: usize, max_items: usize, cuts: &mut Vec<(String, usize)>) {
    match value {
        Value::String(s) => {
            if let Some(short) = cut(s, max) {
                cuts.push((path.clone(), s.len()));
                *s = short;
            }
        }
        Value::Array(items) => {
            if items.len() > max_items {
                cuts.push((format!("{path}/length"), items.len()));
                items.truncate(max_items);
            }
            for (i, item) in items.iter_mut().enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                cut_value(item, path, max, max_items, cuts);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                let len = path.len();
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                cut_value(v, path, max, max_items, cuts);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn serialised_len(evidence: &Map<String, Value>) -> usize {
    serde_json::to_vec(evidence).map_or(usize::MAX, |v| v.len())
}

/// True for an address a finding may link to: `http(s)`, at most [`MAX_VALUE_BYTES`], no
/// whitespace or control characters.
pub fn is_link(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && url.len() <= MAX_VALUE_BYTES
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Applies the budget to `finding`; `true` when anything was cut. A `help_url` that is not a
/// link (see [`is_link`]) is dropped, never cut: half an address is a wrong one.
pub fn bound(finding: &mut Finding) -> bool {
    let mut cut_any = false;
    if finding.help_url.as_deref().is_some_and(|u| !is_link(u)) {
        finding.help_url = None;
        cut_any = true;
    }
    for text in [&mut finding.title, &mut finding.description, &mut finding.remediation] {
        if let Some(short) = cut(text, MAX_VALUE_BYTES) {
            *text = short;
            cut_any = true;
        }
    }
    if serialised_len(&finding.evidence) <= MAX_VALUE_BYTES {
        return cut_any;
    }
    let original = serialised_len(&finding.evidence);
    let mut cuts = Vec::new();
    // Tighter and tighter until the evidence fits; the first pass is the per-value budget.
    for (max, max_items) in [(MAX_VALUE_BYTES, 500), (512, 64), (128, 16)] {
        let mut value = Value::Object(std::mem::take(&mut finding.evidence));
        let mut pass = Vec::new();
        cut_value(&mut value, &mut String::new(), max, max_items, &mut pass);
        if let Value::Object(map) = value {
            finding.evidence = map;
        }
        for (path, len) in pass {
            if !cuts.iter().any(|(p, _)| *p == path) {
                cuts.push((path, len));
            }
        }
        if serialised_len(&finding.evidence) <= MAX_FINDING_BYTES - 1024 {
            break;
        }
    }
    if serialised_len(&finding.evidence) > MAX_FINDING_BYTES - 1024 {
        // Too many keys to fit at all: keep what locates the finding.
        finding.evidence.retain(|k, _| LOCATING_KEYS.contains(&k.as_str()));
        finding.evidence.insert("original_bytes".into(), Value::from(original as u64));
    }
    if cuts.is_empty() && !finding.evidence.contains_key("original_bytes") {
        return cut_any;
    }
    finding.evidence.insert("truncated".into(), Value::Bool(true));
    let listed: Map<String, Value> = cuts.into_iter().take(MAX_LISTED_CUTS).map(|(p, len)| (p, Value::from(len as u64))).collect();
    if !listed.is_empty() {
        finding.evidence.insert("original_lengths".into(), Value::Object(listed));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Severity;
    use serde_json::json;

    fn finding(evidence: Value) -> Finding {
        Finding {
            check_id: "search.title-too-long".into(),
            severity: Severity::Low,
            title: "t".into(),
            description: "d".into(),
            remediation: "r".into(),
            evidence: evidence.as_object().cloned().unwrap_or_default(),
            ..Finding::default()
        }
    }

    #[test]
    fn a_help_url_is_a_web_address_within_the_budget_or_none() {
        let with = |url: &str| {
            let mut f = finding(json!({"url": "https://a.test/"}));
            f.help_url = Some(url.into());
            let cut = bound(&mut f);
            (f.help_url, cut)
        };
        let good = "https://dequeuniversity.com/rules/axe/4.14/image-alt?application=axeAPI";
        assert_eq!(with(good), (Some(good.into()), false));
        assert_eq!(with("HTTP://a.test/x"), (Some("HTTP://a.test/x".into()), false));
        for bad in ["javascript:alert(1)", "data:text/html,x", "//a.test/", "https://a.test/\nx", "https://a.test/ x", ""] {
            assert_eq!(with(bad), (None, true), "{bad:?}");
        }
        let long = format!("https://a.test/{}", "a".repeat(MAX_VALUE_BYTES));
        assert_eq!(with(&long), (None, true));
    }

    #[test]
    fn a_four_megabyte_title_becomes_two_kilobytes_that_say_so() {
        let title = "é".repeat(2 * 1024 * 1024);
        let mut f = finding(json!({"url": "https://a.test/", "value": title, "length": 2 * 1024 * 1024}));
        assert!(bound(&mut f));
        let value = f.evidence["value"].as_str().unwrap_or_default();
        assert!(value.len() <= MAX_VALUE_BYTES && value.ends_with('…'), "{}", value.len());
        assert_eq!(f.evidence["truncated"], true);
        assert_eq!(f.evidence["original_lengths"]["/value"], 4 * 1024 * 1024);
        assert_eq!(f.evidence["url"], "https://a.test/");
        assert_eq!(f.evidence["length"], 2 * 1024 * 1024, "numbers are left alone");
    }

    #[test]
    fn a_finding_of_many_values_fits_the_finding_size() {
        let many: Vec<String> = (0..2000).map(|i| format!("{i}-{}", "x".repeat(1500))).collect();
        let mut f = finding(json!({"url": "https://a.test/", "selector": "#a", "items": many}));
        assert!(bound(&mut f));
        assert!(serde_json::to_vec(&f.evidence).unwrap().len() <= MAX_FINDING_BYTES, "{}", serde_json::to_vec(&f.evidence).unwrap().len());
        assert_eq!(f.evidence["original_lengths"]["/items/length"], 2000);
        let keys: Map<String, Value> = (0..5000).map(|i| (format!("k{i}"), Value::from("v".repeat(100)))).collect();
        let mut f = finding(json!({"url": "https://a.test/", "selector": "#a"}));
        f.evidence.extend(keys);
        assert!(bound(&mut f));
        assert!(serde_json::to_vec(&f.evidence).unwrap().len() <= MAX_FINDING_BYTES);
        assert_eq!((f.evidence["url"].as_str(), f.evidence["selector"].as_str()), (Some("https://a.test/"), Some("#a")));
        assert!(f.evidence["original_bytes"].as_u64().is_some_and(|n| n > MAX_FINDING_BYTES as u64));
    }

    #[test]
    fn small_findings_are_untouched() {
        let mut f = finding(json!({"url": "https://a.test/", "value": "Home"}));
        let before = f.clone();
        assert!(!bound(&mut f));
        assert_eq!(f, before);
        assert_eq!(cut("abc", 3), None);
        assert_eq!(cut("abcdef", 4).as_deref(), Some("a…"));
    }
}
