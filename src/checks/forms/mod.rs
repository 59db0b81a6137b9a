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
}
