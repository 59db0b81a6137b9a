//! `/account/members`: owners invite people (a single-use link shown once, 7 days), change roles
//! and remove members. Owners only.

use super::{notice, see_other, when};
use crate::accounts::{AccountError, Role, users};
use crate::web::error::DashboardError;
use crate::web::forms::FormData;
use crate::web::session::{OwnerSession, Session};
use crate::web::state::WebState;
use crate::web::templates::{Chrome, ConfirmPage, MemberLine, MembersPage, render, render_status};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

async fn page(state: &WebState, s: &Session, invite_link: Option<String>, email: String, error: Option<String>, notice: Option<String>) -> Result<MembersPage, DashboardError> {
    let members = state.accounts().members(&s.user.org_id)
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
pub async fn list(State(state): State<WebState>, OwnerSession(s): OwnerSession, RawQuery(q): RawQuery) -> Result<Response, DashboardError> {
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
pub async fn invite(State(state): State<WebState>, OwnerSession(s): OwnerSession, headers: HeaderMap, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let shown: String = form.text("email").chars().take(254).collect();
    let result = match form.text("role").parse::<Role>() {
        Ok(role) => state.accounts().invite(s.org(), form.text("email"), role, &s.user.id).await,
        Err(e) => Err(e.into()),
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

async fn other_member(state: &WebState, s: &Session, id: &str) -> Result<users::User, DashboardError> {
    let user = state.accounts().member(s.org(), id).await?.ok_or(DashboardError::NotFound)?;
    if user.id == s.user.id {
        return Err(DashboardError::BadRequest("You cannot change your own role or remove yourself; ask another owner.".into()));
    }
    Ok(user)
}

/// What a change of `user`'s standing to `after` takes away, one line each, for a confirmation.
async fn consequences(state: &WebState, user: &users::User, after: Option<Role>) -> Result<Vec<String>, DashboardError> {
    let loss = state.accounts().loss_if(user, after).await?;
    let mut lines: Vec<String> = loss
        .tokens
        .iter()
        .map(|t| format!("The API token “{}” ({}) stops working.", t.name.as_deref().unwrap_or("unnamed"), t.scopes))
        .collect();
    if after != Some(Role::Owner) && user.role == Role::Owner {
        lines.push("Invitations they sent and have not been used are cancelled.".into());
        lines.push("Active schedules they attested pause until an owner attests them again.".into());
    }
    Ok(lines)
}

/// `POST /account/members/{id}/role`: a demotion that takes something away is confirmed first,
/// on a page listing what stops working.
pub async fn role(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let user = other_member(&state, &s, &id).await?;
    let role = form.text("role").parse::<Role>().map_err(crate::accounts::AccountError::from)?;
    if form.text("confirm") != "yes" && role != user.role {
        let lines = consequences(&state, &user, Some(role)).await?;
        if !lines.is_empty() {
            let page = ConfirmPage {
                chrome: Chrome::new("Change a role", Some(&s), "members"),
                heading: format!("Make {} a {role}?", user.email),
                message: "They keep their account; this also takes effect at once:".into(),
                consequences: lines,
                fields: vec![("role".into(), role.as_str().into())],
                action: format!("/account/members/{}/role", user.id),
                button: format!("Make them a {role}"),
                back: "/account/members".into(),
            };
            return Ok(render(&page));
        }
    }
    state.accounts().set_role(s.org(), &user.id, role).await?;
    Ok(see_other("/account/members?done=role", &[]))
}

/// `GET /account/members/{id}/remove`: the confirmation.
pub async fn confirm_remove(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>) -> Result<Response, DashboardError> {
    let user = other_member(&state, &s, &id).await?;
    let page = ConfirmPage {
        chrome: Chrome::new("Remove a member", Some(&s), "members"),
        heading: format!("Remove {}?", user.email),
        message: "They are signed out at once and can no longer sign in.".into(),
        consequences: consequences(&state, &user, None).await?,
        fields: Vec::new(),
        action: format!("/account/members/{}/remove", user.id),
        button: "Remove member".into(),
        back: "/account/members".into(),
    };
    Ok(render(&page))
}

/// `POST /account/members/{id}/remove`
pub async fn remove(State(state): State<WebState>, OwnerSession(s): OwnerSession, Path(id): Path<String>, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let user = other_member(&state, &s, &id).await?;
    state.accounts().remove_member(s.org(), &user.id).await?;
    Ok(see_other("/account/members?done=removed", &[]))
}
