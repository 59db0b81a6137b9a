//! Standard Webhooks signing: `webhook-id`, `webhook-timestamp` and `webhook-signature:
//! v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the bytes of a `whsec_<base64>`
//! secret. The recipe of the specification, on hmac + sha2 + base64 (already dependencies;
//! the `standardwebhooks` crate would add `time` and its own `http` version for three lines).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

/// The prefix of a secret as shown to the user.
pub const SECRET_PREFIX: &str = "whsec_";
/// Bytes of a generated secret (the spec asks for 24 to 64).
pub const SECRET_BYTES: usize = 32;

/// A secret that is not `whsec_<base64>` (or too short).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a webhook secret is `whsec_` followed by base64 of 24 to 64 bytes")]
pub struct BadSecret;

/// A signing key: the decoded bytes of a `whsec_` secret.
#[derive(Clone)]
pub struct SigningKey(Vec<u8>);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

impl SigningKey {
    /// A fresh random key.
    pub fn generate() -> SigningKey {
        let mut bytes = vec![0u8; SECRET_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        SigningKey(bytes)
    }

    /// Reads `whsec_<base64>`.
    pub fn parse(secret: &str) -> Result<SigningKey, BadSecret> {
        let b64 = secret.strip_prefix(SECRET_PREFIX).ok_or(BadSecret)?;
        let bytes = STANDARD.decode(b64).map_err(|_| BadSecret)?;
        if !(24..=64).contains(&bytes.len()) {
            return Err(BadSecret);
        }
        Ok(SigningKey(bytes))
    }

    /// `whsec_<base64>`, shown to the user once.
    pub fn to_secret(&self) -> String {
        format!("{SECRET_PREFIX}{}", STANDARD.encode(&self.0))
    }

    /// `v1,<base64 signature>` of one message.
    pub fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vector of the Standard Webhooks reference libraries (`TestWebhookSign`).
    #[test]
    fn signs_the_reference_vector() {
        let key = SigningKey::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let sig = key.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, br#"{"test": 2432232314}"#);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn generated_secrets_round_trip_and_bad_ones_are_refused() {
        let key = SigningKey::generate();
        let again = SigningKey::parse(&key.to_secret()).unwrap();
        assert_eq!(key.sign("m", 1, b"x"), again.sign("m", 1, b"x"));
        assert!(format!("{key:?}").ends_with("(..)"), "never printed");
        for bad in ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_!!", "whsec_AAAA"] {
            assert_eq!(SigningKey::parse(bad).unwrap_err(), BadSecret, "{bad}");
        }
    }
}
