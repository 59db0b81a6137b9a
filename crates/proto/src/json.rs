//! The REST JSON of a protobuf message: the spec's conventions applied to any message by its
//! descriptor, so a REST body is the gRPC answer written as JSON and a field added to the proto
//! appears in both with no other edit. The OpenAPI schemas follow the same rules
//! (`openapi::schemas`).
//!
//! The conventions (where they differ from protobuf's own JSON mapping):
//! - every field is written, in declaration order, under its proto name (`scan_id`);
//! - a field declared `optional` that is unset is `null`; an unset message field not declared
//!   `optional` is its empty message (`findings_count` of zeros);
//! - a field marked `omit_when_unset` (`json_options.proto`) is left out when unset (a repeated
//!   or map field: when empty);
//! - a message marked `json_list` is written as the list of its one repeated field (a list with
//!   presence: the report's `pages` are absent without findings, `[]` with none);
//! - an enum is its value's name without the enum's prefix, in lowercase (`SEVERITY_HIGH` is
//!   `"high"`);
//! - 64-bit integers are JSON numbers, not strings; a floating-point number with no fraction is
//!   written as an integer (`1200`, not `1200.0`), as JSON has one number type;
//! - `google.protobuf.Timestamp` is RFC 3339 with microseconds and `Z`;
//! - `google.protobuf.Struct` is the JSON object it holds, `google.protobuf.Value` the JSON
//!   value, whole numbers written as integers.

use crate::model::json_number;
use crate::model::time::to_rfc3339;
use prost_types::value::Kind as StructKind;
use serde_json::Map;
use prost_reflect::{DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor, ReflectMessage, Value};
use serde::ser::{Error as _, SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use std::sync::OnceLock;

/// Full name of the timestamp message.
pub const TIMESTAMP: &str = "google.protobuf.Timestamp";
/// Full name of the free-form object message.
pub const STRUCT: &str = "google.protobuf.Struct";
/// Full name of the free-form value message.
pub const VALUE: &str = "google.protobuf.Value";
/// The field option that leaves an unset field out (`json_options.proto`).
pub const OMIT_WHEN_UNSET: &str = "sitescan.v1.omit_when_unset";
/// The message option that writes a message as its one repeated field's list.
pub const JSON_LIST: &str = "sitescan.v1.json_list";

/// The service's descriptors (decoded once).
pub fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| DescriptorPool::decode(crate::FILE_DESCRIPTOR_SET).expect("the compiled descriptor set decodes"))
}

/// A message of the service as its dynamic form, to be written by its descriptor.
pub fn dynamic<M: prost::Message + prost::Name>(message: &M) -> Result<DynamicMessage, String> {
    let descriptor = pool().get_message_by_name(&M::full_name()).ok_or_else(|| format!("{} is not in the descriptor set", M::full_name()))?;
    DynamicMessage::decode(descriptor, message.encode_to_vec().as_slice()).map_err(|e| format!("{}: {e}", M::full_name()))
}

/// A message written by the conventions above.
pub struct ProtoJson<'a>(pub &'a DynamicMessage);

/// Whether `field` was declared `optional` (it may be absent, and is then `null`).
pub fn declared_optional(field: &FieldDescriptor) -> bool {
    field.field_descriptor_proto().proto3_optional()
}

/// Which fields and messages carry the JSON options, read from the descriptors once: decoding a
/// descriptor's options is not free, and the writer asks for every field it writes.
struct JsonOptions {
    /// Full names of the fields marked `omit_when_unset`.
    omitted: std::collections::HashSet<String>,
    /// Full names of the messages marked `json_list`, with their one repeated field's name.
    lists: std::collections::HashMap<String, String>,
}

fn json_options() -> &'static JsonOptions {
    static OPTIONS: OnceLock<JsonOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let pool = pool();
        let omit = pool.get_extension_by_name(OMIT_WHEN_UNSET);
        let list = pool.get_extension_by_name(JSON_LIST);
        let marked = |options: &DynamicMessage, ext: &Option<prost_reflect::ExtensionDescriptor>| {
            ext.as_ref().is_some_and(|ext| options.has_extension(ext) && options.get_extension(ext).as_bool() == Some(true))
        };
        let mut found = JsonOptions { omitted: Default::default(), lists: Default::default() };
        for message in pool.all_messages() {
            for field in message.fields() {
                if marked(&field.options(), &omit) {
                    found.omitted.insert(field.full_name().to_string());
                }
            }
            if marked(&message.options(), &list) {
                let mut fields = message.fields();
                if let (Some(field), None) = (fields.next(), fields.next())
                    && field.is_list()
                {
                    found.lists.insert(message.full_name().to_string(), field.name().to_string());
                }
            }
        }
        found
    })
}

