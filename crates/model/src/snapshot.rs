//! Snapshots: the plain data gatherers produce and checks judge.
//!
//! A `PageSnapshot` is everything the browser saw while loading one page; a `SiteSnapshot` is what
//! the crawl learned about the site as a whole (robots.txt, sitemaps, link statuses, a digest of every
//! page). Both are serialisable so a scan can be re-judged without a browser. The DOM facts are
//! produced by `browser/collector.js` and deserialised into `DomFacts` field for field (snake_case).

use serde::{Deserialize, Serialize};

/// One HTTP header as received (names lowercased; repeated headers stay separate entries).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub name: String,
    pub value: String,
}

/// Finds the first header called `name` (lowercase) in a list.
pub fn header<'a>(headers: &'a [Header], name: &str) -> Option<&'a str> {
    headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| h.value.as_str())
}

/// Every value of the headers called `name`.
pub fn header_all<'a>(headers: &'a [Header], name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers.iter().filter(move |h| h.name.eq_ignore_ascii_case(name)).map(|h| h.value.as_str())
}

/// One hop of a redirect chain: `url` answered `status` with `location`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedirectHop {
    pub url: String,
    pub status: u16,
    pub location: Option<String>,
}

/// Why a page could not be captured (the page still gets a snapshot, with this set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageError {
    /// `navigation` (net error such as `net::ERR_CONNECTION_REFUSED`), `blocked` (egress guard),
    /// `timeout`, `crashed` (the renderer or browser died), `redirect_loop`, `too_large`, `internal`.
    pub kind: String,
    pub message: String,
}

/// One network request made while the page loaded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkRequest {
    pub url: String,
    /// CDP resource type, lowercased: document, stylesheet, image, media, font, script, xhr, fetch,
    /// websocket, manifest, other, ...
    pub resource_type: String,
    pub method: String,
    pub status: Option<u16>,
    pub mime_type: Option<String>,
    pub protocol: Option<String>,
    /// Bytes on the wire (headers and body), from `Network.loadingFinished`.
    pub encoded_bytes: Option<u64>,
    /// Decoded body bytes.
    pub decoded_bytes: Option<u64>,
    pub content_encoding: Option<String>,
    pub cache_control: Option<String>,
    pub expires: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Response headers (lowercased names).
    pub response_headers: Vec<Header>,
    /// Milliseconds from navigation start to request start and to response end.
    pub start_ms: Option<f64>,
    pub end_ms: Option<f64>,
    /// Time to first byte of this response, in ms (`receiveHeadersEnd - sendStart`).
    pub ttfb_ms: Option<f64>,
    pub from_cache: bool,
    pub from_service_worker: bool,
    /// `net::ERR_...` text when the request failed.
    pub failure: Option<String>,
    /// CDP `BlockedReason` or `egress` when the egress guard refused it.
    pub blocked_reason: Option<String>,
    /// `parser`, `script`, `preload`, `other`; and the initiating URL when known.
    pub initiator_type: Option<String>,
    pub initiator_url: Option<String>,
    /// True for the main document request.
    pub is_navigation: bool,
    /// True when Chromium flagged it render-blocking (`renderBlocking` in `Network.requestWillBeSent`).
    pub render_blocking: Option<bool>,
    /// Mixed-content classification from CDP (`blockable`, `optionally-blockable`, `none`).
    pub mixed_content_type: Option<String>,
}

/// A console message or a browser log entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleMessage {
    /// `log`, `info`, `warning`, `error`, `debug`, `verbose`.
    pub level: String,
    /// `console` for console API calls; otherwise the `Log.entryAdded` source (`network`,
    /// `javascript`, `security`, `deprecation`, `intervention`, `violation`, `recommendation`, ...).
    pub source: String,
    pub text: String,
    pub url: Option<String>,
    pub line: Option<u32>,
}

/// An uncaught exception or unhandled promise rejection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsError {
    /// `exception` or `unhandled-rejection`.
    pub kind: String,
    pub message: String,
    pub stack: Option<String>,
    pub url: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

/// A Content-Security-Policy violation the page reported.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CspViolation {
    pub directive: String,
    pub blocked_uri: String,
    pub source_file: Option<String>,
    pub line: Option<u32>,
    pub disposition: Option<String>,
}

