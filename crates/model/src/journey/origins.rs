//! Origin policy: what a journey may load (http(s) on the site's origin or a listed one, or
//! `about:blank`), and the URL patterns `wait_for` and `assert` compare with.

use super::{Action, Journey, JourneyError, err};

/// Whether a `navigate` target names a scheme of its own (`file:/x`, `javascript:...`), as
/// opposed to a path, a query or a scheme-relative `//host/x`.
pub(super) fn scheme_of(target: &str) -> Option<String> {
    let t = target.trim_start();
    let colon = t.find(':')?;
    let scheme = &t[..colon];
    let first = scheme.chars().next()?;
    (first.is_ascii_alphabetic() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .then(|| scheme.to_ascii_lowercase())
}

/// What a journey may load: an http(s) URL, or `about:blank`. `Err` says why not.
pub fn loadable(url: &str) -> Result<url::Url, String> {
    if url.trim() == "about:blank" {
        return url::Url::parse("about:blank").map_err(|e| e.to_string());
    }
    let parsed = url::Url::parse(url.trim()).map_err(|e| format!("{url} is not a URL ({e})"))?;
    match parsed.scheme() {
        "http" | "https" if parsed.host_str().is_some() => Ok(parsed),
        "http" | "https" => Err(format!("{url} has no host")),
        other => Err(format!("a journey loads only http and https pages, not {other}: URLs")),
    }
}
impl Journey {
    /// Checks the journey against the site it belongs to: every absolute `navigate` stays on
    /// `site_origin` or one of `origins`, and every listed origin is https (or http when the site
    /// itself is http, as a development site on a private address is).
    pub fn check_origins(&self, site_origin: &str) -> Result<(), JourneyError> {
        let site = url::Url::parse(site_origin).map_err(|e| JourneyError { path: "site".into(), message: format!("{site_origin}: {e}") })?;
        let site_origin = site.origin().ascii_serialization();
        for (i, o) in self.origins.iter().enumerate() {
            if o.starts_with("http:") && site.scheme() != "http" {
                return err(format!("origins[{i}]"), format!("{o} is not https (the site is)"));
            }
        }
        for (i, s) in self.steps.iter().enumerate() {
            let Action::Navigate(target) = &s.action else { continue };
            if target.trim() == "about:blank" {
                continue;
            }
            let Ok(url) = site.join(target) else { continue };
            let origin = url.origin().ascii_serialization();
            if origin != site_origin && !self.origins.contains(&origin) {
                return err(
                    format!("steps[{i}].navigate"),
                    format!("{origin} is neither the site's origin ({site_origin}) nor one of the journey's \"origins\""),
                );
            }
        }
        Ok(())
    }

    /// The origins a run of this journey from `start` may load: the start's and the listed ones.
    pub fn allowed_origins(&self, start: &str) -> Vec<String> {
        let mut out: Vec<String> = url::Url::parse(start).ok().map(|u| u.origin().ascii_serialization()).into_iter().collect();
        out.extend(self.origins.iter().cloned());
        out
    }
}

/// Whether a journey whose origins are `allowed` may load `url`: `about:blank`, or http(s) on one
/// of them. `Err` says why not (what the step's error shows).
pub fn may_load(url: &str, allowed: &[String]) -> Result<(), String> {
    let parsed = loadable(url)?;
    if parsed.scheme() == "about" {
        return Ok(());
    }
    let origin = parsed.origin().ascii_serialization();
    if allowed.contains(&origin) {
        Ok(())
    } else {
        Err(format!("{origin} is neither the site's origin nor one of the journey's \"origins\""))
    }
}
/// An `origins` entry: an http(s) URL that is only an origin (no path, query, fragment or user),
/// in `Url::origin`'s serialisation.
pub(super) fn parse_origin(text: &str) -> Result<String, String> {
    let url = loadable(text)?;
    if url.scheme() == "about" {
        return Err(format!("{text} is not an http(s) origin"));
    }
    if !url.username().is_empty() || url.password().is_some() || url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text} is more than an origin (write scheme://host[:port] only)"));
    }
    Ok(url.origin().ascii_serialization())
}

/// Whether `url` matches `pattern`: a full URL or glob of one, or a path (glob) compared with the
/// URL's path and query. `*` matches any run of characters, `?` one character.
pub fn url_matches(pattern: &str, url: &str) -> bool {
    let target = if pattern.contains("://") {
        url.to_string()
    } else {
        match url.split_once("://").and_then(|(_, rest)| rest.find('/').map(|i| rest[i..].to_string())) {
            Some(p) => p.split('#').next().unwrap_or_default().to_string(),
            None => return false,
        }
    };
    glob(pattern.as_bytes(), target.as_bytes())
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}
