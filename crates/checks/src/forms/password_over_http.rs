use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// A password field on a page served over plain http.
    ///
    /// For each `<input type=password>` of a page whose final URL is `http://`, wherever its form
    /// submits: a page delivered in clear text can be altered in transit to send the password
    /// elsewhere.
    pub struct PasswordOverHttp {
        id: "forms.password-over-http",
        severity: Critical,
        title: "Password field on an unencrypted page",
        fires_when: "a password field is on a page served over http:// (CWE-319)",
        description: "On an http:// page the password travels in clear text, and anyone on the network path can read it or rewrite the page to steal it, even when the form posts to https. Browsers mark such pages 'Not secure' right in the password field.",
        remediation: "Serve the whole site over https (a free certificate from Let's Encrypt or your host), redirect every http:// URL to https:// with a 301, and add `Strict-Transport-Security: max-age=31536000; includeSubDomains`.",
        cwe: Some("CWE-319"),
        evidence: ["url", "selector", "snippet"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/Security/Insecure_passwords"),
        requires: [Dom],
    }
}

impl Check for PasswordOverHttp {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() || !page.final_url.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("http://")) {
            return;
        }
        for field in page.dom().fields.iter().filter(|f| f.tag.eq_ignore_ascii_case("input") && f.type_ == "password") {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{form, input, page, page_at, run};
    use super::*;
    use crate::model::Severity;

    #[test]
    fn fires_for_password_on_http_page() {
        let p = page_at(
            "http://example.com/login",
            vec![form("#login", "https://example.com/login")],
            vec![input("text", "user"), input("password", "pass")],
        );
        let f = run(&PasswordOverHttp, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Critical);
        assert_eq!(f[0].evidence["selector"], "#pass");
    }

    #[test]
    fn quiet_on_https_or_without_password() {
        let https = page(vec![form("#login", "https://example.com/login")], vec![input("password", "pass")]);
        assert!(run(&PasswordOverHttp, &https).is_empty());
        let no_password = page_at("http://example.com/", vec![], vec![input("text", "q")]);
        assert!(run(&PasswordOverHttp, &no_password).is_empty());
    }
}
