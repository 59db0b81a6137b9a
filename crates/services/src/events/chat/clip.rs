//! Cutting text to a platform's length limit: on a character boundary, ending in an ellipsis
//! when something was cut. Lengths are counted in UTF-16 code units, the unit JavaScript
//! platforms count in; it is never less than the count of characters, so a text within a limit
//! in UTF-16 units is within it however the platform counts.

/// What a cut text ends with.
pub const ELLIPSIS: char = '…';

/// The length of `s` as the platforms count it (UTF-16 code units).
pub fn units(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s` cut to at most `max` units, ending in [`ELLIPSIS`] when it was cut.
pub fn clip(s: &str, max: usize) -> String {
    if units(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let room = max - ELLIPSIS.len_utf16();
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        if used + c.len_utf16() > room {
            break;
        }
        used += c.len_utf16();
        out.push(c);
    }
    out.push(ELLIPSIS);
    out
}

/// Like [`clip`] for text holding HTML-style entities (`&amp;`, `&lt;`, `&gt;`): never cuts
/// one in half (a half entity would show as stray text, or be refused).
pub fn clip_escaped(s: &str, max: usize) -> String {
    let cut = clip(s, max);
    if cut == s {
        return cut;
    }
    let body = cut.trim_end_matches(ELLIPSIS);
    match body.rfind('&') {
        Some(amp) if !body[amp..].contains(';') => format!("{}{ELLIPSIS}", &body[..amp]),
        _ => cut,
    }
}

/// Escapes `&`, `<` and `>` (Slack mrkdwn and Google Chat's card text read them as markup).
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `lines` joined with `sep`, as many whole lines as fit in `max` units (each line first cut to
/// `max`), and how many were left out.
pub fn join_within(lines: &[String], sep: &str, max: usize) -> (String, usize) {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let line = clip(line, max);
        let extra = if out.is_empty() { 0 } else { units(sep) };
        if units(&out) + extra + units(&line) > max {
            return (out, lines.len() - i);
        }
        if !out.is_empty() {
            out.push_str(sep);
        }
        out.push_str(&line);
    }
    (out, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_and_long_text_ends_in_an_ellipsis() {
        assert_eq!(clip("hello", 5), "hello");
        assert_eq!(clip("hello world", 5), "hell…");
        assert_eq!(units(&clip(&"x".repeat(5000), 150)), 150);
        assert_eq!(clip("abc", 0), "");
    }

    #[test]
    fn cuts_on_a_character_boundary_counting_utf16_units() {
        let s = "é😀".repeat(100);
        let cut = clip(&s, 11);
        assert!(units(&cut) <= 11, "{cut}");
        assert!(cut.ends_with(ELLIPSIS));
        assert_eq!(units("😀"), 2, "outside the BMP: two units");
    }

    #[test]
    fn whole_lines_are_joined_while_they_fit() {
        let lines: Vec<String> = (0..100).map(|i| format!("line {i:02}")).collect();
        let (text, left) = join_within(&lines, "\n", 24);
        assert_eq!(text, "line 00\nline 01\nline 02");
        assert_eq!(left, 97);
        let (one, _) = join_within(&["y".repeat(50)], "\n", 10);
        assert_eq!(units(&one), 10, "a single long line is cut, not dropped");
    }

    #[test]
    fn an_entity_is_never_cut_in_half() {
        let s = escape("a<b>c&d").repeat(10);
        for max in 1..s.len() {
            let cut = clip_escaped(&s, max);
            assert!(units(&cut) <= max);
            let body = cut.trim_end_matches(ELLIPSIS);
            if let Some(amp) = body.rfind('&') {
                assert!(body[amp..].contains(';'), "{cut}");
            }
        }
    }
}
