use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::http_date::parse_http_date;
use crate::model::{NetworkRequest, header};
use crate::{declare_check, evidence};

declare_check! {
    /// A static resource has no or a short cache lifetime.
    ///
    /// Static resources: responses of type script, stylesheet, image or font with status 200 or
    /// 203, not from a service worker, not `data:`. Their freshness lifetime, as a browser cache
    /// computes it: `Cache-Control: max-age` (`no-cache` is 0), else `Expires` minus `Date` (an
    /// invalid `Expires` such as `0` means already expired; an `Expires` without `Date` cannot be
    /// judged and is skipped), else none at all (0: heuristic freshness is not counted on).
    /// Fires when it is under `cache_min_seconds` (1 day). Responses that opt out of caching on
    /// purpose are skipped: `no-store` and `private` (per-user or never-cacheable content), and a
    /// `Pragma: no-cache` without Cache-Control. Unlike Lighthouse, `no-cache` and
    /// `must-revalidate` are reported: for a static file they mean a revalidation round trip on
    /// every page view. One finding per URL; third-party resources are marked in the evidence.
    pub struct CachePolicy {
        id: "performance.cache-policy",
        severity: Low,
        title: "Static resource is not cached long enough",
        fires_when: "a static resource (script, stylesheet, image, font) has no cache lifetime or one shorter than 1 day (Cache-Control max-age / Expires; threshold cache_min_seconds)",
        description: "Without a long cache lifetime, returning visitors and every further page view download (or at least revalidate) the same scripts, styles, images and fonts again, which costs round trips and bytes and slows every page after the first.",
        remediation: "Give versioned static files (file names with a content hash) `Cache-Control: public, max-age=31536000, immutable`; for files whose names do not change, use at least `max-age=86400` with an ETag, or better switch to hashed names in the build.",
        cwe: None,
        evidence: ["url", "resource", "resource_type", "value", "limit", "cache_control", "expires", "third_party"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/uses-long-cache-ttl"),
        requires: [Network],
    }
}

const STATIC_TYPES: &[&str] = &["script", "stylesheet", "image", "font"];

/// The directives of a Cache-Control value: lowercased names with optional values.
fn directives(cache_control: &str) -> Vec<(String, Option<String>)> {
    cache_control
        .split(',')
        .filter_map(|d| {
            let d = d.trim();
            if d.is_empty() {
                return None;
            }
            Some(match d.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v.trim().trim_matches('"').to_string())),
                None => (d.to_ascii_lowercase(), None),
            })
        })
        .collect()
}

/// What the response's caching headers say.
#[derive(Debug, PartialEq)]
enum Lifetime {
    /// The response opts out of caching on purpose (not judged).
    OptOut,
    /// Not computable (Expires without Date).
    Unknown,
    Seconds(i64),
}

fn lifetime(request: &NetworkRequest) -> Lifetime {
    let cache_control = request.cache_control.as_deref().or_else(|| header(&request.response_headers, "cache-control"));
    if let Some(cc) = cache_control {
        let d = directives(cc);
        let has = |name: &str| d.iter().any(|(k, _)| k == name);
        if has("no-store") || has("private") {
            return Lifetime::OptOut;
        }
        if has("no-cache") {
            return Lifetime::Seconds(0);
        }
        if let Some((_, value)) = d.iter().find(|(k, _)| k == "max-age") {
            return Lifetime::Seconds(value.as_deref().and_then(|v| v.parse::<i64>().ok()).unwrap_or(0));
        }
    } else if header(&request.response_headers, "pragma").is_some_and(|p| p.to_ascii_lowercase().contains("no-cache")) {
        return Lifetime::OptOut;
    }
    let expires = request.expires.as_deref().or_else(|| header(&request.response_headers, "expires"));
    match expires {
        None => Lifetime::Seconds(0),
        Some(expires) => match parse_http_date(expires) {
            None => Lifetime::Seconds(0),
            Some(at) => match header(&request.response_headers, "date").and_then(parse_http_date) {
                Some(date) => Lifetime::Seconds(at - date),
                None => Lifetime::Unknown,
            },
        },
    }
}

