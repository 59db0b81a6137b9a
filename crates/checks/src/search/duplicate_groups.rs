//! Groups of crawled pages that share a value (title, meta description).

use super::url_identity::same_url;
use crate::model::PageDigest;

/// The pages that share `key` with at least one other page, grouped, in crawl order.
///
/// Only pages that could compete in search results count: 2xx, not `noindex`, one entry per final
/// URL, and not pages that declare another URL as canonical (they already say they are a copy).
/// Keys are compared with whitespace collapsed and case ignored.
pub fn duplicate_groups(
    pages: &[PageDigest],
    key: impl Fn(&PageDigest) -> Option<&str>,
) -> Vec<(String, Vec<&PageDigest>)> {
    let mut groups: Vec<(String, String, Vec<&PageDigest>)> = Vec::new();
    let mut seen_final: Vec<&str> = Vec::new();
    for page in pages {
        if !page.status.is_some_and(|s| (200..300).contains(&s)) || page.noindex {
            continue;
        }
        if page
            .canonical
            .as_deref()
            .is_some_and(|c| !same_url(c, &page.final_url))
        {
            continue;
        }
        if seen_final.contains(&page.final_url.as_str()) {
            continue;
        }
        seen_final.push(&page.final_url);
        let Some(value) = key(page) else { continue };
        let shown = value.split_whitespace().collect::<Vec<_>>().join(" ");
        if shown.is_empty() {
            continue;
        }
        let folded = shown.to_lowercase();
        match groups.iter_mut().find(|(k, _, _)| *k == folded) {
            Some((_, _, members)) => members.push(page),
            None => groups.push((folded, shown, vec![page])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, _, m)| m.len() > 1)
        .map(|(_, shown, m)| (shown, m))
        .collect()
}

/// Up to ten URLs of the group other than `page`.
pub fn others(group: &[&PageDigest], page: &PageDigest) -> Vec<String> {
    group
        .iter()
        .filter(|p| p.final_url != page.final_url)
        .take(10)
        .map(|p| p.final_url.clone())
        .collect()
}
