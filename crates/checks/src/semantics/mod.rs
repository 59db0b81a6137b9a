//! semantics: semantic HTML.

pub mod html_document;
pub mod html_parse_errors;

#[cfg(test)]
mod contract;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    doctype_missing::DoctypeMissing,
    h1_missing::H1Missing,
    h1_multiple::H1Multiple,
    heading_skip::HeadingSkip,
    main_missing::MainMissing,
    deprecated_element::DeprecatedElement,
    duplicate_id::SemanticsDuplicateId,
    clickable_non_interactive::ClickableNonInteractive,
    parse_error::ParseError,
}
