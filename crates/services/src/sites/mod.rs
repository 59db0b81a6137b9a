//! Sites and their ownership: proving that whoever asks for an active scan controls the origin
//! (a well-known file, a meta tag or a DNS TXT record holding the site's verification token).
//! Every request goes through the guarded fetcher.

mod budget;
mod schedules;
mod service;
mod token;
mod verify;

pub use budget::{known_check, stored_budget, validate_budget};
pub use schedules::ScheduleRequest;
/// What the service hands out: plain data, never a database type.
pub use crate::store::{JourneyRow, MonitorRow, ScheduleRow, SiteRow, StoredSecret};
pub use service::{SiteError, SiteService, StartActive, attestation_statement};

pub use token::{TOKEN_LEN, new_token, valid_token};
pub use verify::{
    DnsServer, MAX_VERIFY_REDIRECTS, META_NAME, MethodFailure, OwnershipMethod, TXT_PREFIX, VERIFICATION_PATH, Verified,
    VerifyError, Verifier,
};
