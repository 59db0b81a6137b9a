//! Structured-data items of a page, from JSON-LD blocks and microdata, in one shape.
//!
//! JSON-LD: top-level objects, arrays of them and `@graph` members are items; nested node objects
//! are items too (with their parent). `@context` may be a string, an object (`@vocab`) or an array,
//! in `http://` or `https://` form, and is inherited by nested nodes. schema.org's own context
//! aliases `type` to `@type` and `id` to `@id`, so both spellings are read.

use crate::model::{DomFacts, JsonLdBlock, MicrodataItem};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    JsonLd,
    Microdata,
}

/// The vocabulary an item's bare terms resolve to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Context {
    SchemaOrg,
    Missing,
    /// Another context, as written (serialised JSON for objects).
    Other(String),
}

/// A property value, reduced to what the checks judge.
#[derive(Debug, Clone, PartialEq)]
pub enum PropValue {
    Text(String),
    Number(f64),
    /// A nested item: an index into the page's item list.
    Item(usize),
    /// A node reference (`{"@id": ...}`).
    Reference(String),
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// As written.
    pub name: String,
    pub values: Vec<PropValue>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub syntax: Syntax,
    /// The `<script>` block's or the itemscope element's selector.
    pub selector: String,
    /// Where in the block (`$`, `$["@graph"][1]`, `$.offers`); empty for microdata.
    pub path: String,
    /// `@type` / itemtype values as written.
    pub types: Vec<String>,
    pub context: Context,
    pub properties: Vec<Property>,
    /// The item this one is a property value of, and that property.
    pub parent: Option<(usize, String)>,
    /// A microdata item that is the value of another item's property (its parent is unknown).
    pub nested: bool,
    /// True for items at the top of a block (or of its `@graph`).
    pub top_level: bool,
}

/// Resolves a term (type or property name) to a schema.org local name, when it is one: full
/// `http(s)://schema.org/X` IRIs, `schema:X`, or bare `X` under a schema.org context.
pub fn schema_name<'a>(term: &'a str, context: &Context) -> Option<&'a str> {
    let t = term.trim();
    for prefix in [
        "https://schema.org/",
        "http://schema.org/",
        "https://www.schema.org/",
        "http://www.schema.org/",
        "schema:",
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return (!rest.is_empty() && !rest.contains('/')).then_some(rest);
        }
    }
    if t.contains(':') || t.contains('/') || t.is_empty() {
        return None;
    }
    (*context == Context::SchemaOrg).then_some(t)
}

/// True when a context string names schema.org.
fn is_schema_iri(s: &str) -> bool {
    let lower = s.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
        .unwrap_or(&lower);
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    matches!(
        rest.trim_end_matches('/'),
        "schema.org"
            | "schema.org/docs/jsonldcontext.json"
            | "schema.org/docs/jsonldcontext.jsonld"
    )
}

/// Reads an `@context` value.
pub fn parse_context(value: &Value) -> Context {
    match value {
        Value::Null => Context::Missing,
        Value::String(s) if is_schema_iri(s) => Context::SchemaOrg,
        Value::String(s) => Context::Other(s.clone()),
        Value::Object(o) => match o.get("@vocab").and_then(Value::as_str) {
            Some(v) if is_schema_iri(v) => Context::SchemaOrg,
            _ if o.values().any(|v| v.as_str().is_some_and(is_schema_iri)) => Context::SchemaOrg,
            _ => Context::Other(value.to_string()),
        },
        Value::Array(a) => {
            let parsed: Vec<Context> = a.iter().map(parse_context).collect();
            if parsed.contains(&Context::SchemaOrg) {
                Context::SchemaOrg
            } else {
                parsed
                    .into_iter()
                    .find(|c| matches!(c, Context::Other(_)))
                    .unwrap_or(Context::Missing)
            }
        }
        other => Context::Other(other.to_string()),
    }
}

struct Walker<'a> {
    selector: &'a str,
    items: Vec<Item>,
}

fn child_path(path: &str, key: &str) -> String {
    if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("{path}.{key}")
    } else {
        format!("{path}[{key:?}]")
    }
}

