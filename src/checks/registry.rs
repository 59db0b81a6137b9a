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
    &crawlability::PageLoadFailed,
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
    &super::media::ImageBroken,
    &super::media::ImageOversized,
    &super::media::ImageLegacyFormat,
    &super::media::ImageMissingDimensions,
    &super::media::ImageNotLazy,
    &super::media::LcpImageLazy,
    &super::media::VideoNoCaptions,
    &super::media::AutoplayAudio,
    &super::performance::Lcp,
    &super::performance::Cls,
    &super::performance::Tbt,
    &super::performance::Fcp,
    &super::performance::Ttfb,
    &super::performance::PageWeight,
    &super::performance::RequestCount,
    &super::performance::RenderBlocking,
    &super::performance::UncompressedText,
    &super::performance::CachePolicy,
    &super::performance::DomSize,
    &super::performance::LongTask,
    &super::accessibility::AxeViolations,
    &super::accessibility::FocusNotVisible,
    &super::accessibility::KeyboardTrap,
    &super::accessibility::ZoomDisabled,
    &super::forms::InsecureAction,
    &super::forms::PasswordOverHttp,
    &super::forms::PasswordInGet,
    &super::forms::AutocompleteMissing,
    &super::forms::InputTypeMismatch,
    &super::forms::LabelMissing,
    &super::forms::SubmitMissing,
    &super::runtime::UncaughtException,
    &super::runtime::UnhandledRejection,
    &super::runtime::ConsoleError,
    &super::runtime::FailedRequest,
    &super::runtime::MixedContent,
    &super::runtime::DeprecatedApi,
    &super::runtime::CspViolation,
    &super::runtime::MissingSecurityHeader,
    &super::runtime::InsecureCookie,
];

/// Metadata of every check, in registry order.
///
/// The axe-core mapper (`accessibility::AXE_MAPPER_ID`) is not an id of its own: in its place the
/// catalogue lists the axe rules a scan runs, `accessibility.<axe-rule-id>`, generated at build
/// time from the embedded axe-core (`accessibility::catalogued_axe_checks`; the full axe table,
/// with tags and impacts, is `accessibility::axe_catalogue()`).
pub fn catalogue() -> impl Iterator<Item = &'static CheckMeta> {
    CHECKS.iter().flat_map(|c| {
        let meta = c.meta();
        let is_axe_mapper = meta.id == super::accessibility::AXE_MAPPER_ID;
        let axe: &'static [super::accessibility::AxeRuleMeta] =
            if is_axe_mapper { super::accessibility::axe_catalogue() } else { &[] };
        (!is_axe_mapper).then_some(meta).into_iter().chain(axe.iter().filter(|r| r.is_catalogued()).map(|r| &r.meta))
    })
}

/// The metadata of the check with this id.
pub fn find(id: &str) -> Option<&'static CheckMeta> {
    catalogue().find(|m| m.id == id)
}
