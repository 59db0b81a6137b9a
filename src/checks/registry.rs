//! The one list of checks. `sitescan checks`, the OpenAPI check ids and the reports read it.

use super::check::{Check, CheckMeta};

/// Every check, grouped by category in report order.
pub static CHECKS: &[&dyn Check] = &[
    // crawlability, search, semantics, structured-data, i18n (added below by their modules)
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
