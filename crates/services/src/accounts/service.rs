//! The accounts service: the one door the dashboard, the API and the CLI use for users, invites,
//! sessions, organisations and API tokens. Every rule (who may see whom, what a name may be)
//! is here or in the store's query, never in an edge.

use super::error::{AccountError, AccountResult};
use super::invites::{self, Invite};
use super::sessions::{self, SignedIn};
use super::throttle::Throttle;
use super::tokens::{IssueToken, issue_token};
use super::users::{self, Role, StandingLoss, User};
use crate::model::{ApiToken, OrgId};
use crate::model::Organisation;
use crate::store::{Store, hash_token, looks_like_token};

/// Users, invites, sessions, organisations and tokens over the store.
#[derive(Debug, Clone)]
pub struct Accounts {
    store: Store,
    throttle: Throttle,
}

/// Why an organisation name is refused (1-100 of letters, digits, `-`, `_`, `.`).
pub fn validate_org(org: &str) -> AccountResult<()> {
    let ok = !org.is_empty() && org.len() <= 100 && org.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok { Ok(()) } else { Err(AccountError::Invalid("organisation names are 1-100 characters of letters, digits, '-', '_' and '.'".into())) }
}

impl Accounts {
    pub fn new(store: Store) -> Self {
        let throttle = Throttle::new(store.clone());
        Accounts { store, throttle }
    }

    /// The sign-in throttle (shared by every instance through the store).
    pub fn throttle(&self) -> &Throttle {
        &self.throttle
    }

    /// Starts a session; returns its plaintext id (the cookie's value).
    pub async fn start_session(&self, user_id: &str) -> AccountResult<String> {
        sessions::start(&self.store, user_id).await
    }

    pub async fn end_session(&self, id: &str) -> AccountResult<()> {
        sessions::end(&self.store, id).await
    }

    /// The live session behind a cookie's value (refreshed), if any.
    pub async fn session(&self, id: &str) -> AccountResult<Option<SignedIn>> {
        sessions::load(&self.store, id).await
    }

    /// Creates a user (and the organisation if new).
    pub async fn create_user(&self, org: &str, email: &str, role: Role, password: &str) -> AccountResult<User> {
        validate_org(org)?;
        users::create_user(&self.store, org, email, role, password).await
    }

    /// The user with this email and their password hash (disabled users included).
    pub async fn user_by_email(&self, email: &str) -> AccountResult<Option<(User, String)>> {
        users::by_email(&self.store, email).await
    }

    /// A user of `org` by id (another organisation's user is none).
    pub async fn member(&self, org: OrgId<'_>, id: &str) -> AccountResult<Option<User>> {
        Ok(users::by_id(&self.store, id).await?.filter(|u| u.org_id == org.as_str()))
    }

    /// An organisation's users, oldest first.
    pub async fn members(&self, org: &str) -> AccountResult<Vec<User>> {
        users::list(&self.store, org).await
    }

    pub async fn password_hash(&self, user_id: &str) -> AccountResult<Option<String>> {
        users::password_hash(&self.store, user_id).await
    }

    pub async fn set_password(&self, user_id: &str, new_password: &str) -> AccountResult<()> {
        users::set_password(&self.store, user_id, new_password).await
    }

    /// What `user` would lose if their role became `after` (`None`: removed).
    pub async fn loss_if(&self, user: &User, after: Option<Role>) -> AccountResult<StandingLoss> {
        users::loss_if(&self.store, user, after).await
    }

    pub async fn set_role(&self, org: OrgId<'_>, id: &str, role: Role) -> AccountResult<User> {
        users::set_role(&self.store, org.as_str(), id, role).await
    }

    pub async fn remove_member(&self, org: OrgId<'_>, id: &str) -> AccountResult<User> {
        users::remove(&self.store, org.as_str(), id).await
    }

    /// Disables a user by email (the CLI): their sessions end, what they handed out stops.
    pub async fn disable(&self, email: &str) -> AccountResult<User> {
        users::disable(&self.store, email).await
    }

    /// Invites `email` to `org` with `role`; returns the link's token (shown once) and the invite.
    pub async fn invite(&self, org: OrgId<'_>, email: &str, role: Role, by: &str) -> AccountResult<(String, Invite)> {
        invites::create(&self.store, org.as_str(), email, role, by).await
    }

    /// The live invite behind a link's token.
    pub async fn invite_by_token(&self, token: &str) -> AccountResult<Option<Invite>> {
        invites::peek(&self.store, token).await
    }

    pub async fn accept_invite(&self, token: &str, password: &str) -> AccountResult<User> {
        invites::accept(&self.store, token, password).await
    }

    /// Sets an organisation's monthly scan quota (creating it if new).
    pub async fn set_org(&self, org: &str, monthly_scan_quota: Option<i64>) -> AccountResult<Organisation> {
        validate_org(org)?;
        if monthly_scan_quota.is_some_and(|q| q < 0) {
            return Err(AccountError::Invalid("the monthly scan quota must be 0 or more".into()));
        }
        Ok(self.store.set_org(org, monthly_scan_quota).await?)
    }

    /// Issues a token; returns the plaintext (shown once) and the stored token.
    pub async fn issue_token(&self, req: IssueToken<'_>) -> AccountResult<(String, ApiToken)> {
        validate_org(req.org)?;
        issue_token(&self.store, req).await
    }

    /// An organisation's tokens, oldest first (never a plaintext).
    pub async fn tokens(&self, org: &str) -> AccountResult<Vec<ApiToken>> {
        Ok(self.store.list_tokens(org).await?)
    }

    /// Revokes a token of `org` (another organisation's token is none).
    pub async fn revoke_token(&self, org: OrgId<'_>, id: uuid::Uuid) -> AccountResult<Option<ApiToken>> {
        Ok(self.store.revoke_org_token(org.as_str(), id).await?)
    }

    /// Revokes a token by id or plaintext, whatever its organisation (the operator's CLI).
    pub async fn revoke_any_token(&self, id_or_token: &str) -> AccountResult<ApiToken> {
        Ok(self.store.revoke_token(id_or_token.trim()).await?)
    }

    /// The live token behind a plaintext (a hash lookup on every call, so a revocation holds
    /// at once everywhere). Its use is recorded in the background.
    pub async fn authenticate(&self, plaintext: &str) -> AccountResult<Option<ApiToken>> {
        if !looks_like_token(plaintext) {
            return Ok(None);
        }
        let Some(token) = self.store.token_by_hash(&hash_token(plaintext)).await? else { return Ok(None) };
        let store = self.store.clone();
        let touched = token.clone();
        tokio::spawn(async move {
            if let Err(err) = store.touch_token(&touched).await {
                tracing::warn!(error = %err, "could not record token use");
            }
        });
        Ok(Some(token))
    }
}
