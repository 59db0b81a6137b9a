//! `/login`, `/logout` and `/invite/{token}`: signing in (throttled, the same answer and timing
//! for an unknown email and a wrong password), signing out, and accepting an invite.

use super::see_other;
use crate::accounts::throttle::{ACCOUNT_THRESHOLD, ADDRESS_THRESHOLD, account_key, address_key, pair_key};
use crate::client_addr::Client;
use crate::accounts::{MAX_EMAIL_LEN, MAX_PASSWORD_LEN, invites, password, secret};
use crate::web::error::DashboardError;
use crate::web::forms::FormData;
use crate::web::session::{self, CSRF_COOKIE, SESSION_COOKIE, Session, cookie, set_cookie};
use crate::web::state::WebState;
use crate::web::templates::{Chrome, InvitePage, LoginPage, render, render_status};
use axum::extract::connect_info::ConnectInfo;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use std::net::SocketAddr;

/// The client of the request: the connection's peer, or the client a trusted proxy names
/// (`--trusted-proxy`, resolved once per request by `crate::client_addr`).
#[derive(Debug, Clone)]
pub struct ClientAddr(pub String, pub Option<Client>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        if let Some(c) = parts.extensions.get::<Client>() {
            return Ok(ClientAddr(c.ip.to_string(), Some(*c)));
        }
        let ip = parts.extensions.get::<ConnectInfo<SocketAddr>>().map_or_else(|| "unknown".to_string(), |c| c.0.ip().to_string());
        Ok(ClientAddr(ip, None))
    }
}

impl ClientAddr {
    /// True when this request's cookies must be `Secure`.
    pub fn secure(&self, state: &WebState) -> bool {
        state.settings.secure_cookies_for(self.1.as_ref())
    }
}

/// The pre-login CSRF token: the cookie's when it has one, else a new one (and its cookie).
fn form_token(headers: &HeaderMap, secure: bool) -> (String, Option<String>) {
    match cookie(headers, CSRF_COOKIE).filter(|c| secret::looks_like_secret(c)) {
        Some(c) => (c.to_string(), None),
        None => {
            let t = secret::random_secret();
            let c = set_cookie(CSRF_COOKIE, &t, 24 * 3600, secure, "Strict");
            (t, Some(c))
        }
    }
}

fn with_cookie(mut r: Response, c: Option<String>) -> Response {
    if let Some(v) = c.and_then(|c| HeaderValue::from_str(&c).ok()) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}

fn session_cookie(id: &str, secure: bool) -> String {
    set_cookie(SESSION_COOKIE, id, session::ABSOLUTE_TIMEOUT_US / 1_000_000, secure, "Lax")
}

/// `GET /login`
pub async fn login_form(State(state): State<WebState>, client: ClientAddr, headers: HeaderMap) -> Result<Response, DashboardError> {
    if let Some(id) = cookie(&headers, SESSION_COOKIE)
        && session::load(&state, id).await?.is_some()
    {
        return Ok(see_other("/", &[]));
    }
    let (token, set) = form_token(&headers, client.secure(&state));
    let page = LoginPage { chrome: Chrome::new("Sign in", None, ""), form_csrf: token, email: String::new(), error: None };
    Ok(with_cookie(render(&page), set))
}

/// The one answer to a failed sign-in, whatever failed.
const LOGIN_FAILED: &str = "The email address or the password is not correct.";

