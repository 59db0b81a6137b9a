//! The name of a site's secret: what a journey writes in `{{secret.NAME}}`, what the owner stores
//! with `PutSecret`, the dashboard's form or `sitescan site secret`, and what `scan --secret`
//! takes. One rule for all of them, so every name that can be stored can be referred to, and the
//! other way round.

use std::fmt;

/// Longest secret name.
pub const MAX_SECRET_NAME_LEN: usize = 64;

/// A valid secret name: 1 to [`MAX_SECRET_NAME_LEN`] ASCII letters, digits, `_` and `-`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SecretName(String);

/// Why a text is not a secret name. Never carries the text: a mistyped `NAME=VALUE` may have
/// put the secret itself where the name goes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a secret name is 1 to {MAX_SECRET_NAME_LEN} characters of A-Z, a-z, 0-9, '_' and '-'")]
pub struct BadSecretName;

impl SecretName {
    /// The name in `text`, surrounding whitespace ignored.
    pub fn parse(text: &str) -> Result<Self, BadSecretName> {
        let name = text.trim();
        let valid = !name.is_empty()
            && name.len() <= MAX_SECRET_NAME_LEN
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if valid { Ok(SecretName(name.to_string())) } else { Err(BadSecretName) }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for SecretName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for SecretName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_letters_digits_underscores_and_hyphens_up_to_64() {
        for good in ["API_KEY", "api-key", "a", "x1", &"k".repeat(MAX_SECRET_NAME_LEN)] {
            assert_eq!(SecretName::parse(good).unwrap().as_str(), good);
        }
        assert_eq!(SecretName::parse("  pw \n").unwrap().as_str(), "pw", "whitespace around is ignored");
        for bad in ["", " ", "a b", "a.b", "a=b", "é", "{{x}}", &"k".repeat(MAX_SECRET_NAME_LEN + 1)] {
            assert_eq!(SecretName::parse(bad), Err(BadSecretName), "{bad:?}");
        }
        assert!(!BadSecretName.to_string().contains("a=b"));
    }
}
