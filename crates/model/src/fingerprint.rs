//! A finding's identity across scans: what the comparison with a baseline, SARIF and GitLab
//! reports match findings by (check, page, locator, journey; never a measured value).

use serde_json::{Map, Value};

/// A finding's identity across scans.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint {
    pub check_id: String,
    pub url: Option<String>,
    /// `evidence.resource`, else `evidence.selector`.
    pub locator: Option<String>,
    /// `evidence.journey`: findings of a journey's `audit` step (and of the `journeys.*`
    /// checks) are told apart from the crawl's findings on the same page.
    pub journey: Option<String>,
}

fn text(evidence: Option<&Map<String, Value>>, key: &str) -> Option<String> {
    evidence?.get(key)?.as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

impl Fingerprint {
    pub fn new(check_id: &str, evidence: Option<&Map<String, Value>>) -> Fingerprint {
        Fingerprint {
            check_id: check_id.to_string(),
            url: text(evidence, "url").map(|u| strip_fragment(&u)),
            locator: text(evidence, "resource").or_else(|| text(evidence, "selector")),
            journey: text(evidence, "journey"),
        }
    }

    /// The fingerprint of a finding as the report shows it (`check_id`, `evidence`).
    pub fn of_json(finding: &Value) -> Option<Fingerprint> {
        let check_id = finding.get("check_id")?.as_str()?;
        Some(Fingerprint::new(check_id, finding.get("evidence").and_then(Value::as_object)))
    }
}

/// `url` without its `#fragment`.
pub fn strip_fragment(url: &str) -> String {
    url.split_once('#').map_or(url, |(u, _)| u).to_string()
}