/// A browser issue (CDP Audits domain or ReportingObserver): deprecations, interventions, ...
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowserIssue {
    /// `deprecation`, `intervention`, `mixed-content`, `cookie`, `csp`, `heavy-ad`, `generic`, ...
    pub kind: String,
    /// A short code (for deprecations the deprecation type, e.g. `UnloadHandler`).
    pub code: Option<String>,
    pub message: String,
    pub url: Option<String>,
    pub line: Option<u32>,
}

/// A cookie a response set (parsed from `Set-Cookie`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CookieSet {
    pub name: String,
    /// The response URL that set it.
    pub set_by: String,
    pub domain: Option<String>,
    pub path: Option<String>,
    pub secure: bool,
    pub http_only: bool,
    pub same_site: Option<String>,
    pub set_over_https: bool,
    /// The Set-Cookie header value with the cookie value masked.
    pub raw_masked: String,
}

/// A main-thread task longer than 50 ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LongTask {
    pub start_ms: f64,
    pub duration_ms: f64,
}

/// The element that was the Largest Contentful Paint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LcpElement {
    pub selector: Option<String>,
    pub snippet: Option<String>,
    pub tag: Option<String>,
    /// The image URL when the LCP is an image (img, image, video poster or CSS background).
    pub url: Option<String>,
    pub is_image: bool,
    /// The `loading` attribute of the LCP img, if any (`lazy`, `eager`).
    pub loading: Option<String>,
}

/// A layout shift entry (only those without recent input count toward CLS).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LayoutShift {
    pub start_ms: f64,
    pub value: f64,
    pub sources: Vec<String>,
}

/// Page performance, measured by a script added before navigation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageMetrics {
    pub ttfb_ms: Option<f64>,
    pub fcp_ms: Option<f64>,
    pub lcp_ms: Option<f64>,
    pub lcp_element: Option<LcpElement>,
    /// Cumulative Layout Shift: the largest session window (gaps < 1 s, windows <= 5 s).
    pub cls: Option<f64>,
    pub layout_shifts: Vec<LayoutShift>,
    /// Total Blocking Time between FCP and the end of the capture (sum of long-task time over 50 ms).
    pub tbt_ms: Option<f64>,
    pub long_tasks: Vec<LongTask>,
    pub dom_content_loaded_ms: Option<f64>,
    pub load_ms: Option<f64>,
    /// Bytes transferred for the page and all its subresources.
    pub transfer_bytes: u64,
    /// Number of requests the page made (the document included).
    pub requests: u64,
    /// Number of elements in the rendered DOM.
    pub dom_elements: u64,
    pub dom_max_depth: u64,
}

/// A `<meta>` element.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaTag {
    pub name: Option<String>,
    pub property: Option<String>,
    pub http_equiv: Option<String>,
    pub content: Option<String>,
    pub charset: Option<String>,
    pub selector: String,
}

/// A `<link>` element.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkTag {
    pub rel: String,
    /// The attribute exactly as written.
    pub href_raw: Option<String>,
    /// Resolved against the document base; `None` when it does not resolve.
    pub href: Option<String>,
    pub hreflang: Option<String>,
    pub media: Option<String>,
    pub type_: Option<String>,
    pub sizes: Option<String>,
    /// True when the link sits in `<head>`.
    pub in_head: bool,
    pub selector: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    pub selector: String,
    pub visible: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Landmark {
    /// `main`, `navigation`, `banner`, `contentinfo`, `complementary`, `search`, `form`, `region`.
    pub role: String,
    pub selector: String,
}

/// An `<a>` element (or an element with role=link).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    pub href_raw: Option<String>,
    /// Resolved absolute URL without fragment; `None` for javascript:, `#` only, or unresolvable.
    pub href: Option<String>,
    /// The visible text, whitespace collapsed.
    pub text: String,
    /// The computed accessible name (aria-label, aria-labelledby, img alt, text, title).
    pub accessible_name: String,
    pub rel: Option<String>,
    pub target: Option<String>,
    pub has_click_handler: bool,
    pub visible: bool,
    pub selector: String,
    pub snippet: String,
}

