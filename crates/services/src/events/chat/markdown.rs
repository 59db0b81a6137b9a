//! Text a scanned page controls (its URL, an error it caused), put into a platform that reads
//! Markdown (Discord's descriptions and field values, Teams' fact sets) as plain text: every
//! character Markdown could read as markup is escaped with a backslash, as CommonMark allows for
//! any ASCII punctuation, so a page cannot write a disguised link (`[bank.example](https://…)`),
//! a heading, a quote, a code span or emphasis into a tenant's channel. Links stay as text: a bare
//! URL shows what it points to.

use super::clip::{ELLIPSIS, units};

/// The characters escaped: those that open or close Markdown markup on Discord and in Teams.
const MARKUP: &[char] = &['\\', '`', '*', '_', '~', '|', '[', ']', '(', ')', '<', '>', '#', '!', '{', '}', '='];
/// Escaped only at the start of a line (lists, Discord's `-#` subtext, setext headings).
const LINE_START: &[char] = &['-', '+'];

/// `s` with every Markdown-significant character escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    // Only blanks so far on this line; only blanks and then digits (an ordered list's number).
    let (mut blank, mut number) = (true, true);
    for c in s.chars() {
        if MARKUP.contains(&c) || (blank && LINE_START.contains(&c)) || (number && !blank && c == '.') {
            out.push('\\');
        }
        out.push(c);
        if c == '\n' {
            (blank, number) = (true, true);
        } else {
            number = number && (c.is_ascii_digit() || (blank && c.is_whitespace()));
            blank = blank && c.is_whitespace();
        }
    }
    out
}

/// [`escape`]d `s` cut to at most `max` UTF-16 units, ending in an ellipsis when cut; never
/// between a backslash and what it escapes.
pub fn clip_escape(s: &str, max: usize) -> String {
    let escaped = escape(s);
    if units(&escaped) <= max {
        return escaped;
    }
    if max == 0 {
        return String::new();
    }
    let room = max - ELLIPSIS.len_utf16();
    let mut out = String::new();
    let mut used = 0;
    let mut chars = escaped.chars();
    while let Some(c) = chars.next() {
        // An escape and its character go together or not at all.
        let pair = if c == '\\' { chars.next() } else { None };
        let width = c.len_utf16() + pair.map_or(0, char::len_utf16);
        if used + width > room {
            break;
        }
        used += width;
        out.push(c);
        out.extend(pair);
    }
    out.push(ELLIPSIS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disguised_link_is_shown_as_the_text_it_is() {
        let hostile = "https://site.example/[Reset your password](https://evil.example/)";
        let e = escape(hostile);
        assert_eq!(e, r"https://site.example/\[Reset your password\]\(https://evil.example/\)");
        assert!(!e.contains("]("));
    }

    #[test]
    fn emphasis_code_quotes_and_headings_are_inert() {
        assert_eq!(escape("**bold** _it_ `code` ~~x~~ ||spoiler||"), r"\*\*bold\*\* \_it\_ \`code\` \~\~x\~\~ \|\|spoiler\|\|");
        assert_eq!(escape("# head\n> quote\n- item\n1. one"), "\\# head\n\\> quote\n\\- item\n1\\. one");
        assert_eq!(escape("a-b 2.0"), "a-b 2.0", "only a line's start makes a list");
        assert_eq!(escape(r"a\b"), r"a\\b");
    }

    #[test]
    fn a_cut_never_leaves_half_an_escape() {
        let s = "[x](y)".repeat(50);
        for max in 1..80 {
            let cut = clip_escape(&s, max);
            assert!(units(&cut) <= max, "{max}: {cut}");
            let body = cut.trim_end_matches(ELLIPSIS);
            let trailing = body.chars().rev().take_while(|c| *c == '\\').count();
            assert_eq!(trailing % 2, 0, "{max}: {cut}");
        }
        assert_eq!(clip_escape("plain", 10), "plain");
    }
}
