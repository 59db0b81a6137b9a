//! `/account/api-tokens`: list (never a secret), create (the plaintext shown once), revoke after
//! a confirmation. Owners only.

use super::{notice, see_other, when};
use crate::accounts::tokens::MAX_TOKEN_NAME_LEN;
use crate::accounts::tokens::ALL_SCOPES;
use crate::accounts::{AccountError, IssueToken};
use crate::model::time::now_us;
use crate::web::error::DashboardError;
use crate::web::forms::{FormData, bounded};
use crate::web::session::{OwnerSession, Session};
use crate::web::state::WebState;
use crate::web::templates::{Chrome, ConfirmPage, TokenLine, TokensPage, render, render_status};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use uuid::Uuid;

/// Longest expiry offered (days).
pub const MAX_EXPIRY_DAYS: i64 = 3650;

async fn page(state: &WebState, s: &Session, created: Option<String>, name: String, error: Option<String>, notice: Option<String>) -> Result<TokensPage, DashboardError> {
    let mut rows = state.accounts().tokens(&s.user.org_id).await?;
    rows.reverse();
    let now = now_us();
    let tokens = rows
        .into_iter()
        .map(|t| {
            let expired = t.expires_at.is_some_and(|e| e <= now);
            let state = if t.revoked_at.is_some() {
                "revoked"
            } else if expired {
                "expired"
            } else {
                "active"
            };
            TokenLine {
                id: t.id.to_string(),
                name: t.name.clone().unwrap_or_else(|| "(unnamed)".into()),
                scopes: t.scopes.replace(' ', ", "),
                created: when(t.created_at),
                last_used: t.last_used_at.map_or_else(|| "never".into(), when),
                expires: t.expires_at.map_or_else(|| "never".into(), when),
                state: state.to_string(),
                live: state == "active",
            }
        })
        .collect();
    Ok(TokensPage { chrome: Chrome::new("API tokens", Some(s), "tokens"), tokens, created, name, error, notice })
}

/// `GET /account/api-tokens`
pub async fn list(State(state): State<WebState>, OwnerSession(s): OwnerSession, RawQuery(q): RawQuery) -> Result<Response, DashboardError> {
    let notice = notice(q.as_deref(), &[("revoked", "The token was revoked. The next API call with it is refused.")]);
    Ok(render(&page(&state, &s, None, String::new(), None, notice).await?))
}

fn read_form(form: &FormData) -> Result<(String, Vec<String>, Option<i64>), String> {
    let name = bounded(form.text("name"), MAX_TOKEN_NAME_LEN, "The name")?;
    if name.is_empty() {
        return Err("Give the token a name, so you can recognise it later.".into());
    }
    let scopes: Vec<String> = form.all("scopes").into_iter().map(str::to_string).collect();
    if scopes.is_empty() {
        return Err("Choose at least one scope.".into());
    }
    if scopes.iter().any(|s| !ALL_SCOPES.contains(&s.as_str())) {
        return Err("Choose scopes from the list.".into());
    }
    let expires = match form.text("expires_in_days").trim() {
        "" => None,
        d => match d.parse::<i64>() {
            Ok(days) if (1..=MAX_EXPIRY_DAYS).contains(&days) => Some(now_us() + days * 86_400_000_000),
            _ => return Err(format!("The expiry must be a number of days from 1 to {MAX_EXPIRY_DAYS}.")),
        },
    };
    Ok((name.to_string(), scopes, expires))
}

/// `POST /account/api-tokens`: the answer carries the plaintext, once.
pub async fn create(State(state): State<WebState>, OwnerSession(s): OwnerSession, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let shown: String = form.text("name").chars().take(MAX_TOKEN_NAME_LEN).collect();
    let (name, scopes, expires_at) = match read_form(&form) {
        Ok(v) => v,
        Err(e) => return Ok(render_status(StatusCode::BAD_REQUEST, &page(&state, &s, None, shown, Some(e), None).await?)),
    };
    let req = IssueToken { org: &s.user.org_id, name: Some(&name), scopes, created_by: Some(&s.user.id), expires_at };
    match state.accounts().issue_token(req).await {
        Ok((plaintext, token)) => {
            tracing::info!(token_id = %token.id, user_id = %s.user.id, "token created from the dashboard");
            Ok(render_status(StatusCode::CREATED, &page(&state, &s, Some(plaintext), String::new(), None, None).await?))
        }
        Err(AccountError::Invalid(m)) => Ok(render_status(StatusCode::BAD_REQUEST, &page(&state, &s, None, shown, Some(m), None).await?)),
        Err(e) => Err(e.into()),
    }
}

async fn live_token(state: &WebState, s: &Session, id: &str) -> Result<(Uuid, String), DashboardError> {
    let id = Uuid::parse_str(id).map_err(|_| DashboardError::NotFound)?;
    let tokens = state.accounts().tokens(&s.user.org_id).await?;
    let t = tokens.into_iter().find(|t| t.id == id && t.revoked_at.is_none()).ok_or(DashboardError::NotFound)?;
    Ok((id, t.name.unwrap_or_else(|| "(unnamed)".into())))
}

/// `GET /account/api-tokens/{id}/revoke`: the confirmation.
pub async fn confirm(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>) -> Result<Response, DashboardError> {
    let (id, name) = live_token(&state, &s, &id).await?;
    let page = ConfirmPage {
        chrome: Chrome::new("Revoke a token", Some(&s), "tokens"),
        heading: format!("Revoke the token “{name}”?"),
        message: "Programs using it will get 401 invalid_token on their next API call. This cannot be undone.".into(),
        consequences: Vec::new(),
        fields: Vec::new(),
        action: format!("/account/api-tokens/{id}/revoke"),
        button: "Revoke token".into(),
        back: "/account/api-tokens".into(),
    };
    Ok(render(&page))
}

/// `POST /account/api-tokens/{id}/revoke`
pub async fn revoke(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let (id, _) = live_token(&state, &s, &id).await?;
    state.accounts().revoke_token(s.org(), id).await?.ok_or(DashboardError::NotFound)?;
    tracing::info!(token_id = %id, user_id = %s.user.id, "token revoked from the dashboard");
    Ok(see_other("/account/api-tokens?done=revoked", &[]))
}
