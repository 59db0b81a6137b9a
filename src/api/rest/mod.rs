//! The REST side: thin handlers over the scan service, each behind the admission layer of the
//! RPC it transcodes.

pub mod admission;
pub mod handlers;
pub mod input;

use crate::api::service::ScanApi;
use axum::routing::{MethodRouter, get, post};

/// Every REST route: (HTTP method, path template as in the proto's `google.api.http` annotation,
/// the RPC it transcodes, handler). The router is built from this table, each route behind the
/// admission of its RPC, and a test proves it equals the annotations.
pub fn routes() -> Vec<(&'static str, &'static str, &'static str, MethodRouter<ScanApi>)> {
    vec![
        ("POST", "/api/v1/scans", "CreateScan", post(handlers::create_scan)),
        ("GET", "/api/v1/scans", "ListScans", get(handlers::list_scans)),
        ("GET", "/api/v1/scans/{scan_id}", "GetScan", get(handlers::get_scan)),
        ("GET", "/api/v1/findings", "ListFindings", get(handlers::list_findings)),
        ("GET", "/api/v1/scans/{scan_id}/report.html", "GetScanReport", get(handlers::get_scan_report_html)),
        ("GET", "/api/v1/scans/{scan_id}/report.sarif", "GetScanReport", get(handlers::get_scan_report_sarif)),
        ("GET", "/api/v1/history", "ListScanHistory", get(handlers::list_scan_history)),
        ("GET", "/api/v1/compare", "CompareScans", get(handlers::compare_scans)),
    ]
}
