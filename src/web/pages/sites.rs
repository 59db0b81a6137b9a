//! `/sites` and `/sites/{id}`: an organisation's sites, their ownership proof (with the three
//! ways to publish the token), journeys and secrets, and starting an active scan with the
//! attestation. Everyone in the organisation reads; owners change things and start active scans.

use super::{notice, see_other, when};
use crate::model::{Attestation, AttestationRefused, Attester, Confirmation, TriggeredBy};
use crate::sites::{META_NAME, SiteError, StartActive, TXT_PREFIX, VERIFICATION_PATH, attestation_statement};
use crate::sites::SiteRow;
use crate::web::budget::BudgetView;
use crate::web::chart::ChartView;
use crate::web::error::DashboardError;
use crate::web::forms::FormData;
use crate::web::session::{OwnerSession, Session};
use crate::web::state::WebState;
use crate::web::templates::{Chrome, JourneyLine, MonitorLine, ScheduleLine, SiteLine, SitePage, SitesPage, render, render_status};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use uuid::Uuid;

fn line(s: &SiteRow) -> SiteLine {
    SiteLine {
        id: s.id.to_string(),
        origin: s.origin.clone(),
        verified: s.verified(),
        method: s.verified_method.clone().unwrap_or_default(),
        checked: s.last_checked_at.map_or_else(|| "never".into(), when),
        level: s.level().map(|l| l.as_str().to_string()).unwrap_or_default(),
    }
}

async fn list_page(state: &WebState, s: &Session, url: String, error: Option<String>) -> Result<SitesPage, DashboardError> {
    let sites = state.sites().list(s.org()).await.map_err(DashboardError::internal)?;
    Ok(SitesPage { chrome: Chrome::new("Sites", Some(s), "sites"), sites: sites.iter().map(line).collect(), url, error })
}

/// `GET /sites`
pub async fn list(State(state): State<WebState>, s: Session) -> Result<Response, DashboardError> {
    Ok(render(&list_page(&state, &s, String::new(), None).await?))
}

/// The attestation rule, the statement ticked beside the site's page's copy of it.
fn ticked_attestation(s: &Session, site: &SiteRow, form: &FormData, client_addr: &str) -> Result<Attestation, AttestationRefused> {
    let attester = Attester { actor: format!("user:{} <{}>", s.user.id, s.user.email), client_addr: Some(client_addr.to_string()) };
    Attestation::confirm(&site.origin, Confirmation::Ticked(form.get("attest") == Some("yes")), attester)
}

fn site_error(e: SiteError) -> Result<String, DashboardError> {
    match e {
        SiteError::Store(e) => Err(DashboardError::internal(e)),
        SiteError::NotFound => Err(DashboardError::NotFound),
        other => Ok(other.to_string()),
    }
}

/// `POST /sites`: adds a site, then shows it with its token.
pub async fn add(State(state): State<WebState>, OwnerSession(s): OwnerSession, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let url = form.text("url").trim().to_string();
    let shown: String = url.chars().take(2048).collect();
    if url.is_empty() {
        let page = list_page(&state, &s, shown, Some("Give the address of the site, e.g. https://shop.example.com.".into())).await?;
        return Ok(render_status(StatusCode::BAD_REQUEST, &page));
    }
    match state.sites().add(s.org(), &url, &format!("user:{}", s.user.id)).await {
        Ok(site) => Ok(see_other(&format!("/sites/{}?done=added", site.id), &[])),
        Err(e) => {
            let message = site_error(e)?;
            Ok(render_status(StatusCode::BAD_REQUEST, &list_page(&state, &s, shown, Some(message)).await?))
        }
    }
}

/// Messages a site page can carry.
#[derive(Default)]
struct Flash {
    error: Option<String>,
    notice: Option<String>,
    journey_text: String,
    /// A refused budget: its text and every error.
    budget: Option<(String, Vec<String>)>,
}

/// Completed scans a site's history shows.
const HISTORY_SCANS: u64 = 30;

