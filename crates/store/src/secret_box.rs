//! Secrets at rest: XChaCha20-Poly1305 under the key of `SITESCAN_SECRET_KEY` or
//! `--secret-key-file` (32 bytes, as base64 or 64 hex digits), else of the key file beside an
//! SQLite database (`key_file.rs`). Features that store secrets refuse to start without one.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;

/// The environment variable holding the key.
pub const SECRET_KEY_ENV: &str = "SITESCAN_SECRET_KEY";
/// The prefix of a sealed value bound to where it is stored (the format's version).
const SEALED_PREFIX: &str = "x2:";
/// The first format: sealed without associated data (opened only to be sealed again as `x2`).
pub const LEGACY_PREFIX: &str = "x1:";

/// Where a sealed value belongs: its table, its row and its name there. Sealed with it as
/// associated data, so a value copied to another row, name or table no longer opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SealedAt<'a> {
    pub table: &'a str,
    pub row: &'a str,
    pub name: &'a str,
}

impl SealedAt<'_> {
    fn associated_data(&self) -> Vec<u8> {
        let mut ad = b"sitescan/secret/v2".to_vec();
        for part in [self.table, self.row, self.name] {
            ad.push(0);
            ad.extend_from_slice(&(part.len() as u64).to_be_bytes());
            ad.extend_from_slice(part.as_bytes());
        }
        ad
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error(
        "no secret key: webhook signing secrets and journey secrets are stored encrypted, so set {SECRET_KEY_ENV} (or pass --secret-key-file) \
         to 32 random bytes as base64 (e.g. `openssl rand -base64 32`)"
    )]
    Missing,
    #[error("the secret key must be 32 bytes, as base64 or 64 hex digits")]
    BadKey,
    #[error("a stored secret could not be decrypted (wrong key, damaged, or moved from where it was stored)")]
    Undecryptable,
    /// `--secret-key-file` names a file that cannot be read.
    #[error("the secret key file {path} cannot be read: {error}")]
    Unreadable { path: String, error: String },
    /// The key file beside an SQLite database could not be made (`key_file.rs`).
    #[error("the secret key file {path} cannot be created: {error}")]
    Uncreatable { path: String, error: String },
}

/// The key that seals and opens stored secrets.
#[derive(Clone)]
pub struct SecretBox(XChaCha20Poly1305);

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(..)")
    }
}

impl SecretBox {
    /// A key from its text form (base64 or hex of 32 bytes).
    pub fn from_text(text: &str) -> Result<SecretBox, SecretError> {
        let text = text.trim();
        let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            (0..32).map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16)).collect::<Result<Vec<u8>, _>>().map_err(|_| SecretError::BadKey)?
        } else {
            STANDARD.decode(text).map_err(|_| SecretError::BadKey)?
        };
        if bytes.len() != 32 {
            return Err(SecretError::BadKey);
        }
        XChaCha20Poly1305::new_from_slice(&bytes).map(SecretBox).map_err(|_| SecretError::BadKey)
    }

    /// The key from `--secret-key-file`, else `SITESCAN_SECRET_KEY`.
    pub fn from_env_or_file(file: Option<&std::path::Path>) -> Result<SecretBox, SecretError> {
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| SecretError::Unreadable { path: path.display().to_string(), error: e.to_string() })?;
            return SecretBox::from_text(&text);
        }
        match std::env::var(SECRET_KEY_ENV) {
            Ok(text) if !text.trim().is_empty() => SecretBox::from_text(&text),
            _ => Err(SecretError::Missing),
        }
    }

    /// Seals `plain` with a fresh random nonce, bound to `at`.
    pub fn seal(&self, plain: &str, at: SealedAt<'_>) -> String {
        use chacha20poly1305::aead::Payload;
        let mut nonce = [0u8; 24];
        rand::rng().fill_bytes(&mut nonce);
        let ad = at.associated_data();
        let sealed = self.0.encrypt(XNonce::from_slice(&nonce), Payload { msg: plain.as_bytes(), aad: &ad }).unwrap_or_default();
        let mut out = nonce.to_vec();
        out.extend(sealed);
        format!("{SEALED_PREFIX}{}", STANDARD.encode(out))
    }

    /// Opens what `seal` made for the same `at`.
    pub fn open(&self, sealed: &str, at: SealedAt<'_>) -> Result<String, SecretError> {
        use chacha20poly1305::aead::Payload;
        let raw = sealed.strip_prefix(SEALED_PREFIX).ok_or(SecretError::Undecryptable)?;
        let (nonce, body) = split(raw)?;
        let ad = at.associated_data();
        let plain = self.0.decrypt(XNonce::from_slice(&nonce), Payload { msg: &body, aad: &ad }).map_err(|_| SecretError::Undecryptable)?;
        String::from_utf8(plain).map_err(|_| SecretError::Undecryptable)
    }

    /// Seals a value of the first format (`x1:`, no associated data) again, bound to `at`.
    /// `None` when it is not of that format.
    pub fn reseal_legacy(&self, sealed: &str, at: SealedAt<'_>) -> Option<Result<String, SecretError>> {
        let raw = sealed.strip_prefix(LEGACY_PREFIX)?;
        Some((|| {
            let (nonce, body) = split(raw)?;
            let plain = self.0.decrypt(XNonce::from_slice(&nonce), body.as_slice()).map_err(|_| SecretError::Undecryptable)?;
            let plain = String::from_utf8(plain).map_err(|_| SecretError::Undecryptable)?;
            Ok(self.seal(&plain, at))
        })())
    }
}

