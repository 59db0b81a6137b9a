//! What a redirect chain looks like: the URLs it passes through and whether it loops.

use crate::model::RedirectHop;

/// The URLs of the chain, the start first, then each hop's target (`location`) when known.
pub fn chain(hops: &[RedirectHop], final_url: Option<&str>) -> Vec<String> {
    let mut urls: Vec<String> = hops.iter().map(|h| h.url.clone()).collect();
    if let Some(end) = final_url.filter(|f| urls.last().is_none_or(|l| l != f)) {
        urls.push(end.to_string());
    }
    urls
}

/// True when the chain visits a URL twice or has more than `max_hops` hops.
pub fn loops(hops: &[RedirectHop], max_hops: usize) -> bool {
    if hops.len() > max_hops {
        return true;
    }
    hops.iter()
        .enumerate()
        .any(|(i, h)| hops[..i].iter().any(|p| p.url == h.url))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(url: &str) -> RedirectHop {
        RedirectHop {
            url: url.into(),
            status: 301,
            location: None,
        }
    }

    #[test]
    fn sees_loops_and_chains() {
        let hops = [hop("http://e.com/a"), hop("https://e.com/a")];
        assert_eq!(
            chain(&hops, Some("https://e.com/a/")),
            vec!["http://e.com/a", "https://e.com/a", "https://e.com/a/"]
        );
        assert!(!loops(&hops, 10));
        assert!(loops(
            &[
                hop("https://e.com/a"),
                hop("https://e.com/b"),
                hop("https://e.com/a")
            ],
            10
        ));
        assert!(loops(&[hop("https://e.com/x")], 0));
    }
}
