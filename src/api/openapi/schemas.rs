//! The document's message schemas, generated from the proto's descriptors by the rules REST
//! bodies are written by (`proto::json`), then refined by what `openapi.yaml` says of them.
//!
//! Which messages: every JSON request body (`body: "*"`) and JSON response of a
//! `google.api.http` binding, every message and enum they reach, and any schema of the YAML that
//! names its message with `x-proto`. A schema is named after its message unless the YAML gives
//! it another name (`ScanHistory: {x-proto: sitescan.v1.ListScanHistoryResponse}`).
//!
//! The generated schema of a message: an object with no other properties, every field a property
//! under its proto name, required unless declared `optional`. Strings, booleans, numbers and
//! integers as such (unsigned ones with `minimum: 0`); an enum or a message by reference; a
//! timestamp as a `date-time` string; a Struct as an object, a `google.protobuf.Value` as any
//! value; a repeated field as an array; a map as an object of its values; an `optional` field
//! also `null`. A field marked `omit_when_unset` is not required and never `null`; a message
//! marked `json_list` is the array of its one repeated field (`json_options.proto`).
//!
//! A message's or field's leading comment in the proto is its `description`, so the prose is
//! written once, beside the field.
//!
//! What the YAML may add to a generated schema: any keyword of the schema (a `description`),
//! and per property any keyword (`format`, `pattern`, `maxLength`, `description`); a property's
//! `type`, `$ref` or `oneOf` takes the place of the generated value's form (`check_id` is a
//! `CheckId`; the `status` of a scan just created is the string `queued`).
//! A property the message does not have is an error, unless marked `x-not-in-proto: true` (a
//! property only another view adds, such as a report's `change`).

use crate::proto::json::{STRUCT, TIMESTAMP, VALUE, declared_optional, enum_value_name, list_field, omitted_when_unset, pool};
use prost_reflect::{EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor, Value as PValue};
use serde_yaml::{Mapping, Value};
use std::collections::{BTreeMap, VecDeque};

/// Full name of the message whose bindings carry a document, not JSON.
const HTTP_BODY: &str = "google.api.HttpBody";

/// A type the document describes from the proto.
#[derive(Debug, Clone)]
enum Described {
    Message(MessageDescriptor),
    Enum(EnumDescriptor),
}

impl Described {
    fn full_name(&self) -> &str {
        match self {
            Described::Message(m) => m.full_name(),
            Described::Enum(e) => e.full_name(),
        }
    }

    fn simple_name(&self) -> &str {
        match self {
            Described::Message(m) => m.name(),
            Described::Enum(e) => e.name(),
        }
    }
}

/// One `google.api.http` binding of the service.
#[derive(Debug, Clone)]
pub struct Binding {
    /// `GET`, `POST`, ...
    pub verb: String,
    /// As annotated (`/api/v1/scans/{scan_id}`).
    pub path: String,
    /// `*` when every field not in the path is the JSON body.
    pub body: String,
    pub input: MessageDescriptor,
    pub output: MessageDescriptor,
}

impl Binding {
    /// Whether the answer is JSON (not a document in a `google.api.HttpBody`).
    pub fn answers_json(&self) -> bool {
        self.output.full_name() != HTTP_BODY
    }

    /// The request fields bound in the path.
    pub fn path_fields(&self) -> Vec<String> {
        self.path.split('{').skip(1).filter_map(|p| p.split(['}', '=']).next()).map(str::to_string).collect()
    }
}

