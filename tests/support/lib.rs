//! What sitescan's end-to-end test binaries share, compiled once for all of them: the server
//! and the scan engine under test, fixture sites (static, hostile, behind TLS), the real binary
//! run as a process, an in-memory scan sink, and generated media.
//!
//! A test binary names the parts it uses in its `main.rs` (`use sitescan_test_support::app;`),
//! so its modules reach them as `crate::app`.

pub mod app;
pub mod dashboard_client;
pub mod engine;
pub mod fixture_dir;
pub mod fixture_site;
pub mod fuzz_harness;
pub mod hostile_site;
pub mod media_gen;
pub mod process;
pub mod report_sample;
pub mod scan_harness;
pub mod sink;
pub mod tls_front;
pub mod trap;
