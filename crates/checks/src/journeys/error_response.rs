use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::step_evidence;
use crate::declare_check;
use serde_json::json;

declare_check! {
    /// A navigation or form submission during a journey answered an error.
    ///
    /// # Fires when
    /// a navigation or form submission during the journey answered 4xx/5xx (evidence: method, url, status). Submissions made by scripts (`fetch` or XMLHttpRequest with a method other than GET) count as form submissions.
    ///
    /// # Why it matters
    /// The journey's pages and submissions are the ones that matter most (signing in, paying, saving): an error answer there means a visitor's action was lost or a page behind the login is broken, which a crawl of public pages never sees.
    ///
    /// # How to fix
    /// Reproduce the request (method and URL are in the evidence; the journey's step says what caused it) and read the server's logs for that time. Fix the handler, or, for a 4xx, the link or form that sends the wrong request.
    ///
    /// # Evidence
    /// `url` (the request's URL), `journey`, `step_index`, `step`, `method`, `status`, `resource_type`.
    pub struct ErrorResponse {
        id: "journeys.error-response",
        severity: High,
        title: "A journey request answered an error",
        fires_when: "a navigation or form submission during the journey answered 4xx/5xx (evidence: method, url, status). Submissions made by scripts (`fetch` or XMLHttpRequest with a method other than GET) count as form submissions",
        description: "The journey's pages and submissions are the ones that matter most (signing in, paying, saving): an error answer there means a visitor's action was lost or a page behind the login is broken, which a crawl of public pages never sees.",
        remediation: "Reproduce the request (method and URL are in the evidence; the journey's step says what caused it) and read the server's logs for that time. Fix the handler, or, for a 4xx, the link or form that sends the wrong request.",
        cwe: None,
        evidence: ["url", "journey", "step_index", "step", "method", "status", "resource_type"],
        help_url: None,
        site_requires: [Journeys],
    }
}

impl Check for ErrorResponse {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for journey in site.journeys() {
            for r in journey.responses.iter().filter(|r| r.status >= 400) {
                let mut ev = step_evidence::of_step(journey, r.step);
                ev.insert("url".into(), json!(r.url));
                ev.remove("selector");
                ev.insert("method".into(), json!(r.method));
                ev.insert("status".into(), json!(r.status));
                ev.insert("resource_type".into(), json!(r.resource_type));
                out.report(ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, journey, ok_step, site_with};
    use crate::model::journey::JourneyResponse;

    fn with_status(status: u16) -> crate::model::SiteSnapshot {
        let mut j = journey(vec![ok_step(0, "click \"#pay\"", "https://shop.test/checkout")]);
        j.responses.push(JourneyResponse { step: 0, method: "POST".into(), url: "https://shop.test/checkout".into(), status, resource_type: "Document".into() });
        site_with(vec![j])
    }

    #[test]
    fn fires_on_an_error_answer() {
        let found = findings(&with_status(500), "journeys.error-response");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].evidence["method"].as_str(), found[0].evidence["status"].as_u64()), (Some("POST"), Some(500)));
    }

    #[test]
    fn quiet_on_success_and_redirects() {
        assert!(findings(&with_status(200), "journeys.error-response").is_empty());
        assert!(findings(&with_status(303), "journeys.error-response").is_empty());
    }
}