/// Every binding of `sitescan.v1.ScanService`, additional ones included.
pub fn bindings() -> Vec<Binding> {
    let pool = pool();
    let (Some(ext), Some(service)) = (pool.get_extension_by_name("google.api.http"), pool.get_service_by_name("sitescan.v1.ScanService")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for method in service.methods().filter(|m| !m.is_server_streaming()) {
        let options = method.options();
        let PValue::Message(rule) = options.get_extension(&ext).into_owned() else { continue };
        let mut rules = vec![rule.clone()];
        if let Some(PValue::List(extra)) = rule.get_field_by_name("additional_bindings").map(|v| v.into_owned()) {
            rules.extend(extra.into_iter().filter_map(|b| if let PValue::Message(m) = b { Some(m) } else { None }));
        }
        for rule in rules {
            let Some(verb) = ["get", "put", "post", "delete", "patch"].into_iter().find(|v| rule.has_field_by_name(v)) else { continue };
            let text = |name: &str| rule.get_field_by_name(name).and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            out.push(Binding { verb: verb.to_ascii_uppercase(), path: text(verb), body: text("body"), input: method.input(), output: method.output() });
        }
    }
    out
}

/// `#/components/schemas/<name>`
fn reference(name: &str) -> Value {
    mapping([("$ref", Value::from(format!("#/components/schemas/{name}")))])
}

fn mapping<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Mapping(pairs.into_iter().map(|(k, v)| (Value::from(k), v)).collect())
}

/// The described types and their schema names: the YAML's `x-proto` names first, then the
/// bindings' messages, then all they reach.
fn described(yaml_schemas: &Mapping) -> (Vec<(String, Described)>, Vec<String>) {
    let pool = pool();
    let mut problems = Vec::new();
    let mut roots: Vec<(Option<String>, Described)> = Vec::new();
    for (name, schema) in yaml_schemas {
        let (Some(name), Some(full)) = (name.as_str(), schema.get("x-proto").and_then(Value::as_str)) else { continue };
        match pool.get_message_by_name(full) {
            Some(m) => roots.push((Some(name.to_string()), Described::Message(m))),
            None => match pool.get_enum_by_name(full) {
                Some(e) => roots.push((Some(name.to_string()), Described::Enum(e))),
                None => problems.push(format!("{name}: x-proto {full} is not a message or enum of the proto")),
            },
        }
    }
    for b in bindings() {
        if b.body == "*" {
            roots.push((None, Described::Message(b.input.clone())));
        }
        if b.answers_json() {
            roots.push((None, Described::Message(b.output.clone())));
        }
    }
    let mut names: BTreeMap<String, String> = BTreeMap::new(); // full name -> schema name
    let mut order: Vec<(String, Described)> = Vec::new();
    let mut queue: VecDeque<(Option<String>, Described)> = roots.into();
    while let Some((name, d)) = queue.pop_front() {
        if names.contains_key(d.full_name()) || matches!(d.full_name(), TIMESTAMP | STRUCT | VALUE) {
            continue;
        }
        let name = name.unwrap_or_else(|| d.simple_name().to_string());
        if let Some((_, other)) = order.iter().find(|(n, _)| *n == name) {
            problems.push(format!("{name} names both {} and {}", other.full_name(), d.full_name()));
            continue;
        }
        names.insert(d.full_name().to_string(), name.clone());
        if let Described::Message(m) = &d {
            for field in m.fields() {
                match field.kind() {
                    Kind::Message(inner) if field.is_map() => {
                        if let Kind::Message(v) = inner.map_entry_value_field().kind() {
                            queue.push_back((None, Described::Message(v)));
                        } else if let Kind::Enum(e) = inner.map_entry_value_field().kind() {
                            queue.push_back((None, Described::Enum(e)));
                        }
                    }
                    Kind::Message(inner) => queue.push_back((None, Described::Message(inner))),
                    Kind::Enum(e) => queue.push_back((None, Described::Enum(e))),
                    _ => {}
                }
            }
        }
        order.push((name, d));
    }
    (order, problems)
}

/// The schema name of each described type, by full name.
fn name_of(order: &[(String, Described)], full: &str) -> String {
    order.iter().find(|(_, d)| d.full_name() == full).map(|(n, _)| n.clone()).unwrap_or_else(|| full.rsplit('.').next().unwrap_or(full).to_string())
}

/// The leading comment of the declaration at `path` of `file`, as one paragraph of prose (`None`
/// when it has none).
fn comment(file: &prost_reflect::FileDescriptor, path: &[i32]) -> Option<Value> {
    let info = file.file_descriptor_proto().source_code_info.as_ref()?;
    let text = info.location.iter().find(|l| l.path == path)?.leading_comments.as_deref()?;
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    (!lines.is_empty()).then(|| Value::from(lines.join(" ")))
}