/// `POST /login`
pub async fn login(
    State(state): State<WebState>,
    client: ClientAddr,
    headers: HeaderMap,
    form: FormData,
) -> Result<Response, DashboardError> {
    let addr = client.0.as_str();
    let expected = cookie(&headers, CSRF_COOKIE).unwrap_or_default().to_string();
    form.check_csrf(&expected)?;
    let email = form.text("email").trim();
    let password = form.text("password");
    let failed = |email: &str, status: StatusCode| {
        let shown = if email.chars().count() <= MAX_EMAIL_LEN { email.to_string() } else { String::new() };
        let page = LoginPage { chrome: Chrome::new("Sign in", None, ""), form_csrf: expected.clone(), email: shown, error: Some(LOGIN_FAILED.into()) };
        render_status(status, &page)
    };
    if email.is_empty() || email.len() > MAX_EMAIL_LEN || password.is_empty() || password.len() > MAX_PASSWORD_LEN {
        return Ok(failed(email, StatusCode::BAD_REQUEST));
    }
    // Counted before the password is checked: parallel guesses get no more than the threshold.
    let (account, pair, address) = (account_key(email), pair_key(email, addr), address_key(addr));
    let counted = [(pair.as_str(), ACCOUNT_THRESHOLD), (address.as_str(), ADDRESS_THRESHOLD)];
    if let Err(wait) = state.throttle.begin(&[account.as_str()], &counted).await? {
        return Err(DashboardError::TooMany(wait));
    }
    let found = state.accounts().user_by_email(email).await?;
    let (user, phc) = match found {
        Some((u, h)) if u.disabled_at.is_none() => (Some(u), Some(h)),
        _ => (None, None),
    };
    // Unknown and disabled accounts check a dummy hash: the same work, the same answer.
    let ok = password::verify(password, phc).await;
    let Some(user) = user.filter(|_| ok) else {
        state.throttle.spread_failure(email).await?;
        tracing::info!("sign-in failed");
        return Ok(failed(email, StatusCode::UNAUTHORIZED));
    };
    state.throttle.success(&[pair.as_str()], &[(address.as_str(), ADDRESS_THRESHOLD)]).await?;
    // A new id at every sign-in: a session id planted before it is worth nothing after.
    if let Some(old) = cookie(&headers, SESSION_COOKIE) {
        session::end(&state, old).await?;
    }
    let id = session::start(&state, &user.id).await?;
    tracing::info!(user_id = %user.id, "signed in");
    Ok(see_other("/", &[session_cookie(&id, client.secure(&state))]))
}

/// `POST /logout`
pub async fn logout(
    State(state): State<WebState>,
    s: Session,
    client: ClientAddr,
    headers: HeaderMap,
    form: FormData,
) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    if let Some(id) = cookie(&headers, SESSION_COOKIE) {
        session::end(&state, id).await?;
    }
    Ok(see_other("/login", &[set_cookie(SESSION_COOKIE, "", 0, client.secure(&state), "Lax")]))
}

fn invite_page(token: &str, form_csrf: String, invite: &invites::Invite, error: Option<String>) -> InvitePage {
    InvitePage {
        chrome: Chrome::new("Accept your invitation", None, ""),
        form_csrf,
        email: invite.email.clone(),
        role: invite.role.to_string(),
        action: format!("/invite/{token}"),
        error,
    }
}

/// `GET /invite/{token}`
pub async fn invite_form(
    State(state): State<WebState>,
    Path(token): Path<String>,
    client: ClientAddr,
    headers: HeaderMap,
) -> Result<Response, DashboardError> {
    let invite = state.accounts().invite_by_token(&token).await?.ok_or(DashboardError::NotFound)?;
    let (csrf, set) = form_token(&headers, client.secure(&state));
    Ok(with_cookie(render(&invite_page(&token, csrf, &invite, None)), set))
}

/// `POST /invite/{token}`
pub async fn accept_invite(
    State(state): State<WebState>,
    Path(token): Path<String>,
    client: ClientAddr,
    headers: HeaderMap,
    form: FormData,
) -> Result<Response, DashboardError> {
    let expected = cookie(&headers, CSRF_COOKIE).unwrap_or_default().to_string();
    form.check_csrf(&expected)?;
    let invite = state.accounts().invite_by_token(&token).await?.ok_or(DashboardError::NotFound)?;
    let (pw, confirm) = (form.text("password"), form.text("confirm"));
    let error = if pw != confirm {
        Some("The two passwords differ.".to_string())
    } else {
        password::validate(pw).err().map(|e| e.to_string())
    };
    if let Some(error) = error {
        return Ok(render_status(StatusCode::BAD_REQUEST, &invite_page(&token, expected, &invite, Some(error))));
    }
    let user = match state.accounts().accept_invite(&token, pw).await {
        Ok(u) => u,
        Err(crate::accounts::AccountError::Invalid(m)) => {
            return Ok(render_status(StatusCode::BAD_REQUEST, &invite_page(&token, expected, &invite, Some(m))));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(old) = cookie(&headers, SESSION_COOKIE) {
        session::end(&state, old).await?;
    }
    let id = session::start(&state, &user.id).await?;
    Ok(see_other("/", &[session_cookie(&id, client.secure(&state))]))
}

/// Sets a new session cookie for `user_id` (after a password change).
pub async fn fresh_session(state: &WebState, user_id: &str, secure: bool) -> Result<String, DashboardError> {
    let id = session::start(state, user_id).await?;
    Ok(session_cookie(&id, secure))
}
