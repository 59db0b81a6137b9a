use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// A form on an https page submits to an http:// URL.
    ///
    /// For each form (method other than `dialog`) of an https page whose resolved action starts
    /// with `http://`. Hidden forms count: their submission is just as exposed.
    pub struct InsecureAction {
        id: "forms.insecure-action",
        severity: High,
        title: "Form submits over unencrypted HTTP",
        fires_when: "a form on an https page has an action URL starting with http:// (CWE-319)",
        description: "Whatever the visitor types is sent in clear text to the http:// action: anyone on the network path (public Wi-Fi, ISPs, proxies) can read or change it, although the page itself showed a padlock. Browsers warn on such submissions or block them.",
        remediation: "Point the form's action at the https:// URL (or a relative URL such as `action=\"/subscribe\"`), make the receiving endpoint available over https, and redirect its http:// form with HSTS.",
        cwe: Some("CWE-319"),
        evidence: ["url", "selector", "snippet", "resource"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content"),
        requires: [Dom],
    }
}

impl Check for InsecureAction {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() || !page.is_https() {
            return;
        }
        for form in &page.dom().forms {
            if form.method.eq_ignore_ascii_case("dialog") {
                continue;
            }
            let Some(action) = form.action.as_deref() else {
                continue;
            };
            if !action.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("http://")) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => form.selector,
                "snippet" => form.snippet,
                "resource" => action,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{form, page, page_at, run};
    use super::*;
    use crate::model::Form;

    #[test]
    fn fires_for_http_action_on_https_page() {
        let p = page(vec![form("#newsletter", "http://mail.example.com/subscribe")], vec![]);
        let f = run(&InsecureAction, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].cwe_id.as_deref(), Some("CWE-319"));
        assert_eq!(f[0].evidence["resource"], "http://mail.example.com/subscribe");
        assert_eq!(f[0].evidence["selector"], "#newsletter");
    }

    #[test]
    fn quiet_for_https_actions_dialogs_and_http_pages() {
        let dialog = Form { method: "dialog".into(), ..form("#dlg", "http://example.com/x") };
        let p = page(vec![form("#login", "https://example.com/login"), dialog], vec![]);
        assert!(run(&InsecureAction, &p).is_empty());
        // An http page posting to http is password-over-http's (and the whole page's) problem.
        let p = page_at("http://example.com/", vec![form("#f", "http://example.com/x")], vec![]);
        assert!(run(&InsecureAction, &p).is_empty());
    }
}