/// `schema` with `description` when the proto has a comment for it.
fn described_by(mut schema: Value, file: &prost_reflect::FileDescriptor, path: &[i32]) -> Value {
    if let (Some(text), Value::Mapping(map)) = (comment(file, path), &mut schema) {
        map.insert(Value::from("description"), text);
    }
    schema
}

/// The schema of one value of a field's kind.
fn value_schema(kind: &Kind, order: &[(String, Described)]) -> Value {
    let typed = |t: &str| mapping([("type", Value::from(t))]);
    let unsigned = || mapping([("type", Value::from("integer")), ("minimum", Value::from(0))]);
    match kind {
        Kind::Bool => typed("boolean"),
        Kind::String => typed("string"),
        Kind::Bytes => mapping([("type", Value::from("string")), ("contentEncoding", Value::from("base64"))]),
        Kind::Double | Kind::Float => typed("number"),
        Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64 => unsigned(),
        Kind::Int32 | Kind::Int64 | Kind::Sint32 | Kind::Sint64 | Kind::Sfixed32 | Kind::Sfixed64 => typed("integer"),
        Kind::Enum(e) => reference(&name_of(order, e.full_name())),
        Kind::Message(m) if m.full_name() == TIMESTAMP => mapping([("type", Value::from("string")), ("format", Value::from("date-time"))]),
        Kind::Message(m) if m.full_name() == STRUCT => typed("object"),
        Kind::Message(m) if m.full_name() == VALUE => Value::Mapping(Mapping::new()),
        Kind::Message(m) => reference(&name_of(order, m.full_name())),
    }
}

/// A field's property schema.
fn field_schema(field: &FieldDescriptor, order: &[(String, Described)]) -> Value {
    described_by(field_form(field, order), &field.parent_file(), field.path())
}

/// A field's property schema without its prose.
fn field_form(field: &FieldDescriptor, order: &[(String, Described)]) -> Value {
    if field.is_map() {
        let Kind::Message(entry) = field.kind() else { return mapping([("type", Value::from("object"))]) };
        return mapping([("type", Value::from("object")), ("additionalProperties", value_schema(&entry.map_entry_value_field().kind(), order))]);
    }
    let one = value_schema(&field.kind(), order);
    if field.is_list() {
        return mapping([("type", Value::from("array")), ("items", one)]);
    }
    if !declared_optional(field) || omitted_when_unset(field) {
        return one;
    }
    // Optional: also null. A plain type gains `null`; a reference becomes a choice.
    match one.get("type").cloned() {
        Some(t) => {
            let mut widened = one;
            widened["type"] = Value::Sequence(vec![t, Value::from("null")]);
            widened
        }
        None => mapping([("oneOf", Value::Sequence(vec![mapping([("type", Value::from("null"))]), one]))]),
    }
}

/// The generated schema of a message or enum.
fn generated(d: &Described, order: &[(String, Described)]) -> Value {
    match d {
        Described::Enum(e) => {
            let values: Vec<Value> =
                e.values().filter(|v| v.number() != 0).map(|v| Value::from(enum_value_name(e.name(), v.name()))).collect();
            mapping([("type", Value::from("string")), ("enum", Value::Sequence(values))])
        }
        Described::Message(m) if list_field(m).is_some() => {
            let items = list_field(m).map(|f| value_schema(&f.kind(), order)).unwrap_or_default();
            let list = mapping([("x-proto", Value::from(m.full_name())), ("type", Value::from("array")), ("items", items)]);
            described_by(list, &m.parent_file(), m.path())
        }
        Described::Message(m) => {
            let properties: Mapping = m.fields().map(|f| (Value::from(f.name()), field_schema(&f, order))).collect();
            let required: Vec<Value> =
                m.fields().filter(|f| !declared_optional(f) && !omitted_when_unset(f)).map(|f| Value::from(f.name())).collect();
            let object = mapping([
                ("x-proto", Value::from(m.full_name())),
                ("type", Value::from("object")),
                ("additionalProperties", Value::Bool(false)),
                ("required", Value::Sequence(required)),
                ("properties", Value::Mapping(properties)),
            ]);
            described_by(object, &m.parent_file(), m.path())
        }
    }
}

