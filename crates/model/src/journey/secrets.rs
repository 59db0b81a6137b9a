//! Secrets: `{{secret.NAME}}` references, substituting values only where they are typed, and
//! masking every form of a value wherever it would leave the runner.

use super::{Journey, JourneyError, err};
use serde_json::Value;
use std::collections::BTreeMap;

/// What a secret's value is replaced with wherever it would leave the runner.
pub const SECRET_MASK: &str = "••••••";

/// The `{{secret.NAME}}` references in `text`, in order; `Err` names a malformed one.
pub fn secret_refs(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        let Some(end) = after.find("}}") else {
            if after.trim_start().starts_with("secret") {
                return Err("an unclosed secret reference (write {{secret.NAME}})".into());
            }
            break;
        };
        let inner = after[..end].trim();
        if let Some(name) = inner.strip_prefix("secret.") {
            // Exactly the name, no space inside the braces' reference: the runner replaces
            // `{{secret.NAME}}` as written.
            match crate::SecretName::parse(name).ok().filter(|n| n.as_str() == name) {
                Some(name) => out.push(name.into_string()),
                None => return Err(format!("{{{{{inner}}}}} is not a secret reference (write {{{{secret.NAME}}}}; {})", crate::BadSecretName)),
            }
        } else if inner.starts_with("secret") {
            return Err(format!("{{{{{inner}}}}} is not a secret reference (write {{{{secret.NAME}}}})"));
        }
        rest = &after[end + 2..];
    }
    Ok(out)
}

/// Replaces every `{{secret.NAME}}` in `text` by its value, read as `secret_refs` reads them
/// (`{{ secret.NAME }}` too); unknown names stay as written.
pub fn substitute(text: &str, secrets: &JourneySecrets) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        let Some(end) = after.find("}}") else { break };
        let value = after[..end].trim().strip_prefix("secret.").and_then(|name| secrets.get(name));
        out.push_str(&rest[..i]);
        match value {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[i..i + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}
/// Checks every `{{secret.NAME}}` of `journey` names one of `names`.
pub fn validate_secrets<S: AsRef<str>>(journey: &Journey, names: &[S]) -> Result<(), JourneyError> {
    for (i, step) in journey.steps.iter().enumerate() {
        let Some(value) = step.action.typed_value() else { continue };
        for name in secret_refs(value).unwrap_or_default() {
            if !names.iter().any(|n| n.as_ref() == name) {
                let known: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
                let known = if known.is_empty() { "none given".to_string() } else { known.join(", ") };
                return err(format!("steps[{i}].value"), format!("unknown secret \"{name}\" (known: {known})"));
            }
        }
    }
    Ok(())
}
impl Journey {
    /// Every secret name the journey refers to.
    pub fn secret_names(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.steps.iter().filter_map(|s| s.action.typed_value()).flat_map(|v| secret_refs(v).unwrap_or_default()).collect();
        out.sort();
        out.dedup();
        out
    }
}

/// A journey's secrets by name. `Debug` prints the names only; values leave this type only to be
/// typed into a page or compared with what a page shows.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct JourneySecrets {
    values: BTreeMap<String, String>,
}

impl std::fmt::Debug for JourneySecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.values.keys().map(|k| (k, SECRET_MASK))).finish()
    }
}

impl JourneySecrets {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a secret.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.values.insert(name.into(), value.into());
    }

    pub fn names(&self) -> Vec<String> {
        self.values.keys().cloned().collect()
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The forms a secret's value can take where a page or a server may echo it: as is,
    /// percent-encoded, form-encoded (`+` for spaces), HTML-escaped (named and numeric
    /// entities), JSON-escaped, and base64 (standard and URL-safe, with and without padding).
    /// Empty values are never matched.
    pub fn forms(value: &str) -> Vec<String> {
        use base64::Engine as _;
        use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
        if value.is_empty() {
            return Vec::new();
        }
        let mut out = vec![value.to_string()];
        let pct: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        out.push(pct.clone());
        out.push(pct.replace('+', "%20"));
        let html = |apos: &str, quot: &str| {
            let mut h = String::with_capacity(value.len());
            for c in value.chars() {
                match c {
                    '&' => h.push_str("&amp;"),
                    '<' => h.push_str("&lt;"),
                    '>' => h.push_str("&gt;"),
                    '"' => h.push_str(quot),
                    '\'' => h.push_str(apos),
                    c => h.push(c),
                }
            }
            h
        };
        out.push(html("&#39;", "&quot;"));
        out.push(html("&#x27;", "&#34;"));
        out.push(html("&apos;", "&quot;"));
        out.push(value.chars().map(|c| format!("&#{};", u32::from(c))).collect());
        if let Ok(json) = serde_json::to_string(value) {
            let inner = json[1..json.len() - 1].to_string();
            out.push(inner.replace('/', "\\/"));
            let ascii: String = inner.chars().map(|c| if c.is_ascii() { c.to_string() } else { c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect() }).collect();
            out.push(ascii.replace('/', "\\/"));
            out.push(ascii);
            out.push(inner);
        }
        // A short value's base64 is too short to tell from other text.
        let engines: &[&base64::engine::GeneralPurpose] = if value.len() >= 4 { &[&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] } else { &[] };
        for engine in engines {
            out.push(engine.encode(value.as_bytes()));
        }
        out.sort();
        out.dedup();
        // Longest first, so a replacement never leaves part of a longer form behind.
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        out
    }

    /// `text` with every secret value (in any of its `forms`) replaced by `SECRET_MASK`.
    pub fn mask(&self, text: &str) -> String {
        let mut out = text.to_string();
        let mut forms: Vec<String> = self.values.values().flat_map(|v| Self::forms(v)).collect();
        forms.sort_by_key(|s| std::cmp::Reverse(s.len()));
        for f in forms {
            if out.contains(&f) {
                out = out.replace(&f, SECRET_MASK);
            }
        }
        out
    }

    /// Masks every string inside a JSON value (keys included).
    pub fn mask_json(&self, value: &mut Value) {
        if self.values.is_empty() {
            return;
        }
        match value {
            Value::String(s) => *s = self.mask(s),
            Value::Array(a) => a.iter_mut().for_each(|v| self.mask_json(v)),
            Value::Object(m) => {
                let old = std::mem::take(m);
                for (k, mut v) in old {
                    self.mask_json(&mut v);
                    m.insert(self.mask(&k), v);
                }
            }
            _ => {}
        }
    }

    /// The names of secrets whose value (in any form) occurs in `text`.
    pub fn found_in(&self, text: &str) -> Vec<&str> {
        self.values.iter().filter(|(_, v)| Self::forms(v).iter().any(|f| text.contains(f.as_str()))).map(|(k, _)| k.as_str()).collect()
    }

    /// Only the named secrets.
    pub fn only(&self, names: &[String]) -> JourneySecrets {
        JourneySecrets { values: self.values.iter().filter(|(k, _)| names.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect() }
    }
}

/// A journey to run and its secrets: what `ScanOptions.journeys` holds (built from CLI files or,
/// for a stored site, from its journey rows and decrypted secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JourneySpec {
    pub journey: Journey,
    pub secrets: JourneySecrets,
}

impl JourneySpec {
    /// Pairs a journey with its secrets, refusing references to secrets it lacks.
    pub fn new(journey: Journey, secrets: JourneySecrets) -> Result<JourneySpec, JourneyError> {
        validate_secrets(&journey, &secrets.names())?;
        Ok(JourneySpec { journey, secrets })
    }
}
