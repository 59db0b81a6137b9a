//! Check categories (the prefix of every check id).

/// Categories of passive scans, in report order. The API only runs these.
pub const PASSIVE_CATEGORIES: [&str; 10] = [
    "crawlability",
    "search",
    "semantics",
    "structured-data",
    "media",
    "performance",
    "accessibility",
    "forms",
    "i18n",
    "runtime",
];

/// Categories only active (owner-depth) scans run; never through the API.
pub const ACTIVE_ONLY_CATEGORIES: [&str; 2] = ["journeys", "repository"];

/// True when `category` is a known passive category.
pub fn is_passive_category(category: &str) -> bool {
    PASSIVE_CATEGORIES.contains(&category)
}
