//! Running a journey's steps in a page: one page in a browser context of the journey's own
//! (cookies last across its steps, never across journeys or scans), behind the same egress proxy
//! as every capture. Every CDP call is under the step's time limit; a failed step stops its
//! journey (the rest are `skipped`), never the scan.
//!
//! Secrets: `{{secret.NAME}}` is replaced by the value only in the command that types it
//! (`Input.insertText`, or the option picked in a `select`). Every string that leaves the runner
//! (step summaries, errors, URLs, exception messages) is masked, and nothing here logs a value.
//! Screenshots are taken with secret-bearing inputs and text hidden. After each step the URL, the
//! page's text, web storage and script-readable cookies are compared with every secret typed so
//! far; a match is recorded by where it was seen, never by value.
//!
//! Where a journey may go: only `about:blank` and http(s) pages of the site's origin and the
//! origins the journey lists. `navigate` is checked before it is sent, and every document
//! request of the page (its own navigations, redirects, link clicks, form posts, frames) is held
//! by request interception until it is checked; a refused one fails with
//! `net::ERR_BLOCKED_BY_CLIENT` and fails the step. After every step the main frame's URL, read
//! from the browser (not from page script), is checked again, for the schemes interception
//! never sees. A secret is typed only when the main frame is on one of those origins and the
//! focus is on the step's field itself (not a frame), checked in an isolated world; the values
//! used for masking screenshots and for picking a `select` option are only ever handed to an
//! isolated world, never to the page's own scripts.
//!
//! An `audit` step gathers a full `PageSnapshot` of the page as it is (no navigation), with the
//! capture's own gatherers, for the scanner to run every page check on.
//!
//! One file per job: `run` (the journey's step loop and the scan's allowance), `guard` (holding
//! the page to its origins: request interception, popups closed), `runner` (each action in the
//! page), `scripts` (the in-page lookups and probes and what they answer) and `responses` (a
//! step's navigations and submissions read from its events).

use std::time::Duration;

mod guard;
mod responses;
mod run;
mod runner;
mod scripts;

pub use run::JourneyAllowance;
pub(crate) use run::run_journey;

/// How often waits look again.
const POLL: Duration = Duration::from_millis(100);
/// How long an `assert` (and the logged-in proof) may take to become true.
const ASSERT_GRACE: Duration = Duration::from_secs(3);
/// Small reads (the URL, the exposure scan, the paint probe) get at most this.
const READ_LIMIT: Duration = Duration::from_secs(3);
/// After an action, how long to look for a navigation it started.
const NAVIGATION_START_GRACE: Duration = Duration::from_millis(150);
/// The longest wait for network quiet after a step.
const STEP_QUIET_MAX: Duration = Duration::from_secs(2);
