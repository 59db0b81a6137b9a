use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::step_evidence;
use crate::declare_check;
use crate::model::StepStatus;
use serde_json::json;

declare_check! {
    /// A journey step could not be done.
    ///
    /// # Fires when
    /// a step could not be done: its selector matched nothing visible, the click or fill was refused, or its `assert` did not hold (evidence: journey, step index, step, selector, screenshot). A journey that could not start at all fires it too, on its first step.
    ///
    /// # Why it matters
    /// A journey is a path real people take through the site (signing in, buying, changing settings). A step that cannot be done is a path that is broken for them too: a button that moved or vanished, a field that no longer accepts input, a page that no longer says what it should. The rest of the journey was not run.
    ///
    /// # How to fix
    /// Open the screenshot and the step: if the page changed on purpose, update the journey's selector or expectation; otherwise restore the element (present, visible, not covered by another element, enabled) or the content the journey asserts.
    ///
    /// # Evidence
    /// `url` (where the page was), `journey`, `step_index`, `step` (secrets masked), `selector`, `screenshot` (its name), `error`.
    pub struct StepFailed {
        id: "journeys.step-failed",
        severity: High,
        title: "A journey step could not be done",
        fires_when: "a step could not be done: its selector matched nothing visible, the click or fill was refused, or its `assert` did not hold (evidence: journey, step index, step, selector, screenshot). A journey that could not start at all fires it too, on its first step",
        description: "A journey is a path real people take through the site (signing in, buying, changing settings). A step that cannot be done is a path that is broken for them too: a button that moved or vanished, a field that no longer accepts input, a page that no longer says what it should. The rest of the journey was not run.",
        remediation: "Open the screenshot and the step: if the page changed on purpose, update the journey's selector or expectation; otherwise restore the element (present, visible, not covered by another element, enabled) or the content the journey asserts.",
        cwe: None,
        evidence: ["url", "journey", "step_index", "step", "selector", "screenshot", "error"],
        help_url: None,
        site_requires: [Journeys],
    }
}

impl Check for StepFailed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for journey in site.journeys() {
            if let Some(error) = &journey.error {
                let mut ev = step_evidence::of_step(journey, 0);
                ev.insert("error".into(), json!(error));
                out.report(ev);
            }
            for step in journey.steps.iter().filter(|s| s.status == StepStatus::Failed) {
                let mut ev = step_evidence::of_step(journey, step.index);
                if let Some(shot) = &step.screenshot {
                    ev.insert("screenshot".into(), json!(shot));
                }
                ev.insert("error".into(), json!(step.error.clone().unwrap_or_default()));
                out.report(ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, journey, ok_step, site_with};
    use crate::model::StepStatus;

    #[test]
    fn fires_on_a_failed_step() {
        let mut failed = ok_step(1, "click \"#buy\"", "https://shop.test/cart");
        failed.status = StepStatus::Failed;
        failed.selector = Some("#buy".into());
        failed.error = Some("no element matches \"#buy\"".into());
        failed.screenshot = Some("step-1-failed".into());
        let mut skipped = ok_step(2, "audit \"cart\"", "https://shop.test/cart");
        skipped.status = StepStatus::Skipped;
        skipped.url_after = None;
        let site = site_with(vec![journey(vec![ok_step(0, "navigate \"/cart\"", "https://shop.test/cart"), failed, skipped])]);
        let found = findings(&site, "journeys.step-failed");
        assert_eq!(found.len(), 1, "{found:?}");
        let ev = &found[0].evidence;
        assert_eq!((ev["url"].as_str(), ev["journey"].as_str(), ev["step_index"].as_u64()), (Some("https://shop.test/cart"), Some("shop"), Some(1)));
        assert_eq!((ev["selector"].as_str(), ev["screenshot"].as_str()), (Some("#buy"), Some("step-1-failed")));
    }

    #[test]
    fn quiet_when_every_step_went_fine() {
        let site = site_with(vec![journey(vec![ok_step(0, "navigate \"/\"", "https://shop.test/"), ok_step(1, "click \"a\"", "https://shop.test/x")])]);
        assert!(findings(&site, "journeys.step-failed").is_empty());
    }
}