impl Walker<'_> {
    /// Walks a value at the top of a block or a `@graph`.
    fn top(&mut self, value: &Value, context: &Context, path: &str) {
        match value {
            Value::Array(list) => {
                for (i, v) in list.iter().enumerate() {
                    self.top(v, context, &format!("{path}[{i}]"));
                }
            }
            Value::Object(map) => {
                let context = map
                    .get("@context")
                    .map_or_else(|| context.clone(), parse_context);
                let is_wrapper =
                    map.contains_key("@graph") && map.keys().all(|k| k.starts_with('@'));
                if is_wrapper {
                    if let Some(graph) = map.get("@graph") {
                        self.top(graph, &context, &child_path(path, "@graph"));
                    }
                } else {
                    self.node(map, &context, path, None, true);
                }
            }
            _ => {}
        }
    }

    /// Records a node object as an item and returns its index.
    fn node(
        &mut self,
        map: &Map<String, Value>,
        inherited: &Context,
        path: &str,
        parent: Option<(usize, String)>,
        top_level: bool,
    ) -> usize {
        let context = map
            .get("@context")
            .map_or_else(|| inherited.clone(), parse_context);
        let schema = context == Context::SchemaOrg;
        let type_value = map
            .get("@type")
            .or_else(|| if schema { map.get("type") } else { None });
        let types = match type_value {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        let index = self.items.len();
        self.items.push(Item {
            syntax: Syntax::JsonLd,
            selector: self.selector.to_string(),
            path: path.to_string(),
            types,
            context: context.clone(),
            properties: Vec::new(),
            parent,
            nested: !top_level,
            top_level,
        });
        let mut properties = Vec::new();
        for (key, value) in map {
            if key.starts_with('@') || (schema && (key == "type" || key == "id")) {
                if key == "@graph" {
                    self.top(value, &context, &child_path(path, key));
                }
                continue;
            }
            let mut values = Vec::new();
            let key_path = child_path(path, key);
            match value {
                Value::Array(list) => {
                    for (i, v) in list.iter().enumerate() {
                        values.push(self.value(
                            v,
                            &context,
                            &format!("{key_path}[{i}]"),
                            index,
                            key,
                        ));
                    }
                }
                v => values.push(self.value(v, &context, &key_path, index, key)),
            }
            properties.push(Property {
                name: key.clone(),
                values,
            });
        }
        self.items[index].properties = properties;
        index
    }

    fn value(
        &mut self,
        value: &Value,
        context: &Context,
        path: &str,
        parent: usize,
        property: &str,
    ) -> PropValue {
        match value {
            Value::String(s) => PropValue::Text(s.clone()),
            Value::Number(n) => n.as_f64().map_or(PropValue::Other, PropValue::Number),
            Value::Object(map) => {
                if let Some(v) = map.get("@value") {
                    return match v {
                        Value::String(s) => PropValue::Text(s.clone()),
                        Value::Number(n) => n.as_f64().map_or(PropValue::Other, PropValue::Number),
                        _ => PropValue::Other,
                    };
                }
                if let Some(id) = map
                    .get("@id")
                    .and_then(Value::as_str)
                    .filter(|_| map.len() == 1)
                {
                    return PropValue::Reference(id.to_string());
                }
                PropValue::Item(self.node(
                    map,
                    context,
                    path,
                    Some((parent, property.to_string())),
                    false,
                ))
            }
            _ => PropValue::Other,
        }
    }
}

/// Bytes of one JSON-LD block parsed: a larger block is reported, not parsed (serde_json
/// already bounds its nesting at 128).
pub const MAX_JSON_LD_BYTES: usize = 1 << 20;

/// The JSON-LD read of one page at most (`browser/collector.js` reads no more: a block past it
/// is read only in part).
pub const MAX_PAGE_JSON_LD_BYTES: usize = 4 << 20;

/// Why a block larger than [`MAX_JSON_LD_BYTES`], or read only in part by the collector, was
/// not parsed.
pub fn json_ld_too_large(block: &JsonLdBlock) -> Option<String> {
    if let Some(length) = block.length {
        return Some(format!(
            "the block is {length} characters; sitescan reads {} MB of JSON-LD a block and {} MB a page, so it was read only in part and not parsed",
            MAX_JSON_LD_BYTES >> 20,
            MAX_PAGE_JSON_LD_BYTES >> 20
        ));
    }
    let len = block.text.trim().len();
    (len > MAX_JSON_LD_BYTES).then(|| format!("the block is {len} bytes, over sitescan's limit of {} MB; not parsed", MAX_JSON_LD_BYTES >> 20))
}

/// The items of one JSON-LD block, or the JSON error when it does not parse (or is over the
/// size budget).
pub fn json_ld_items(block: &JsonLdBlock) -> Result<Vec<Item>, serde_json::Error> {
    if let Some(why) = json_ld_too_large(block) {
        return Err(<serde_json::Error as serde::de::Error>::custom(why));
    }
    let value: Value = serde_json::from_str(block.text.trim())?;
    let mut walker = Walker {
        selector: &block.selector,
        items: Vec::new(),
    };
    walker.top(&value, &Context::Missing, "$");
    Ok(walker.items)
}

