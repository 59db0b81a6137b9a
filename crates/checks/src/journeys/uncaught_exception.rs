use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::step_evidence;
use crate::declare_check;
use serde_json::json;

declare_check! {
    /// The page threw an uncaught exception during a journey step.
    ///
    /// # Fires when
    /// the page threw an uncaught exception during a step
    ///
    /// # Why it matters
    /// An exception thrown while someone uses the page (a click handler, a form's validation, the code that runs after signing in) usually means the action silently did nothing or half of it happened. Crawls only see exceptions thrown while a page loads; these happen on the way through it.
    ///
    /// # How to fix
    /// Repeat the journey's steps with the browser's console open, find the throwing code from the message and fix it; handle errors of asynchronous work where it starts.
    ///
    /// # Evidence
    /// `url`, `journey`, `step_index`, `step`, `message`, `script_url`.
    pub struct JourneyUncaughtException {
        id: "journeys.uncaught-exception",
        severity: High,
        title: "An exception was thrown during a journey step",
        fires_when: "the page threw an uncaught exception during a step",
        description: "An exception thrown while someone uses the page (a click handler, a form's validation, the code that runs after signing in) usually means the action silently did nothing or half of it happened. Crawls only see exceptions thrown while a page loads; these happen on the way through it.",
        remediation: "Repeat the journey's steps with the browser's console open, find the throwing code from the message and fix it; handle errors of asynchronous work where it starts.",
        cwe: None,
        evidence: ["url", "journey", "step_index", "step", "message", "script_url"],
        help_url: None,
        site_requires: [Journeys],
    }
}

impl Check for JourneyUncaughtException {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for journey in site.journeys() {
            for e in &journey.exceptions {
                let mut ev = step_evidence::of_step(journey, e.step);
                ev.insert("message".into(), json!(e.message));
                if let Some(u) = &e.url {
                    ev.insert("script_url".into(), json!(u));
                }
                out.report(ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, journey, ok_step, site_with};
    use crate::model::journey::JourneyException;

    #[test]
    fn fires_on_an_exception() {
        let mut j = journey(vec![ok_step(0, "click \"#boom\"", "https://shop.test/")]);
        j.exceptions.push(JourneyException { step: 0, message: "TypeError: cart is undefined".into(), url: None });
        let found = findings(&site_with(vec![j]), "journeys.uncaught-exception");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["message"], "TypeError: cart is undefined");
    }

    #[test]
    fn quiet_without_exceptions() {
        assert!(findings(&site_with(vec![journey(vec![ok_step(0, "click \"#ok\"", "https://shop.test/")])]), "journeys.uncaught-exception").is_empty());
    }
}
