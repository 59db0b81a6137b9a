//! Reading REST input into request messages: query strings and JSON bodies, with the spec's
//! `invalid_input` issues for anything malformed.

use crate::api::error::{ApiError, Issue};
use axum::body::Body;
use http_body_util::BodyExt;
use serde_json::Value;
use std::collections::HashMap;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// A body over the limit is still read (and dropped) up to this size before it is refused: a
/// client writes its whole body before it reads the answer, and one refused half-way through
/// would see its connection closed under it instead of the error.
const DRAIN_BYTES: usize = 1024 * 1024;

/// Query parameters, each given at most once.
#[derive(Debug, Default)]
pub struct Query {
    params: HashMap<String, String>,
}

impl Query {
    /// Parses a raw query string; a parameter given twice is an issue.
    pub fn parse(raw: Option<&str>) -> Result<Query, ApiError> {
        let mut params = HashMap::new();
        let mut issues = Vec::new();
        for (k, v) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
            if params.insert(k.to_string(), v.to_string()).is_some() {
                issues.push(Issue::new(k.to_string(), "must be given at most once"));
            }
        }
        if issues.is_empty() { Ok(Query { params }) } else { Err(ApiError::InvalidInput(issues)) }
    }

    pub fn string(&self, name: &str) -> Option<String> {
        self.params.get(name).cloned()
    }

    /// An integer parameter (`None` when absent).
    pub fn integer(&self, name: &str, issues: &mut Vec<Issue>) -> Option<i64> {
        let raw = self.params.get(name)?;
        match raw.trim().parse::<i64>() {
            Ok(v) => Some(v),
            Err(_) => {
                issues.push(Issue::new(name, format!("must be an integer, got {raw:?}")));
                None
            }
        }
    }

    /// A list's page: `limit` (an integer when given) and `cursor`.
    pub fn page(&self) -> Result<crate::scans::ListQuery, ApiError> {
        let mut issues = Vec::new();
        let limit = self.integer("limit", &mut issues);
        if issues.is_empty() { Ok(crate::scans::ListQuery { limit, cursor: self.string("cursor") }) } else { Err(ApiError::InvalidInput(issues)) }
    }

    /// A boolean parameter: `true`/`false` (also `1`/`0`); absent is `false`.
    pub fn boolean(&self, name: &str, issues: &mut Vec<Issue>) -> bool {
        match self.params.get(name).map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("false") | Some("0") => false,
            Some("true") | Some("1") | Some("") => true,
            Some(other) => {
                issues.push(Issue::new(name, format!("must be true or false, got {other:?}")));
                false
            }
        }
    }
}

/// The body's bytes, at most `MAX_BODY_BYTES`; a larger one is read on to `DRAIN_BYTES` and
/// refused.
async fn read_body(mut body: Body) -> Result<Vec<u8>, ApiError> {
    let too_large = || ApiError::invalid("body", format!("must be at most {MAX_BODY_BYTES} bytes"));
    let mut bytes = Vec::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::invalid("body", format!("could not be read: {e}")))?;
        let Ok(data) = frame.into_data() else { continue };
        seen = seen.saturating_add(data.len());
        if seen <= MAX_BODY_BYTES {
            bytes.extend_from_slice(&data);
        } else if seen > DRAIN_BYTES {
            return Err(too_large());
        }
    }
    if seen > MAX_BODY_BYTES { Err(too_large()) } else { Ok(bytes) }
}

/// Reads a JSON object body whatever its Content-Type, refusing fields not in `allowed`.
pub async fn json_object(body: Body, allowed: &[&str]) -> Result<serde_json::Map<String, Value>, ApiError> {
    let bytes = read_body(body).await?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::invalid("body", "a JSON object is required"));
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| ApiError::invalid("body", format!("is not valid JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(ApiError::invalid("body", "must be a JSON object"));
    };
    let unknown: Vec<Issue> = map
        .keys()
        .filter(|k| !allowed.contains(&k.as_str()))
        .map(|k| Issue::new(k.clone(), "unknown field"))
        .collect();
    if unknown.is_empty() { Ok(map) } else { Err(ApiError::InvalidInput(unknown)) }
}