fn microdata_item(item: &MicrodataItem) -> Item {
    let schema = item
        .types
        .iter()
        .any(|t| schema_name(t, &Context::Missing).is_some());
    let mut properties: Vec<Property> = Vec::new();
    // itemprop may hold several space-separated names for one value.
    for p in &item.properties {
        for name in p.name.split_ascii_whitespace() {
            match properties.iter_mut().find(|q| q.name == name) {
                Some(q) => q.values.push(PropValue::Text(p.value.clone())),
                None => properties.push(Property {
                    name: name.to_string(),
                    values: vec![PropValue::Text(p.value.clone())],
                }),
            }
        }
    }
    Item {
        syntax: Syntax::Microdata,
        selector: item.selector.clone(),
        path: String::new(),
        types: item.types.clone(),
        context: if schema {
            Context::SchemaOrg
        } else {
            Context::Other(item.types.join(" "))
        },
        properties,
        parent: None,
        nested: item.nested,
        top_level: !item.nested,
    }
}

/// Every item of the page: JSON-LD blocks that parse (in order), then microdata items.
pub fn page_items(dom: &DomFacts) -> Vec<Item> {
    let mut items = Vec::new();
    for block in &dom.json_ld {
        if let Ok(mut block_items) = json_ld_items(block) {
            let offset = items.len();
            for item in &mut block_items {
                if let Some((parent, _)) = item.parent.as_mut() {
                    *parent += offset;
                }
                for p in &mut item.properties {
                    for v in &mut p.values {
                        if let PropValue::Item(i) = v {
                            *i += offset;
                        }
                    }
                }
            }
            items.extend(block_items);
        }
    }
    items.extend(dom.microdata.iter().map(microdata_item));
    items
}

impl Item {
    /// The schema.org local names of its types (those that are schema.org terms).
    pub fn schema_types(&self) -> Vec<&str> {
        let context = match self.syntax {
            Syntax::JsonLd => &self.context,
            Syntax::Microdata => &Context::Missing, // itemtype is always a full URL
        };
        self.types
            .iter()
            .filter_map(|t| schema_name(t, context))
            .collect()
    }

    /// The values of the property whose schema.org name is `name`.
    pub fn values_of(&self, name: &str) -> Option<&[PropValue]> {
        self.properties
            .iter()
            .find(|p| schema_name(&p.name, &Context::SchemaOrg) == Some(name))
            .map(|p| p.values.as_slice())
    }

    /// True when the property is present with at least one non-empty value. A microdata
    /// property counts whenever it is present: when its value is a nested item, the collected
    /// text may well be empty.
    pub fn has(&self, name: &str) -> bool {
        self.values_of(name).is_some_and(|vs| {
            self.syntax == Syntax::Microdata
                || vs
                    .iter()
                    .any(|v| !matches!(v, PropValue::Text(t) if t.trim().is_empty()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str) -> JsonLdBlock {
        JsonLdBlock { text: text.into(), selector: "script".into(), length: None }
    }

    #[test]
    fn reads_graphs_arrays_nesting_and_contexts() {
        let items = json_ld_items(&block(
            r##"{"@context": ["https://schema.org/", {"@language": "en"}], "@graph": [
                {"@type": "Product", "name": "Shoe", "offers": {"@type": "Offer", "price": 19.5, "seller": {"@id": "#org"}}},
                {"type": "Organization", "id": "#org", "name": "Acme"}]}"##,
        ))
        .unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].types, vec!["Product"]);
        assert_eq!(items[0].path, "$[\"@graph\"][0]");
        assert!(items[0].top_level && !items[1].top_level);
        assert_eq!(items[1].parent, Some((0, "offers".to_string())));
        assert_eq!(items[1].path, "$[\"@graph\"][0].offers");
        assert_eq!(
            items[1].values_of("price"),
            Some(&[PropValue::Number(19.5)][..])
        );
        assert_eq!(
            items[1].values_of("seller"),
            Some(&[PropValue::Reference("#org".into())][..])
        );
        assert_eq!(items[2].schema_types(), vec!["Organization"]);
        assert!(items.iter().all(|i| i.context == Context::SchemaOrg));
    }

    #[test]
    fn resolves_terms() {
        assert_eq!(
            schema_name("http://schema.org/Product", &Context::Missing),
            Some("Product")
        );
        assert_eq!(
            schema_name("schema:Offer", &Context::Missing),
            Some("Offer")
        );
        assert_eq!(schema_name("Product", &Context::Missing), None);
        assert_eq!(schema_name("Product", &Context::SchemaOrg), Some("Product"));
        assert_eq!(schema_name("og:title", &Context::SchemaOrg), None);
        assert_eq!(
            parse_context(&Value::String("http://schema.org".into())),
            Context::SchemaOrg
        );
        assert_eq!(
            parse_context(&serde_json::json!({"@vocab": "https://schema.org/"})),
            Context::SchemaOrg
        );
        assert!(matches!(
            parse_context(&Value::String("https://example.org/ctx".into())),
            Context::Other(_)
        ));
    }
}
