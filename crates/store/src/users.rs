//! Users: an email, an argon2id password hash (PHC string) and a role in one organisation.
//! The rules (email form, hashing, the last owner, what a change of standing takes away) live
//! in `accounts::users`; this is their rows.

use super::Store;
use super::error::{StoreError, StoreResult};
use crate::model::Role;
use sea_orm::{ConnectionTrait, QueryResult};

/// A user as the dashboard sees them (never the password hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub org_id: String,
    pub email: String,
    pub role: Role,
    pub created_at: i64,
    pub disabled_at: Option<i64>,
}

impl User {
    pub fn is_owner(&self) -> bool {
        self.role == Role::Owner
    }
}

/// A user about to be stored.
#[derive(Debug, Clone, Copy)]
pub struct NewUser<'a> {
    pub id: &'a str,
    pub org: &'a str,
    /// Already normalised.
    pub email: &'a str,
    pub role: Role,
    /// The password's PHC string.
    pub password_hash: &'a str,
    pub now: i64,
}

const COLUMNS: &str = "id, org_id, email, role, created_at, disabled_at, password_hash";

fn from_row(row: &QueryResult) -> StoreResult<(User, String)> {
    let role: String = row.try_get("", "role")?;
    let id: String = row.try_get("", "id")?;
    let role = role.parse::<Role>().map_err(|_| StoreError::Corrupt(format!("user {id} has the unknown role {role:?}")))?;
    Ok((
        User {
            id,
            org_id: row.try_get("", "org_id")?,
            email: row.try_get("", "email")?,
            role,
            created_at: row.try_get("", "created_at")?,
            disabled_at: row.try_get("", "disabled_at")?,
        },
        row.try_get("", "password_hash")?,
    ))
}

fn is_unique_violation(e: &sea_orm::DbErr) -> bool {
    let text = e.to_string().to_ascii_lowercase();
    text.contains("unique") || text.contains("duplicate")
}

impl Store {
    /// Inserts a user (the organisation must exist); `Ok(None)` when the email is taken.
    pub async fn insert_user(&self, new: NewUser<'_>) -> StoreResult<Option<User>> {
        let stmt = self.stmt(
            "INSERT INTO users (id, org_id, email, password_hash, role, created_at, password_changed_at, disabled_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $6, NULL)",
            vec![
                new.id.into(),
                new.org.into(),
                new.email.into(),
                new.password_hash.into(),
                new.role.as_str().into(),
                new.now.into(),
            ],
        );
        match self.conn().execute_raw(stmt).await {
            Ok(_) => Ok(Some(User {
                id: new.id.to_string(),
                org_id: new.org.to_string(),
                email: new.email.to_string(),
                role: new.role,
                created_at: new.now,
                disabled_at: None,
            })),
            Err(e) if is_unique_violation(&e) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The user with this (normalised) email and their password hash, disabled users included.
    pub async fn user_by_email(&self, email: &str) -> StoreResult<Option<(User, String)>> {
        let stmt = self.stmt(&format!("SELECT {COLUMNS} FROM users WHERE email = $1"), vec![email.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(from_row).transpose()
    }

    /// The user `id` and their password hash.
    pub async fn user_with_hash(&self, id: &str) -> StoreResult<Option<(User, String)>> {
        let stmt = self.stmt(&format!("SELECT {COLUMNS} FROM users WHERE id = $1"), vec![id.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(from_row).transpose()
    }

    /// An organisation's users, oldest first.
    pub async fn org_users(&self, org: &str) -> StoreResult<Vec<User>> {
        let stmt = self.stmt(&format!("SELECT {COLUMNS} FROM users WHERE org_id = $1 ORDER BY created_at, id"), vec![org.into()]);
        self.conn().query_all_raw(stmt).await?.iter().map(|r| from_row(r).map(|(u, _)| u)).collect()
    }

    /// How many users exist, in every organisation.
    pub async fn count_users(&self) -> StoreResult<i64> {
        let row = self.conn().query_one_raw(self.stmt("SELECT COUNT(*) AS n FROM users", vec![])).await?;
        Ok(row.map(|r| r.try_get::<i64>("", "n")).transpose()?.unwrap_or(0))
    }

    /// The owners of `org` who are not disabled.
    pub async fn count_active_owners(&self, org: &str) -> StoreResult<i64> {
        let stmt = self.stmt(
            "SELECT COUNT(*) AS n FROM users WHERE org_id = $1 AND role = $2 AND disabled_at IS NULL",
            vec![org.into(), Role::Owner.as_str().into()],
        );
        let row = self.conn().query_one_raw(stmt).await?;
        Ok(row.map(|r| r.try_get::<i64>("", "n")).transpose()?.unwrap_or(0))
    }

    /// Marks a user disabled (once: a second call keeps the first time).
    pub async fn disable_user(&self, id: &str, now: i64) -> StoreResult<()> {
        let stmt = self.stmt("UPDATE users SET disabled_at = $1 WHERE id = $2 AND disabled_at IS NULL", vec![now.into(), id.into()]);
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    pub async fn set_user_role(&self, org: &str, id: &str, role: Role) -> StoreResult<()> {
        let stmt = self.stmt("UPDATE users SET role = $1 WHERE id = $2 AND org_id = $3", vec![role.as_str().into(), id.into(), org.into()]);
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    pub async fn set_user_password(&self, id: &str, password_hash: &str, now: i64) -> StoreResult<()> {
        let stmt = self.stmt(
            "UPDATE users SET password_hash = $1, password_changed_at = $2 WHERE id = $3",
            vec![password_hash.into(), now.into(), id.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    pub async fn delete_user(&self, org: &str, id: &str) -> StoreResult<()> {
        self.conn().execute_raw(self.stmt("DELETE FROM users WHERE id = $1 AND org_id = $2", vec![id.into(), org.into()])).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn store() -> Store {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.set_org("acme", None).await.unwrap();
        store
    }

    fn ann(now: i64) -> NewUser<'static> {
        NewUser { id: "u1", org: "acme", email: "ann@example.org", role: Role::Owner, password_hash: "$argon2id$x", now }
    }

    #[tokio::test]
    async fn a_user_is_stored_once_per_email_and_read_back_typed() {
        let store = store().await;
        let user = store.insert_user(ann(5)).await.unwrap().expect("stored");
        assert!(store.insert_user(NewUser { id: "u2", ..ann(6) }).await.unwrap().is_none(), "the email is taken");
        assert_eq!(store.user_by_email("ann@example.org").await.unwrap(), Some((user.clone(), "$argon2id$x".to_string())));
        assert_eq!(store.org_users("acme").await.unwrap(), [user]);
        assert_eq!((store.count_users().await.unwrap(), store.count_active_owners("acme").await.unwrap()), (1, 1));
        store.disable_user("u1", 9).await.unwrap();
        store.disable_user("u1", 10).await.unwrap();
        assert_eq!(store.user_with_hash("u1").await.unwrap().unwrap().0.disabled_at, Some(9));
        assert_eq!(store.count_active_owners("acme").await.unwrap(), 0);
    }

    #[tokio::test]
    async fn an_unknown_stored_role_is_an_error_not_a_member() {
        let store = store().await;
        store.insert_user(ann(5)).await.unwrap();
        store.conn().execute_raw(store.stmt("UPDATE users SET role = 'admin'", vec![])).await.unwrap();
        let err = store.user_with_hash("u1").await.unwrap_err();
        assert!(matches!(err, StoreError::Corrupt(ref m) if m.contains("admin")), "{err}");
    }
}
