//! Groups repeated runtime events (the same error thrown in a loop, the same message logged on
//! every frame) so each distinct one is one finding with a count.

/// Longest message or stack kept in evidence (characters).
pub const MAX_TEXT_CHARS: usize = 1000;

/// Distinct items by `key`, in first-seen order, with how often each occurred.
pub fn group_by<'a, T, K: PartialEq>(
    items: impl IntoIterator<Item = &'a T>,
    key: impl Fn(&T) -> K,
) -> Vec<(&'a T, usize)>
where
    T: 'a,
{
    let mut groups: Vec<(K, &'a T, usize)> = Vec::new();
    for item in items {
        let k = key(item);
        match groups.iter_mut().find(|(gk, _, _)| *gk == k) {
            Some(group) => group.2 += 1,
            None => groups.push((k, item, 1)),
        }
    }
    groups.into_iter().map(|(_, item, n)| (item, n)).collect()
}

/// `text` cut to `MAX_TEXT_CHARS` characters (with an ellipsis when cut).
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_in_first_seen_order() {
        let items = ["a", "b", "a", "c", "a"];
        let groups = group_by(items.iter(), |s| s.to_string());
        let got: Vec<_> = groups.iter().map(|(s, n)| (**s, *n)).collect();
        assert_eq!(got, vec![("a", 3), ("b", 1), ("c", 1)]);
        assert_eq!(clip(&"é".repeat(1005)).chars().count(), 1001);
        assert_eq!(clip("short"), "short");
    }
}