/// The host of an absolute URL (without port and credentials), lowercased.
fn host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let host = if authority.starts_with('[') {
        authority.split_once(']').map_or(authority, |(h, _)| h).trim_start_matches('[')
    } else {
        authority.split(':').next().unwrap_or(authority)
    };
    Some(host.to_ascii_lowercase())
}

impl Check for CachePolicy {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let page_host = host(page.final_url);
        let mut seen: Vec<&str> = Vec::new();
        for request in page.requests() {
            if !STATIC_TYPES.contains(&request.resource_type.as_str())
                || !matches!(request.status, Some(200) | Some(203))
                || request.failure.is_some()
                || request.from_service_worker
                || !(request.url.starts_with("http://") || request.url.starts_with("https://"))
                || seen.contains(&request.url.as_str())
            {
                continue;
            }
            seen.push(&request.url);
            let Lifetime::Seconds(seconds) = lifetime(request) else {
                continue;
            };
            let seconds = seconds.max(0);
            if seconds as u64 >= thresholds.cache_min_seconds {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "resource" => request.url,
                "resource_type" => request.resource_type,
                "value" => seconds,
                "limit" => thresholds.cache_min_seconds,
                "cache_control" => request.cache_control.as_deref().or_else(|| header(&request.response_headers, "cache-control")),
                "expires" => request.expires.as_deref().or_else(|| header(&request.response_headers, "expires")),
                "third_party" => host(&request.url) != page_host,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, response, run};
    use super::*;
    use crate::model::PageMetrics;

    fn css(url: &str, headers: &[(&str, &str)]) -> NetworkRequest {
        response(url, "stylesheet", "text/css", 10_000, headers)
    }

    #[test]
    fn fires_for_missing_short_or_revalidate_every_time() {
        let p = page(
            PageMetrics::default(),
            vec![
                css("https://example.com/none.css", &[]),
                css("https://example.com/hour.css", &[("cache-control", "public, max-age=3600")]),
                css("https://example.com/nocache.css", &[("cache-control", "no-cache")]),
                css(
                    "https://example.com/expires.css",
                    &[("date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("expires", "Sun, 06 Nov 1994 09:49:37 GMT")],
                ),
                css("https://example.com/expired.css", &[("expires", "0")]),
                response(
                    "https://cdn.test/lib.js",
                    "script",
                    "text/javascript",
                    10_000,
                    &[("cache-control", "max-age=600")],
                ),
            ],
        );
        let f = run(&CachePolicy, &p);
        let values: Vec<_> = f.iter().map(|f| f.evidence["value"].as_i64().unwrap_or(-1)).collect();
        assert_eq!(values, vec![0, 3600, 0, 3600, 0, 600]);
        assert_eq!(f[1].evidence["cache_control"], "public, max-age=3600");
        assert_eq!(f[5].evidence["third_party"], true);
        assert_eq!(f[0].evidence["third_party"], false);
        assert_eq!(f[0].evidence["limit"], 86_400);
    }

    #[test]
    fn quiet_for_long_lived_opted_out_documents_and_errors() {
        let mut missing = css("https://example.com/missing.css", &[]);
        missing.status = Some(404);
        let mut doc = response("https://example.com/page", "document", "text/html", 10_000, &[]);
        doc.is_navigation = true;
        let p = page(
            PageMetrics::default(),
            vec![
                css("https://example.com/app.3f9a.css", &[("cache-control", "public, max-age=31536000, immutable")]),
                css("https://example.com/day.css", &[("cache-control", "max-age=86400")]),
                css("https://example.com/me.css", &[("cache-control", "private, max-age=0")]),
                css("https://example.com/secret.css", &[("cache-control", "no-store")]),
                css("https://example.com/legacy.css", &[("pragma", "no-cache")]),
                // Expires without Date: cannot be judged.
                css("https://example.com/nodate.css", &[("expires", "Sun, 06 Nov 1994 09:49:37 GMT")]),
                response("https://example.com/api", "fetch", "application/json", 10_000, &[]),
                doc,
                missing,
            ],
        );
        assert!(run(&CachePolicy, &p).is_empty());
    }

    #[test]
    fn hosts() {
        assert_eq!(host("https://User@Example.com:8443/x").as_deref(), Some("example.com"));
        assert_eq!(host("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(host("data:foo"), None);
    }
}
