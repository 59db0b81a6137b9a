//! `GET /docs/api/openapi`: the maintained `openapi.yaml`, with the check catalogue (from the
//! registry, never a second list) added under `components.schemas.CheckId.x-check-ids`.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use std::sync::OnceLock;

/// The maintained document, as written.
pub const OPENAPI_YAML: &str = include_str!("openapi.yaml");

/// The served document: `OPENAPI_YAML` plus the check ids.
pub fn document() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut ids: Vec<&str> = crate::checks::catalogue().map(|m| m.id).collect();
        ids.sort_unstable();
        let mut doc = OPENAPI_YAML.to_string();
        let anchor = "      description: 'Dotted check identifier `<category>.<check-name>`; the catalogue is listed in `x-check-ids`.'\n";
        let list: String = ids.iter().map(|id| format!("        - {id}\n")).collect();
        let insert = if ids.is_empty() { "      x-check-ids: []\n".to_string() } else { format!("      x-check-ids:\n{list}") };
        if let Some(pos) = doc.find(anchor) {
            doc.insert_str(pos + anchor.len(), &insert);
        }
        doc
    })
}

pub async fn serve() -> Response {
    let mut response = document().into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/yaml; charset=utf-8"));
    response
}
