//! Scans compared: what changed between a scan and the one before it of the same target
//! (`changes`: findings `new`, `persisting`, `fixed`), the comparison stored with a scan when it
//! completes (`baseline`), and any two scans side by side, as the dashboard's compare view shows
//! them (`diff`), in the one shape the dashboard and the API show (`view`). The CLI's `--baseline` and the recurring scans' change reports both use it.

pub mod baseline;
pub mod changes;
pub mod diff;
pub mod view;

pub use baseline::{ScanChanges, compare_with_baseline};
pub use changes::{Change, ChangeCounts, Comparison, Coverage, Fingerprint, annotate_report, compare};
pub use diff::{ScanDiff, VitalsChange, diff_scans};
pub use view::{ScanComparison, group_by_check};
