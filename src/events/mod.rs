//! Events: webhook signing, and WatchScan's view of a scan's progress.

pub mod signing;
pub mod watch;

pub use signing::{BadSecret, SigningKey};
pub use watch::{ScanProgress, WATCH_POLL, watch};
