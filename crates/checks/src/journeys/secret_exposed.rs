use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::step_evidence;
use crate::declare_check;
use serde_json::json;

declare_check! {
    /// A secret the journey typed shows up where it should not.
    ///
    /// # Fires when
    /// a secret the journey typed shows up afterwards in the URL, the page's text or a storage readable by scripts (`localStorage`, `sessionStorage`, cookies without `HttpOnly`)
    ///
    /// # Why it matters
    /// A password in a URL lands in browser history, server and proxy logs and `Referer` headers; on the page it is shown to anyone looking at the screen; in script-readable storage any injected script can take it. Each is a way for a credential to leak (CWE-200).
    ///
    /// # How to fix
    /// Send credentials in a POST body only, never in the URL (a login form with `method="post"`, no redirect carrying them); never echo them back into the page; keep session state in an `HttpOnly` cookie rather than storing credentials in web storage. Then change the leaked secret.
    ///
    /// # Evidence
    /// `url` (secrets masked), `journey`, `step_index`, `step`, `secret` (its name, never its value), `location`.
    pub struct SecretExposed {
        id: "journeys.secret-exposed",
        severity: Critical,
        title: "A typed secret is exposed",
        fires_when: "a secret the journey typed shows up afterwards in the URL, the page's text or a storage readable by scripts (`localStorage`, `sessionStorage`, cookies without `HttpOnly`)",
        description: "A password in a URL lands in browser history, server and proxy logs and `Referer` headers; on the page it is shown to anyone looking at the screen; in script-readable storage any injected script can take it. Each is a way for a credential to leak (CWE-200).",
        remediation: "Send credentials in a POST body only, never in the URL (a login form with `method=\"post\"`, no redirect carrying them); never echo them back into the page; keep session state in an `HttpOnly` cookie rather than storing credentials in web storage. Then change the leaked secret.",
        cwe: Some("CWE-200"),
        evidence: ["url", "journey", "step_index", "step", "secret", "location"],
        help_url: None,
        site_requires: [Journeys],
    }
}

impl Check for SecretExposed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for journey in site.journeys() {
            for x in &journey.secret_exposures {
                let mut ev = step_evidence::of_step(journey, x.step);
                ev.insert("url".into(), json!(x.url));
                ev.remove("selector");
                ev.insert("secret".into(), json!(x.secret));
                ev.insert("location".into(), json!(x.location));
                out.report(ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, journey, ok_step, site_with};
    use crate::model::journey::SecretExposure;

    #[test]
    fn fires_on_an_exposure_and_names_only_the_secret() {
        let mut j = journey(vec![ok_step(0, "click \"button\"", "https://shop.test/account?pw=••••••")]);
        j.secret_exposures.push(SecretExposure { step: 0, secret: "PASSWORD".into(), location: "url".into(), url: "https://shop.test/account?pw=••••••".into() });
        let found = findings(&site_with(vec![j]), "journeys.secret-exposed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].evidence["secret"].as_str(), found[0].evidence["location"].as_str()), (Some("PASSWORD"), Some("url")));
        assert_eq!(found[0].cwe_id.as_deref(), Some("CWE-200"));
    }

    #[test]
    fn quiet_without_exposures() {
        assert!(findings(&site_with(vec![journey(vec![ok_step(0, "click \"b\"", "https://shop.test/account")])]), "journeys.secret-exposed").is_empty());
    }
}
