//! Recurring scans: schedules and monitors that start scans of a site (what changed since the
//! scan before is `compare`'s).

pub mod error;
pub mod monitor;
pub mod schedule;
pub mod sites;

pub use crate::store::{Clock, ManualClock, SystemClock};
pub use error::RecurringError;
pub use monitor::{
    MonitorRunner, MonitorTriggered, Probe, ProbeState, TriggerHook, add_monitor, list_monitors, parse_every, remove_monitor,
};
pub use crate::model::Attester;
pub use schedule::{CronSpec, Scheduler, Tick, add_schedule, list_schedules, parse_mode, parse_timezone, remove_schedule};
pub use sites::resolve_site;