/// An image: `<img>` (also inside `<picture>`), `<input type=image>`, or a CSS background image.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Image {
    /// `img`, `picture-source`, `css-background`, `input-image`, `svg-image`.
    pub kind: String,
    pub src_raw: Option<String>,
    /// The URL actually used (currentSrc) or resolved src.
    pub url: Option<String>,
    pub alt: Option<String>,
    pub natural_width: u32,
    pub natural_height: u32,
    pub rendered_width: u32,
    pub rendered_height: u32,
    pub loading: Option<String>,
    pub decoding: Option<String>,
    pub fetchpriority: Option<String>,
    pub has_width_attr: bool,
    pub has_height_attr: bool,
    /// CSS `aspect-ratio` other than `auto`, or both CSS width and height fixed.
    pub has_css_size: bool,
    /// Fully inside or overlapping the first viewport (before any scrolling).
    pub in_first_viewport: bool,
    /// Distance from the top of the document to the image, in CSS px.
    pub top_px: f64,
    /// `complete` and `naturalWidth == 0`: the browser could not load or decode it.
    pub broken: bool,
    pub visible: bool,
    pub srcset: Option<String>,
    pub selector: String,
    pub snippet: String,
}

/// A `<track>` of a media element.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MediaTrack {
    pub kind: String,
    pub srclang: Option<String>,
    pub src: Option<String>,
    pub label: Option<String>,
}

/// A `<video>` or `<audio>` element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MediaElement {
    pub tag: String,
    pub src: Option<String>,
    pub autoplay: bool,
    pub muted: bool,
    pub controls: bool,
    pub loop_: bool,
    /// Whether the media has an audio track, when the browser could tell (`mozHasAudio`,
    /// `webkitAudioDecodedByteCount`, `audioTracks`); `None` when unknown.
    pub has_audio: Option<bool>,
    /// True when it was playing (not paused) at capture time.
    pub playing: bool,
    pub duration_s: Option<f64>,
    pub tracks: Vec<MediaTrack>,
    pub selector: String,
    pub snippet: String,
}

/// A form control: input (not hidden), select, textarea, or button.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormField {
    pub tag: String,
    /// The `type` attribute as written, lowercased (`None` when absent).
    pub type_attr: Option<String>,
    /// The effective type (`text` when absent or unknown).
    pub type_: String,
    pub name: Option<String>,
    pub id: Option<String>,
    pub autocomplete: Option<String>,
    pub placeholder: Option<String>,
    /// Text of associated `<label>`s (for=, wrapping), aria-label or aria-labelledby text.
    pub label_text: Option<String>,
    /// True when the field has a programmatic accessible name (label, aria-label(ledby), title).
    pub has_label: bool,
    /// True for a label supplied only by `placeholder` (not a label).
    pub placeholder_only: bool,
    /// True when an explicit `role="none"` or `"presentation"` is honoured: the field is disabled
    /// (so not focusable) and carries no global ARIA attribute (WAI-ARIA's presentational role
    /// conflict resolution); it is then no form field for assistive technologies.
    #[serde(default)]
    pub presentational: bool,
    pub visible: bool,
    pub required: bool,
    /// Index into `DomFacts::forms`, `None` when outside any form.
    pub form_index: Option<usize>,
    pub selector: String,
    pub snippet: String,
}

/// A `<form>`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Form {
    pub action_raw: Option<String>,
    /// The resolved submission URL (the document URL when action is absent).
    pub action: Option<String>,
    /// `get`, `post` or `dialog` (lowercased, `get` by default).
    pub method: String,
    pub has_submit: bool,
    pub has_password: bool,
    /// Number of fields (see `DomFacts::fields` with this `form_index`).
    pub field_count: usize,
    pub visible: bool,
    pub selector: String,
    pub snippet: String,
}

/// A `<script type="application/ld+json">` block, exactly as written, unless it is over the
/// collector's budget (a block, or all of a page's blocks): then only its start is read, and
/// `length` says how long it is in the page (UTF-16 units).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonLdBlock {
    pub text: String,
    pub selector: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
}

/// A microdata item (`itemscope`), its type(s) and property names with their values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MicrodataItem {
    pub types: Vec<String>,
    pub properties: Vec<MicrodataProperty>,
    /// True when this item is itself the value of a property of another item.
    pub nested: bool,
    pub selector: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MicrodataProperty {
    pub name: String,
    pub value: String,
}

/// An element carrying an id that another element also carries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuplicateId {
    pub id: String,
    pub count: usize,
    pub selectors: Vec<String>,
    pub snippet: String,
}

/// An element worth pointing at (deprecated elements, clickable divs, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementRef {
    pub tag: String,
    pub selector: String,
    pub snippet: String,
}

