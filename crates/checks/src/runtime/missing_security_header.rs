use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::header_all;
use crate::{declare_check, evidence};

declare_check! {
    /// The page's response lacks a basic security header.
    ///
    /// Each finding's title names its header (`Security header missing: X-Frame-Options`).
    ///
    /// Judged on the final document response of HTML pages (a page whose snapshot has no response
    /// headers at all is skipped: nothing was captured). One finding per missing header, named in
    /// `header`:
    /// - `strict-transport-security` (https pages only): absent, or `max-age=0`;
    /// - `content-security-policy`: no enforced policy, neither the header nor a
    ///   `<meta http-equiv="Content-Security-Policy">` (a report-only policy alone does not count);
    /// - `x-content-type-options`: absent or not `nosniff`;
    /// - `x-frame-options`: no framing policy, i.e. neither `X-Frame-Options: DENY|SAMEORIGIN`
    ///   nor a `frame-ancestors` directive in a Content-Security-Policy header (`ALLOW-FROM` is
    ///   ignored by current browsers, and `frame-ancestors` is ignored in a meta policy).
    pub struct MissingSecurityHeader {
        id: "runtime.missing-security-header",
        severity: Low,
        title: "Security header missing",
        fires_when: "the page's response lacks Strict-Transport-Security (https only), a Content-Security-Policy, X-Content-Type-Options: nosniff, or a framing policy (X-Frame-Options or CSP frame-ancestors) (CWE-693)",
        description: "These headers switch on browser protections that cost nothing: HSTS stops downgrade and cookie-stealing attacks on the first http:// request, a CSP limits what injected script can do, nosniff stops content-type confusion, and a framing policy prevents clickjacking.",
        remediation: "Send the header named in the evidence from the web server or CDN for every HTML response, e.g. `Strict-Transport-Security: max-age=31536000; includeSubDomains`, `X-Content-Type-Options: nosniff`, `Content-Security-Policy: default-src 'self'; frame-ancestors 'self'` (start with Content-Security-Policy-Report-Only to tune it), or `X-Frame-Options: SAMEORIGIN`.",
        cwe: Some("CWE-693"),
        evidence: ["url", "header", "value", "expected"],
        help_url: Some("https://owasp.org/www-project-secure-headers/"),
        requires: [Dom],
    }
}

