//! The one list of checks. `sitescan checks`, the OpenAPI check ids and the reports read it.

use super::check::{Check, CheckMeta};
use super::{accessibility, crawlability, forms, i18n, journeys, media, performance, repository, runtime, search, semantics, structured_data};

/// Every check, grouped by category in CHECKS.md order (the order of reports and `sitescan checks`).
pub static CHECKS: &[&dyn Check] = &[
    // crawlability
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
    // search
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
    // semantics
    &semantics::DoctypeMissing,
    &semantics::H1Missing,
    &semantics::H1Multiple,
    &semantics::HeadingSkip,
    &semantics::MainMissing,
    &semantics::DeprecatedElement,
    &semantics::DuplicateId,
    &semantics::ClickableNonInteractive,
    &semantics::ParseError,
    // structured-data
    &structured_data::JsonLdInvalid,
    &structured_data::MissingContext,
    &structured_data::UnknownType,
    &structured_data::UnknownProperty,
    &structured_data::RequiredPropertyMissing,
    &structured_data::InvalidValue,
    &structured_data::NoStructuredData,
    // media
    &media::ImageBroken,
    &media::ImageOversized,
    &media::ImageLegacyFormat,
    &media::ImageMissingDimensions,
    &media::ImageNotLazy,
    &media::LcpImageLazy,
    &media::VideoNoCaptions,
    &media::AutoplayAudio,
    // performance
    &performance::Lcp,
    &performance::Cls,
    &performance::Tbt,
    &performance::Fcp,
    &performance::Ttfb,
    &performance::PageWeight,
    &performance::RequestCount,
    &performance::RenderBlocking,
    &performance::UncompressedText,
    &performance::CachePolicy,
    &performance::DomSize,
    &performance::LongTask,
    // accessibility
    &accessibility::AxeViolations,
    &accessibility::FocusNotVisible,
    &accessibility::KeyboardTrap,
    &accessibility::ZoomDisabled,
    // forms
    &forms::InsecureAction,
    &forms::PasswordOverHttp,
    &forms::PasswordInGet,
    &forms::AutocompleteMissing,
    &forms::InputTypeMismatch,
    &forms::LabelMissing,
    &forms::SubmitMissing,
    // i18n
    &i18n::LangMissing,
    &i18n::LangInvalid,
    &i18n::CharsetMissing,
    &i18n::CharsetNotUtf8,
    &i18n::HreflangInvalid,
    &i18n::HreflangNoReturn,
    &i18n::HreflangMissingSelf,
    &i18n::DirMissing,
    // runtime
    &runtime::UncaughtException,
    &runtime::UnhandledRejection,
    &runtime::ConsoleError,
    &runtime::FailedRequest,
    &runtime::MixedContent,
    &runtime::DeprecatedApi,
    &runtime::CspViolation,
    &runtime::MissingSecurityHeader,
    &runtime::InsecureCookie,
    // journeys (active scans only: they judge what the owner's journeys did, which passive scans
    // never run)
    &journeys::StepFailed,
    &journeys::StepTimeout,
    &journeys::LoginFailed,
    &journeys::ErrorResponse,
    &journeys::UncaughtException,
    &journeys::SlowInteraction,
    &journeys::SecretExposed,
    // repository (active scans only: they judge the repository probes' answers, which passive
    // scans never make)
    &repository::VcsExposed,
    &repository::EnvFileExposed,
    &repository::PrivateKeyExposed,
    &repository::BackupFileExposed,
    &repository::SourceMapExposed,
    &repository::ServerStatusExposed,
    &repository::DirectoryListing,
    &repository::EditorLeftover,
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