/// The site's history as charts: findings by severity, by category, and each Core Web Vital's
/// 75th percentile against its "good" threshold.
fn history_charts(history: &[crate::scans::HistoryPoint]) -> Vec<ChartView> {
    use crate::web::chart::{XPoint, line_chart};
    if history.is_empty() {
        return Vec::new();
    }
    let xs: Vec<XPoint> = history
        .iter()
        .enumerate()
        .map(|(i, h)| XPoint {
            label: when(h.completed_at),
            href: format!("/scans/{}", h.scan_id),
            compare: i.checked_sub(1).map(|p| format!("/compare?base={}&head={}", history[p].scan_id, h.scan_id)),
        })
        .collect();
    let count = |v: f64| format!("{v:.0}");
    let ms = |v: f64| if v >= 1000.0 { format!("{:.2} s", v / 1000.0) } else { format!("{v:.0} ms") };
    let ratio = |v: f64| format!("{v:.3}");
    let severities: Vec<(String, Vec<Option<f64>>)> = [
        ("critical", history.iter().map(|h| h.counts.critical).collect::<Vec<_>>()),
        ("high", history.iter().map(|h| h.counts.high).collect()),
        ("medium", history.iter().map(|h| h.counts.medium).collect()),
        ("low", history.iter().map(|h| h.counts.low).collect()),
        ("info", history.iter().map(|h| h.counts.info).collect()),
    ]
    .into_iter()
    .map(|(name, v)| (name.to_string(), v.into_iter().map(|n| Some(n as f64)).collect()))
    .collect();
    // A category is a line once it had a finding in one of these scans.
    let names: std::collections::BTreeSet<&String> = history.iter().flat_map(|h| h.categories.keys()).collect();
    let categories: Vec<(String, Vec<Option<f64>>)> =
        names.into_iter().map(|c| (c.clone(), history.iter().map(|h| Some(h.categories.get(c).copied().unwrap_or(0) as f64)).collect())).collect();
    let vital = |f: fn(&crate::scans::HistoryPoint) -> Option<f64>, name: &str| vec![(name.to_string(), history.iter().map(f).collect())];
    vec![
        line_chart("severity", "Findings per scan, by severity", &xs, &severities, None, count),
        line_chart("category", "Findings per scan, by category", &xs, &categories, None, count),
        line_chart("lcp", "Largest Contentful Paint (75th percentile of the pages)", &xs, &vital(|h| h.lcp_p75_ms, "LCP"), Some((2500.0, "good: 2.5 s".into())), ms),
        line_chart("cls", "Cumulative Layout Shift (75th percentile of the pages)", &xs, &vital(|h| h.cls_p75, "CLS"), Some((0.1, "good: 0.1".into())), ratio),
        line_chart("tbt", "Total Blocking Time (75th percentile of the pages)", &xs, &vital(|h| h.tbt_p75_ms, "TBT"), Some((200.0, "good: 200 ms".into())), ms),
    ]
}

