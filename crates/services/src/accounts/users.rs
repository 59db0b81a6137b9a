//! Users: an email and an argon2id password, with a role in one organisation.

use super::error::{AccountError, AccountResult};
use super::password;
use crate::store::Store;
use crate::store::time::now_us;
use crate::store::users::NewUser;
use uuid::Uuid;

/// Longest email address accepted (RFC 5321's path limit).
pub const MAX_EMAIL_LEN: usize = 254;

pub use crate::model::Role;
pub use crate::store::users::User;

/// An email address in its stored form (trimmed, lowercase), or why it is refused.
pub fn normalize_email(email: &str) -> AccountResult<String> {
    let email = email.trim().to_lowercase();
    let valid = email.len() <= MAX_EMAIL_LEN
        && email.split_once('@').is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.') && !domain.starts_with('.') && !domain.ends_with('.'))
        && !email.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '"' | ','))
        && email.matches('@').count() == 1;
    if valid { Ok(email) } else { Err(AccountError::Invalid("Enter an email address such as name@example.com.".into())) }
}

/// Creates a user (and the organisation if new).
pub async fn create_user(store: &Store, org: &str, email: &str, role: Role, password: &str) -> AccountResult<User> {
    let email = normalize_email(email)?;
    let phc = password::hash(password).await?;
    insert_user(store, org, &email, role, &phc).await
}

pub(super) async fn insert_user(store: &Store, org: &str, email: &str, role: Role, phc: &str) -> AccountResult<User> {
    store.set_org(org, None).await?;
    let id = Uuid::now_v7().to_string();
    let new = NewUser { id: &id, org, email, role, password_hash: phc, now: now_us() };
    store.insert_user(new).await?.ok_or_else(|| AccountError::Invalid("A user with this email address exists already.".into()))
}

/// The user with this email and their password hash (disabled users included).
pub async fn by_email(store: &Store, email: &str) -> AccountResult<Option<(User, String)>> {
    let Ok(email) = normalize_email(email) else { return Ok(None) };
    Ok(store.user_by_email(&email).await?)
}

pub async fn by_id(store: &Store, id: &str) -> AccountResult<Option<User>> {
    Ok(store.user_with_hash(id).await?.map(|(u, _)| u))
}

/// The password hash of a user.
pub async fn password_hash(store: &Store, id: &str) -> AccountResult<Option<String>> {
    Ok(store.user_with_hash(id).await?.map(|(_, h)| h))
}

/// An organisation's users, oldest first.
pub async fn list(store: &Store, org: &str) -> AccountResult<Vec<User>> {
    Ok(store.org_users(org).await?)
}

/// Whether any user exists yet (a fresh service has none: its first owner is made with
/// `sitescan user create`).
pub async fn any_exist(store: &Store) -> AccountResult<bool> {
    Ok(store.count_users().await? > 0)
}

/// Ends every session of a user.
pub async fn end_sessions(store: &Store, user_id: &str) -> AccountResult<()> {
    Ok(store.delete_user_sessions(user_id).await?)
}

/// Disables a user by email: they can no longer sign in, their sessions end, and what they
/// handed out stops working (`apply_loss` with no role left).
pub async fn disable(store: &Store, email: &str) -> AccountResult<User> {
    let (user, _) = by_email(store, email).await?.ok_or(AccountError::NotFound("user"))?;
    store.disable_user(&user.id, now_us()).await?;
    end_sessions(store, &user.id).await?;
    apply_loss(store, &user, None).await?;
    Ok(user)
}

/// What a member's change of standing takes away with it: the API tokens they made that stop
/// working, and (applied, not listed) their pending invites and the active schedules they attested.
#[derive(Debug, Clone, Default)]
pub struct StandingLoss {
    pub tokens: Vec<crate::store::ApiToken>,
}

/// Whether a token keeps working when its maker's role becomes `after` (`None`: disabled or
/// removed). Only owners issue tokens, so only an owner's tokens keep working.
fn token_survives(after: Option<Role>) -> bool {
    after == Some(Role::Owner)
}

