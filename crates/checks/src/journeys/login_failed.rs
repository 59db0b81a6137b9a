use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::step_evidence;
use crate::declare_check;
use serde_json::json;

declare_check! {
    /// The journey's login did not hold.
    ///
    /// # Fires when
    /// the journey declares `logged_in` and, after its login steps, the proof of being logged in is absent. The login steps end with the first click or key press after the last step that types a secret (or with the journey when nothing types one).
    ///
    /// # Why it matters
    /// People with the right credentials cannot sign in (or are signed out at once): everything behind the login is out of reach for them, and for the scan, whose audits of the pages behind it judged the login page instead.
    ///
    /// # How to fix
    /// Try the journey's credentials by hand. If they were changed, update the site's secret; otherwise look at the login's answer (an error message, a redirect back to the login page, a session cookie that is not set or not sent back).
    ///
    /// # Evidence
    /// `url` (where the page was), `journey`, `step_index` (the step after which it was checked), `step`, `proof`.
    pub struct LoginFailed {
        id: "journeys.login-failed",
        severity: Critical,
        title: "The journey's login did not hold",
        fires_when: "the journey declares `logged_in` and, after its login steps, the proof of being logged in is absent. The login steps end with the first click or key press after the last step that types a secret (or with the journey when nothing types one)",
        description: "People with the right credentials cannot sign in (or are signed out at once): everything behind the login is out of reach for them, and for the scan, whose audits of the pages behind it judged the login page instead.",
        remediation: "Try the journey's credentials by hand. If they were changed, update the site's secret; otherwise look at the login's answer (an error message, a redirect back to the login page, a session cookie that is not set or not sent back).",
        cwe: None,
        evidence: ["url", "journey", "step_index", "step", "proof"],
        help_url: None,
        site_requires: [Journeys],
    }
}

impl Check for LoginFailed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for journey in site.journeys() {
            let Some(result) = journey.logged_in.as_ref().filter(|r| !r.present) else { continue };
            let mut ev = step_evidence::of_step(journey, result.after_step);
            ev.insert("url".into(), json!(result.url));
            ev.insert("proof".into(), json!(result.proof));
            out.report(ev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, journey, ok_step, site_with};
    use crate::model::journey::LoggedInResult;

    fn with_proof(present: bool) -> crate::model::SiteSnapshot {
        let mut j = journey(vec![ok_step(0, "navigate \"/login\"", "https://shop.test/login"), ok_step(1, "click \"button\"", "https://shop.test/login")]);
        j.logged_in = Some(LoggedInResult { proof: "text \"Sign out\"".into(), present, after_step: 1, url: "https://shop.test/login".into() });
        site_with(vec![j])
    }

    #[test]
    fn fires_when_the_proof_is_absent() {
        let found = findings(&with_proof(false), "journeys.login-failed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["proof"], "text \"Sign out\"");
        assert_eq!(found[0].evidence["step_index"], 1);
    }

    #[test]
    fn quiet_when_the_proof_is_there() {
        assert!(findings(&with_proof(true), "journeys.login-failed").is_empty());
    }
}
