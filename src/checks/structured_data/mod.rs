//! structured-data: JSON-LD, microdata and RDFa, judged against the schema.org vocabulary.

pub mod invalid_value;
pub mod items;
pub mod json_ld_invalid;
pub mod missing_context;
pub mod none;
pub mod required_property_missing;
pub mod unknown_property;
pub mod unknown_type;
pub mod value_shapes;
pub mod vocab;

#[cfg(test)]
mod fixtures;

pub use invalid_value::InvalidValue;
pub use json_ld_invalid::JsonLdInvalid;
pub use missing_context::MissingContext;
pub use none::NoStructuredData;
pub use required_property_missing::RequiredPropertyMissing;
pub use unknown_property::UnknownProperty;
pub use unknown_type::UnknownType;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &JsonLdInvalid,
    &MissingContext,
    &UnknownType,
    &UnknownProperty,
    &RequiredPropertyMissing,
    &InvalidValue,
    &NoStructuredData,
];