/// A header as people write it (`Content-Security-Policy`), for the finding's title.
fn display_name(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The `max-age` of an HSTS value, if it parses.
fn hsts_max_age(value: &str) -> Option<u64> {
    value.split(';').find_map(|d| {
        let (k, v) = d.split_once('=')?;
        k.trim().eq_ignore_ascii_case("max-age").then(|| v.trim().trim_matches('"').parse().ok())?
    })
}

/// True when a CSP value has a directive called `name`.
fn has_directive(policy: &str, name: &str) -> bool {
    policy.split(';').any(|d| d.split_ascii_whitespace().next().is_some_and(|n| n.eq_ignore_ascii_case(name)))
}

fn is_html(page: &PageView<'_>) -> bool {
    page.mime_type.is_none_or(|m| {
        let m = m.to_ascii_lowercase();
        m.starts_with("text/html") || m.starts_with("application/xhtml+xml")
    })
}

impl Check for MissingSecurityHeader {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() || !is_html(page) || page.response_headers.is_empty() {
            return;
        }
        let headers = &page.response_headers;
        let mut report = |name: &str, value: Option<&str>, expected: &str| {
            out.report_titled(format!("{}: {}", Self::META.title, display_name(name)), evidence! {
                "url" => page.final_url,
                "header" => name,
                "value" => value,
                "expected" => expected,
            });
        };

        if page.is_https() {
            let hsts = header_all(headers, "strict-transport-security").next();
            if hsts.is_none_or(|v| hsts_max_age(v).is_none_or(|age| age == 0)) {
                report(
                    "strict-transport-security",
                    hsts,
                    "Strict-Transport-Security: max-age=31536000; includeSubDomains",
                );
            }
        }

        let enforced_header = header_all(headers, "content-security-policy").any(|v| !v.trim().is_empty());
        let enforced_meta = page.dom().metas.iter().any(|m| {
            m.http_equiv.as_deref().is_some_and(|h| h.trim().eq_ignore_ascii_case("content-security-policy"))
                && m.content.as_deref().is_some_and(|c| !c.trim().is_empty())
        });
        if !enforced_header && !enforced_meta {
            let report_only = header_all(headers, "content-security-policy-report-only").next();
            report(
                "content-security-policy",
                report_only.map(|_| "report-only policy only"),
                "Content-Security-Policy: default-src 'self'; ...",
            );
        }

        let nosniff = header_all(headers, "x-content-type-options").next();
        if !nosniff.is_some_and(|v| v.trim().eq_ignore_ascii_case("nosniff")) {
            report("x-content-type-options", nosniff, "X-Content-Type-Options: nosniff");
        }

        let xfo = header_all(headers, "x-frame-options").next();
        let xfo_ok = xfo.is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "deny" | "sameorigin"));
        let ancestors = header_all(headers, "content-security-policy").any(|p| has_directive(p, "frame-ancestors"));
        if !xfo_ok && !ancestors {
            report("x-frame-options", xfo, "X-Frame-Options: SAMEORIGIN (or DENY), or CSP frame-ancestors");
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, page_at, run};
    use super::*;
    use crate::model::{Header, MetaTag};

    fn with_headers(url: &str, headers: &[(&str, &str)]) -> PageSnapshot {
        let mut p = page_at(url);
        p.response_headers.extend(headers.iter().map(|(n, v)| Header { name: (*n).into(), value: (*v).into() }));
        p
    }

    fn missing(p: &PageSnapshot) -> Vec<String> {
        run(&MissingSecurityHeader, p).iter().map(|f| f.evidence["header"].as_str().unwrap_or("").to_string()).collect()
    }

    #[test]
    fn fires_once_per_missing_header() {
        let f = run(&MissingSecurityHeader, &page());
        let headers: Vec<_> = f.iter().map(|f| f.evidence["header"].as_str().unwrap_or("")).collect();
        assert_eq!(
            headers,
            vec!["strict-transport-security", "content-security-policy", "x-content-type-options", "x-frame-options"]
        );
        assert!(f.iter().all(|f| f.cwe_id.as_deref() == Some("CWE-693")));
        // Each names its header in its title: a page's findings are told apart in any report.
        let titles: Vec<&str> = f.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Security header missing: Strict-Transport-Security",
                "Security header missing: Content-Security-Policy",
                "Security header missing: X-Content-Type-Options",
                "Security header missing: X-Frame-Options"
            ]
        );
    }

    #[test]
    fn weak_values_count_as_missing() {
        let p = with_headers(
            "https://example.com/",
            &[
                ("strict-transport-security", "max-age=0"),
                ("content-security-policy-report-only", "default-src 'self'"),
                ("x-content-type-options", "sniff"),
                ("x-frame-options", "ALLOW-FROM https://partner.test"),
            ],
        );
        let f = run(&MissingSecurityHeader, &p);
        assert_eq!(f.len(), 4);
        assert_eq!(f[0].evidence["value"], "max-age=0");
        assert_eq!(f[1].evidence["value"], "report-only policy only");
    }

    #[test]
    fn quiet_for_a_hardened_page() {
        let p = with_headers(
            "https://example.com/",
            &[
                ("strict-transport-security", "max-age=63072000; includeSubDomains; preload"),
                ("content-security-policy", "default-src 'self'; frame-ancestors 'none'"),
                ("x-content-type-options", "NoSniff"),
            ],
        );
        assert!(missing(&p).is_empty(), "{:?}", missing(&p));
        // HSTS is not expected on http; a meta CSP counts as a policy; XFO covers framing.
        let mut http =
            with_headers("http://example.com/", &[("x-content-type-options", "nosniff"), ("x-frame-options", "DENY")]);
        http.dom.metas.push(MetaTag {
            http_equiv: Some("Content-Security-Policy".into()),
            content: Some("default-src 'self'".into()),
            selector: "meta".into(),
            ..Default::default()
        });
        assert!(missing(&http).is_empty(), "{:?}", missing(&http));
        // A meta policy does not give frame-ancestors.
        http.response_headers.retain(|h| h.name != "x-frame-options");
        assert_eq!(missing(&http), vec!["x-frame-options"]);
    }

    #[test]
    fn skips_non_html_and_uncaptured_responses() {
        let mut pdf = page();
        pdf.mime_type = Some("application/pdf".into());
        assert!(missing(&pdf).is_empty());
        let mut nothing = page();
        nothing.response_headers.clear();
        assert!(missing(&nothing).is_empty());
    }
}