/// Facts about the rendered DOM, collected in the page by `browser/collector.js`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DomFacts {
    /// `document.title` of the rendered page, and how many `<title>` elements exist.
    pub title: Option<String>,
    pub title_count: usize,
    /// The doctype name (`html`) or `None` when the document has none.
    pub doctype: Option<String>,
    /// `CSS1Compat` (standards) or `BackCompat` (quirks).
    pub compat_mode: String,
    pub html_lang: Option<String>,
    pub html_dir: Option<String>,
    /// `document.characterSet`.
    pub character_set: Option<String>,
    pub metas: Vec<MetaTag>,
    pub links: Vec<LinkTag>,
    pub base_href: Option<String>,
    pub headings: Vec<Heading>,
    pub landmarks: Vec<Landmark>,
    pub anchors: Vec<Anchor>,
    /// Anchors found beyond the cap (they are not in `anchors`).
    pub anchors_omitted: usize,
    pub images: Vec<Image>,
    pub media: Vec<MediaElement>,
    pub forms: Vec<Form>,
    pub fields: Vec<FormField>,
    pub json_ld: Vec<JsonLdBlock>,
    pub microdata: Vec<MicrodataItem>,
    /// Number of elements carrying RDFa (`typeof`/`property` + `vocab`).
    pub rdfa_count: usize,
    pub duplicate_ids: Vec<DuplicateId>,
    /// center, font, marquee, blink, frame, frameset, big, strike, tt, acronym, applet, ...
    pub deprecated_elements: Vec<ElementRef>,
    /// div/span (and other non-interactive elements) with a click handler but no role, tabindex or
    /// key handler.
    pub clickable_non_interactive: Vec<ElementRef>,
    pub viewport_width: u32,
    pub viewport_height: u32,
    pub document_height: u32,
    pub iframes: Vec<ElementRef>,
}

/// One axe-core rule result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AxeRule {
    pub id: String,
    /// `critical`, `serious`, `moderate`, `minor`, or `None`.
    pub impact: Option<String>,
    pub tags: Vec<String>,
    pub help: String,
    pub description: String,
    pub help_url: String,
    pub nodes: Vec<AxeNode>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AxeNode {
    /// The CSS selector path axe gives (one entry per frame level), joined with ` >>> `.
    pub target: String,
    pub html: String,
    pub failure_summary: Option<String>,
    pub impact: Option<String>,
}

/// axe-core's results for a page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AxeResults {
    pub version: String,
    pub violations: Vec<AxeRule>,
    /// Results axe could not decide; kept for the record, never findings.
    pub incomplete: Vec<AxeRule>,
    pub error: Option<String>,
}

/// One step of the keyboard walk (Tab presses through the page).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FocusStep {
    pub selector: String,
    pub snippet: String,
    pub tag: String,
    /// Whether focusing changed the element's rendering (computed outline/box-shadow/border/
    /// background, or its pixels in a screenshot clip).
    pub visible_change: bool,
    /// How the change was judged: `style` or `pixels`.
    pub method: String,
}

/// What tabbing through the page showed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyboardWalk {
    pub steps: Vec<FocusStep>,
    /// Set when focus could leave neither by Tab nor by Shift+Tab (it stayed on one element, or
    /// cycled among elements already visited, widgets with inner focus and frames excepted)
    /// while other focusable elements existed (a keyboard trap): the first trapped element's
    /// selector.
    pub trapped_at: Option<String>,
    pub trapped_snippet: Option<String>,
    /// Number of focusable elements in the document.
    pub focusable_count: usize,
    /// How much of the tab order was walked when the walk stopped at its budget.
    pub sampled: Option<super::Sample>,
}

