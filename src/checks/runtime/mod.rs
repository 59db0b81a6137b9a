//! runtime: what goes wrong while the page runs in a real browser.

pub mod console_error;
pub mod csp_violation;
pub mod deprecated_api;
pub mod failed_request;
pub mod grouping;
pub mod insecure_cookie;
pub mod missing_security_header;
pub mod mixed_content;
pub mod uncaught_exception;
pub mod unhandled_rejection;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

pub use console_error::ConsoleError;
pub use csp_violation::CspViolation;
pub use deprecated_api::DeprecatedApi;
pub use failed_request::FailedRequest;
pub use insecure_cookie::InsecureCookie;
pub use missing_security_header::MissingSecurityHeader;
pub use mixed_content::MixedContent;
pub use uncaught_exception::UncaughtException;
pub use unhandled_rejection::UnhandledRejection;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &UncaughtException,
    &UnhandledRejection,
    &ConsoleError,
    &FailedRequest,
    &MixedContent,
    &DeprecatedApi,
    &CspViolation,
    &MissingSecurityHeader,
    &InsecureCookie,
];