async fn site_page(state: &WebState, s: &Session, site: SiteRow, flash: Flash) -> Result<SitePage, DashboardError> {
    let journeys = state
        .sites()
        .list_journeys(s.org(), site.id)
        .await
        .map_err(DashboardError::internal)?
        .into_iter()
        .map(|j| {
            let steps = serde_json::from_str::<serde_json::Value>(&j.definition)
                .ok()
                .and_then(|v| v.get("steps").and_then(|s| s.as_array()).map(Vec::len))
                .unwrap_or(0);
            JourneyLine { name: j.name, steps, updated: when(j.created_at) }
        })
        .collect();
    let secrets = state.sites().list_secrets(s.org(), site.id).await.map_err(DashboardError::internal)?.into_iter().map(|n| (n.name, when(n.created_at))).collect();
    let statement = attestation_statement(&site.origin);
    let site_key = site.id.to_string();
    let schedules = state.sites().list_schedules(s.org(), Some(&site_key))
        .await
        .map_err(DashboardError::internal)?
        .into_iter()
        .map(|r| ScheduleLine {
            id: r.id.to_string(),
            cron: r.cron,
            timezone: r.timezone,
            mode: r.mode,
            next: when(r.next_due_at),
            last: r.last_due_at.map_or_else(|| "not yet".into(), when),
        })
        .collect();
    let monitors = state.sites().list_monitors(s.org(), Some(&site_key))
        .await
        .map_err(DashboardError::internal)?
        .into_iter()
        .map(|m| MonitorLine {
            id: m.id.to_string(),
            every: every_text(m.every_seconds),
            next: when(m.next_check_at),
            last_checked: m.last_checked_at.map_or_else(|| "not yet".into(), when),
            last_change: m
                .last_change
                .as_deref()
                .and_then(|c| serde_json::from_str::<serde_json::Value>(c).ok())
                .map(|v| changed_fields(&v))
                .unwrap_or_default(),
        })
        .collect();
    let (history, verdict) = state.scans().site_trend(s.org(), &site.origin, HISTORY_SCANS).await.map_err(DashboardError::internal)?;
    let budget_verdict = history.last().zip(verdict).map(|(latest, b)| (latest.scan_id.to_string(), when(latest.completed_at), BudgetView::of(&b)));
    let charts = history_charts(&history);
    let has_budget = site.budget.is_some();
    let (budget_text, budget_errors) = flash.budget.unwrap_or_else(|| (site.budget.clone().unwrap_or_default(), Vec::new()));
    Ok(SitePage {
        charts,
        schedules,
        monitors,
        chrome: Chrome::new(&site.origin, Some(s), "sites"),
        file_path: VERIFICATION_PATH,
        meta_name: META_NAME,
        txt_prefix: TXT_PREFIX,
        last_error: site.last_error.clone(),
        token: site.verification_token.clone(),
        site: line(&site),
        journeys,
        secrets,
        statement,
        error: flash.error,
        notice: flash.notice,
        journey_text: flash.journey_text,
        budget_text,
        has_budget,
        budget_errors,
        budget_verdict,
    })
}