/// Everything the browser saw while loading one page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageSnapshot {
    pub requested_url: String,
    pub final_url: String,
    /// Every redirect before the final response (HTTP 3xx hops, in order).
    pub redirects: Vec<RedirectHop>,
    /// Status of the final main response (`None` when no response arrived).
    pub status: Option<u16>,
    pub response_headers: Vec<Header>,
    pub mime_type: Option<String>,
    /// The main document's body exactly as served (decoded to text; capped).
    pub served_html: Option<String>,
    /// Byte offset of the first `<meta charset>` / `http-equiv=content-type` declaration in the
    /// served bytes, when there is one.
    pub meta_charset_offset: Option<usize>,
    /// `document.documentElement.outerHTML` after scripts ran (capped).
    pub rendered_html: Option<String>,
    pub error: Option<PageError>,
    pub requests: Vec<NetworkRequest>,
    pub console: Vec<ConsoleMessage>,
    pub js_errors: Vec<JsError>,
    pub csp_violations: Vec<CspViolation>,
    pub browser_issues: Vec<BrowserIssue>,
    pub cookies: Vec<CookieSet>,
    pub metrics: PageMetrics,
    pub dom: DomFacts,
    pub axe: Option<AxeResults>,
    pub keyboard: Option<KeyboardWalk>,
    /// What `browser/barriers.js` measured (text styled as headings, visual lists, links, images,
    /// fields).
    pub barriers: Option<super::barriers::BarrierFacts>,
    /// Reading and layout facts: reflow at 320 px, text at 200% and with WCAG text spacing,
    /// reading measures, image animations (`model::layout`).
    pub layout: Option<crate::layout::LayoutFacts>,
    /// PNG of the first viewport, base64, only when asked for.
    pub screenshot_png_base64: Option<String>,
    /// The page's rendered text (`browser/page_text.js`).
    pub page_text: Option<crate::PageText>,
    /// The text recognised in the page's images (`browser/image_text.js` and Tesseract).
    pub image_text: Option<crate::ImageText>,
    /// What the keyboard met in the dialogs the page's controls open (`model::dialogs`).
    pub dialogs: Option<crate::DialogFacts>,
    /// How much of the page's browser events (requests, console, exceptions, ...) was recorded
    /// when their log reached its budget: the checks that read them judge that part.
    pub events_sampled: Option<super::Sample>,
    /// Gatherers that failed, with why (their checks are skipped).
    pub gather_errors: Vec<GatherError>,
    /// How long capture took, in ms.
    pub capture_ms: u64,
}

/// A gathered fact a check can declare it needs. When its gatherer failed on a page, the checks
/// that need it do not run there (the page's `checks_not_run` says so) instead of judging an empty
/// default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Artifact {
    /// `PageSnapshot::dom` (the in-page collector).
    Dom,
    /// `PageSnapshot::served_html` and `meta_charset_offset`.
    ServedHtml,
    /// `PageSnapshot::rendered_html`.
    RenderedHtml,
    /// `PageSnapshot::metrics` (performance observers and the network record).
    Metrics,
    /// `PageSnapshot::axe`.
    Axe,
    /// `PageSnapshot::keyboard`.
    Keyboard,
    /// `PageSnapshot::screenshot_png_base64`.
    Screenshot,
    /// `PageSnapshot::requests` (the network record beyond the main document).
    Network,
    /// `PageSnapshot::console`.
    Console,
    /// `PageSnapshot::js_errors`.
    Exceptions,
    /// `PageSnapshot::csp_violations`.
    Csp,
    /// `PageSnapshot::browser_issues`.
    Issues,
    /// `PageSnapshot::cookies`.
    Cookies,
    /// `PageSnapshot::barriers`.
    Barriers,
    /// `PageSnapshot::layout`.
    Layout,
    /// `PageSnapshot::page_text`.
    PageText,
    /// `PageSnapshot::image_text` (needs Tesseract on the machine).
    ImageText,
    /// `PageSnapshot::dialogs`.
    Dialogs,
}

impl Artifact {
    /// Every artifact.
    pub const ALL: [Artifact; 18] = [
        Artifact::Dom,
        Artifact::ServedHtml,
        Artifact::RenderedHtml,
        Artifact::Metrics,
        Artifact::Axe,
        Artifact::Keyboard,
        Artifact::Screenshot,
        Artifact::Network,
        Artifact::Console,
        Artifact::Exceptions,
        Artifact::Csp,
        Artifact::Issues,
        Artifact::Cookies,
        Artifact::Barriers,
        Artifact::Layout,
        Artifact::PageText,
        Artifact::ImageText,
        Artifact::Dialogs,
    ];

    /// The artifacts built from the page's event log after it closed, rather than by asking the
    /// page: all of them are incomplete when that log overflowed.
    pub const FROM_EVENTS: [Artifact; 7] =
        [Artifact::Network, Artifact::Metrics, Artifact::Console, Artifact::Exceptions, Artifact::Csp, Artifact::Issues, Artifact::Cookies];

