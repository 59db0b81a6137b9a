//! Random secrets (session ids, invite tokens, CSRF tokens) and their stored SHA-256 form.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;

/// 32 random bytes as base64url (43 characters).
pub fn random_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The SHA-256 of a secret, hex: what the database keeps.
pub fn digest(secret: &str) -> String {
    crate::store::hash_token(secret)
}

/// True when `s` has the shape of a `random_secret` (checked before any lookup).
pub fn looks_like_secret(s: &str) -> bool {
    s.len() == 43 && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
}

/// Compares two strings in time independent of where they differ.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_random_and_shaped() {
        let a = random_secret();
        assert!(looks_like_secret(&a));
        assert_ne!(a, random_secret());
        assert!(constant_time_eq(&a, &a.clone()));
        assert!(!constant_time_eq(&a, &random_secret()));
        assert!(!looks_like_secret("short"));
    }
}