/// The tokens that would stop working if `user`'s role became `after` (for the confirmation page).
pub async fn loss_if(store: &Store, user: &User, after: Option<Role>) -> AccountResult<StandingLoss> {
    let tokens = store.live_tokens_created_by(&user.org_id, &user.id).await?.into_iter().filter(|_| !token_survives(after)).collect();
    Ok(StandingLoss { tokens })
}

/// Applies a change of standing: revokes the tokens `loss_if` lists; without the owner role,
/// cancels the invites the user made and pauses the active schedules the user (or one of the
/// revoked tokens) attested, until an owner attests them again.
pub async fn apply_loss(store: &Store, user: &User, after: Option<Role>) -> AccountResult<StandingLoss> {
    let loss = loss_if(store, user, after).await?;
    let ids: Vec<uuid::Uuid> = loss.tokens.iter().map(|t| t.id).collect();
    store.revoke_org_tokens(&user.org_id, &ids).await?;
    if after != Some(Role::Owner) {
        super::invites::cancel_made_by(store, &user.org_id, &user.id).await?;
        let mut actors = vec![format!("user:{}", user.id)];
        actors.extend(ids.iter().map(|id| format!("token:{id}")));
        for schedule in store.list_schedules(&user.org_id, None).await? {
            let attested_by = schedule
                .attestation
                .as_deref()
                .and_then(|a| serde_json::from_str::<serde_json::Value>(a).ok())
                .and_then(|v| v.get("actor").and_then(|a| a.as_str()).map(str::to_string));
            // `user:<id> <email>`, `token:<id>`: the actor's first word names them.
            if attested_by.as_deref().and_then(|a| a.split_whitespace().next()).is_some_and(|a| actors.iter().any(|x| x == a)) {
                store.clear_schedule_attestation(&user.org_id, schedule.id).await?;
                tracing::info!(schedule = %schedule.id, user = %user.id, "active schedule paused: its attester no longer may");
            }
        }
    }
    if !ids.is_empty() {
        tracing::info!(user = %user.id, tokens = ids.len(), "tokens revoked with their maker's standing");
    }
    Ok(loss)
}

/// The member `id` of `org` (NotFound for another organisation's user).
async fn member(store: &Store, org: &str, id: &str) -> AccountResult<User> {
    by_id(store, id).await?.filter(|u| u.org_id == org).ok_or(AccountError::NotFound("member"))
}

/// Changes a member's role; the organisation keeps at least one owner.
pub async fn set_role(store: &Store, org: &str, id: &str, role: Role) -> AccountResult<User> {
    let user = member(store, org, id).await?;
    if user.role == Role::Owner && role != Role::Owner && store.count_active_owners(org).await? <= 1 {
        return Err(AccountError::Invalid("An organisation needs at least one owner.".into()));
    }
    store.set_user_role(org, id, role).await?;
    apply_loss(store, &user, Some(role)).await?;
    Ok(User { role, ..user })
}

/// Removes a member: their sessions end, the tokens they made stop working, their invites are
/// cancelled and the active schedules they attested pause.
pub async fn remove(store: &Store, org: &str, id: &str) -> AccountResult<User> {
    let user = member(store, org, id).await?;
    if user.role == Role::Owner && store.count_active_owners(org).await? <= 1 {
        return Err(AccountError::Invalid("An organisation needs at least one owner.".into()));
    }
    end_sessions(store, &user.id).await?;
    apply_loss(store, &user, None).await?;
    store.delete_user(org, id).await?;
    Ok(user)
}

/// Sets a new password; every session of the user ends.
pub async fn set_password(store: &Store, id: &str, new_password: &str) -> AccountResult<()> {
    let phc = password::hash(new_password).await?;
    store.set_user_password(id, &phc, now_us()).await?;
    end_sessions(store, id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalised_or_refused() {
        assert_eq!(normalize_email(" Ann@Example.ORG ").unwrap(), "ann@example.org");
        for bad in ["", "ann", "ann@", "@example.org", "ann@example", "a b@example.org", "a@b@example.org", "<a>@example.org"] {
            assert!(normalize_email(bad).is_err(), "{bad}");
        }
        assert!(normalize_email(&format!("{}@example.org", "a".repeat(300))).is_err());
    }
}