    /// The gatherer's name in `PageSnapshot::gather_errors`.
    pub const fn gatherer(self) -> &'static str {
        match self {
            Artifact::Dom => "dom",
            Artifact::ServedHtml => "served-html",
            Artifact::RenderedHtml => "rendered-html",
            Artifact::Metrics => "metrics",
            Artifact::Axe => "axe",
            Artifact::Keyboard => "keyboard",
            Artifact::Screenshot => "screenshot",
            Artifact::Network => "network",
            Artifact::Console => "console",
            Artifact::Exceptions => "exceptions",
            Artifact::Csp => "csp",
            Artifact::Issues => "issues",
            Artifact::Cookies => "cookies",
            Artifact::Barriers => "barriers",
            Artifact::Layout => "layout",
            Artifact::PageText => "page-text",
            Artifact::ImageText => "image-text",
            Artifact::Dialogs => "dialogs",
        }
    }
}

/// A fact about the site as a whole that a site check can declare it reads (`CheckMeta::
/// site_requires`); the check reaches it only through `SiteView`, which holds it to the
/// declaration. When its gatherer failed (`SiteSnapshot::gather_errors`), the checks that declare
/// it do not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteArtifact {
    /// `robots`, and the internal links robots.txt kept the crawl from (`robots_blocked_links`).
    Robots,
    /// `sitemaps`.
    Sitemaps,
    /// The statuses of linked URLs, sitemap URLs and resources (`link_statuses`,
    /// `sitemap_url_statuses`, `resource_statuses`).
    Statuses,
    /// `https_probe`.
    HttpsProbe,
    /// The digest of every crawled page (`pages`).
    Pages,
    /// Active scans: `repository_probes`.
    RepositoryProbes,
    /// Active scans: `journeys`.
    Journeys,
}

impl SiteArtifact {
    /// Every site artifact.
    pub const ALL: [SiteArtifact; 7] = [
        SiteArtifact::Robots,
        SiteArtifact::Sitemaps,
        SiteArtifact::Statuses,
        SiteArtifact::HttpsProbe,
        SiteArtifact::Pages,
        SiteArtifact::RepositoryProbes,
        SiteArtifact::Journeys,
    ];

    /// The gatherer's name in `SiteSnapshot::gather_errors`.
    pub const fn gatherer(self) -> &'static str {
        match self {
            SiteArtifact::Robots => "robots-txt",
            SiteArtifact::Sitemaps => "sitemaps",
            SiteArtifact::Statuses => "statuses",
            SiteArtifact::HttpsProbe => "https-probe",
            SiteArtifact::Pages => "pages",
            SiteArtifact::RepositoryProbes => "repository-probes",
            SiteArtifact::Journeys => "journeys",
        }
    }
}

/// A check that did not judge a page, and why (a gatherer it needs failed, or the check itself
/// failed): reported per page so an absent finding is never mistaken for a pass.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckNotRun {
    pub check_id: String,
    pub reason: String,
}

/// A gatherer that could not produce its artifact.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatherError {
    pub gatherer: String,
    pub message: String,
}

impl PageSnapshot {
    /// True when the final URL was served over https.
    pub fn is_https(&self) -> bool {
        self.final_url.starts_with("https://")
    }

    /// The main response header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.response_headers, name)
    }

    /// The content of the first `<meta name=NAME>` (case-insensitive name).
    pub fn meta_named(&self, name: &str) -> Option<&MetaTag> {
        self.dom.metas.iter().find(|m| m.name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(name)))
    }

    /// True when a gatherer of this name failed (so checks depending on it skip).
    pub fn gather_failed(&self, gatherer: &str) -> bool {
        self.gather_errors.iter().any(|g| g.gatherer == gatherer)
    }

    /// Why `artifact` is missing on this page, when its gatherer failed.
    pub fn artifact_error(&self, artifact: Artifact) -> Option<&GatherError> {
        self.gather_errors.iter().find(|g| g.gatherer == artifact.gatherer())
    }

    /// True when the page rendered a document (a response arrived and nothing fatal happened).
    pub fn rendered(&self) -> bool {
        self.error.is_none() && self.status.is_some()
    }

    /// What `artifact`'s gatherer read of this page when the page was larger than its budget
    /// (empty: it read all it looks at).
    pub fn samples(&self, artifact: Artifact) -> Vec<super::Sample> {
        match artifact {
            Artifact::Layout => self.layout.as_ref().and_then(|l| l.sampled.clone()).into_iter().collect(),
            Artifact::Keyboard => self.keyboard.as_ref().and_then(|k| k.sampled.clone()).into_iter().collect(),
            Artifact::Barriers => self.barriers.as_ref().map(|b| b.samples()).unwrap_or_default(),
            Artifact::Dialogs => self.dialogs.as_ref().and_then(|d| d.sampled.clone()).into_iter().collect(),
            a if Artifact::FROM_EVENTS.contains(&a) => self.events_sampled.clone().into_iter().collect(),
            _ => Vec::new(),
        }
    }
}

