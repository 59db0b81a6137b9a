//! What running a journey produced: step results, responses, exceptions, the logged-in proof,
//! secret exposures, screenshots and the audits' snapshots.

use serde::{Deserialize, Serialize};

/// A click or key press slower than this to the next paint is a slow interaction.
pub const SLOW_INTERACTION_MS: f64 = 200.0;

/// How a step ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    #[default]
    Ok,
    Failed,
    Timeout,
    /// Not run: an earlier step failed.
    Skipped,
}

/// One step's result. Every string is masked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepResult {
    pub index: usize,
    /// The action key (`click`).
    pub action: String,
    /// `Action::summary`, masked.
    pub summary: String,
    pub selector: Option<String>,
    pub status: StepStatus,
    pub error: Option<String>,
    /// The name of a screenshot in `JourneyOutcome.screenshots` (a `screenshot` step's, or the
    /// one taken when the step failed).
    pub screenshot: Option<String>,
    /// Where the page was after the step.
    pub url_after: Option<String>,
    pub elapsed_ms: u64,
    /// For `click` and `press`: from the input event to the next paint.
    pub interaction_to_paint_ms: Option<f64>,
}

/// A navigation or form submission the journey caused, and its answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyResponse {
    pub step: usize,
    pub method: String,
    pub url: String,
    pub status: u16,
    /// `Document`, `XHR`, `Fetch`.
    pub resource_type: String,
}

/// An uncaught exception thrown during a step.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyException {
    pub step: usize,
    pub message: String,
    pub url: Option<String>,
}

/// The check of the `logged_in` proof after the login steps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoggedInResult {
    /// `text "Sign out"` or `selector "#logout"`.
    pub proof: String,
    pub present: bool,
    /// The step after which it was checked.
    pub after_step: usize,
    pub url: String,
}

/// A typed secret seen afterwards where scripts or people can read it. Never the value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SecretExposure {
    /// The step after which it was seen.
    pub step: usize,
    /// The secret's name.
    pub secret: String,
    /// `url`, `page text`, `localStorage["key"]`, `sessionStorage["key"]`, `cookie "name"`.
    pub location: String,
    pub url: String,
}

/// A screenshot taken during a journey (secret inputs hidden while it was taken).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyScreenshot {
    pub name: String,
    pub step: usize,
    pub png_base64: String,
}

/// What running one journey produced (the `journeys.*` checks judge it). Every string is masked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyOutcome {
    pub name: String,
    /// Where the journey started.
    pub start_url: String,
    pub steps: Vec<StepResult>,
    pub responses: Vec<JourneyResponse>,
    pub exceptions: Vec<JourneyException>,
    pub logged_in: Option<LoggedInResult>,
    pub secret_exposures: Vec<SecretExposure>,
    pub screenshots: Vec<JourneyScreenshot>,
    /// The journey could not run at all (no browser, the page could not be opened).
    pub error: Option<String>,
}

impl JourneyOutcome {
    /// The URL a step's findings belong to: where the page was after it (else before it).
    pub fn url_at(&self, step: usize) -> String {
        self.steps
            .iter()
            .take(step + 1)
            .rev()
            .find_map(|s| s.url_after.clone())
            .unwrap_or_else(|| self.start_url.clone())
    }

    pub fn step(&self, index: usize) -> Option<&StepResult> {
        self.steps.iter().find(|s| s.index == index)
    }
}

/// An `audit` step's snapshot of the page as the journey reached it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JourneyAudit {
    pub step: usize,
    /// The audit's label, masked.
    pub label: String,
    pub snapshot: crate::PageSnapshot,
}

/// What the browser hands back for one journey: its outcome (for the `journeys.*` checks) and
/// the states its `audit` steps captured (for the page checks).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JourneyRun {
    pub outcome: JourneyOutcome,
    pub audits: Vec<JourneyAudit>,
}
