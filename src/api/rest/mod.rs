//! The REST side: thin handlers over the gRPC service implementation.

pub mod handlers;
pub mod input;

use crate::api::service::ScanApi;
use axum::routing::{MethodRouter, get, post};

/// Every REST route: (HTTP method, path template as in the proto's `google.api.http` annotation,
/// handler). The router is built from this table, and a test proves it equals the annotations.
pub fn routes() -> Vec<(&'static str, &'static str, MethodRouter<ScanApi>)> {
    vec![
        ("POST", "/api/v1/scans", post(handlers::create_scan)),
        ("GET", "/api/v1/scans", get(handlers::list_scans)),
        ("GET", "/api/v1/scans/{scan_id}", get(handlers::get_scan)),
        ("GET", "/api/v1/findings", get(handlers::list_findings)),
        ("GET", "/api/v1/scans/{scan_id}/report.html", get(handlers::get_scan_report_html)),
        ("GET", "/api/v1/scans/{scan_id}/report.sarif", get(handlers::get_scan_report_sarif)),
    ]
}
