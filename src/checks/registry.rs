//! The one list of checks. `sitescan checks`, the OpenAPI check ids and the reports read it.

use super::check::{Check, CheckMeta};

/// Every check, grouped by category in report order.
pub static CHECKS: &[&dyn Check] = &[
    // crawlability, search, semantics, structured-data, i18n (added below by their modules)
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
