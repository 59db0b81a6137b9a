use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// A form with a password field submits with GET.
    ///
    /// For each form whose method is `get` (the default when absent) that has a password field
    /// (`Form::has_password`, or a field of type password with this form's index).
    pub struct PasswordInGet {
        id: "forms.password-in-get",
        severity: High,
        title: "Password sent in the URL (GET form)",
        fires_when: "a form with a password field uses method GET, so the password ends up in the URL (CWE-598)",
        description: "A GET form puts every field in the query string: the password lands in browser history, server and proxy access logs, analytics, and the Referer header sent to other sites, where anyone with access to those can read it.",
        remediation: "Submit credentials with POST: `<form method=\"post\" action=\"/login\">`, and make the server accept the login only as a POST body.",
        cwe: Some("CWE-598"),
        evidence: ["url", "selector", "snippet", "resource"],
        help_url: Some("https://cwe.mitre.org/data/definitions/598.html"),
        requires: [Dom],
    }
}

impl Check for PasswordInGet {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for (index, form) in page.dom().forms.iter().enumerate() {
            let method = form.method.trim().to_ascii_lowercase();
            if !(method.is_empty() || method == "get") {
                continue;
            }
            let has_password = form.has_password
                || page.dom().fields.iter().any(|f| f.form_index == Some(index) && f.type_ == "password");
            if !has_password {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => form.selector,
                "snippet" => form.snippet,
                "resource" => form.action,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{form, input, page, run};
    use super::*;
    use crate::model::Form;

    #[test]
    fn fires_for_get_form_with_password() {
        let get = Form { method: "get".into(), ..form("#login", "https://example.com/login") };
        let f = run(&PasswordInGet, &page(vec![get], vec![input("text", "user"), input("password", "pass")]));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].cwe_id.as_deref(), Some("CWE-598"));
        assert_eq!(f[0].evidence["selector"], "#login");
    }

    #[test]
    fn quiet_for_post_login_and_get_search() {
        let post = page(vec![form("#login", "https://example.com/login")], vec![input("password", "pass")]);
        assert!(run(&PasswordInGet, &post).is_empty());
        let search = Form { method: "get".into(), ..form("#search", "https://example.com/search") };
        assert!(run(&PasswordInGet, &page(vec![search], vec![input("search", "q")])).is_empty());
    }
}