/// The result of fetching one URL without rendering it (HEAD, falling back to GET).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlStatus {
    pub url: String,
    pub status: Option<u16>,
    pub final_url: Option<String>,
    pub redirects: Vec<RedirectHop>,
    pub content_type: Option<String>,
    /// `X-Robots-Tag` header value, if any.
    pub x_robots_tag: Option<String>,
    /// Network error, timeout or egress refusal, when no status arrived.
    pub error: Option<String>,
}

impl UrlStatus {
    pub fn is_success(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// What `/robots.txt` said.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RobotsTxt {
    pub url: String,
    pub status: Option<u16>,
    /// Network error or timeout when no status arrived.
    pub error: Option<String>,
    /// The body (capped at 500 KiB, as search engines do).
    pub body: Option<String>,
    pub sitemaps: Vec<String>,
    /// Crawl-delay for our user agent (or `*`), seconds.
    pub crawl_delay_s: Option<f64>,
    /// The body as read by `model::robots`: set from the crawler's own reading, so that the
    /// checks judge the rules the crawl obeyed without parsing the file again (`rules`).
    #[serde(skip)]
    pub parsed: ParsedOnce,
}

impl RobotsTxt {
    /// The rules, when robots.txt answered 2xx with a body (parsed here on first use when the
    /// crawl did not hand its reading over).
    pub fn rules(&self) -> Option<&crate::robots::ParsedRobots> {
        if !self.status.is_some_and(|s| (200..300).contains(&s)) {
            return None;
        }
        let body = self.body.as_deref()?;
        Some(self.parsed.0.get_or_init(|| crate::robots::parse(body)))
    }
}

/// A robots.txt reading kept beside its body: a cache, equal to any other (the body decides
/// what the file says) and never serialised.
#[derive(Debug, Clone, Default)]
pub struct ParsedOnce(pub std::sync::OnceLock<crate::robots::ParsedRobots>);

impl PartialEq for ParsedOnce {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A sitemap that was fetched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sitemap {
    pub url: String,
    /// Where it was found: `robots.txt`, `default` (/sitemap.xml), or the index URL.
    pub source: String,
    pub status: Option<u16>,
    pub error: Option<String>,
    /// `urlset`, `sitemapindex`, or the unexpected root element name.
    pub root: Option<String>,
    /// XML parse error, when the document is not well-formed.
    pub parse_error: Option<String>,
    pub url_count: usize,
    pub bytes: u64,
    /// Listed URLs (capped; `url_count` is the real number).
    pub urls: Vec<String>,
    /// Which of sitescan's budgets the sitemap exceeded (reading stopped there), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

/// A compact summary of a crawled page, kept for site-level checks.
///
/// Everything below `depth` is read from the page's DOM. Where the DOM was not read (the page did
/// not render, or its DOM gatherer failed) those fields are empty defaults that say nothing
/// about the page: `dom_failed` is then true, and a site check must not judge them (an empty
/// `hreflang` is no missing return link, a `false` `has_icon_link` no missing icon).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageDigest {
    pub url: String,
    pub final_url: String,
    pub status: Option<u16>,
    pub depth: u32,
    /// The page's DOM was not read: the fields below are not the page's.
    #[serde(default)]
    pub dom_failed: bool,
    pub title: Option<String>,
    pub meta_description: Option<String>,
    pub canonical: Option<String>,
    pub noindex: bool,
    /// (hreflang, resolved href) pairs from `<link rel=alternate hreflang>`.
    pub hreflang: Vec<(String, String)>,
    /// og:image URL, if declared.
    pub og_image: Option<String>,
    pub has_icon_link: bool,
    /// Internal links found on the page (resolved, fragment dropped) with selector and snippet.
    pub internal_links: Vec<LinkRef>,
}

/// A link from a crawled page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRef {
    pub href: String,
    pub selector: String,
    pub snippet: String,
}

/// The http:// probe of an https start URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpsProbe {
    pub http_url: String,
    pub status: Option<u16>,
    pub location: Option<String>,
    pub error: Option<String>,
}

