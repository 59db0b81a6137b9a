//! Verification tokens: random, URL-safe, long enough never to be guessed or matched by chance.

use rand::Rng;

/// Characters in a fresh token.
pub const TOKEN_LEN: usize = 32;
/// The shortest token accepted (a short token could sit in a page by chance).
const MIN_TOKEN_LEN: usize = 16;
const MAX_TOKEN_LEN: usize = 128;
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// A fresh random token of `TOKEN_LEN` URL-safe characters.
pub fn new_token() -> String {
    let mut rng = rand::rng();
    (0..TOKEN_LEN).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

/// True for a token of 16 to 128 URL-safe characters (`A-Z a-z 0-9 - _`).
pub fn valid_token(token: &str) -> bool {
    (MIN_TOKEN_LEN..=MAX_TOKEN_LEN).contains(&token.len()) && token.bytes().all(|b| ALPHABET.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_tokens_are_valid_and_differ() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), TOKEN_LEN);
        assert!(valid_token(&a) && valid_token(&b));
        assert_ne!(a, b);
    }

    #[test]
    fn short_or_odd_tokens_are_refused() {
        assert!(!valid_token("abc"));
        assert!(!valid_token("has spaces in it, long enough"));
        assert!(!valid_token("<script>alert(1)</script>xx"));
        assert!(valid_token("abcdefghijklmnop"));
    }
}
