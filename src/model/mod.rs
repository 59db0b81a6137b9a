//! Plain data shared by every layer: targets, severities, findings, snapshots. No I/O here.

pub mod address_policy;
pub mod attestation;
pub mod barriers;
pub mod budget;
pub mod category;
pub mod dialogs;
pub mod fair_share;
pub mod finding;
pub mod finding_budget;
pub mod fingerprint;
pub mod image_text;
pub mod journey;
pub mod layout;
pub mod org;
pub mod page_text;
pub mod percentile;
pub mod progress;
pub mod records;
pub mod severity;
pub mod report;
pub mod robots;
pub mod role;
pub mod scan_report;
pub mod scan_state;
pub mod secret_name;
pub mod snapshot;
pub mod target;
pub mod tenant_yaml;
pub mod time;

pub use address_policy::{AddressPolicy, BlockedRange};
pub use barriers::{BarrierControl, BarrierFacts, BarrierField, BarrierImage, BarrierLink, BarrierTable, HoverOnly, StyledHeading, VisualList};
pub use budget::{AssertionResult, Budget, BudgetResult};
pub use attestation::{Attestation, AttestationRefused, Attester, Confirmation, attestation_statement};
pub use category::{ACTIVE_ONLY_CATEGORIES, PASSIVE_CATEGORIES};
pub use dialogs::{DialogFacts, DialogProbe};
pub use fair_share::{FairQueue, OrgSlots};
pub use finding::{Finding, sort_findings};
pub use image_text::{ImageReading, ImageText, OcrWord};
pub use page_text::{MAX_PAGE_TEXT_CHARS, PageText};
pub use journey::{
    Journey, JourneyError, JourneyOutcome, JourneySecrets, JourneySpec, StepResult, StepStatus, parse_journey, validate_secrets,
};
pub use layout::{AnimatedImage, ClipTest, ClippedText, LayoutFacts, Overflow, Reading, Reflow, TextRun};
pub use severity::{Severity, SeverityCounts, UnknownSeverity};
pub use org::OrgId;
pub use records::{ApiToken, FindingRow, PageRow, ScanRow};
pub use progress::{ScanPhase, ScanProgressState};
pub use report::{CappedCounts, ChangeCounts, ChecksNotRun, NotRunReason, ReportError, ReportSummary};
pub use robots::ParsedRobots;
pub use role::{Role, UnknownRole};
pub use scan_report::{Change, Report, ReportFinding, ReportPage, ScanInfo, ScanReport, StoredReport, json_number, report_numbers};
pub use scan_state::{ScanMode, ScanStatus, TriggeredBy};
pub use secret_name::{BadSecretName, MAX_SECRET_NAME_LEN, SecretName};
pub use snapshot::*;
pub use target::{MAX_PAGES_LIMIT, MAX_TARGET_LEN, Target, TargetError};
