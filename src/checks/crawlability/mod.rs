//! crawlability: can crawlers reach and index the site.

pub mod blocked_by_robots;
pub mod broken_link;
pub mod http_error;
pub mod link_referrers;
pub mod no_https_redirect;
pub mod noindex;
pub mod page_load_failed;
pub mod non_crawlable_link;
pub mod redirect_chain;
pub mod redirect_loop;
pub mod redirect_path;
pub mod robots_txt_blocks_all;
pub mod robots_txt_invalid;
pub mod robots_txt_unreachable;
pub mod sitemap_invalid;
pub mod sitemap_missing;
pub mod sitemap_url_error;

#[cfg(test)]
mod fixtures;

pub use blocked_by_robots::BlockedByRobots;
pub use broken_link::BrokenLink;
pub use http_error::HttpError;
pub use no_https_redirect::NoHttpsRedirect;
pub use noindex::Noindex;
pub use page_load_failed::PageLoadFailed;
pub use non_crawlable_link::NonCrawlableLink;
pub use redirect_chain::RedirectChain;
pub use redirect_loop::RedirectLoop;
pub use robots_txt_blocks_all::RobotsTxtBlocksAll;
pub use robots_txt_invalid::RobotsTxtInvalid;
pub use robots_txt_unreachable::RobotsTxtUnreachable;
pub use sitemap_invalid::SitemapInvalid;
pub use sitemap_missing::SitemapMissing;
pub use sitemap_url_error::SitemapUrlError;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &RobotsTxtUnreachable,
    &RobotsTxtInvalid,
    &RobotsTxtBlocksAll,
    &SitemapMissing,
    &SitemapInvalid,
    &SitemapUrlError,
    &HttpError,
    &BrokenLink,
    &RedirectChain,
    &RedirectLoop,
    &Noindex,
    &BlockedByRobots,
    &NoHttpsRedirect,
    &NonCrawlableLink,
    &PageLoadFailed,
];