/// Whether `field` is marked `omit_when_unset`: absent from the JSON when unset or empty.
pub fn omitted_when_unset(field: &FieldDescriptor) -> bool {
    json_options().omitted.contains(field.full_name())
}

/// The one repeated field of a message marked `json_list` (`None`: an ordinary message, or a
/// marked one that has other fields or a field that is not repeated).
pub fn list_field(message: &MessageDescriptor) -> Option<FieldDescriptor> {
    json_options().lists.get(message.full_name()).and_then(|name| message.get_field_by_name(name))
}

/// Whether `field` of `message` is unset: not present, or an empty list or map.
fn unset(message: &DynamicMessage, field: &FieldDescriptor) -> bool {
    if field.is_list() || field.is_map() {
        return match &*message.get_field(field) {
            Value::List(items) => items.is_empty(),
            Value::Map(entries) => entries.is_empty(),
            _ => true,
        };
    }
    !message.has_field(field)
}

/// The JSON name of an enum value: `SCAN_STATUS_QUEUED` of `ScanStatus` is `queued`.
pub fn enum_value_name(enum_name: &str, value_name: &str) -> String {
    let mut prefix = String::new();
    for (i, ch) in enum_name.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            prefix.push('_');
        }
        prefix.push(ch.to_ascii_uppercase());
    }
    prefix.push('_');
    value_name.strip_prefix(&prefix).unwrap_or(value_name).to_ascii_lowercase()
}

impl Serialize for ProtoJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let message = self.0;
        let descriptor = message.descriptor();
        if is_well_known(&descriptor) {
            return WellKnown(message).serialize(serializer);
        }
        if let Some(field) = list_field(&descriptor) {
            return FieldValue { field: &field, value: &message.get_field(&field) }.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        for field in descriptor.fields() {
            if omitted_when_unset(&field) && unset(message, &field) {
                continue;
            }
            if declared_optional(&field) && !message.has_field(&field) {
                map.serialize_entry(field.name(), &())?;
            } else if !field.is_list() && !field.is_map() && matches!(field.kind(), Kind::Message(_)) && !message.has_field(&field) {
                // An unset message field not declared optional is its empty message.
                if let Kind::Message(m) = field.kind() {
                    map.serialize_entry(field.name(), &ProtoJson(&DynamicMessage::new(m)))?;
                }
            } else {
                map.serialize_entry(field.name(), &FieldValue { field: &field, value: &message.get_field(&field) })?;
            }
        }
        map.end()
    }
}

fn is_well_known(descriptor: &MessageDescriptor) -> bool {
    matches!(descriptor.full_name(), TIMESTAMP | STRUCT | VALUE)
}

/// A timestamp, a Struct or a Value.
struct WellKnown<'a>(&'a DynamicMessage);

impl Serialize for WellKnown<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let name = self.0.descriptor().full_name().to_string();
        if name == TIMESTAMP {
            let ts = self.0.transcode_to::<prost_types::Timestamp>().map_err(S::Error::custom)?;
            let us = ts.seconds.saturating_mul(1_000_000).saturating_add(i64::from(ts.nanos) / 1000);
            serializer.serialize_str(&to_rfc3339(us))
        } else if name == VALUE {
            let value = self.0.transcode_to::<prost_types::Value>().map_err(S::Error::custom)?;
            value_to_json(&value).serialize(serializer)
        } else {
            let object = self.0.transcode_to::<prost_types::Struct>().map_err(S::Error::custom)?;
            struct_to_json(&object).serialize(serializer)
        }
    }
}

/// One field's value (a list, a map or a single value).
struct FieldValue<'a> {
    field: &'a FieldDescriptor,
    value: &'a Value,
}

impl Serialize for FieldValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kind = self.field.kind();
        match self.value {
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Single { kind: &kind, value: item })?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let value_kind = match &kind {
                    Kind::Message(entry) => entry.map_entry_value_field().kind(),
                    _ => return Err(S::Error::custom("a map field without an entry message")),
                };
                // Keys in order, so a body is the same every time.
                let mut sorted: Vec<(String, &Value)> = entries.iter().map(|(k, v)| (map_key(k), v)).collect();
                sorted.sort_by(|a, b| a.0.cmp(&b.0));
                let mut map = serializer.serialize_map(Some(sorted.len()))?;
                for (key, value) in sorted {
                    map.serialize_entry(&key, &Single { kind: &value_kind, value })?;
                }
                map.end()
            }
            single => Single { kind: &kind, value: single }.serialize(serializer),
        }
    }
}

