//! crawlability: can crawlers reach and index the site.

pub mod link_referrers;
pub mod redirect_path;


// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    robots_txt_unreachable::RobotsTxtUnreachable,
    robots_txt_invalid::RobotsTxtInvalid,
    robots_txt_blocks_all::RobotsTxtBlocksAll,
    sitemap_missing::SitemapMissing,
    sitemap_invalid::SitemapInvalid,
    sitemap_url_error::SitemapUrlError,
    http_error::HttpError,
    broken_link::BrokenLink,
    redirect_chain::RedirectChain,
    redirect_loop::RedirectLoop,
    noindex::Noindex,
    blocked_by_robots::BlockedByRobots,
    no_https_redirect::NoHttpsRedirect,
    non_crawlable_link::NonCrawlableLink,
    page_load_failed::PageLoadFailed,
}
