//! `GET /docs/api/openapi`: the API's OpenAPI document. `openapi.yaml` holds what only prose can
//! say (paths, descriptions, errors, the free-form report); every message schema is generated
//! from the proto (`schemas`), and the check catalogue comes from the registry
//! (`CheckId.x-check-ids`), so neither is written twice.

pub mod schemas;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_yaml::Value;
use std::sync::OnceLock;

/// The maintained part of the document, as written.
pub const OPENAPI_YAML: &str = include_str!("openapi.yaml");

/// The served document and what in the YAML does not match the proto.
struct Built {
    text: String,
    problems: Vec<String>,
}

fn built() -> &'static Built {
    static DOC: OnceLock<Built> = OnceLock::new();
    DOC.get_or_init(|| {
        let (doc, problems) = build(OPENAPI_YAML);
        for problem in &problems {
            tracing::warn!(%problem, "the OpenAPI document does not match the proto");
        }
        let text = serde_yaml::to_string(&doc).unwrap_or_else(|e| format!("# the document could not be written: {e}\n"));
        Built { text, problems }
    })
}

/// The served document (YAML): `OPENAPI_YAML` with the generated schemas and the check ids.
pub fn document() -> &'static str {
    &built().text
}

/// What in `openapi.yaml` does not match the proto (a property refined that the message does not
/// have, a name given twice): empty when the document and the proto agree.
pub fn problems() -> &'static [String] {
    &built().problems
}

/// The document built from `yaml`.
fn build(yaml: &str) -> (Value, Vec<String>) {
    let mut doc: Value = match serde_yaml::from_str(yaml) {
        Ok(doc) => doc,
        Err(e) => return (Value::Null, vec![format!("openapi.yaml does not parse: {e}")]),
    };
    let yaml_schemas = doc["components"]["schemas"].as_mapping().cloned().unwrap_or_default();
    let (mut generated, problems) = schemas::with_generated(&yaml_schemas);
    if let Some(Value::Mapping(check_id)) = generated.get_mut("CheckId") {
        let mut ids: Vec<&str> = crate::checks::catalogue().map(|m| m.id).collect();
        ids.sort_unstable();
        check_id.insert(Value::from("x-check-ids"), Value::Sequence(ids.into_iter().map(Value::from).collect()));
    }
    doc["components"]["schemas"] = Value::Mapping(generated);
    (doc, problems)
}

pub async fn serve() -> Response {
    let mut response = document().into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/yaml; charset=utf-8"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maintained_yaml_matches_the_proto() {
        assert!(problems().is_empty(), "openapi.yaml and the proto disagree:\n{}", problems().join("\n"));
        let doc: Value = serde_yaml::from_str(document()).expect("the served document parses");
        let ids = doc["components"]["schemas"]["CheckId"]["x-check-ids"].as_sequence().expect("the check ids are listed");
        assert!(ids.iter().any(|id| id == "search.title-missing"), "{ids:?}");
    }

    #[test]
    fn an_unknown_refinement_is_reported_not_served() {
        let (doc, problems) = build("components:\n  schemas:\n    Scan:\n      properties:\n        colour: {type: string}\n");
        assert_eq!(problems, ["Scan.colour is not a field of sitescan.v1.Scan"]);
        assert!(doc["components"]["schemas"]["Scan"]["properties"].get("colour").is_none());
        let _: &serde_yaml::Mapping = doc["components"]["schemas"].as_mapping().unwrap();
    }
}
