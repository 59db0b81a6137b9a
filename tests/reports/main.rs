//! The reports tests: one binary, a module per former suite, the shared support once.

use sitescan_test_support::report_sample;

mod api;
mod ci_files;
mod formats;
mod gitlab;

/// The renderers over a report body as the API answers it (`GET /api/v1/scans/{id}`), read into
/// the typed report first: the fixtures are JSON, the renderers take `ScanReport`.
mod renderers {
    fn typed(body: &serde_json::Value) -> sitescan::model::ScanReport {
        sitescan::model::ScanReport::from_body(body).expect("a report body")
    }

    pub mod html {
        pub use sitescan::report::html::*;

        pub fn render(body: &serde_json::Value) -> anyhow::Result<String> {
            sitescan::report::html::render(&super::typed(body))
        }
    }

    pub mod sarif {
        pub use sitescan::report::sarif::*;

        pub fn render(body: &serde_json::Value) -> anyhow::Result<String> {
            sitescan::report::sarif::render(&super::typed(body))
        }
    }

    pub mod junit {
        pub fn render(body: &serde_json::Value, fail_on: Option<sitescan::model::Severity>) -> anyhow::Result<String> {
            sitescan::report::junit::render(&super::typed(body), fail_on)
        }
    }
}
