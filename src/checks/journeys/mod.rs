//! journeys: what went wrong while an active scan ran the owner's journeys (steps that failed or
//! timed out, a login that did not hold, error answers, exceptions, slow interactions, typed
//! secrets showing up afterwards), judged from `SiteSnapshot.journeys`.

pub mod error_response;
pub mod login_failed;
pub mod secret_exposed;
pub mod slow_interaction;
pub mod step_evidence;
pub mod step_failed;
pub mod step_timeout;
pub mod uncaught_exception;

#[cfg(test)]
mod test_support;

pub use error_response::ErrorResponse;
pub use login_failed::LoginFailed;
pub use secret_exposed::SecretExposed;
pub use slow_interaction::SlowInteraction;
pub use step_failed::StepFailed;
pub use step_timeout::StepTimeout;
pub use uncaught_exception::UncaughtException;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &StepFailed,
    &StepTimeout,
    &LoginFailed,
    &ErrorResponse,
    &UncaughtException,
    &SlowInteraction,
    &SecretExposed,
];
