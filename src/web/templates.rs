//! The pages' templates (askama: checked at compile time, escaped by default). Each page
//! struct carries a `Chrome`: the title, the signed-in user and the CSRF token of the layout.

use super::session::Session;
use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// What the layout needs.
#[derive(Debug, Clone, Default)]
pub struct Chrome {
    pub title: String,
    pub email: Option<String>,
    pub owner: bool,
    pub csrf: String,
    /// Which navigation entry is current.
    pub nav: &'static str,
}

impl Chrome {
    pub fn new(title: &str, session: Option<&Session>, nav: &'static str) -> Chrome {
        Chrome {
            title: title.to_string(),
            email: session.map(|s| s.user.email.clone()),
            owner: session.is_some_and(|s| s.user.is_owner()),
            csrf: session.map(|s| s.csrf.clone()).unwrap_or_default(),
            nav,
        }
    }

    /// The assets' version, for their URLs.
    pub fn v(&self) -> &'static str {
        super::assets::version()
    }

    /// `aria-current` for a navigation entry.
    pub fn current(&self, nav: &str) -> &'static str {
        if self.nav == nav { "page" } else { "false" }
    }
}

/// Renders a page as a 200 `text/html` response (500 page when the template fails).
pub fn render<T: Template>(page: &T) -> Response {
    match page.render() {
        Ok(html) => {
            let mut r = (StatusCode::OK, html).into_response();
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            r
        }
        Err(e) => {
            tracing::error!(error = %e, "template failed");
            let mut r = (StatusCode::INTERNAL_SERVER_ERROR, "<!DOCTYPE html><html lang=\"en\"><title>Error</title><p>Something went wrong.</p></html>").into_response();
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            r
        }
    }
}

/// `render` with another status.
pub fn render_status<T: Template>(status: StatusCode, page: &T) -> Response {
    let mut r = render(page);
    if r.status() == StatusCode::OK {
        *r.status_mut() = status;
    }
    r
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    pub chrome: Chrome,
    pub heading: String,
    pub message: String,
}

#[derive(Template)]
#[template(path = "login.html")]
pub struct LoginPage {
    pub chrome: Chrome,
    pub form_csrf: String,
    pub email: String,
    pub error: Option<String>,
}

