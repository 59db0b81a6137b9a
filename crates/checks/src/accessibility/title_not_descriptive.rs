use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use super::name_quality::{content_words, same_word, words};
use crate::model::Severity;
use crate::{declare_check, evidence};

declare_check! {
    /// The page's title does not say what the page is (ACT rule c4a8a4).
    ///
    /// The title is `document.title` (the first `<title>`, wherever it is). It is judged, in this
    /// order, as:
    /// - `placeholder`: a template's or tool's default (`Untitled Document`, `Document`, `Page`,
    ///   `React App`, ...); `Home`, `Index`, `Welcome` and the like alone only on a page that is
    ///   not the site's start page (path `/`, `/index.*` or one short segment such as `/en/`);
    /// - `file-name`: a file name (`about.html`) or the URL's last segment;
    /// - `host`: the bare host or URL, on a page other than the start page;
    /// - `unrelated-to-content` (English or unlabelled pages with at least 5 content words of
    ///   text, Latin-script titles of 2 content words or more): no part of the title (parts split
    ///   at `|`, `-`, `:`, ...) has half its content words (stop words out, light stemming) in
    ///   the page's text (`Apple harvesting season` over a page about clementines);
    /// - `site-name-only`: the page's one visible h1 ends with the title's words and says at
    ///   least two more before them (title `University of Arkham`, h1 `Search results for
    ///   "accessibility" at the University of Arkham`), on a page other than the start page.
    ///
    /// The last two are heuristics: `low` severity; every finding carries `needs_review: true`.
    /// Titles shared by pages whose content differs are `search.title-duplicate`'s.
    pub struct TitleNotDescriptive {
        id: "accessibility.title-not-descriptive",
        severity: Medium,
        title: "Page title does not describe the page",
        fires_when: "the title is a placeholder, a file name or the bare host, shares too few words with the page's text, or names only the site where the main heading names the page (heuristic: needs review)",
        description: "The title is the first thing a screen reader announces and what identifies a tab, a bookmark and a search result. A title that does not describe the page's topic or purpose fails WCAG 2.2 success criterion 2.4.2 (Page Titled): people who navigate between pages and windows cannot tell where they are.",
        remediation: "Give every page a title that names its own content first, then the site: `<title>Search results for \"accessibility\" – University of Arkham</title>`. Replace template defaults (`Untitled Document`, `React App`) and file names.",
        cwe: None,
        evidence: ["url", "selector", "value", "reason", "expected", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/page-titled.html"),
        requires: [Dom, PageText],
        act_ids: ["c4a8a4"],
        level: A,
        wcag: ["2.4.2"],
    }
}

/// Titles that are a template's or a tool's default (words lowercased, joined by one space).
const PLACEHOLDERS: &[&str] = &[
    "untitled", "untitled document", "untitled page", "document", "page", "new page", "new document", "title", "page title", "my page",
    "my website", "my site", "web page", "webpage", "website", "test", "test page", "blank", "blank page", "react app", "vite app",
    "vite react", "vite react ts", "vite vue", "create next app", "vue app", "angular app", "svelte app", "default page", "no title",
    "insert title here", "title here", "your title here", "page title here", "lorem ipsum",
];

/// Titles that only a site's start page may carry.
const START_PAGE_ONLY: &[&str] = &["home", "homepage", "home page", "index", "welcome", "main", "main page", "start", "start page"];

/// Fewest content words in the page's text for the title to be compared with it.
pub const MIN_TEXT_WORDS: usize = 5;
/// Fewest content words in the title for it to be compared with the text.
pub const MIN_TITLE_WORDS: usize = 2;
/// The share of a title part's content words that must appear in the text.
pub const MIN_SHARED: f64 = 0.5;

/// What is wrong with a title, when something is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleVerdict {
    pub reason: &'static str,
    pub severity: Severity,
    /// What the title was compared with (the h1, for `site-name-only`).
    pub expected: Option<String>,
}

/// The facts a title is judged against.
pub struct TitleContext<'a> {
    pub url: &'a str,
    pub lang: Option<&'a str>,
    /// The visible h1s' texts.
    pub h1s: &'a [&'a str],
    /// The page's rendered text.
    pub text: &'a str,
}

fn url_parts(url: &str) -> (String, String) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (host, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    let path = path.split(['?', '#']).next().unwrap_or("/").to_string();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
    (host, path)
}

/// True for the site's start page: `/`, `/index.*`, or one short segment (`/en/`).
fn is_start_page(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        [] => true,
        [one] => one.to_ascii_lowercase().starts_with("index.") || (one.len() <= 5 && one.chars().all(|c| c.is_ascii_alphabetic() || c == '-')),
        _ => false,
    }
}

