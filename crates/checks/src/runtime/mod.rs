//! runtime: what goes wrong while the page runs in a real browser.

pub mod grouping;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    uncaught_exception::RuntimeUncaughtException,
    unhandled_rejection::UnhandledRejection,
    console_error::ConsoleError,
    failed_request::FailedRequest,
    mixed_content::MixedContent,
    deprecated_api::DeprecatedApi,
    csp_violation::RuntimeCspViolation,
    missing_security_header::MissingSecurityHeader,
    insecure_cookie::InsecureCookie,
}
