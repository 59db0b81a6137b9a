//! The crawl frontier: URL normalisation, same-site rules, breadth-first order, dedupe.

use std::collections::{HashSet, VecDeque};
use url::Url;

/// File extensions that are not pages: linked, status-checked, never rendered.
const NON_PAGE_EXTENSIONS: [&str; 30] = [
    "pdf", "zip", "gz", "tgz", "rar", "7z", "jpg", "jpeg", "png", "gif", "webp", "avif", "svg", "ico", "mp4", "webm",
    "mp3", "wav", "ogg", "mov", "avi", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "exe", "dmg", "woff2",
];

/// Normalises a URL for crawling: http(s) only, fragment dropped, scheme and host lowercased,
/// default port dropped (the WHATWG serialisation does these), empty path as `/`.
pub fn normalize(url: &str, base: Option<&Url>) -> Option<Url> {
    let mut parsed = match base {
        Some(b) => b.join(url.trim()).ok()?,
        None => Url::parse(url.trim()).ok()?,
    };
    if parsed.scheme() != "http" && parsed.scheme() != "https" {
        return None;
    }
    parsed.host_str()?;
    parsed.set_fragment(None);
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return None;
    }
    Some(parsed)
}

/// The port a URL connects to.
fn effective_port(u: &Url) -> Option<u16> {
    u.port_or_known_default()
}

/// The crawl's notion of "this site": the target's host, in its http and https forms.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Site {
    hosts: Vec<(String, Option<u16>, String)>,
}

impl Site {
    pub fn new(start: &Url) -> Self {
        let mut site = Site { hosts: Vec::new() };
        site.add(start);
        site
    }

    /// Also counts `url`'s host as this site (the start URL redirected there).
    pub fn add(&mut self, url: &Url) {
        if let Some(host) = url.host_str() {
            let entry = (host.to_ascii_lowercase(), effective_port(url), url.scheme().to_string());
            if !self.hosts.contains(&entry) {
                self.hosts.push(entry);
            }
        }
    }

    /// Same host, and the same port or each scheme's default port (so `http://h/` and `https://h/`
    /// are the same site, `http://h:8080/` and `http://h:9090/` are not).
    pub fn contains(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else { return false };
        let host = host.to_ascii_lowercase();
        let port = effective_port(url);
        self.hosts.iter().any(|(h, p, scheme)| {
            *h == host && (*p == port || (is_default(*p, scheme) && is_default(port, url.scheme())))
        })
    }
}

fn is_default(port: Option<u16>, scheme: &str) -> bool {
    matches!((scheme, port), ("http", Some(80)) | ("https", Some(443)))
}

/// True when the URL looks like a document worth rendering (not a PDF, image, archive...).
pub fn looks_like_page(url: &Url) -> bool {
    let path = url.path().to_ascii_lowercase();
    match path.rsplit('/').next().and_then(|last| last.rsplit_once('.')) {
        Some((_, ext)) => !NON_PAGE_EXTENSIONS.contains(&ext),
        None => true,
    }
}

/// Breadth-first queue of (url, depth) with dedupe on the normalised URL.
#[derive(Debug, Default)]
pub struct Frontier {
    queue: VecDeque<(Url, u32)>,
    seen: HashSet<String>,
}

impl Frontier {
    /// Queues `url` at `depth` unless already seen. Returns true when it was new.
    pub fn push(&mut self, url: Url, depth: u32) -> bool {
        if self.seen.insert(url.as_str().to_string()) {
            self.queue.push_back((url, depth));
            true
        } else {
            false
        }
    }

    /// Marks a URL as seen without queueing it (e.g. the final URL of a redirect).
    pub fn mark_seen(&mut self, url: &Url) {
        self.seen.insert(url.as_str().to_string());
    }

    pub fn seen(&self, url: &Url) -> bool {
        self.seen.contains(url.as_str())
    }

    pub fn pop(&mut self) -> Option<(Url, u32)> {
        self.queue.pop_front()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// URLs queued and not yet taken.
    pub fn len(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises() {
        let base = Url::parse("https://Example.com:443/a/b").unwrap();
        assert_eq!(normalize("../c#frag", Some(&base)).unwrap().as_str(), "https://example.com/c");
        assert_eq!(normalize("HTTP://EXAMPLE.com:80", None).unwrap().as_str(), "http://example.com/");
        assert!(normalize("javascript:void(0)", Some(&base)).is_none());
        assert!(normalize("mailto:a@b.c", Some(&base)).is_none());
        assert!(normalize("http://u:p@example.com/", None).is_none());
    }

    #[test]
    fn same_site_counts_http_and_https_variants() {
        let site = Site::new(&Url::parse("https://example.com/").unwrap());
        assert!(site.contains(&Url::parse("http://example.com/x").unwrap()));
        assert!(site.contains(&Url::parse("https://EXAMPLE.com:443/y").unwrap()));
        assert!(!site.contains(&Url::parse("https://www.example.com/").unwrap()));
        assert!(!site.contains(&Url::parse("https://example.com:8443/").unwrap()));
        let local = Site::new(&Url::parse("http://127.0.0.1:8081/").unwrap());
        assert!(local.contains(&Url::parse("http://127.0.0.1:8081/p").unwrap()));
        assert!(!local.contains(&Url::parse("http://127.0.0.1:9999/p").unwrap()));
    }

    #[test]
    fn frontier_is_breadth_first_and_dedupes() {
        let mut f = Frontier::default();
        assert!(f.push(Url::parse("http://a.test/").unwrap(), 0));
        assert!(!f.push(Url::parse("http://a.test/").unwrap(), 1));
        f.push(Url::parse("http://a.test/x").unwrap(), 1);
        assert_eq!(f.pop().unwrap().1, 0);
        assert_eq!(f.pop().unwrap().0.as_str(), "http://a.test/x");
        assert!(f.is_empty());
        assert!(!looks_like_page(&Url::parse("http://a.test/doc.PDF").unwrap()));
        assert!(looks_like_page(&Url::parse("http://a.test/page.html").unwrap()));
        assert!(looks_like_page(&Url::parse("http://a.test/dir/").unwrap()));
    }
}
