//! The scan engine (being built).

pub const DEFAULT_MAX_PAGES: usize = 50;
pub const DEFAULT_MAX_DEPTH: u32 = 5;
pub const DEFAULT_LEASE_SECONDS: u64 = 60;
pub const DEFAULT_POLL_MS: u64 = 500;
