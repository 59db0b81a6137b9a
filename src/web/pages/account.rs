//! `/account/password`: changing one's password ends every session of the user; this browser
//! gets a fresh one. Confirming the current password is throttled like signing in (counted
//! before the check): a stolen session cannot be used to guess the password behind it.

use super::{notice, see_other};
use crate::accounts::throttle::{PASSWORD_CHANGE_THRESHOLD, password_change_key};
use crate::accounts::password;
use crate::web::error::DashboardError;
use crate::web::forms::FormData;
use crate::web::session::Session;
use crate::web::state::WebState;
use crate::web::templates::{Chrome, PasswordPage, render, render_status};
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

fn page(s: &Session, error: Option<String>, notice: Option<String>) -> PasswordPage {
    PasswordPage { chrome: Chrome::new("Password", Some(s), "password"), error, notice }
}

/// `GET /account/password`
pub async fn form(s: Session, RawQuery(q): RawQuery) -> Response {
    let notice = notice(q.as_deref(), &[("changed", "Your password was changed; other sessions were signed out.")]);
    render(&page(&s, None, notice))
}

/// `POST /account/password`
pub async fn change(
    State(state): State<WebState>,
    s: Session,
    client: super::auth::ClientAddr,
    form: FormData,
) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let (current, new, confirm) = (form.text("current"), form.text("new"), form.text("confirm"));
    let key = password_change_key(&s.user.id);
    if let Err(wait) = state.throttle.begin(&[], &[(key.as_str(), PASSWORD_CHANGE_THRESHOLD)]).await? {
        return Err(DashboardError::TooMany(wait));
    }
    let phc = state.accounts().password_hash(&s.user.id).await?;
    let verified = password::verify(current, phc).await;
    if verified {
        state.throttle.success(&[key.as_str()], &[]).await?;
    }
    let error = if !verified {
        Some("The current password is not correct.".to_string())
    } else if new != confirm {
        Some("The two new passwords differ.".to_string())
    } else {
        password::validate(new).err().map(|e| e.to_string())
    };
    if let Some(e) = error {
        return Ok(render_status(StatusCode::BAD_REQUEST, &page(&s, Some(e), None)));
    }
    state.accounts().set_password(&s.user.id, new).await?;
    let cookie = super::auth::fresh_session(&state, &s.user.id, client.secure(&state)).await?;
    Ok(see_other("/account/password?done=changed", &[cookie]))
}
