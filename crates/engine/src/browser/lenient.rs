//! Reading what a page's script can make: JSON text with half a surrogate pair.
//!
//! JavaScript strings are UTF-16 and may hold a lone surrogate (a string cut inside an emoji);
//! Chromium writes one into its CDP JSON as a `\uD83D` escape with no partner, which serde_json
//! (rightly, for UTF-8) refuses. Such a half stands for nothing a person could read: it becomes
//! U+FFFD, and the rest of the message is kept.

use std::borrow::Cow;

/// `text` with every `\uXXXX` escape of a lone surrogate replaced by `\uFFFD`; pairs are kept.
/// Borrowed when there is nothing to repair.
pub(crate) fn repair_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // An escape: `\\` and the like are two bytes; only `\u` is looked at.
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex_unit(bytes, i + 2) else {
            i += 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        if high && bytes.get(i + 6) == Some(&b'\\') && bytes.get(i + 7) == Some(&b'u') && hex_unit(bytes, i + 8).is_some_and(|u| (0xDC00..0xE000).contains(&u)) {
            i += 12; // a whole pair
            continue;
        }
        if high || low {
            let s = out.get_or_insert_with(|| String::with_capacity(text.len()));
            s.push_str(&text[copied..i]);
            s.push_str("\\uFFFD");
            copied = i + 6;
        }
        i += 6;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut s) => {
            s.push_str(&text[copied..]);
            Cow::Owned(s)
        }
    }
}

/// `serde_json::from_str`, reading a lone surrogate's escape as U+FFFD when the text does not
/// parse as it is (the gatherers' JSON answers: `JSON.stringify` writes a page's half emoji as
/// such an escape). Text that parses is read as it is.
pub(crate) fn from_json<'a, T: serde::Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(e) => match repair_surrogates(text) {
            std::borrow::Cow::Borrowed(_) => Err(e),
            // Owned data only: the repaired text does not outlive this call.
            std::borrow::Cow::Owned(fixed) => serde_json::from_str::<serde_json::Value>(&fixed).and_then(T::deserialize).map_err(|_| e),
        },
    }
}

fn hex_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::repair_surrogates;

    fn read(text: &str) -> serde_json::Value {
        serde_json::from_str(&repair_surrogates(text)).expect("parses after repair")
    }

    #[test]
    fn a_lone_half_reads_as_the_replacement_character() {
        let cut = r#"{"text":"snow \ud83d","n":1}"#;
        assert!(serde_json::from_str::<serde_json::Value>(cut).is_err(), "serde_json refuses it as sent");
        assert_eq!(read(cut)["text"], "snow \u{FFFD}");
        assert_eq!(read(r#"{"t":"\ude00 tail"}"#)["t"], "\u{FFFD} tail", "a lone low half");
        assert_eq!(read(r#"{"t":"\ud83d\ud83d\ude00"}"#)["t"], "\u{FFFD}😀", "a high half before a whole pair");
    }

    #[test]
    fn gatherer_answers_are_read_leniently() {
        #[derive(serde::Deserialize)]
        struct Facts {
            text: String,
        }
        let facts: Facts = super::from_json(r#"{"text":"cut \ud83d"}"#).expect("read");
        assert_eq!(facts.text, "cut \u{FFFD}");
        assert!(super::from_json::<Facts>(r#"{"text": 1}"#).is_err(), "other errors stay errors");
    }

    #[test]
    fn whole_pairs_and_other_escapes_are_kept() {
        let fine = r#"{"t":"\ud83d\ude00 \\ud83d \u00e9 \"q\""}"#;
        assert!(matches!(repair_surrogates(fine), std::borrow::Cow::Borrowed(_)), "nothing to repair");
        assert_eq!(read(fine)["t"], "😀 \\ud83d é \"q\"");
        assert_eq!(read(r#"{"t":"\u12"}"#.replace("\\u12", "ok").as_str())["t"], "ok");
    }
}
