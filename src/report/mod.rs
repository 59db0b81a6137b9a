//! Report renderers: pure functions from the report body (exactly the JSON of
//! `GET /api/v1/scans/{id}?include_findings=true`) to one output format each. Used by
//! `sitescan scan --format` and by the API's report endpoints.

pub mod html;
pub mod junit;
pub mod sarif;
pub mod text;
mod view;
