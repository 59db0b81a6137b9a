//! The one list of checks. `sitescan checks`, the OpenAPI check ids and the reports read it.

use super::check::{Check, CheckMeta};
use super::{crawlability, i18n, search, semantics, structured_data};

/// Every check, grouped by category in report order.
pub static CHECKS: &[&dyn Check] = &[
    // crawlability, search, semantics, structured-data, i18n (added below by their modules)
    &crawlability::RobotsTxtUnreachable,
    &crawlability::RobotsTxtInvalid,
    &crawlability::RobotsTxtBlocksAll,
    &crawlability::SitemapMissing,
    &crawlability::SitemapInvalid,
    &crawlability::SitemapUrlError,
    &crawlability::HttpError,
    &crawlability::BrokenLink,
    &crawlability::RedirectChain,
    &crawlability::RedirectLoop,
    &crawlability::Noindex,
    &crawlability::BlockedByRobots,
    &crawlability::NoHttpsRedirect,
    &crawlability::NonCrawlableLink,
    &search::TitleMissing,
    &search::TitleLength,
    &search::TitleDuplicate,
    &search::MetaDescriptionMissing,
    &search::MetaDescriptionLength,
    &search::MetaDescriptionDuplicate,
    &search::CanonicalMissing,
    &search::CanonicalInvalid,
    &search::CanonicalCrossOrigin,
    &search::OpenGraphMissing,
    &search::OpenGraphImageBroken,
    &search::ViewportMissing,
    &search::FaviconMissing,
    &search::LinkTextGeneric,
    &semantics::DoctypeMissing,
    &semantics::H1Missing,
    &semantics::H1Multiple,
    &semantics::HeadingSkip,
    &semantics::MainMissing,
    &semantics::DeprecatedElement,
    &semantics::DuplicateId,
    &semantics::ClickableNonInteractive,
    &semantics::ParseError,
    &structured_data::JsonLdInvalid,
    &structured_data::MissingContext,
    &structured_data::UnknownType,
    &structured_data::UnknownProperty,
    &structured_data::RequiredPropertyMissing,
    &structured_data::InvalidValue,
    &structured_data::NoStructuredData,
    &i18n::LangMissing,
    &i18n::LangInvalid,
    &i18n::CharsetMissing,
    &i18n::CharsetNotUtf8,
    &i18n::HreflangInvalid,
    &i18n::HreflangNoReturn,
    &i18n::HreflangMissingSelf,
    &i18n::DirMissing,
    // media, performance, accessibility, forms, runtime
];

/// Metadata of every check, in registry order.
pub fn catalogue() -> impl Iterator<Item = &'static CheckMeta> {
    CHECKS.iter().map(|c| c.meta())
}

/// The metadata of the check with this id.
pub fn find(id: &str) -> Option<&'static CheckMeta> {
    catalogue().find(|m| m.id == id)
}
