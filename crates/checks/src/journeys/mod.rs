//! journeys: what went wrong while an active scan ran the owner's journeys (steps that failed or
//! timed out, a login that did not hold, error answers, exceptions, slow interactions, typed
//! secrets showing up afterwards), judged from `SiteSnapshot.journeys`.

pub mod step_evidence;

#[cfg(test)]
mod test_support;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    step_failed::StepFailed,
    step_timeout::StepTimeout,
    login_failed::LoginFailed,
    error_response::ErrorResponse,
    uncaught_exception::JourneyUncaughtException,
    slow_interaction::SlowInteraction,
    secret_exposed::SecretExposed,
}
