use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::CookieSet;
use crate::{declare_check, evidence};

declare_check! {
    /// A cookie lacks Secure, or a session cookie lacks HttpOnly.
    ///
    /// Per distinct cookie (name, domain, path) set while the page loaded:
    /// - set over https without `Secure`: CWE-614 (the finding's `cwe_id`), `flag: "secure"`;
    /// - a session-looking name without `HttpOnly`: CWE-1004, `flag: "httponly"`. Session-looking:
    ///   after dropping a `__Host-`/`__Secure-` prefix, the name (lowercased) is or contains as a
    ///   word `session`, `sess`, `sessid`, `sessionid`, `sid`, `auth`, `token`, `jwt`,
    ///   `access_token`, `refresh_token`, `id_token`, `remember` ..., or is a framework's session
    ///   cookie (`PHPSESSID`, `JSESSIONID`, `connect.sid`, `ASP.NET_SessionId`,
    ///   `laravel_session`, `_<app>_session`, `wordpress_logged_in_*`). CSRF tokens (`csrftoken`,
    ///   `XSRF-TOKEN`, `_csrf`) are exempt: double-submit protection needs scripts to read them.
    ///
    /// A cookie that lacks both gets two findings (two defects, two CWEs). Each finding's title
    /// names its cookie (`Cookie without Secure: sid`).
    pub struct InsecureCookie {
        id: "runtime.insecure-cookie",
        severity: Medium,
        title: "Cookie without Secure or HttpOnly",
        fires_when: "a cookie set over https lacks the Secure attribute (CWE-614), or a session-looking cookie lacks HttpOnly (CWE-1004)",
        description: "A cookie without Secure is also sent over any plain http:// request to the site, where a network attacker can read it; a session cookie readable by JavaScript (no HttpOnly) is stolen by any cross-site scripting bug or compromised third-party script, handing over the visitor's logged-in session.",
        remediation: "Set cookies with `Secure` on https sites, and session or authentication cookies also with `HttpOnly` and `SameSite=Lax` (or Strict): `Set-Cookie: session=...; Path=/; Secure; HttpOnly; SameSite=Lax`. Most frameworks have a setting for this (e.g. SESSION_COOKIE_SECURE / SESSION_COOKIE_HTTPONLY).",
        cwe: Some("CWE-614"),
        evidence: ["url", "cookie", "flag", "resource", "snippet"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTTP/Cookies#restrict_access_to_cookies"),
        requires: [Cookies],
    }
}

/// The most characters of a cookie's name its finding's title repeats.
const COOKIE_NAME_IN_TITLE: usize = 80;

/// CWE of a session cookie readable by scripts.
const CWE_HTTPONLY: &str = "CWE-1004";

const SESSION_WORDS: &[&str] = &[
    "session",
    "sess",
    "sessid",
    "sessionid",
    "sid",
    "auth",
    "authtoken",
    "token",
    "jwt",
    "phpsessid",
    "jsessionid",
    "aspsessionid",
    "cfid",
    "cftoken",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "remember",
    "login",
    "logged",
];

/// True when the cookie name looks like a session or authentication cookie.
pub fn is_session_cookie(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let bare = lower.strip_prefix("__host-").or_else(|| lower.strip_prefix("__secure-")).unwrap_or(&lower);
    if bare.contains("csrf") || bare.contains("xsrf") {
        return false;
    }
    if bare.starts_with("aspsessionid") || bare.starts_with("wordpress_logged_in") || bare.starts_with("wordpress_sec")
    {
        return true;
    }
    let words: Vec<&str> = bare.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.iter().any(|w| SESSION_WORDS.contains(w)) || bare.ends_with("session") || bare.ends_with("sessid")
}

impl Check for InsecureCookie {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let mut seen: Vec<(&str, Option<&str>, Option<&str>)> = Vec::new();
        for cookie in page.cookies() {
            let key = (cookie.name.as_str(), cookie.domain.as_deref(), cookie.path.as_deref());
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let base = |flag: &str, c: &CookieSet| {
                evidence! {
                    "url" => page.final_url,
                    "cookie" => c.name,
                    "flag" => flag,
                    "resource" => c.set_by,
                    "snippet" => c.raw_masked,
                }
            };
            // The title names the cookie: a page's cookies are told apart in any report.
            let name: String = if cookie.name.chars().count() > COOKIE_NAME_IN_TITLE {
                cookie.name.chars().take(COOKIE_NAME_IN_TITLE).chain(['…']).collect()
            } else {
                cookie.name.clone()
            };
            if cookie.set_over_https && !cookie.secure {
                out.report_titled(format!("Cookie without Secure: {name}"), base("secure", cookie));
            }
            if !cookie.http_only && is_session_cookie(&cookie.name) {
                let title = format!("Session cookie without HttpOnly: {name}");
                out.report_finding(Self::META.severity, title, Some(CWE_HTTPONLY.to_string()), base("httponly", cookie));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;

    fn cookie(name: &str, secure: bool, http_only: bool) -> CookieSet {
        CookieSet {
            name: name.into(),
            set_by: "https://example.com/page".into(),
            domain: None,
            path: Some("/".into()),
            secure,
            http_only,
            same_site: Some("Lax".into()),
            set_over_https: true,
            raw_masked: format!("{name}=***; Path=/"),
        }
    }

    #[test]
    fn fires_for_missing_secure_and_readable_session_cookies() {
        let mut p = page();
        p.cookies = vec![
            cookie("PHPSESSID", false, false),
            cookie("PHPSESSID", false, false),
            cookie("prefs", false, true),
            cookie("__Host-auth_token", true, false),
        ];
        let f = run(&InsecureCookie, &p);
        let got: Vec<_> = f
            .iter()
            .map(|f| {
                (
                    f.evidence["cookie"].as_str().unwrap_or(""),
                    f.evidence["flag"].as_str().unwrap_or(""),
                    f.cwe_id.as_deref().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("PHPSESSID", "secure", "CWE-614"),
                ("PHPSESSID", "httponly", "CWE-1004"),
                ("prefs", "secure", "CWE-614"),
                ("__Host-auth_token", "httponly", "CWE-1004"),
            ]
        );
        assert!(f.iter().all(|f| f.check_id == "runtime.insecure-cookie"));
        let titles: Vec<&str> = f.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Cookie without Secure: PHPSESSID",
                "Session cookie without HttpOnly: PHPSESSID",
                "Cookie without Secure: prefs",
                "Session cookie without HttpOnly: __Host-auth_token"
            ]
        );
    }

    #[test]
    fn quiet_for_hardened_analytics_csrf_and_http_cookies() {
        let mut p = page();
        let mut over_http = cookie("cart", false, true);
        over_http.set_over_https = false;
        p.cookies = vec![
            cookie("session", true, true),
            // Analytics cookies are read by scripts on purpose and are not sessions.
            cookie("_ga", true, false),
            cookie("csrftoken", true, false),
            cookie("XSRF-TOKEN", true, false),
            over_http,
        ];
        assert!(run(&InsecureCookie, &p).is_empty());
    }

    #[test]
    fn session_names() {
        for name in [
            "session",
            "sessionid",
            "connect.sid",
            "JSESSIONID",
            "ASP.NET_SessionId",
            "laravel_session",
            "_myapp_session",
            "jwt",
            "access_token",
            "remember_web_59ba",
            "wordpress_logged_in_abc",
        ] {
            assert!(is_session_cookie(name), "{name}");
        }
        for name in [
            "_ga",
            "_gid",
            "theme",
            "lang",
            "csrftoken",
            "csrf_token",
            "_csrf",
            "XSRF-TOKEN",
            "consent",
            "sidebar_state",
            "tokenizer_pref",
        ] {
            assert!(!is_session_cookie(name), "{name}");
        }
    }
}