fn map_key(key: &MapKey) -> String {
    match key {
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(n) => n.to_string(),
        MapKey::I64(n) => n.to_string(),
        MapKey::U32(n) => n.to_string(),
        MapKey::U64(n) => n.to_string(),
        MapKey::String(s) => s.clone(),
    }
}

/// One value of a known kind.
struct Single<'a> {
    kind: &'a Kind,
    value: &'a Value,
}

impl Serialize for Single<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::I32(n) => serializer.serialize_i32(*n),
            Value::I64(n) => serializer.serialize_i64(*n),
            Value::U32(n) => serializer.serialize_u32(*n),
            Value::U64(n) => serializer.serialize_u64(*n),
            Value::F32(n) => json_number(f64::from(*n)).serialize(serializer),
            Value::F64(n) => json_number(*n).serialize(serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Bytes(_) => Err(S::Error::custom("bytes fields have no REST form")),
            Value::EnumNumber(n) => match self.kind {
                Kind::Enum(e) => match e.get_value(*n) {
                    Some(v) => serializer.serialize_str(&enum_value_name(e.name(), v.name())),
                    None => serializer.serialize_i32(*n),
                },
                _ => serializer.serialize_i32(*n),
            },
            Value::Message(m) => ProtoJson(m).serialize(serializer),
            Value::List(_) | Value::Map(_) => Err(S::Error::custom("a nested list or map outside a field")),
        }
    }
}

/// A message of the service as its REST JSON value.
pub fn to_value<M: prost::Message + prost::Name>(message: &M) -> Result<serde_json::Value, String> {
    let dynamic = dynamic(message)?;
    serde_json::to_value(ProtoJson(&dynamic)).map_err(|e| e.to_string())
}

/// A Struct as JSON. Struct numbers are doubles; whole numbers within 2^53 come back as integers
/// (counts, sizes, statuses) so REST clients see `3`, not `3.0`.
pub fn struct_to_json(s: &prost_types::Struct) -> serde_json::Value {
    let mut keys: Vec<&String> = s.fields.keys().collect();
    keys.sort();
    let map: Map<String, serde_json::Value> = keys.into_iter().map(|k| (k.clone(), value_to_json(&s.fields[k]))).collect();
    serde_json::Value::Object(map)
}

/// A `google.protobuf.Value` as JSON (an unset one is `null`).
pub fn value_to_json(v: &prost_types::Value) -> serde_json::Value {
    match &v.kind {
        None | Some(StructKind::NullValue(_)) => serde_json::Value::Null,
        Some(StructKind::BoolValue(b)) => serde_json::Value::Bool(*b),
        Some(StructKind::NumberValue(n)) => json_number(*n),
        Some(StructKind::StringValue(s)) => serde_json::Value::String(s.clone()),
        Some(StructKind::ListValue(l)) => serde_json::Value::Array(l.values.iter().map(value_to_json).collect()),
        Some(StructKind::StructValue(s)) => struct_to_json(s),
    }
}

/// A JSON object as a Struct (`None` for non-objects).
pub fn json_to_struct(value: &serde_json::Value) -> Option<prost_types::Struct> {
    match value {
        serde_json::Value::Object(map) => Some(map_to_struct(map)),
        _ => None,
    }
}

/// A JSON object's members as a Struct.
pub fn map_to_struct(map: &serde_json::Map<String, serde_json::Value>) -> prost_types::Struct {
    prost_types::Struct { fields: map.iter().map(|(k, v)| (k.clone(), json_to_value(v))).collect() }
}