/// Keywords that give a value's form: a refinement naming one replaces the generated form.
const FORM: [&str; 5] = ["type", "$ref", "oneOf", "items", "additionalProperties"];

/// The generated property refined by the YAML's.
fn refine_property(mut base: Value, refinement: &Mapping) -> Value {
    let Value::Mapping(out) = &mut base else { return base };
    if ["type", "$ref", "oneOf"].iter().any(|k| refinement.contains_key(*k)) {
        for key in FORM {
            out.remove(key);
        }
        out.remove("format");
    }
    for (k, v) in refinement {
        out.insert(k.clone(), v.clone());
    }
    base
}

/// The generated schema refined by the YAML's (`None`: the YAML says nothing of it).
fn refine(name: &str, base: Value, yaml: Option<&Value>, problems: &mut Vec<String>) -> Value {
    let Some(Value::Mapping(yaml)) = yaml else { return base };
    let mut out = base;
    for (key, value) in yaml {
        match (key.as_str(), value) {
            (Some("properties"), Value::Mapping(props)) => {
                for (prop, refinement) in props {
                    let prop_name = prop.as_str().unwrap_or_default();
                    let Value::Mapping(refinement) = refinement else {
                        problems.push(format!("{name}.{prop_name}: a refinement must be a mapping"));
                        continue;
                    };
                    let generated = out["properties"].get(prop_name).cloned();
                    let extra = refinement.get("x-not-in-proto").and_then(Value::as_bool) == Some(true);
                    match (generated, extra) {
                        (Some(g), false) => out["properties"][prop_name] = refine_property(g, refinement),
                        (None, true) => out["properties"][prop_name] = Value::Mapping(refinement.clone()),
                        (Some(_), true) => problems.push(format!("{name}.{prop_name} is in the proto but marked x-not-in-proto")),
                        (None, false) => problems.push(format!("{name}.{prop_name} is not a field of {}", out["x-proto"].as_str().unwrap_or("the proto"))),
                    }
                }
            }
            (Some("x-proto"), _) => {}
            (Some(k @ ("required" | "type")), _) => problems.push(format!("{name}: `{k}` comes from the proto; refine properties instead")),
            _ => {
                if let Value::Mapping(m) = &mut out {
                    m.insert(key.clone(), value.clone());
                }
            }
        }
    }
    out
}

