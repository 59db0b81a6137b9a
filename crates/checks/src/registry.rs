//! The one list of checks. `sitescan checks`, the OpenAPI check ids and the reports read it.

use super::check::{Check, CheckMeta};
use super::{accessibility, crawlability, forms, i18n, journeys, media, performance, repository, runtime, search, semantics, structured_data};
use std::sync::LazyLock;

/// The categories' check lists, in CHECKS.md order (the order of reports and `sitescan checks`).
/// Adding a check is its file and its line in its category's `category_checks!`.
const CATEGORIES: &[&[&dyn Check]] = &[
    crawlability::CHECKS,
    search::CHECKS,
    semantics::CHECKS,
    structured_data::CHECKS,
    media::CHECKS,
    performance::CHECKS,
    accessibility::CHECKS,
    forms::CHECKS,
    i18n::CHECKS,
    runtime::CHECKS,
    // journeys (active scans only: they judge what the owner's journeys did, which passive scans
    // never run)
    journeys::CHECKS,
    // repository (active scans only: they judge the repository probes' answers, which passive
    // scans never make)
    repository::CHECKS,
];

/// Every check, category by category.
pub static CHECKS: LazyLock<Vec<&'static dyn Check>> = LazyLock::new(|| CATEGORIES.iter().flat_map(|c| c.iter().copied()).collect());

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