fn is_file_name_title(title: &str) -> bool {
    let t = title.trim();
    if t.contains(char::is_whitespace) {
        return false;
    }
    t.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && ["html", "htm", "php", "asp", "aspx", "jsp", "cfm", "shtml", "xhtml"].contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// Latin script only (ASCII and the Latin-1 and Latin Extended letters): the stemming is English.
fn latin(text: &str) -> bool {
    text.chars().all(|c| !c.is_alphabetic() || (c as u32) < 0x0250)
}

/// Splits a title into its parts (`Pricing | Acme` -> `Pricing`, `Acme`).
fn parts(title: &str) -> Vec<&str> {
    title.split(['|', '–', '—', ':', '·', '•', '»', '«', '/']).flat_map(|p| p.split(" - ")).map(str::trim).filter(|p| !p.is_empty()).collect()
}

/// Judges a title (already trimmed, not empty).
pub fn judge(title: &str, ctx: &TitleContext<'_>) -> Option<TitleVerdict> {
    let normal = words(title).join(" ");
    let (host, path) = url_parts(ctx.url);
    let start = is_start_page(&path);
    let sure = |reason| Some(TitleVerdict { reason, severity: Severity::Medium, expected: None });
    if PLACEHOLDERS.contains(&normal.as_str()) || (!start && START_PAGE_ONLY.contains(&normal.as_str())) {
        return sure("placeholder");
    }
    let last_segment = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or("");
    if is_file_name_title(title) || (last_segment.contains('.') && title.trim().eq_ignore_ascii_case(last_segment)) {
        return sure("file-name");
    }
    let bare = title.trim().trim_end_matches('/').to_ascii_lowercase();
    let bare = bare.split_once("://").map_or(bare.as_str(), |(_, r)| r).to_string();
    if !start && !host.is_empty() && (bare == host || bare == host.trim_start_matches("www.") || format!("www.{bare}") == host) {
        return sure("host");
    }
    let english = ctx.lang.is_none_or(|l| l.trim().is_empty() || l.trim().to_ascii_lowercase().starts_with("en"));
    if !english || !latin(title) {
        return None;
    }
    let title_words = content_words(title);
    let text_words = content_words(ctx.text);
    if title_words.len() >= MIN_TITLE_WORDS && text_words.len() >= MIN_TEXT_WORDS {
        let shared = |part: &str| {
            let ws = content_words(part);
            let found = ws.iter().filter(|w| text_words.iter().any(|t| same_word(w, t))).count();
            if ws.is_empty() { 0.0 } else { found as f64 / ws.len() as f64 }
        };
        let best = parts(title).into_iter().map(shared).fold(0.0, f64::max);
        if best < MIN_SHARED {
            let expected: String = ctx.text.chars().take(120).collect();
            return Some(TitleVerdict { reason: "unrelated-to-content", severity: Severity::Low, expected: Some(expected) });
        }
    }
    if let [h1] = ctx.h1s
        && !start
        && !title_words.is_empty()
    {
        let heading = content_words(h1);
        let n = title_words.len();
        if heading.len() >= n + 2 && heading[heading.len() - n..].iter().zip(&title_words).all(|(h, t)| same_word(h, t)) {
            return Some(TitleVerdict { reason: "site-name-only", severity: Severity::Low, expected: Some(h1.to_string()) });
        }
    }
    None
}

impl Check for TitleNotDescriptive {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let dom = page.dom();
        let Some(title) = dom.title.as_deref().map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|t| !t.is_empty()) else {
            return; // No title at all: search.title-missing and axe's document-title.
        };
        let Some(text) = page.page_text() else { return };
        let h1s: Vec<&str> = dom.headings.iter().filter(|h| h.level == 1 && h.visible && !h.text.trim().is_empty()).map(|h| h.text.as_str()).collect();
        let ctx = TitleContext { url: page.final_url, lang: dom.html_lang.as_deref(), h1s: &h1s, text: &text.text };
        if let Some(v) = judge(&title, &ctx) {
            out.report_with(
                v.severity,
                evidence! {
                    "url" => page.final_url,
                    "selector" => "title",
                    "value" => title,
                    "reason" => v.reason,
                    "expected" => v.expected,
                    "needs_review" => true,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{DomFacts, Heading, PageSnapshot, PageText};

    const CLEMENTINES: &str = "Clementines will be ready to harvest from late October through February.";

    fn titled(url: &str, title: &str, h1: Option<&str>, text: &str) -> PageSnapshot {
        let headings = h1.map(|t| Heading { level: 1, text: t.into(), selector: "h1".into(), visible: true }).into_iter().collect();
        let mut p = page(DomFacts { title: Some(title.into()), title_count: 1, html_lang: Some("en".into()), headings, ..Default::default() });
        p.final_url = url.into();
        p.page_text = Some(PageText { text: text.into(), truncated: false });
        p
    }

    fn reason(p: &PageSnapshot) -> Option<String> {
        let f = run(&TitleNotDescriptive, p);
        assert!(f.len() <= 1);
        f.first().map(|f| {
            assert_eq!(f.evidence["needs_review"], true);
            f.evidence["reason"].as_str().unwrap_or_default().to_string()
        })
    }

    #[test]
    fn act_c4a8a4_cases() {
        let u = "https://act.test/testcases/c4a8a4/x.html";
        // Passed: the title names the content.
        assert_eq!(reason(&titled(u, "Clementine harvesting season", None, CLEMENTINES)), None);
        // Failed 1: another fruit.
        assert_eq!(reason(&titled(u, "Apple harvesting season", None, CLEMENTINES)).as_deref(), Some("unrelated-to-content"));
        // Failed 2: the first title is the one that counts.
        assert_eq!(reason(&titled(u, "First title is incorrect", None, CLEMENTINES)).as_deref(), Some("unrelated-to-content"));
        // Failed 3: the site's name where the page is a search result.
        let h1 = "Search results for \"accessibility\" at the University of Arkham";
        let p = titled(u, "University of Arkham", Some(h1), &format!("{h1} None"));
        assert_eq!(reason(&p).as_deref(), Some("site-name-only"));
        assert_eq!(run(&TitleNotDescriptive, &p)[0].severity, Severity::Low);
    }

    #[test]
    fn placeholders_file_names_and_hosts() {
        let text = "Our opening hours and the way to the shop, with a map and the phone number.";
        for (url, title, why) in [
            ("https://shop.test/visit/", "Untitled Document", "placeholder"),
            ("https://shop.test/visit/", "React App", "placeholder"),
            ("https://shop.test/visit/hours", "Home", "placeholder"),
            ("https://shop.test/visit.html", "visit.html", "file-name"),
            ("https://shop.test/visit/hours", "page2.htm", "file-name"),
            ("https://www.shop.test/visit/hours", "shop.test", "host"),
        ] {
            let p = titled(url, title, None, text);
            assert_eq!(reason(&p).as_deref(), Some(why), "{title}");
            assert_eq!(run(&TitleNotDescriptive, &p)[0].severity, Severity::Medium);
        }
    }

    #[test]
    fn quiet_on_ordinary_titles() {
        let text = "Opening hours: Monday to Friday 9 to 18. Find the shop on the map below; call us on 0123.";
        for (url, title, h1) in [
            // A start page may carry the site's name, or Home.
            ("https://shop.test/", "Home", None),
            ("https://www.shop.test/en/", "shop.test", None),
            ("https://shop.test/", "Acme Shop", Some("Welcome to the Acme Shop for everything garden")),
            // The part that names the page is in the text; the brand part need not be.
            ("https://shop.test/visit/hours", "Opening hours | Acme Shop", Some("Opening hours")),
            // The h1 starts with the title: it says more about the same thing.
            ("https://shop.test/visit/hours", "Opening hours", Some("Opening hours of the shop on Sundays")),
            // One content word: too little to judge.
            ("https://shop.test/visit/hours", "Visit", None),
        ] {
            assert_eq!(reason(&titled(url, title, h1, text)), None, "{title}");
        }
        // Too little text to compare with.
        assert_eq!(reason(&titled("https://shop.test/a/b", "Apple harvesting season", None, "Clementines soon.")), None);
        // Another language: words are not compared.
        let mut p = titled("https://shop.test/a/b", "Apfelernte im Herbst", None, CLEMENTINES);
        p.dom.html_lang = Some("de".into());
        assert_eq!(reason(&p), None);
        // Not Latin script.
        assert_eq!(reason(&titled("https://shop.test/a/b", "苹果收获季节 指南", None, CLEMENTINES)), None);
        // No title: other checks say so; no text gathered: nothing to judge.
        let mut p = titled("https://shop.test/a/b", "x", None, CLEMENTINES);
        p.dom.title = None;
        assert_eq!(reason(&p), None);
        let mut p = titled("https://shop.test/a/b", "Apple harvesting season", None, CLEMENTINES);
        p.page_text = None;
        assert_eq!(reason(&p), None);
    }
}
