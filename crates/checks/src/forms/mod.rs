//! forms: forms and inputs.

pub mod field_purpose;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    insecure_action::InsecureAction,
    password_over_http::PasswordOverHttp,
    password_in_get::PasswordInGet,
    autocomplete_missing::AutocompleteMissing,
    input_type_mismatch::InputTypeMismatch,
    label_missing::LabelMissing,
    submit_missing::SubmitMissing,
    label_placeholder_only::LabelPlaceholderOnly,
    label_multiple::LabelMultiple,
    label_duplicate_text::LabelDuplicateText,
    hint_not_described::HintNotDescribed,
    choice_group_unnamed::ChoiceGroupUnnamed,
    fieldset_legend_missing::FieldsetLegendMissing,
}