/// The nonce and the ciphertext of a sealed value's base64 body.
fn split(raw: &str) -> Result<([u8; 24], Vec<u8>), SecretError> {
    let raw = STANDARD.decode(raw).map_err(|_| SecretError::Undecryptable)?;
    if raw.len() < 24 {
        return Err(SecretError::Undecryptable);
    }
    let (nonce, body) = raw.split_at(24);
    let mut n = [0u8; 24];
    n.copy_from_slice(nonce);
    Ok((n, body.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_and_opens_and_refuses_other_keys() {
        let key = SecretBox::from_text(&STANDARD.encode([7u8; 32])).unwrap();
        let at = SealedAt { table: "webhook_endpoints", row: "e1", name: "signing" };
        let sealed = key.seal("whsec_abc", at);
        assert!(!sealed.contains("whsec_abc"));
        assert_ne!(sealed, key.seal("whsec_abc", at), "a fresh nonce each time");
        assert_eq!(key.open(&sealed, at).unwrap(), "whsec_abc");
        let other = SecretBox::from_text(&"01".repeat(32)).unwrap();
        assert_eq!(other.open(&sealed, at), Err(SecretError::Undecryptable));
        assert_eq!(SecretBox::from_text("short").unwrap_err(), SecretError::BadKey);
    }

    #[test]
    fn a_sealed_value_opens_only_where_it_was_stored() {
        let key = SecretBox::from_text(&STANDARD.encode([9u8; 32])).unwrap();
        let at = SealedAt { table: "site_secrets", row: "site-a", name: "PASSWORD" };
        let sealed = key.seal("hunter2", at);
        for moved in [
            SealedAt { row: "site-b", ..at },
            SealedAt { name: "TOKEN", ..at },
            SealedAt { table: "webhook_endpoints", ..at },
            // No ambiguity where one part ends and the next begins.
            SealedAt { table: "site_secrets", row: "site-aPASSWORD", name: "" },
        ] {
            assert_eq!(key.open(&sealed, moved), Err(SecretError::Undecryptable), "{moved:?}");
        }
        // A value of the first format (no associated data) is sealed again, then bound.
        let mut nonce = [3u8; 24];
        nonce[0] = 1;
        let legacy_body = key.0.encrypt(XNonce::from_slice(&nonce), b"old".as_slice()).unwrap();
        let legacy = format!("{LEGACY_PREFIX}{}", STANDARD.encode([nonce.to_vec(), legacy_body].concat()));
        assert_eq!(key.open(&legacy, at), Err(SecretError::Undecryptable), "the first format is never used as is");
        let resealed = key.reseal_legacy(&legacy, at).expect("legacy").expect("opens");
        assert_eq!(key.open(&resealed, at).unwrap(), "old");
        assert!(key.reseal_legacy(&resealed, at).is_none());
    }

    #[test]
    fn an_unreadable_key_file_is_an_error_not_a_missing_key() {
        let e = SecretBox::from_env_or_file(Some(std::path::Path::new("/nonexistent/sitescan.key"))).unwrap_err();
        assert!(matches!(e, SecretError::Unreadable { .. }), "{e:?}");
        assert!(e.to_string().contains("/nonexistent/sitescan.key"), "{e}");
    }
}