/// `300` -> `5 min`.
fn every_text(seconds: i64) -> String {
    match seconds {
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// The fields of a recorded change (`[{"field": ...}]` or `{"changes": [...]}`), comma-separated.
fn changed_fields(v: &serde_json::Value) -> String {
    let list = v.get("changes").unwrap_or(v);
    list.as_array()
        .map(|a| a.iter().filter_map(|c| c.get("field").and_then(|f| f.as_str())).collect::<Vec<_>>().join(", "))
        .unwrap_or_default()
}

async fn owned_site(state: &WebState, s: &Session, id: &str) -> Result<SiteRow, DashboardError> {
    let id = Uuid::parse_str(id).map_err(|_| DashboardError::NotFound)?;
    match state.sites().get(s.org(), id).await {
        Ok(site) => Ok(site),
        Err(SiteError::NotFound) => Err(DashboardError::NotFound),
        Err(e) => Err(DashboardError::internal(e)),
    }
}

/// `GET /sites/{id}`
pub async fn show(State(state): State<WebState>, s: Session, Path(id): Path<String>, RawQuery(q): RawQuery) -> Result<Response, DashboardError> {
    let site = owned_site(&state, &s, &id).await?;
    let notice = notice(q.as_deref(), &[
        ("added", "The site was added. Publish its token by one of the three ways below, then check."),
        ("verified", "Ownership is proved."),
        ("journey", "The journey was stored."),
        ("journey-removed", "The journey was removed."),
        ("secret", "The secret was stored, encrypted. It is not shown again."),
        ("secret-removed", "The secret was removed."),
        ("schedule", "The schedule was added."),
        ("schedule-removed", "The schedule was removed."),
        ("monitor", "The monitor was added; its first probe records how the site is now."),
        ("monitor-removed", "The monitor was removed."),
        ("budget", "The budget was stored; it judges every scan of the site from now on."),
        ("budget-removed", "The budget was removed."),
        ("level", "The conformance target was saved; the site's next scans judge against it."),
    ]);
    Ok(render(&site_page(&state, &s, site, Flash { notice, ..Flash::default() }).await?))
}

async fn refused(state: &WebState, s: &Session, site: SiteRow, message: String, journey_text: String) -> Result<Response, DashboardError> {
    let page = site_page(state, s, site, Flash { error: Some(message), journey_text, ..Flash::default() }).await?;
    Ok(render_status(StatusCode::BAD_REQUEST, &page))
}

/// `POST /sites/{id}/verify`: proves ownership now.
pub async fn verify(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    match state.sites().verify(s.org(), site.id).await {
        Ok((_, Ok(_))) => Ok(see_other(&format!("/sites/{}?done=verified", site.id), &[])),
        Ok((site, Err(e))) => refused(&state, &s, site, format!("Ownership is not proved. {e}."), String::new()).await,
        Err(e) => {
            let message = site_error(e)?;
            refused(&state, &s, site, message, String::new()).await
        }
    }
}

/// `POST /sites/{id}/scans`: an active scan, with the attestation confirmed.
pub async fn start_active(
    State(state): State<WebState>,
    OwnerSession(s): OwnerSession,
    Path(id): Path<String>,
    super::auth::ClientAddr(client_addr, _): super::auth::ClientAddr,
    form: FormData,
) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    let attestation = match ticked_attestation(&s, &site, &form, &client_addr) {
        Ok(a) => a,
        Err(e) => return refused(&state, &s, site, e.to_string(), String::new()).await,
    };
    let start = StartActive {
        org: s.org(),
        site_id: site.id,
        attestation,
        triggered_by: TriggeredBy::Manual,
        max_pages: None,
    };
    match state.sites().start_active_scan(start).await {
        Ok(scan) => Ok(see_other(&format!("/scans/{}", scan.id), &[])),
        Err(e) => {
            let message = site_error(e)?;
            let site = owned_site(&state, &s, &id).await?;
            refused(&state, &s, site, message, String::new()).await
        }
    }
}

/// `POST /sites/{id}/journeys`: stores a journey (JSON or YAML), validated first.
pub async fn put_journey(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    let text = form.text("journey").to_string();
    match state.sites().put_journey(s.org(), site.id, &text).await {
        Ok(_) => Ok(see_other(&format!("/sites/{}?done=journey#journeys", site.id), &[])),
        Err(e) => {
            let message = format!("The journey was not stored: {}", site_error(e)?);
            refused(&state, &s, site, message, text.chars().take(64 * 1024).collect()).await
        }
    }
}

/// `POST /sites/{id}/journeys/remove`
pub async fn remove_journey(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    state.sites().remove_journey(s.org(), site.id, form.text("name")).await.map_err(DashboardError::internal)?;
    Ok(see_other(&format!("/sites/{}?done=journey-removed#journeys", site.id), &[]))
}

/// `POST /sites/{id}/budget`: sets the site's budget (JSON or YAML), validated first; an empty
/// one removes it. Refused: every error listed, the text kept in the form, nothing changed.
pub async fn set_budget(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    let text = form.text("budget").to_string();
    match state.sites().set_budget(s.org(), site.id, &text).await {
        Ok(site) => {
            let done = if site.budget.is_some() { "budget" } else { "budget-removed" };
            Ok(see_other(&format!("/sites/{}?done={done}#budget", site.id), &[]))
        }
        Err(SiteError::InvalidBudget(errors)) => {
            let kept: String = text.chars().take(crate::model::budget::MAX_BUDGET_BYTES).collect();
            let flash = Flash { error: Some("The budget was not stored: fix the errors in the Budget section.".into()), budget: Some((kept, errors)), ..Flash::default() };
            let page = site_page(&state, &s, site, flash).await?;
            Ok(render_status(StatusCode::BAD_REQUEST, &page))
        }
        Err(e) => {
            let message = format!("The budget was not stored: {}", site_error(e)?);
            refused(&state, &s, site, message, String::new()).await
        }
    }
}

/// `POST /sites/{id}/level`: sets the conformance level the site's scans judge against (empty:
/// the default). Refused: the reason shown, nothing changed.
pub async fn set_level(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    match state.sites().set_level(s.org(), site.id, form.text("level")).await {
        Ok(site) => Ok(see_other(&format!("/sites/{}?done=level#level", site.id), &[])),
        Err(e) => {
            let message = format!("The conformance target was not saved: {}", site_error(e)?);
            refused(&state, &s, site, message, String::new()).await
        }
    }
}

/// `POST /sites/{id}/secrets`: stores a secret, encrypted; the value is never shown again.
pub async fn put_secret(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    match state.sites().put_secret(s.org(), site.id, form.text("name"), form.text("value")).await {
        Ok(_) => Ok(see_other(&format!("/sites/{}?done=secret#secrets", site.id), &[])),
        Err(e) => {
            let message = format!("The secret was not stored: {}", site_error(e)?);
            refused(&state, &s, site, message, String::new()).await
        }
    }
}

/// `POST /sites/{id}/secrets/remove`
pub async fn remove_secret(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    state.sites().remove_secret(s.org(), site.id, form.text("name")).await.map_err(DashboardError::internal)?;
    Ok(see_other(&format!("/sites/{}?done=secret-removed#secrets", site.id), &[]))
}

fn recurring_error(e: crate::recurring::RecurringError) -> Result<String, DashboardError> {
    match e {
        crate::recurring::RecurringError::Invalid(m)
        | crate::recurring::RecurringError::NotFound(m)
        | crate::recurring::RecurringError::Unverified(m)
        | crate::recurring::RecurringError::TooMany(m) => Ok(m),
        other => Err(DashboardError::internal(other)),
    }
}

/// `POST /sites/{id}/schedules`: a cron expression in a zone; an active one needs the attestation.
pub async fn add_schedule(
    State(state): State<WebState>,
    OwnerSession(s): OwnerSession,
    Path(id): Path<String>,
    super::auth::ClientAddr(client_addr, _): super::auth::ClientAddr,
    form: FormData,
) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    let mode = match crate::recurring::parse_mode(form.text("mode")) {
        Ok(m) => m,
        Err(e) => return refused(&state, &s, site, recurring_error(e)?, String::new()).await,
    };
    let attestation = match mode {
        crate::model::ScanMode::Active => match ticked_attestation(&s, &site, &form, &client_addr) {
            Ok(a) => Some(a),
            Err(e) => return refused(&state, &s, site, e.to_string(), String::new()).await,
        },
        crate::model::ScanMode::Passive => None,
    };
    let request = crate::sites::ScheduleRequest { cron: form.text("cron"), timezone: form.text("timezone"), mode, attestation };
    match state.sites().add_schedule(s.org(), &site.id.to_string(), request, crate::model::time::now_us()).await {
        Ok(_) => Ok(see_other(&format!("/sites/{}?done=schedule#schedules", site.id), &[])),
        Err(e) => {
            let message = format!("The schedule was not added: {}", recurring_error(e)?);
            refused(&state, &s, site, message, String::new()).await
        }
    }
}

