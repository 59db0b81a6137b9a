//! The one reading of robots.txt (RFC 9309 plus the common extensions), shared by the crawler
//! (which URLs it may render, its crawl delay, the sitemaps to read) and the robots checks
//! (which lines are wrong, whether the whole site is blocked): groups of user agents with their
//! allow/disallow rules and crawl delay, the sitemaps, and the lines that cannot be parsed.
//!
//! Matching follows RFC 9309 §2.2.2 as Google's matcher does: the rules of every group naming
//! the product token (else of `*`) are merged; the longest matching pattern wins, `Allow` on a
//! tie; `*` matches any run of characters and a final `$` anchors the end.

/// One allow or disallow rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub allow: bool,
    pub path: String,
    /// 1-based line number and the line as written.
    pub line: usize,
    pub text: String,
}

/// User agents and the rules that apply to them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    /// Lowercased product tokens (`*`, `googlebot`).
    pub agents: Vec<String>,
    pub rules: Vec<Rule>,
    /// `Crawl-delay` of this group, seconds (the first valid one).
    pub crawl_delay: Option<f64>,
}

/// A line that cannot be parsed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub text: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedRobots {
    pub groups: Vec<Group>,
    pub problems: Vec<Problem>,
    /// Absolute `Sitemap:` URLs, in file order (they belong to no group).
    pub sitemaps: Vec<String>,
}

/// Directives outside RFC 9309 that major crawlers understand (Crawl-delay: Bing, Yandex; Host,
/// Clean-param: Yandex; Request-rate, Visit-time: older crawlers).
const EXTENSIONS: &[&str] = &[
    "crawl-delay",
    "host",
    "clean-param",
    "request-rate",
    "visit-time",
];

/// Misspellings Google's parser forgives but other crawlers do not.
const USER_AGENT_TYPOS: &[&str] = &["useragent", "user agent", "user_agent", "user-agents"];
const DISALLOW_TYPOS: &[&str] = &[
    "dissallow",
    "dissalow",
    "disalow",
    "diasllow",
    "disallaw",
    "disallows",
];

