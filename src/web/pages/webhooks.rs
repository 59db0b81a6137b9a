//! `/settings/webhooks`: the organisation's endpoints and their kinds (standard, signed, with
//! the signing secret shown once; or a chat platform's), the delivery log of each, a "send test
//! event" button, and removal. Owners only.

use super::{notice, see_other, when};
use crate::events::{NewEndpoint, WebhookKind};
use crate::events::Endpoint;
use crate::events::webhooks::{EVENT_TYPES, WebhookError};
use crate::model::Severity;
use crate::model::time::now_us;
use crate::web::error::DashboardError;
use crate::web::forms::FormData;
use crate::web::session::{OwnerSession, Session};
use crate::web::state::WebState;
use crate::web::templates::{Chrome, DeliveryLine, WebhookLine, WebhooksPage, render, render_status};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use uuid::Uuid;

/// Delivery log lines shown per endpoint (newest first).
const LOG_LINES: usize = 10;

/// What the add form shows again: its URL and kind.
#[derive(Default)]
struct Typed {
    url: String,
    kind: String,
}

async fn page(state: &WebState, s: &Session, secret: Option<String>, typed: Typed, error: Option<String>, notice: Option<String>) -> Result<WebhooksPage, DashboardError> {
    let mut endpoints = Vec::new();
    for Endpoint { row: w, deliveries: log } in state.webhooks().list(s.org(), LOG_LINES).await.map_err(DashboardError::internal)? {
        let deliveries = log
            .into_iter()
            .map(|d| DeliveryLine {
                at: when(d.created_at),
                attempt: d.attempt,
                outcome: match (d.status, &d.error) {
                    (Some(code), _) => format!("HTTP {code}"),
                    (None, Some(e)) => e.clone(),
                    (None, None) => "no answer".into(),
                },
                ok: d.status.is_some_and(|c| (200..300).contains(&c)),
                latency_ms: d.latency_ms,
            })
            .collect();
        let kind = WebhookKind::from_stored(&w.kind);
        endpoints.push(WebhookLine {
            id: w.id.to_string(),
            url: kind.shown_url(&w.url),
            kind: kind.label().to_string(),
            events: w.events.replace(',', ", "),
            min_severity: w.min_severity.clone().unwrap_or_else(|| "high".into()),
            enabled: w.enabled,
            disabled_reason: w.disabled_reason.clone().unwrap_or_default(),
            created: when(w.created_at),
            deliveries,
        });
    }
    Ok(WebhooksPage {
        chrome: Chrome::new("Webhooks", Some(s), "webhooks"),
        endpoints,
        secret,
        url: typed.url,
        error,
        notice,
        event_types: EVENT_TYPES.to_vec(),
        kinds: WebhookKind::ALL.iter().map(|k| (k.as_str(), k.label())).collect(),
        kind: if typed.kind.is_empty() { WebhookKind::Standard.as_str().to_string() } else { typed.kind },
        can_sign: state.webhooks().enabled(),
    })
}

/// `GET /settings/webhooks`
pub async fn list(State(state): State<WebState>, OwnerSession(s): OwnerSession, RawQuery(q): RawQuery) -> Result<Response, DashboardError> {
    let notice = notice(q.as_deref(), &[
        ("test", "A test event is queued; its delivery shows in the log below within seconds."),
        ("removed", "The endpoint was removed with its pending deliveries."),
    ]);
    Ok(render(&page(&state, &s, None, Typed::default(), None, notice).await?))
}

/// `POST /settings/webhooks`: the answer carries the signing secret, once (standard kind).
pub async fn add(State(state): State<WebState>, OwnerSession(s): OwnerSession, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let url = form.text("url").trim().to_string();
    let shown: String = url.chars().take(2048).collect();
    let typed_kind: String = form.text("kind").chars().take(32).collect();
    let refuse = |message: String| async {
        let typed = Typed { url: shown.clone(), kind: typed_kind.clone() };
        Ok::<_, DashboardError>(render_status(StatusCode::BAD_REQUEST, &page(&state, &s, None, typed, Some(message), None).await?))
    };
    if !state.webhooks().enabled() {
        return refuse(format!("Webhooks are off: the server has no secret key ({}).", crate::events::SECRET_KEY_ENV)).await;
    }
    let kind = match form.text("kind") {
        "" => WebhookKind::Standard,
        k => match k.parse::<WebhookKind>() {
            Ok(kind) => kind,
            Err(_) => return refuse("Choose a kind from the list.".into()).await,
        },
    };
    let events: Vec<String> = form.all("events").into_iter().map(str::to_string).collect();
    let min_severity = match form.text("min_severity") {
        "" => None,
        s => match s.parse::<Severity>() {
            Ok(sev) => Some(sev),
            Err(_) => return refuse("Choose a severity from the list.".into()).await,
        },
    };
    match state.webhooks().add(s.org(), &NewEndpoint { url: &url, kind, events: &events, min_severity }, now_us()).await {
        Ok((id, secret)) => {
            tracing::info!(webhook_id = %id, user_id = %s.user.id, kind = %kind, "webhook added from the dashboard");
            let notice = secret.is_none().then(|| {
                format!("The {} endpoint was added. Its messages are not signed: the URL is the platform's secret, so it is shown shortened below.", kind.label())
            });
            Ok(render_status(StatusCode::CREATED, &page(&state, &s, secret, Typed::default(), None, notice).await?))
        }
        Err(e @ (WebhookError::Invalid(_) | WebhookError::TooMany(_))) => refuse(format!("The endpoint was not added: {e}.")).await,
        Err(e) => Err(DashboardError::internal(e)),
    }
}

fn endpoint_id(id: &str) -> Result<Uuid, DashboardError> {
    Uuid::parse_str(id).map_err(|_| DashboardError::NotFound)
}

/// `POST /settings/webhooks/{id}/test`
pub async fn test(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let id = endpoint_id(&id)?;
    match state.webhooks().send_test(s.org(), id, now_us()).await {
        Ok(_) => Ok(see_other("/settings/webhooks?done=test", &[])),
        Err(e @ WebhookError::RateLimited { .. }) => {
            let message = format!("No test event was sent: {e}.");
            Ok(render_status(StatusCode::TOO_MANY_REQUESTS, &page(&state, &s, None, Typed::default(), Some(message), None).await?))
        }
        Err(WebhookError::NotFound) => Err(DashboardError::NotFound),
        Err(e) => Err(DashboardError::internal(e)),
    }
}

/// `POST /settings/webhooks/{id}/remove`
pub async fn remove(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let id = endpoint_id(&id)?;
    if !state.webhooks().remove(Some(s.org()), id).await.map_err(DashboardError::internal)? {
        return Err(DashboardError::NotFound);
    }
    Ok(see_other("/settings/webhooks?done=removed", &[]))
}
