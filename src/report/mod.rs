//! Report renderers: pure functions from the typed report (`model::ScanReport`, built by
//! `Store::scan_report`) to one output format each. Used by `sitescan scan --format`, the API's
//! report endpoints and the dashboard's `/scans/{id}`.

pub mod gitlab;
pub mod html;
pub mod junit;
pub mod sarif;
pub mod text;
mod view;
