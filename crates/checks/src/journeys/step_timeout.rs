use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::step_evidence;
use crate::declare_check;
use crate::model::StepStatus;
use serde_json::json;

declare_check! {
    /// A journey step did not finish within its timeout.
    ///
    /// # Fires when
    /// a step did not finish within its timeout (navigation never settled, `wait_for` never held)
    ///
    /// # Why it matters
    /// What the journey waited for (a page after signing in, a confirmation, a spinner going away) never came within the time allowed: for a visitor the site looks stuck at that point, and many give up. The rest of the journey was not run.
    ///
    /// # How to fix
    /// Find why the state never came: a server answer that is slow or never sent, a script error that stops the page from updating, a redirect to an unexpected page. If the step legitimately takes longer, raise its `timeout_ms`.
    ///
    /// # Evidence
    /// `url`, `journey`, `step_index`, `step`, `selector`, `timeout_ms`, `error`.
    pub struct StepTimeout {
        id: "journeys.step-timeout",
        severity: Medium,
        title: "A journey step timed out",
        fires_when: "a step did not finish within its timeout (navigation never settled, `wait_for` never held)",
        description: "What the journey waited for (a page after signing in, a confirmation, a spinner going away) never came within the time allowed: for a visitor the site looks stuck at that point, and many give up. The rest of the journey was not run.",
        remediation: "Find why the state never came: a server answer that is slow or never sent, a script error that stops the page from updating, a redirect to an unexpected page. If the step legitimately takes longer, raise its `timeout_ms`.",
        cwe: None,
        evidence: ["url", "journey", "step_index", "step", "selector", "timeout_ms", "error"],
        help_url: None,
        site_requires: [Journeys],
    }
}

impl Check for StepTimeout {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for journey in site.journeys() {
            for step in journey.steps.iter().filter(|s| s.status == StepStatus::Timeout) {
                let mut ev = step_evidence::of_step(journey, step.index);
                ev.insert("timeout_ms".into(), json!(step.elapsed_ms));
                ev.insert("error".into(), json!(step.error.clone().unwrap_or_default()));
                if let Some(shot) = &step.screenshot {
                    ev.insert("screenshot".into(), json!(shot));
                }
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
    fn fires_on_a_step_that_timed_out() {
        let mut waited = ok_step(1, "wait_for \"#done\" visible", "https://shop.test/");
        waited.status = StepStatus::Timeout;
        waited.error = Some("\"#done\" was not visible within 1500 ms".into());
        let site = site_with(vec![journey(vec![ok_step(0, "navigate \"/\"", "https://shop.test/"), waited])]);
        let found = findings(&site, "journeys.step-timeout");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["step_index"], 1);
        assert!(findings(&site, "journeys.step-failed").is_empty(), "a timeout is not also a failure");
    }

    #[test]
    fn quiet_without_timeouts() {
        let mut failed = ok_step(0, "click \"#x\"", "https://shop.test/");
        failed.status = StepStatus::Failed;
        assert!(findings(&site_with(vec![journey(vec![failed])]), "journeys.step-timeout").is_empty());
    }
}
