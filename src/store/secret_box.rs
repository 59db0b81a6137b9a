//! Secrets at rest: XChaCha20-Poly1305 under the key of `SITESCAN_SECRET_KEY` or
//! `--secret-key-file` (32 bytes, as base64 or 64 hex digits). Features that store secrets
//! refuse to start without it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;

/// The environment variable holding the key.
pub const SECRET_KEY_ENV: &str = "SITESCAN_SECRET_KEY";
/// The prefix of a sealed value (the format's version).
const SEALED_PREFIX: &str = "x1:";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error(
        "no secret key: webhook signing secrets and journey secrets are stored encrypted, so set {SECRET_KEY_ENV} (or pass --secret-key-file) \
         to 32 random bytes as base64 (e.g. `openssl rand -base64 32`)"
    )]
    Missing,
    #[error("the secret key must be 32 bytes, as base64 or 64 hex digits")]
    BadKey,
    #[error("a stored secret could not be decrypted (wrong key, or damaged)")]
    Undecryptable,
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
            let text = std::fs::read_to_string(path).map_err(|_| SecretError::Missing)?;
            return SecretBox::from_text(&text);
        }
        match std::env::var(SECRET_KEY_ENV) {
            Ok(text) if !text.trim().is_empty() => SecretBox::from_text(&text),
            _ => Err(SecretError::Missing),
        }
    }

    /// Seals `plain` with a fresh random nonce.
    pub fn seal(&self, plain: &str) -> String {
        let mut nonce = [0u8; 24];
        rand::rng().fill_bytes(&mut nonce);
        let sealed = self.0.encrypt(XNonce::from_slice(&nonce), plain.as_bytes()).unwrap_or_default();
        let mut out = nonce.to_vec();
        out.extend(sealed);
        format!("{SEALED_PREFIX}{}", STANDARD.encode(out))
    }

    /// Opens what `seal` made.
    pub fn open(&self, sealed: &str) -> Result<String, SecretError> {
        let raw = sealed.strip_prefix(SEALED_PREFIX).ok_or(SecretError::Undecryptable)?;
        let raw = STANDARD.decode(raw).map_err(|_| SecretError::Undecryptable)?;
        if raw.len() < 24 {
            return Err(SecretError::Undecryptable);
        }
        let (nonce, body) = raw.split_at(24);
        let plain = self.0.decrypt(XNonce::from_slice(nonce), body).map_err(|_| SecretError::Undecryptable)?;
        String::from_utf8(plain).map_err(|_| SecretError::Undecryptable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_and_opens_and_refuses_other_keys() {
        let key = SecretBox::from_text(&STANDARD.encode([7u8; 32])).unwrap();
        let sealed = key.seal("whsec_abc");
        assert!(!sealed.contains("whsec_abc"));
        assert_ne!(sealed, key.seal("whsec_abc"), "a fresh nonce each time");
        assert_eq!(key.open(&sealed).unwrap(), "whsec_abc");
        let other = SecretBox::from_text(&"01".repeat(32)).unwrap();
        assert_eq!(other.open(&sealed), Err(SecretError::Undecryptable));
        assert_eq!(SecretBox::from_text("short").unwrap_err(), SecretError::BadKey);
    }
}
