//! Report renderers: pure functions from the typed report (`model::ScanReport`, built by
//! `Store::scan_report`) to one output format each. Used by `sitescan scan --format`, the API's
//! report endpoints and the dashboard's `/scans/{id}`. Depends only on the model and the check
//! catalogue.

use sitescan_checks as checks;
use sitescan_model as model;

/// The version of sitescan (one for the whole workspace), named in every report.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod gitlab;
pub mod html;
pub mod junit;
pub mod sarif;
pub mod text;
mod view;
