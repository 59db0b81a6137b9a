//! forms: forms and inputs.

pub mod autocomplete_missing;
pub mod field_purpose;
pub mod input_type_mismatch;
pub mod insecure_action;
pub mod label_missing;
pub mod password_in_get;
pub mod password_over_http;
pub mod submit_missing;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

pub use autocomplete_missing::AutocompleteMissing;
pub use input_type_mismatch::InputTypeMismatch;
pub use insecure_action::InsecureAction;
pub use label_missing::LabelMissing;
pub use password_in_get::PasswordInGet;
pub use password_over_http::PasswordOverHttp;
pub use submit_missing::SubmitMissing;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &InsecureAction,
    &PasswordOverHttp,
    &PasswordInGet,
    &AutocompleteMissing,
    &InputTypeMismatch,
    &LabelMissing,
    &SubmitMissing,
];