/// A scan row on the dashboard.
#[derive(Debug, Clone)]
pub struct ScanLine {
    pub id: String,
    pub target: String,
    pub status: String,
    pub created: String,
    pub triggered_by: String,
    /// (severity, count) for critical..info, present when the scan completed.
    pub counts: Vec<(&'static str, u64)>,
    /// `passive` or `active`.
    pub mode: String,
    /// (new, fixed) against the previous scan, when there was one.
    pub changes: Option<(u64, u64)>,
}

#[derive(Template)]
#[template(path = "dashboard.html")]
pub struct DashboardPage {
    pub chrome: Chrome,
    pub scans: Vec<ScanLine>,
    pub target: String,
    /// The conformance level chosen in the form (`""`: the site's, else the default).
    pub level: String,
    pub error: Option<String>,
    pub notice: Option<String>,
}

/// The conformance levels a form offers: value and label (`""`: the default).
pub const LEVEL_CHOICES: &[(&str, &str)] = &[("A", "WCAG 2.2 A"), ("AA", "WCAG 2.2 AA"), ("AAA", "WCAG 2.2 AAA")];

/// `/scans/{id}`: one scan, live while it runs, its report once it ended.
#[derive(Template)]
#[template(path = "scan.html")]
pub struct ScanPage {
    pub chrome: Chrome,
    pub id: String,
    pub target: String,
    pub status: String,
    pub mode: String,
    pub triggered_by: String,
    pub created: String,
    pub completed: Option<String>,
    /// Present while the scan is queued or running.
    pub live: Option<super::pages::scan::LiveJson>,
    /// Set while live when the viewer is at a cap on live views: why the page refreshes instead
    /// of following the scan's events.
    pub paused: Option<String>,
    /// Seconds between refreshes without JavaScript, while live.
    pub refresh: u32,
    /// The report's content (already escaped HTML), once the scan ended.
    pub report: String,
    /// The scan this one was compared with at completion.
    pub baseline: Option<String>,
    /// The journeys' screenshots section (already escaped HTML), when there are any.
    pub shots: String,
    /// The verdict of the site's budget (`summary.budget`), when one was judged.
    pub budget: Option<crate::web::budget::BudgetView>,
}

#[derive(Template)]
#[template(path = "findings.html")]
pub struct FindingsPage {
    pub chrome: Chrome,
    pub findings: Vec<crate::model::StoredFinding>,
    /// Every severity, and whether the filter has it.
    pub severities: Vec<(&'static str, bool)>,
    /// Every category, and whether the filter has it.
    pub categories: Vec<(&'static str, bool)>,
    pub check_id: String,
    pub url: String,
    pub scan: String,
    pub since: String,
    pub until: String,
    pub error: Option<String>,
    pub next: Option<String>,
    /// The filter as a query string (no cursor), for the export links.
    pub query: String,
}

impl FindingsPage {
    /// When a finding was written, as the dashboard shows times.
    pub fn found(&self, f: &crate::model::StoredFinding) -> String {
        super::pages::when(f.created_at_us())
    }

    /// A finding's reference, when it is a web address (a page's script could have written
    /// anything into what axe-core reported).
    pub fn help_link<'f>(&self, f: &'f crate::model::StoredFinding) -> Option<&'f str> {
        f.finding.help_url.as_deref().filter(|u| crate::model::finding_size::is_link(u))
    }
}

/// A token row (never its secret).
#[derive(Debug, Clone)]
pub struct TokenLine {
    pub id: String,
    pub name: String,
    pub scopes: String,
    pub created: String,
    pub last_used: String,
    pub expires: String,
    pub state: String,
    pub live: bool,
}

#[derive(Template)]
#[template(path = "tokens.html")]
pub struct TokensPage {
    pub chrome: Chrome,
    pub tokens: Vec<TokenLine>,
    /// The plaintext of the token just made: shown on this one response only.
    pub created: Option<String>,
    pub name: String,
    pub error: Option<String>,
    pub notice: Option<String>,
}

/// `/compare`: two scans of one target.
#[derive(Template)]
#[template(path = "compare.html")]
pub struct ComparePage {
    pub chrome: Chrome,
    pub base: ScanRef,
    pub head: ScanRef,
    pub new_count: u64,
    pub fixed_count: u64,
    pub persisting_count: u64,
    /// "New in the head" and "Fixed since the base": (title, element id, groups).
    pub sections: Vec<(String, String, Vec<CheckGroupView>)>,
    pub persisting: Vec<CheckGroupView>,
    /// (category, base, head, head - base)
    pub categories: Vec<(String, u64, u64, i64)>,
    pub pages_added: Vec<String>,
    pub pages_gone: Vec<String>,
    pub vitals: Vec<VitalsLine>,
}

/// A scan named on the compare page.
#[derive(Debug, Clone)]
pub struct ScanRef {
    pub id: String,
    pub when: String,
    pub mode: String,
    pub target: String,
}

/// Findings of one check: (page, selector or resource) each.
#[derive(Debug, Clone)]
pub struct CheckGroupView {
    pub check_id: String,
    /// How many findings (more than `items` when some were not listed).
    pub count: u64,
    pub items: Vec<(String, String)>,
    pub omitted: u64,
}

/// A page's vitals, base then head, as shown.
#[derive(Debug, Clone)]
pub struct VitalsLine {
    pub url: String,
    pub lcp: (String, String),
    pub cls: (String, String),
    pub tbt: (String, String),
}

#[derive(Template)]
#[template(path = "confirm.html")]
pub struct ConfirmPage {
    pub chrome: Chrome,
    pub heading: String,
    pub message: String,
    /// What else stops working, one line each (shown as a list under the message).
    pub consequences: Vec<String>,
    /// Form fields the confirmation posts again (name, value).
    pub fields: Vec<(String, String)>,
    pub action: String,
    pub button: String,
    pub back: String,
}

/// A member row.
#[derive(Debug, Clone)]
pub struct MemberLine {
    pub id: String,
    pub email: String,
    pub role: String,
    pub since: String,
    pub state: String,
    pub me: bool,
}

#[derive(Template)]
#[template(path = "members.html")]
pub struct MembersPage {
    pub chrome: Chrome,
    pub members: Vec<MemberLine>,
    /// The invite link just made: shown on this one response only.
    pub invite_link: Option<String>,
    pub email: String,
    pub error: Option<String>,
    pub notice: Option<String>,
}

#[derive(Template)]
#[template(path = "invite.html")]
pub struct InvitePage {
    pub chrome: Chrome,
    pub form_csrf: String,
    pub email: String,
    pub role: String,
    pub action: String,
    pub error: Option<String>,
}

#[derive(Template)]
#[template(path = "password.html")]
pub struct PasswordPage {
    pub chrome: Chrome,
    pub error: Option<String>,
    pub notice: Option<String>,
}

/// A site row.
#[derive(Debug, Clone)]
pub struct SiteLine {
    pub id: String,
    pub origin: String,
    pub verified: bool,
    /// `file`, `meta` or `dns` when verified.
    pub method: String,
    pub checked: String,
    /// The conformance level its scans take (`""`: the default, AA).
    pub level: String,
}

#[derive(Template)]
#[template(path = "sites.html")]
pub struct SitesPage {
    pub chrome: Chrome,
    pub sites: Vec<SiteLine>,
    pub url: String,
    pub error: Option<String>,
}

/// A stored journey.
#[derive(Debug, Clone)]
pub struct JourneyLine {
    pub name: String,
    pub steps: usize,
    pub updated: String,
}

#[derive(Template)]
#[template(path = "site.html")]
pub struct SitePage {
    pub chrome: Chrome,
    /// The history (empty before the first completed scan).
    pub charts: Vec<crate::web::chart::ChartView>,
    pub site: SiteLine,
    pub token: String,
    pub last_error: Option<String>,
    pub file_path: &'static str,
    pub meta_name: &'static str,
    pub txt_prefix: &'static str,
    pub journeys: Vec<JourneyLine>,
    /// (name, set at)
    pub secrets: Vec<(String, String)>,
    pub statement: String,
    pub error: Option<String>,
    pub notice: Option<String>,
    pub journey_text: String,
    pub schedules: Vec<ScheduleLine>,
    pub monitors: Vec<MonitorLine>,
    /// The budget's text in the form: the stored one, or what was refused.
    pub budget_text: String,
    /// Whether the site has a budget stored.
    pub has_budget: bool,
    /// Why the budget form was refused, one line per error.
    pub budget_errors: Vec<String>,
    /// The latest completed scan of the site judged by its budget: (scan id, when, verdict).
    pub budget_verdict: Option<(String, String, crate::web::budget::BudgetView)>,
}

/// A schedule of a site.
#[derive(Debug, Clone)]
pub struct ScheduleLine {
    pub id: String,
    pub cron: String,
    pub timezone: String,
    pub mode: String,
    pub next: String,
    pub last: String,
}

/// A monitor of a site.
#[derive(Debug, Clone)]
pub struct MonitorLine {
    pub id: String,
    pub every: String,
    pub next: String,
    pub last_checked: String,
    /// The fields the last change was seen in, e.g. `robots_txt, noindex`.
    pub last_change: String,
}

/// One delivery attempt in an endpoint's log.
#[derive(Debug, Clone)]
pub struct DeliveryLine {
    pub at: String,
    pub attempt: i32,
    pub outcome: String,
    pub ok: bool,
    pub latency_ms: i64,
}

/// A webhook endpoint (never its secret).
#[derive(Debug, Clone)]
pub struct WebhookLine {
    pub id: String,
    pub url: String,
    /// The kind's name (`Slack`, ...).
    pub kind: String,
    pub events: String,
    pub min_severity: String,
    pub enabled: bool,
    pub disabled_reason: String,
    pub created: String,
    pub deliveries: Vec<DeliveryLine>,
}

#[derive(Template)]
#[template(path = "webhooks.html")]
pub struct WebhooksPage {
    pub chrome: Chrome,
    pub endpoints: Vec<WebhookLine>,
    pub secret: Option<String>,
    pub url: String,
    pub error: Option<String>,
    pub notice: Option<String>,
    pub event_types: Vec<&'static str>,
    /// The kinds the form offers: (value, label).
    pub kinds: Vec<(&'static str, &'static str)>,
    /// The kind the form shows selected.
    pub kind: String,
    /// False when the server has no secret key (webhooks are off).
    pub can_sign: bool,
}
