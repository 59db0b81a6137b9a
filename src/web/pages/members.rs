//! `/account/members`: owners invite people (a single-use link shown once, 7 days), change roles
//! and remove members. Owners only.

use super::{notice, see_other, when};
use crate::accounts::{AccountError, Role, invites, users};
use crate::web::error::PageError;
use crate::web::forms::FormData;
use crate::web::session::{OwnerSession, Session};
use crate::web::state::WebState;
use crate::web::templates::{Chrome, ConfirmPage, MemberLine, MembersPage, render, render_status};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

async fn page(state: &WebState, s: &Session, invite_link: Option<String>, email: String, error: Option<String>, notice: Option<String>) -> Result<MembersPage, PageError> {
    let members = users::list(state.store(), &s.user.org_id)
        .await?
        .into_iter()
        .map(|u| MemberLine {
            me: u.id == s.user.id,
            id: u.id,
            email: u.email,
            role: u.role.to_string(),
            since: when(u.created_at),
            state: if u.disabled_at.is_some() { "disabled".into() } else { String::new() },
        })
        .collect();
    Ok(MembersPage { chrome: Chrome::new("Members", Some(s), "members"), members, invite_link, email, error, notice })
}

/// `GET /account/members`
pub async fn list(State(state): State<WebState>, OwnerSession(s): OwnerSession, RawQuery(q): RawQuery) -> Result<Response, PageError> {
    let notice = notice(q.as_deref(), &[("role", "The role was changed."), ("removed", "The member was removed and signed out.")]);
    Ok(render(&page(&state, &s, None, String::new(), None, notice).await?))
}

/// Where links to this service start: `--public-url`, else this request's host.
fn base_url(state: &WebState, headers: &HeaderMap) -> String {
    if let Some(u) = &state.settings.public_url {
        return u.as_str().trim_end_matches('/').to_string();
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("localhost");
    format!("http://{host}")
}

/// `POST /account/members/invite`: the answer carries the link, once.
pub async fn invite(State(state): State<WebState>, OwnerSession(s): OwnerSession, headers: HeaderMap, form: FormData) -> Result<Response, PageError> {
    form.check_session(&s)?;
    let shown: String = form.text("email").chars().take(254).collect();
    let result = match form.text("role").parse::<Role>() {
        Ok(role) => invites::create(state.store(), &s.user.org_id, form.text("email"), role, &s.user.id).await,
        Err(e) => Err(e),
    };
    match result {
        Ok((token, _)) => {
            let link = format!("{}/invite/{token}", base_url(&state, &headers));
            Ok(render_status(StatusCode::CREATED, &page(&state, &s, Some(link), String::new(), None, None).await?))
        }
        Err(AccountError::Invalid(m)) => Ok(render_status(StatusCode::BAD_REQUEST, &page(&state, &s, None, shown, Some(m), None).await?)),
        Err(e) => Err(e.into()),
    }
}

async fn other_member(state: &WebState, s: &Session, id: &str) -> Result<users::User, PageError> {
    let user = users::by_id(state.store(), id).await?.filter(|u| u.org_id == s.user.org_id).ok_or(PageError::NotFound)?;
    if user.id == s.user.id {
        return Err(PageError::BadRequest("You cannot change your own role or remove yourself; ask another owner.".into()));
    }
    Ok(user)
}

/// `POST /account/members/{id}/role`
pub async fn role(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, PageError> {
    form.check_session(&s)?;
    let user = other_member(&state, &s, &id).await?;
    let role = form.text("role").parse::<Role>()?;
    users::set_role(state.store(), &s.user.org_id, &user.id, role).await?;
    Ok(see_other("/account/members?done=role", &[]))
}

/// `GET /account/members/{id}/remove`: the confirmation.
pub async fn confirm_remove(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>) -> Result<Response, PageError> {
    let user = other_member(&state, &s, &id).await?;
    let page = ConfirmPage {
        chrome: Chrome::new("Remove a member", Some(&s), "members"),
        heading: format!("Remove {}?", user.email),
        message: "They are signed out at once and can no longer sign in. API tokens they made stay with the organisation.".into(),
        action: format!("/account/members/{}/remove", user.id),
        button: "Remove member".into(),
        back: "/account/members".into(),
    };
    Ok(render(&page))
}

/// `POST /account/members/{id}/remove`
pub async fn remove(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, PageError> {
    form.check_session(&s)?;
    let user = other_member(&state, &s, &id).await?;
    users::remove(state.store(), &s.user.org_id, &user.id).await?;
    Ok(see_other("/account/members?done=removed", &[]))
}