/// What the crawl learned about the site as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SiteSnapshot {
    pub start_url: String,
    pub robots: Option<RobotsTxt>,
    pub sitemaps: Vec<Sitemap>,
    /// Status of sitemap-listed URLs (fetched or rendered), within budget.
    pub sitemap_url_statuses: Vec<UrlStatus>,
    /// Status of every internal link target the crawl knows (rendered pages and checked links).
    pub link_statuses: Vec<UrlStatus>,
    /// Status of other resources the checks need: og:image, canonical targets, /favicon.ico.
    pub resource_statuses: Vec<UrlStatus>,
    /// Internal links that robots.txt disallows for our user agent: (link, page it was found on).
    pub robots_blocked_links: Vec<(String, String)>,
    pub https_probe: Option<HttpsProbe>,
    pub pages: Vec<PageDigest>,
    /// Active scans only: the repository probes that answered 200 unlike the calibration answer
    /// for their directory and extension (empty for passive scans).
    pub repository_probes: Vec<ProbeAnswer>,
    /// Active scans only: what each journey did (empty for passive scans).
    #[serde(default)]
    pub journeys: Vec<super::journey::JourneyOutcome>,
    /// Site gatherers that failed, with why (the site checks that declare their artifact do not
    /// run: `SiteArtifact::gatherer` names them).
    #[serde(default)]
    pub gather_errors: Vec<GatherError>,
}

/// What a repository probe looked for (the `repository.*` check that judges its answer).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeKind {
    /// `/.git/HEAD`, `/.git/config`, `/.svn/entries`, `/.hg/requires`, `/.bzr/branch-format`.
    #[default]
    Vcs,
    /// `/.env` and its variants.
    EnvFile,
    /// `/id_rsa`, `/server.key`, ...
    PrivateKey,
    /// Archives, dumps, `.bak` and swap copies.
    BackupFile,
    /// `<script>.js.map` of a script the crawl saw.
    SourceMap,
    /// `/server-status`, `/server-info`, `/phpinfo.php`.
    ServerStatus,
    /// A folder the crawl saw, asked for without an index file.
    DirectoryListing,
    /// `.DS_Store`, `Thumbs.db`, `.idea/`, `.vscode/`.
    EditorLeftover,
}

/// One repository probe's answer: a 200, not redirected, unlike the calibration answer (a random
/// path in the same directory with the same extension). Whether it is the artifact is for the
/// checks to judge from the first bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProbeAnswer {
    pub kind: ProbeKind,
    pub url: String,
    pub status: u16,
    pub content_type: Option<String>,
    /// The first bytes of the body (at most 8 KB are read).
    pub body: Vec<u8>,
    /// True when the body was longer than what was read.
    pub truncated: bool,
    /// What led to the probe: the script of a source map, the page a folder was seen on.
    pub source: Option<String>,
}

impl SiteSnapshot {
    /// The known status of a URL from any fetch or render of it.
    pub fn status_of(&self, url: &str) -> Option<&UrlStatus> {
        self.link_statuses
            .iter()
            .chain(self.resource_statuses.iter())
            .chain(self.sitemap_url_statuses.iter())
            .find(|s| s.url == url)
    }

    pub fn page(&self, url: &str) -> Option<&PageDigest> {
        self.pages.iter().find(|p| p.url == url || p.final_url == url)
    }

    /// Why `artifact` is missing, when its gatherer failed.
    pub fn artifact_error(&self, artifact: SiteArtifact) -> Option<&GatherError> {
        self.gather_errors.iter().find(|g| g.gatherer == artifact.gatherer())
    }

    /// Leaves `artifact` as a gatherer that broke leaves it: its data gone (an empty default that
    /// a check would misread: no sitemaps, no statuses, no pages) and its error recorded.
    pub fn fail_gatherer(&mut self, artifact: SiteArtifact, message: &str) {
        match artifact {
            SiteArtifact::Robots => {
                self.robots = None;
                self.robots_blocked_links.clear();
            }
            SiteArtifact::Sitemaps => self.sitemaps.clear(),
            SiteArtifact::Statuses => {
                self.link_statuses.clear();
                self.sitemap_url_statuses.clear();
                self.resource_statuses.clear();
            }
            SiteArtifact::HttpsProbe => self.https_probe = None,
            SiteArtifact::Pages => self.pages.clear(),
            SiteArtifact::RepositoryProbes => self.repository_probes.clear(),
            SiteArtifact::Journeys => self.journeys.clear(),
        }
        self.gather_errors.push(GatherError { gatherer: artifact.gatherer().into(), message: message.into() });
    }
}