/// `POST /sites/{id}/schedules/remove`
pub async fn remove_schedule(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    let schedule = Uuid::parse_str(form.text("id")).map_err(|_| DashboardError::NotFound)?;
    match state.sites().remove_schedule(s.org(), schedule, Some(site.id)).await {
        Ok(()) => Ok(see_other(&format!("/sites/{}?done=schedule-removed#schedules", site.id), &[])),
        Err(crate::recurring::RecurringError::NotFound(_)) => Err(DashboardError::NotFound),
        Err(e) => Err(DashboardError::internal(e)),
    }
}

/// `POST /sites/{id}/monitors`: every N minutes, a light probe.
pub async fn add_monitor(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    let now = crate::model::time::now_us();
    match state.sites().add_monitor(s.org(), &site.id.to_string(), form.text("every"), now).await {
        Ok(_) => Ok(see_other(&format!("/sites/{}?done=monitor#monitors", site.id), &[])),
        Err(e) => {
            let message = format!("The monitor was not added: {}", recurring_error(e)?);
            refused(&state, &s, site, message, String::new()).await
        }
    }
}

/// `POST /sites/{id}/monitors/remove`
pub async fn remove_monitor(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let site = owned_site(&state, &s, &id).await?;
    let monitor = Uuid::parse_str(form.text("id")).map_err(|_| DashboardError::NotFound)?;
    match state.sites().remove_monitor(s.org(), monitor, Some(site.id)).await {
        Ok(()) => Ok(see_other(&format!("/sites/{}?done=monitor-removed#monitors", site.id), &[])),
        Err(crate::recurring::RecurringError::NotFound(_)) => Err(DashboardError::NotFound),
        Err(e) => Err(DashboardError::internal(e)),
    }
}
