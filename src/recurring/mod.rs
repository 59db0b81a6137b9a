//! Recurring scans: schedules and monitors that start scans of a site, and the comparison of a
//! scan with the one before it.

pub mod baseline;
pub mod changes;
pub mod diff;
pub mod error;
pub mod monitor;
pub mod schedule;
pub mod sites;

pub use baseline::{ScanChanges, compare_with_baseline};
pub use changes::{Change, ChangeCounts, Comparison, Coverage, Fingerprint, annotate_report, compare};
pub use crate::store::{Clock, ManualClock, SystemClock};
pub use error::RecurringError;
pub use monitor::{
    MonitorRunner, MonitorTriggered, Probe, ProbeState, TriggerHook, add_monitor, list_monitors, parse_every, remove_monitor,
};
pub use crate::model::Attester;
pub use schedule::{CronSpec, Scheduler, Tick, add_schedule, list_schedules, parse_mode, parse_timezone, remove_schedule};
pub use sites::resolve_site;
