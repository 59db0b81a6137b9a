//! The reports tests: one binary, a module per former suite, the shared support once.

#[path = "../report_support/sample.rs"]
mod sample;
mod api;
mod formats;
