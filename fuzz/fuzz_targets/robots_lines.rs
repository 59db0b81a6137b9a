//! cargo-fuzz target `robots_lines`: see tests/support/fuzz_harness.rs for the properties checked.
#![no_main]

use sitescan_test_support::fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::robots_lines(data));
