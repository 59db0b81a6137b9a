//! Which crawled page links to a URL, and with which element.

use super::super::site_view::SiteView;
use crate::model::{LinkRef, PageDigest};

/// The first crawled page with an internal link to `url`, and that link.
pub fn first_referrer<'a>(
    site: &SiteView<'a>,
    url: &str,
) -> Option<(&'a PageDigest, &'a LinkRef)> {
    site.pages().iter().find_map(|p| {
        p.internal_links
            .iter()
            .find(|l| l.href == url)
            .map(|l| (p, l))
    })
}