/// JSON as a `google.protobuf.Value`.
pub fn json_to_value(value: &serde_json::Value) -> prost_types::Value {
    let kind = match value {
        serde_json::Value::Null => StructKind::NullValue(0),
        serde_json::Value::Bool(b) => StructKind::BoolValue(*b),
        serde_json::Value::Number(n) => StructKind::NumberValue(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => StructKind::StringValue(s.clone()),
        serde_json::Value::Array(items) => {
            StructKind::ListValue(prost_types::ListValue { values: items.iter().map(json_to_value).collect() })
        }
        serde_json::Value::Object(map) => StructKind::StructValue(map_to_struct(map)),
    };
    prost_types::Value { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1 as pb;
    use serde_json::json;

    #[test]
    fn enum_values_lose_their_prefix() {
        assert_eq!(enum_value_name("ScanStatus", "SCAN_STATUS_QUEUED"), "queued");
        assert_eq!(enum_value_name("TriggeredBy", "TRIGGERED_BY_SCHEDULE"), "schedule");
        assert_eq!(enum_value_name("Severity", "SEVERITY_HIGH"), "high");
    }

    #[test]
    fn a_finding_is_written_by_the_conventions() {
        let finding = pb::Finding {
            id: "f".into(),
            scan_id: "s".into(),
            check_id: "search.title-missing".into(),
            severity: pb::Severity::High as i32,
            title: Some("No title".into()),
            created_at: Some(prost_types::Timestamp { seconds: 1_700_000_000, nanos: 1000 }),
            evidence: json_to_struct(&json!({"url": "https://a.test/", "count": 3})),
            ..Default::default()
        };
        let body = serde_json::to_string(&ProtoJson(&dynamic(&finding).unwrap())).unwrap();
        assert!(body.starts_with(r#"{"id":"f","scan_id":"s","check_id":"search.title-missing","severity":"high","title":"No title","description":null,"#), "in declaration order: {body}");
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        let expected = json!({"id": "f", "scan_id": "s", "check_id": "search.title-missing", "severity": "high", "title": "No title",
            "description": null, "evidence": {"count": 3, "url": "https://a.test/"}, "remediation": null, "cwe_id": null,
            "created_at": "2023-11-14T22:13:20.000001Z"});
        for (key, want) in expected.as_object().unwrap() {
            assert_eq!(&value[key], want, "{key}: {body}");
        }
    }

    #[test]
    fn unset_messages_are_null_when_optional_and_empty_otherwise() {
        let scan = pb::Scan { id: "s".into(), status: pb::ScanStatus::Queued as i32, ..Default::default() };
        let body = to_value(&scan).unwrap();
        assert_eq!(body["started_at"], serde_json::Value::Null);
        assert_eq!(body["findings_count"], serde_json::Value::Null, "declared optional");
        assert_eq!(body["status"], "queued");
        let history = pb::HistoryScan { categories: [("b".to_string(), 2), ("a".to_string(), 1)].into(), lcp_p75_ms: Some(1200.5), ..Default::default() };
        assert_eq!(to_value(&history).unwrap()["findings_count"], json!({"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0}), "not optional");
        let body = serde_json::to_string(&ProtoJson(&dynamic(&history).unwrap())).unwrap();
        assert!(body.contains(r#""categories":{"a":1,"b":2}"#), "{body}");
        assert!(body.contains(r#""lcp_p75_ms":1200.5,"cls_p75":null"#), "{body}");
    }

    #[test]
    fn omitted_fields_and_lists_with_presence() {
        let bare = pb::Report { summary: Some(pb::ReportSummary { pages_scanned: 2, duration_ms: 1500, ..Default::default() }), ..Default::default() };
        let body = to_value(&bare).unwrap();
        assert_eq!(body.as_object().unwrap().keys().collect::<Vec<_>>(), ["summary"], "the lists are absent unless set: {body}");
        assert_eq!(body["summary"], json!({"pages_scanned": 2, "duration_ms": 1500, "categories": {}, "error": null}), "omitted, not null");
        let empty = pb::Report { pages: Some(pb::ReportPages::default()), findings: Some(pb::ReportFindings::default()), ..bare };
        let body = to_value(&empty).unwrap();
        assert_eq!((&body["pages"], &body["findings"]), (&json!([]), &json!([])), "set and empty: []");
        assert!(body.get("fixed").is_none());
        let finding = pb::Finding { id: "f".into(), change: Some(pb::FindingChange::Persisting as i32), ..Default::default() };
        assert_eq!(to_value(&finding).unwrap()["change"], "persisting");
        assert!(to_value(&pb::Finding::default()).unwrap().get("change").is_none());
    }

    #[test]
    fn whole_doubles_are_integers_and_values_are_json() {
        let metrics = pb::PageMetrics { ttfb_ms: Some(120.0), cls: Some(0.0125), ..Default::default() };
        let body = serde_json::to_string(&ProtoJson(&dynamic(&metrics).unwrap())).unwrap();
        assert!(body.starts_with(r#"{"ttfb_ms":120,"fcp_ms":null,"lcp_ms":null,"cls":0.0125,"#), "{body}");
        let change = pb::MonitorChange { field: "tls_near_expiry".into(), before: Some(json_to_value(&json!(false))), after: None };
        assert_eq!(to_value(&change).unwrap(), json!({"field": "tls_near_expiry", "before": false, "after": null}));
    }
}