/// The product token of a user-agent value (`Googlebot/2.1` -> `googlebot`).
fn agent_token(value: &str) -> String {
    value
        .trim()
        .split('/')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

pub fn parse(body: &str) -> ParsedRobots {
    let mut parsed = ParsedRobots::default();
    let head = body.trim_start_matches('\u{feff}').trim_start();
    let lower_head = head.get(..15).unwrap_or(head).to_ascii_lowercase();
    if lower_head.starts_with("<!doctype") || lower_head.starts_with("<html") {
        parsed.problems.push(Problem {
            line: 1,
            text: head.lines().next().unwrap_or("").to_string(),
            reason: "robots.txt is an HTML page, not a robots.txt file (crawlers ignore it)"
                .to_string(),
        });
        return parsed;
    }
    let mut current: Option<Group> = None;
    let mut problem = |line: usize, text: &str, reason: String| {
        parsed.problems.push(Problem {
            line,
            text: text.to_string(),
            reason,
        });
    };
    let mut groups: Vec<Group> = Vec::new();
    let mut sitemaps: Vec<String> = Vec::new();
    for (index, raw) in body.lines().enumerate() {
        let number = index + 1;
        let text = raw.trim_start_matches('\u{feff}');
        let content = text.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let Some((key, value)) = content.split_once(':') else {
            problem(
                number,
                text,
                "no ':' between directive and value".to_string(),
            );
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        let is_user_agent = key == "user-agent" || USER_AGENT_TYPOS.contains(&key.as_str());
        let is_disallow = key == "disallow" || DISALLOW_TYPOS.contains(&key.as_str());
        if USER_AGENT_TYPOS.contains(&key.as_str()) || DISALLOW_TYPOS.contains(&key.as_str()) {
            let fix = if is_user_agent {
                "User-agent"
            } else {
                "Disallow"
            };
            problem(
                number,
                text,
                format!("misspelled directive \"{key}\" (write \"{fix}\")"),
            );
        }
        if is_user_agent {
            if value.is_empty() {
                problem(number, text, "User-agent without a value".to_string());
                continue;
            }
            // A user-agent line after rules starts a new group.
            if current.as_ref().is_some_and(|g| !g.rules.is_empty()) {
                groups.extend(current.take());
            }
            current
                .get_or_insert_with(Group::default)
                .agents
                .push(agent_token(value));
        } else if is_disallow || key == "allow" {
            match current.as_mut() {
                None => problem(
                    number,
                    text,
                    "rule before any User-agent line (it applies to no crawler)".to_string(),
                ),
                Some(group) => {
                    if !value.is_empty() && !value.starts_with('/') && !value.starts_with('*') {
                        problem(number, text, "path must start with '/' or '*'".to_string());
                    }
                    group.rules.push(Rule {
                        allow: !is_disallow,
                        path: value.to_string(),
                        line: number,
                        text: text.to_string(),
                    });
                }
            }
        } else if key == "sitemap" {
            let lower = value.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                problem(number, text, "Sitemap must be an absolute URL".to_string());
            } else {
                sitemaps.push(value.to_string());
            }
        } else if key == "crawl-delay" {
            if current.is_none() {
                problem(
                    number,
                    text,
                    "Crawl-delay before any User-agent line".to_string(),
                );
            } else {
                match value.parse::<f64>() {
                    Ok(v) if v.is_finite() && v >= 0.0 => {
                        if let Some(group) = current.as_mut() {
                            group.crawl_delay.get_or_insert(v);
                        }
                    }
                    _ => problem(
                        number,
                        text,
                        "Crawl-delay must be a number of seconds".to_string(),
                    ),
                }
            }
        } else if key == "noindex" || key == "nofollow" || key == "noarchive" {
            problem(
                number,
                text,
                format!(
                    "\"{key}\" is not a robots.txt directive (use a robots meta tag or X-Robots-Tag)"
                ),
            );
        } else if !EXTENSIONS.contains(&key.as_str()) {
            problem(number, text, format!("unknown directive \"{key}\""));
        }
    }
    groups.extend(current);
    parsed.groups = groups;
    parsed.sitemaps = sitemaps;
    parsed
}

impl ParsedRobots {
    /// The rules for exactly this agent token (all its groups merged, RFC 9309 §2.2.1).
    pub fn rules_for(&self, agent: &str) -> Option<Vec<&Rule>> {
        let groups: Vec<&Group> = self
            .groups
            .iter()
            .filter(|g| g.agents.iter().any(|a| a == agent))
            .collect();
        (!groups.is_empty()).then(|| groups.iter().flat_map(|g| g.rules.iter()).collect())
    }
}

impl ParsedRobots {
    /// The merged rules that apply to `agent` (a product token, any case): its own groups, else
    /// the `*` groups, else none (everything allowed).
    pub fn rules_applying_to(&self, agent: &str) -> Vec<&Rule> {
        let agent = agent_token(agent);
        self.rules_for(&agent).or_else(|| self.rules_for("*")).unwrap_or_default()
    }

    /// The crawl delay for `agent` (its own groups, else `*`), seconds.
    pub fn crawl_delay_for(&self, agent: &str) -> Option<f64> {
        let agent = agent_token(agent);
        let named = |token: &str| {
            let mut groups = self.groups.iter().filter(|g| g.agents.iter().any(|a| a == token)).peekable();
            groups.peek().is_some().then(|| groups.find_map(|g| g.crawl_delay))
        };
        named(&agent).or_else(|| named("*")).flatten()
    }

    /// Whether `agent` may fetch `path_and_query` (percent-encoded, starting with `/`).
    /// `/robots.txt` itself is always allowed.
    pub fn allowed(&self, agent: &str, path_and_query: &str) -> bool {
        if path_and_query == "/robots.txt" {
            return true;
        }
        let mut best: Option<(usize, bool)> = None;
        for rule in self.rules_applying_to(agent) {
            if rule.path.is_empty() {
                continue;
            }
            let pattern = encode_pattern(&rule.path);
            if !pattern_matches(&pattern, path_and_query) {
                continue;
            }
            let length = pattern.len();
            best = match best {
                Some((l, allow)) if l > length || (l == length && allow) => Some((l, allow)),
                _ => Some((length, rule.allow)),
            };
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// A rule path in the form URLs are compared in: bytes outside printable ASCII percent-encoded
/// (RFC 9309 §2.2.2), existing escapes upper-cased.
fn encode_pattern(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let bytes = path.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit) {
            out.push('%');
            out.push(bytes[i + 1].to_ascii_uppercase() as char);
            out.push(bytes[i + 2].to_ascii_uppercase() as char);
            i += 3;
            continue;
        }
        if b.is_ascii_graphic() {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        i += 1;
    }
    out
}

/// `*` matches any run of characters; a final `$` anchors the end; otherwise a prefix match.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    if parts.is_empty() {
        return !anchored || rest.is_empty();
    }
    for (i, part) in parts.iter().enumerate() {
        let last = i == parts.len() - 1;
        if last && anchored {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The rule that disallows the whole site, when the rules do: a `Disallow: /` (or `/*`, `*`) with
/// no non-empty `Allow` that opens part of it again.
pub fn blocks_all<'a>(rules: &[&'a Rule]) -> Option<&'a Rule> {
    let opens_something = rules.iter().any(|r| r.allow && !r.path.is_empty());
    if opens_something {
        return None;
    }
    rules
        .iter()
        .copied()
        .find(|r| !r.allow && matches!(r.path.as_str(), "/" | "/*" | "*"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_agents_and_rules() {
        let p = parse(
            "User-agent: *\nUser-agent: Googlebot/2.1\nDisallow: /admin # private\nAllow: /admin/public\n\nUser-agent: bingbot\nDisallow:\nSitemap: https://e.com/sitemap.xml\n",
        );
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.groups.len(), 2);
        assert_eq!(p.groups[0].agents, vec!["*", "googlebot"]);
        assert_eq!(p.groups[0].rules.len(), 2);
        assert_eq!(p.rules_for("bingbot").unwrap().len(), 1);
        assert!(p.rules_for("yandex").is_none());
    }

    #[test]
    fn reports_unparseable_lines() {
        let p = parse(
            "Disallow: /early\nUser-agent: *\nDisalow: /x\nFoo: bar\nnoindex: /y\njust text\nAllow: admin\nCrawl-delay: soon\nSitemap: /sitemap.xml\n",
        );
        let lines: Vec<usize> = p.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![1, 3, 4, 5, 6, 7, 8, 9]);
        assert!(p.problems[0].reason.contains("before any User-agent"));
    }

    #[test]
    fn finds_blocking_rules() {
        let p = parse("User-agent: *\nDisallow: /\n");
        assert!(blocks_all(&p.rules_for("*").unwrap()).is_some());
        let p = parse("User-agent: *\nDisallow: /\nAllow: /public/\n");
        assert!(blocks_all(&p.rules_for("*").unwrap()).is_none());
        let p = parse("User-agent: *\nDisallow: /$\nDisallow: /private\n");
        assert!(blocks_all(&p.rules_for("*").unwrap()).is_none());
    }

    #[test]
    fn matches_as_rfc_9309_says() {
        let p = parse(
            "User-agent: *\nDisallow: /private\nAllow: /private/open\nDisallow: /*.pdf$\nDisallow: /search?*q=\n\nUser-agent: SiteScan\nDisallow: /only-us\nCrawl-delay: 2\nSitemap: https://e.test/s.xml\n",
        );
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.sitemaps, vec!["https://e.test/s.xml".to_string()]);
        // The named group replaces `*` for its agent.
        assert!(!p.allowed("sitescan", "/only-us/x"));
        assert!(p.allowed("sitescan", "/private"));
        assert_eq!(p.crawl_delay_for("sitescan/1.0"), Some(2.0));
        assert_eq!(p.crawl_delay_for("otherbot"), None);
        // Longest match wins; Allow wins a tie.
        assert!(!p.allowed("otherbot", "/private/x"));
        assert!(p.allowed("otherbot", "/private/open/x"));
        assert!(!p.allowed("otherbot", "/docs/a.pdf"));
        assert!(p.allowed("otherbot", "/docs/a.pdf?x=1"));
        assert!(!p.allowed("otherbot", "/search?lang=en&q=shoes"));
        assert!(p.allowed("otherbot", "/robots.txt"));
        let tie = parse("User-agent: *\nDisallow: /a\nAllow: /a\n");
        assert!(tie.allowed("x", "/a"));
        let empty = parse("User-agent: *\nDisallow:\n");
        assert!(empty.allowed("x", "/anything"));
        let utf8 = parse("User-agent: *\nDisallow: /café\n");
        assert!(!utf8.allowed("x", "/caf%C3%A9/menu"));
    }

    #[test]
    fn an_html_page_is_one_problem() {
        let p = parse("<!DOCTYPE html>\n<html><body>Not found</body></html>");
        assert_eq!(p.problems.len(), 1);
    }
}
