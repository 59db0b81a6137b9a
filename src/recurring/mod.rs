//! Recurring scans: the comparison of a scan with the one before it.

pub mod baseline;
pub mod changes;

pub use baseline::{ScanChanges, compare_with_baseline};
pub use changes::{Change, ChangeCounts, Comparison, Coverage, Fingerprint, annotate_body, compare};
