//! semantics: semantic HTML.

pub mod clickable_non_interactive;
pub mod deprecated_element;
pub mod doctype_missing;
pub mod duplicate_id;
pub mod h1_missing;
pub mod h1_multiple;
pub mod heading_skip;
pub mod html_document;
pub mod html_parse_errors;
pub mod main_missing;
pub mod parse_error;

#[cfg(test)]
mod contract;
#[cfg(test)]
mod fixtures;

pub use clickable_non_interactive::ClickableNonInteractive;
pub use deprecated_element::DeprecatedElement;
pub use doctype_missing::DoctypeMissing;
pub use duplicate_id::DuplicateId;
pub use h1_missing::H1Missing;
pub use h1_multiple::H1Multiple;
pub use heading_skip::HeadingSkip;
pub use main_missing::MainMissing;
pub use parse_error::ParseError;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &DoctypeMissing,
    &H1Missing,
    &H1Multiple,
    &HeadingSkip,
    &MainMissing,
    &DeprecatedElement,
    &DuplicateId,
    &ClickableNonInteractive,
    &ParseError,
];
