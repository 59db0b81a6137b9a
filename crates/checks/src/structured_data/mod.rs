//! structured-data: JSON-LD, microdata and RDFa, judged against the schema.org vocabulary.

pub mod items;
pub mod value_shapes;
pub mod vocab;


// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    json_ld_invalid::JsonLdInvalid,
    missing_context::MissingContext,
    unknown_type::UnknownType,
    unknown_property::UnknownProperty,
    required_property_missing::RequiredPropertyMissing,
    invalid_value::InvalidValue,
    none::NoStructuredData,
}
