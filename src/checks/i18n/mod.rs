//! i18n: language, charset, hreflang, direction.

pub mod charset_declaration;
pub mod charset_missing;
pub mod charset_not_utf8;
pub mod dir_missing;
pub mod hreflang_invalid;
pub mod hreflang_missing_self;
pub mod hreflang_no_return;
pub mod lang_invalid;
pub mod lang_missing;
pub mod language_tag;

#[cfg(test)]
mod fixtures;

pub use charset_missing::CharsetMissing;
pub use charset_not_utf8::CharsetNotUtf8;
pub use dir_missing::DirMissing;
pub use hreflang_invalid::HreflangInvalid;
pub use hreflang_missing_self::HreflangMissingSelf;
pub use hreflang_no_return::HreflangNoReturn;
pub use lang_invalid::LangInvalid;
pub use lang_missing::LangMissing;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &LangMissing,
    &LangInvalid,
    &CharsetMissing,
    &CharsetNotUtf8,
    &HreflangInvalid,
    &HreflangNoReturn,
    &HreflangMissingSelf,
    &DirMissing,
];