/// `components.schemas` with every described type generated and refined (in the YAML's order,
/// then the types it does not mention), and what does not match the proto.
pub fn with_generated(yaml_schemas: &Mapping) -> (Mapping, Vec<String>) {
    let (order, mut problems) = described(yaml_schemas);
    let mut out = Mapping::new();
    let generated_by_name: BTreeMap<&str, &Described> = order.iter().map(|(n, d)| (n.as_str(), d)).collect();
    for (name, schema) in yaml_schemas {
        let key = name.as_str().unwrap_or_default();
        match generated_by_name.get(key) {
            Some(d) => {
                let refined = refine(key, generated(d, &order), Some(schema), &mut problems);
                out.insert(name.clone(), refined);
            }
            None => {
                out.insert(name.clone(), schema.clone());
            }
        }
    }
    for (name, d) in &order {
        if !out.contains_key(name.as_str()) {
            out.insert(Value::from(name.as_str()), generated(d, &order));
        }
    }
    (out, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schemas(yaml: &str) -> (Mapping, Vec<String>) {
        let Value::Mapping(m) = serde_yaml::from_str::<Value>(yaml).unwrap() else { panic!("a mapping") };
        with_generated(&m)
    }

    #[test]
    fn a_finding_is_generated_from_its_message() {
        let (out, problems) = schemas("{}");
        assert!(problems.is_empty(), "{problems:?}");
        let finding = &out["Finding"];
        assert_eq!(finding["x-proto"], "sitescan.v1.Finding");
        assert_eq!(finding["properties"]["title"]["type"], serde_yaml::from_str::<Value>("[string, 'null']").unwrap());
        assert_eq!(finding["properties"]["severity"]["$ref"], "#/components/schemas/Severity");
        assert_eq!(finding["properties"]["created_at"]["format"], "date-time");
        let required: Vec<&str> = finding["required"].as_sequence().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(required, ["id", "scan_id", "check_id", "severity", "created_at"]);
        assert_eq!(out["Severity"]["enum"], serde_yaml::from_str::<Value>("[critical, high, medium, low, info]").unwrap());
        assert_eq!(out["HistoryScan"]["properties"]["categories"]["additionalProperties"]["minimum"], 0);
        assert!(out.contains_key("ListScanHistoryResponse"), "a binding's answer is described");
        assert!(out.contains_key("CreateScanRequest"), "a binding's JSON body is described");
    }

    #[test]
    fn the_report_is_generated_with_its_absent_keys_and_lists() {
        let (out, problems) = schemas("{}");
        assert!(problems.is_empty(), "{problems:?}");
        let required = |name: &str| -> Vec<String> {
            out[name]["required"].as_sequence().unwrap().iter().filter_map(Value::as_str).map(str::to_string).collect()
        };
        assert_eq!(required("Report"), ["summary"], "the lists are there only with findings");
        assert_eq!(out["Report"]["properties"]["pages"]["$ref"], "#/components/schemas/ReportPages");
        assert_eq!(out["ReportPages"]["type"], "array", "a json_list message is its list");
        assert_eq!(out["ReportPages"]["items"]["$ref"], "#/components/schemas/ReportPage");
        assert_eq!(out["ReportFindings"]["items"]["$ref"], "#/components/schemas/Finding");
        assert_eq!(required("ReportSummary"), ["pages_scanned", "duration_ms", "categories"]);
        assert_eq!(out["ReportSummary"]["properties"]["changes"]["$ref"], "#/components/schemas/ScanChanges", "absent, never null");
        assert_eq!(out["ReportSummary"]["properties"]["error"]["oneOf"][0]["type"], "null", "declared optional: null");
        assert_eq!(out["ReportSummary"]["properties"]["level"]["type"], "string", "absent, never null");
        assert!(!required("Finding").contains(&"change".to_string()));
        let after = out["MonitorChange"]["properties"]["after"].as_mapping().unwrap();
        assert!(!after.contains_key("type") && !after.contains_key("$ref"), "any JSON value: {after:?}");
        let findings = out["Report"]["properties"]["findings"]["description"].as_str().unwrap_or_default();
        assert!(findings.starts_with("With include_findings only: the findings in the order"), "the proto's comment is the description: {findings}");
    }

    #[test]
    fn the_yaml_names_and_refines_and_cannot_invent() {
        let (out, problems) = schemas(
            "ScanHistory: {x-proto: sitescan.v1.ListScanHistoryResponse, description: A site's scans}\n\
             Finding:\n  properties:\n    check_id: {$ref: '#/components/schemas/CheckId'}\n    cwe_id: {pattern: '^CWE-[0-9]+$'}\n    colour: {x-not-in-proto: true, type: string}\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert!(!out.contains_key("ListScanHistoryResponse"));
        assert_eq!(out["ScanHistory"]["description"], "A site's scans");
        assert_eq!(out["ScanHistory"]["properties"]["scans"]["items"]["$ref"], "#/components/schemas/HistoryScan");
        let check_id = out["Finding"]["properties"]["check_id"].as_mapping().unwrap();
        assert!(!check_id.contains_key("type"), "the reference replaces the generated type");
        assert_eq!(out["Finding"]["properties"]["cwe_id"]["pattern"], "^CWE-[0-9]+$");
        assert_eq!(out["Finding"]["properties"]["cwe_id"]["type"][1], "null", "a refinement keeps the generated type");
        assert_eq!(out["Finding"]["properties"]["colour"]["type"], "string", "a property marked as not in the proto is kept");
        let (_, problems) = schemas("Finding:\n  properties:\n    nickname: {type: string}\n");
        assert_eq!(problems, ["Finding.nickname is not a field of sitescan.v1.Finding"]);
        let (_, problems) = schemas("Finding: {required: [id]}\n");
        assert_eq!(problems.len(), 1, "{problems:?}");
    }
}
