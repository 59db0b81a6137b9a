//! Password hashing: argon2id (the `argon2` crate's defaults: 19 MiB, 2 passes, 1 lane), a
//! fresh random salt per hash, PHC strings in the database. Hashing runs on the blocking pool.

use super::error::{AccountError, AccountResult};
use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use std::sync::OnceLock;

/// Shortest password accepted.
pub const MIN_PASSWORD_LEN: usize = 10;
/// Longest password accepted (bytes): bounds the work one request can ask for.
pub const MAX_PASSWORD_LEN: usize = 256;

/// Checks a new password's length.
pub fn validate(password: &str) -> AccountResult<()> {
    if password.chars().count() < MIN_PASSWORD_LEN {
        return Err(AccountError::Invalid(format!("The password must be at least {MIN_PASSWORD_LEN} characters.")));
    }
    if password.len() > MAX_PASSWORD_LEN {
        return Err(AccountError::Invalid(format!("The password must be at most {MAX_PASSWORD_LEN} bytes.")));
    }
    Ok(())
}

/// The argon2id PHC string of `password`.
pub async fn hash(password: &str) -> AccountResult<String> {
    validate(password)?;
    let password = password.to_string();
    tokio::task::spawn_blocking(move || hash_blocking(&password))
        .await
        .map_err(|e| AccountError::Hash(e.to_string()))?
}

fn hash_blocking(password: &str) -> AccountResult<String> {
    let hashed: Result<argon2::password_hash::phc::PasswordHash, _> = Argon2::default().hash_password(password.as_bytes());
    hashed.map(|h| h.to_string()).map_err(|e| AccountError::Hash(e.to_string()))
}

/// True when `password` matches `phc`. With `phc` None (no such user), a dummy hash is checked
/// instead so the answer takes as long either way, and false is returned.
pub async fn verify(password: &str, phc: Option<String>) -> bool {
    if password.len() > MAX_PASSWORD_LEN {
        return false;
    }
    let password = password.to_string();
    tokio::task::spawn_blocking(move || {
        let known = phc.is_some();
        let phc = phc.unwrap_or_else(|| dummy_hash().to_string());
        let ok = PasswordVerifier::<str>::verify_password(&Argon2::default(), password.as_bytes(), phc.as_str()).is_ok();
        ok && known
    })
    .await
    .unwrap_or(false)
}

fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_blocking("dummy password for unknown accounts").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_are_argon2id() {
        let h = hash("correct horse battery").await.unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify("correct horse battery", Some(h.clone())).await);
        assert!(!verify("wrong horse battery", Some(h.clone())).await);
        assert!(!verify("correct horse battery", None).await);
        assert_ne!(h, hash("correct horse battery").await.unwrap(), "salted");
        assert!(hash("short").await.is_err());
    }
}
