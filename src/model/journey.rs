//! Journeys (active scans only): the owner's scripted paths through a site, often behind a login,
//! as JSON (YAML accepted), and what running one produced.
//!
//! The format (see OWNER.md): a `name`, an optional `logged_in` proof (`{"text": ...}` or
//! `{"selector": ...}`), and `steps`, each an object with exactly one action key and its options:
//! `navigate` (URL or path), `click` (selector), `fill` (selector, `value`), `select` (selector,
//! `value`), `check` / `uncheck` (selector), `press` (key), `wait_for` (`{"selector": s,
//! "state": "visible|hidden|gone"}` or `{"url": path-or-glob}`), `assert` (`{"text": t}` or
//! `{"url": u}`), `screenshot` (name), `audit` (label); any step may add `timeout_ms` (default
//! 10000). A `fill` or `select` value may say `{{secret.NAME}}`: the runner types the secret's
//! value only at that moment and masks it everywhere else.
//!
//! Parsing validates everything up front; every error names where it is
//! (`steps[3].fill: "value" is required`). Plain data, no I/O.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// A step's time limit unless it says `timeout_ms`.
pub const DEFAULT_STEP_TIMEOUT_MS: u64 = 10_000;
/// The longest `timeout_ms` a step may ask for.
pub const MAX_STEP_TIMEOUT_MS: u64 = 120_000;
/// Steps per journey.
pub const MAX_STEPS: usize = 200;
/// The longest journey text (JSON or YAML) read, in bytes.
pub const MAX_JOURNEY_BYTES: usize = 64 * 1024;
/// Extra origins a journey may list.
pub const MAX_ORIGINS: usize = 10;
/// The time all of a scan's journeys may take together; journeys (and steps) past it are skipped.
pub const MAX_JOURNEY_TIME_PER_SCAN: std::time::Duration = std::time::Duration::from_secs(600);
/// Screenshots (asked for, and taken on a failure) one scan's journeys may store together.
pub const MAX_SCREENSHOTS_PER_SCAN: usize = 40;
/// What a secret's value is replaced with wherever it would leave the runner.
pub const SECRET_MASK: &str = "••••••";
/// A click or key press slower than this to the next paint is a slow interaction.
pub const SLOW_INTERACTION_MS: f64 = 200.0;

/// The action keys, in the order the format lists them.
pub const ACTION_KEYS: &[&str] =
    &["navigate", "click", "fill", "select", "check", "uncheck", "press", "wait_for", "assert", "screenshot", "audit"];

/// One journey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journey {
    pub name: String,
    pub logged_in: Option<LoggedInProof>,
    /// Origins besides the site's that the journey may load and type secrets into
    /// (`https://id.example.com`, serialised as `Url::origin` does).
    pub origins: Vec<String>,
    pub steps: Vec<Step>,
}

/// How to tell the journey is logged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoggedInProof {
    /// The page's text contains this.
    Text(String),
    /// An element matching this selector is present.
    Selector(String),
}

/// One step: an action and its time limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub action: Action,
    pub timeout_ms: u64,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Navigate(String),
    Click(String),
    Fill { selector: String, value: String },
    Select { selector: String, value: String },
    Check(String),
    Uncheck(String),
    Press(String),
    WaitFor(WaitFor),
    Assert(Assertion),
    Screenshot(String),
    Audit(String),
}

/// What `wait_for` waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitFor {
    Selector { selector: String, state: ElementState },
    /// A path (`/account`), a full URL, or a glob of either (`*` any run, `?` one character).
    Url(String),
}

/// The state `wait_for` expects an element in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementState {
    Visible,
    Hidden,
    Gone,
}

impl ElementState {
    pub fn as_str(self) -> &'static str {
        match self {
            ElementState::Visible => "visible",
            ElementState::Hidden => "hidden",
            ElementState::Gone => "gone",
        }
    }
}

/// What `assert` expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assertion {
    Text(String),
    Url(String),
}

/// Why a journey was refused, naming where (`steps[3].fill`) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct JourneyError {
    /// `name`, `logged_in`, `steps`, `steps[3]`, `steps[3].fill`, `steps[3].wait_for.state`, ...
    pub path: String,
    pub message: String,
}

fn err<T>(path: impl Into<String>, message: impl Into<String>) -> Result<T, JourneyError> {
    Err(JourneyError { path: path.into(), message: message.into() })
}

impl Action {
    /// The action key (`fill`).
    pub fn key(&self) -> &'static str {
        match self {
            Action::Navigate(_) => "navigate",
            Action::Click(_) => "click",
            Action::Fill { .. } => "fill",
            Action::Select { .. } => "select",
            Action::Check(_) => "check",
            Action::Uncheck(_) => "uncheck",
            Action::Press(_) => "press",
            Action::WaitFor(_) => "wait_for",
            Action::Assert(_) => "assert",
            Action::Screenshot(_) => "screenshot",
            Action::Audit(_) => "audit",
        }
    }

    /// The element selector the step acts on, if any.
    pub fn selector(&self) -> Option<&str> {
        match self {
            Action::Click(s) | Action::Check(s) | Action::Uncheck(s) => Some(s),
            Action::Fill { selector, .. } | Action::Select { selector, .. } => Some(selector),
            Action::WaitFor(WaitFor::Selector { selector, .. }) => Some(selector),
            _ => None,
        }
    }

    /// The value it types, if any (may hold `{{secret.NAME}}` references).
    pub fn typed_value(&self) -> Option<&str> {
        match self {
            Action::Fill { value, .. } | Action::Select { value, .. } => Some(value),
            _ => None,
        }
    }

    /// A one-line description; values are shown as written (secret references, never secrets).
    pub fn summary(&self) -> String {
        let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
        match self {
            Action::Navigate(u) => format!("navigate {}", q(u)),
            Action::Click(s) => format!("click {}", q(s)),
            Action::Fill { selector, value } => format!("fill {} with {}", q(selector), q(value)),
            Action::Select { selector, value } => format!("select {} in {}", q(value), q(selector)),
            Action::Check(s) => format!("check {}", q(s)),
            Action::Uncheck(s) => format!("uncheck {}", q(s)),
            Action::Press(k) => format!("press {}", q(k)),
            Action::WaitFor(WaitFor::Selector { selector, state }) => format!("wait_for {} {}", q(selector), state.as_str()),
            Action::WaitFor(WaitFor::Url(u)) => format!("wait_for url {}", q(u)),
            Action::Assert(Assertion::Text(t)) => format!("assert text {}", q(t)),
            Action::Assert(Assertion::Url(u)) => format!("assert url {}", q(u)),
            Action::Screenshot(n) => format!("screenshot {}", q(n)),
            Action::Audit(l) => format!("audit {}", q(l)),
        }
    }
}

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
            match super::SecretName::parse(name).ok().filter(|n| n.as_str() == name) {
                Some(name) => out.push(name.into_string()),
                None => return Err(format!("{{{{{inner}}}}} is not a secret reference (write {{{{secret.NAME}}}}; {})", super::BadSecretName)),
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

/// Parses a journey from JSON (or YAML) text and validates it.
/// At most `MAX_JOURNEY_BYTES`; YAML without anchors or aliases (one alias can stand for a
/// whole subtree, so a few lines could expand to gigabytes).
pub fn parse_journey(text: &str) -> Result<Journey, JourneyError> {
    if text.len() > MAX_JOURNEY_BYTES {
        return err("journey", format!("{} bytes is over the limit of {} KiB", text.len(), MAX_JOURNEY_BYTES / 1024));
    }
    let trimmed = text.trim_start();
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(json_error) if trimmed.starts_with('{') => return err("journey", format!("not valid JSON: {json_error}")),
        Err(_) => {
            if let Some(what) = yaml_anchor_or_alias(text) {
                return err("journey", format!("YAML {what} are not accepted (write each value out)"));
            }
            match serde_yaml::from_str::<Value>(text) {
                Ok(v) => v,
                Err(yaml_error) => return err("journey", format!("neither JSON nor YAML: {yaml_error}")),
            }
        }
    };
    Journey::from_value(&value)
}

/// `Some("anchors")` / `Some("aliases")` when YAML text uses either, read with the YAML
/// tokenizer's own rules for where `&name` and `*name` can start a node: after the start of a
/// line's content, a `- `, a `key: `, a `[`, `{` or `,`, outside quoted scalars and comments.
/// Anything that merely looks like one inside a plain scalar (`a*b`, `x & y`) is left alone.
fn yaml_anchor_or_alias(text: &str) -> Option<&'static str> {
    for line in text.lines() {
        let mut quote: Option<char> = None;
        // Whether the next non-space character starts a node.
        let mut node_start = true;
        let mut prev = ' ';
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if let Some(q) = quote {
                if c == q {
                    if q == '\'' && chars.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    quote = None;
                } else if q == '"' && c == '\\' {
                    i += 1;
                }
                prev = c;
                i += 1;
                continue;
            }
            match c {
                '#' if prev == ' ' || prev == '\t' || i == 0 => break,
                ' ' | '\t' => {}
                '"' | '\'' if node_start => quote = Some(c),
                '!' if node_start => {
                    // A tag (`!!str`, `!local`): the node it tags follows it.
                    while i < chars.len() && !matches!(chars[i], ' ' | '\t') {
                        i += 1;
                    }
                    prev = ' ';
                    continue;
                }
                '&' if node_start => return Some("anchors"),
                '*' if node_start => return Some("aliases"),
                '-' | '?' if node_start && matches!(chars.get(i + 1), None | Some(' ') | Some('\t')) => {}
                '[' | '{' | ',' => node_start = true,
                ':' if matches!(chars.get(i + 1), None | Some(' ') | Some('\t')) => node_start = true,
                _ => node_start = false,
            }
            if !matches!(c, ' ' | '\t' | '-' | '?' | '[' | '{' | ',' | ':') {
                node_start = false;
            }
            prev = c;
            i += 1;
        }
    }
    None
}

/// Whether a `navigate` target names a scheme of its own (`file:/x`, `javascript:...`), as
/// opposed to a path, a query or a scheme-relative `//host/x`.
fn scheme_of(target: &str) -> Option<String> {
    let t = target.trim_start();
    let colon = t.find(':')?;
    let scheme = &t[..colon];
    let first = scheme.chars().next()?;
    (first.is_ascii_alphabetic() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .then(|| scheme.to_ascii_lowercase())
}

/// What a journey may load: an http(s) URL, or `about:blank`. `Err` says why not.
pub fn loadable(url: &str) -> Result<url::Url, String> {
    if url.trim() == "about:blank" {
        return url::Url::parse("about:blank").map_err(|e| e.to_string());
    }
    let parsed = url::Url::parse(url.trim()).map_err(|e| format!("{url} is not a URL ({e})"))?;
    match parsed.scheme() {
        "http" | "https" if parsed.host_str().is_some() => Ok(parsed),
        "http" | "https" => Err(format!("{url} has no host")),
        other => Err(format!("a journey loads only http and https pages, not {other}: URLs")),
    }
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

fn string_of(v: &Value, path: &str, what: &str) -> Result<String, JourneyError> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
        Value::String(_) => err(path, format!("{what} must not be empty")),
        other => err(path, format!("expected {what} (a string), got {}", kind(other))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The one key of a small object among `allowed` (`{"text": ...}` or `{"selector": ...}`).
fn one_of<'a>(v: &'a Value, path: &str, allowed: &[&str]) -> Result<(&'a str, &'a Value, &'a Map<String, Value>), JourneyError> {
    let shape = allowed.iter().map(|k| format!("{{\"{k}\": ...}}")).collect::<Vec<_>>().join(" or ");
    let Value::Object(map) = v else { return err(path, format!("expected {shape}, got {}", kind(v))) };
    let present: Vec<&String> = map.keys().filter(|k| allowed.contains(&k.as_str())).collect();
    match present.as_slice() {
        [one] => Ok((one.as_str(), &map[one.as_str()], map)),
        [] => err(path, format!("expected {shape}")),
        _ => err(path, format!("give only one of {}", allowed.join(", "))),
    }
}

impl Journey {
    /// Validates the JSON form of a journey.
    pub fn from_value(v: &Value) -> Result<Journey, JourneyError> {
        let Value::Object(top) = v else { return err("journey", format!("expected an object, got {}", kind(v))) };
        for key in top.keys() {
            if !["name", "logged_in", "origins", "steps"].contains(&key.as_str()) {
                return err(key.as_str(), "unknown field (a journey has name, logged_in, origins and steps)");
            }
        }
        let name = match top.get("name") {
            Some(n) => string_of(n, "name", "a name")?,
            None => return err("name", "is required"),
        };
        let logged_in = match top.get("logged_in") {
            None | Some(Value::Null) => None,
            Some(p) => {
                let (key, value, map) = one_of(p, "logged_in", &["text", "selector"])?;
                if let Some(extra) = map.keys().find(|k| k.as_str() != key) {
                    return err(format!("logged_in.{extra}"), "unknown field");
                }
                let s = string_of(value, &format!("logged_in.{key}"), key)?;
                Some(if key == "text" { LoggedInProof::Text(s) } else { LoggedInProof::Selector(s) })
            }
        };
        let origins = match top.get("origins") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) if a.len() > MAX_ORIGINS => return err("origins", format!("at most {MAX_ORIGINS} origins")),
            Some(Value::Array(a)) => {
                let mut out: Vec<String> = Vec::new();
                for (i, o) in a.iter().enumerate() {
                    let at = format!("origins[{i}]");
                    let text = string_of(o, &at, "an origin such as \"https://id.example.com\"")?;
                    let origin = parse_origin(&text).map_err(|m| JourneyError { path: at.clone(), message: m })?;
                    if !out.contains(&origin) {
                        out.push(origin);
                    }
                }
                out
            }
            Some(other) => return err("origins", format!("expected a list of origins, got {}", kind(other))),
        };
        let steps = match top.get("steps") {
            Some(Value::Array(a)) if a.is_empty() => return err("steps", "at least one step is required"),
            Some(Value::Array(a)) if a.len() > MAX_STEPS => return err("steps", format!("at most {MAX_STEPS} steps")),
            Some(Value::Array(a)) => a.iter().enumerate().map(|(i, s)| parse_step(i, s)).collect::<Result<Vec<_>, _>>()?,
            Some(other) => return err("steps", format!("expected a list, got {}", kind(other))),
            None => return err("steps", "is required"),
        };
        Ok(Journey { name, logged_in, origins, steps })
    }

    /// Checks the journey against the site it belongs to: every absolute `navigate` stays on
    /// `site_origin` or one of `origins`, and every listed origin is https (or http when the site
    /// itself is http, as a development site on a private address is).
    pub fn check_origins(&self, site_origin: &str) -> Result<(), JourneyError> {
        let site = url::Url::parse(site_origin).map_err(|e| JourneyError { path: "site".into(), message: format!("{site_origin}: {e}") })?;
        let site_origin = site.origin().ascii_serialization();
        for (i, o) in self.origins.iter().enumerate() {
            if o.starts_with("http:") && site.scheme() != "http" {
                return err(format!("origins[{i}]"), format!("{o} is not https (the site is)"));
            }
        }
        for (i, s) in self.steps.iter().enumerate() {
            let Action::Navigate(target) = &s.action else { continue };
            if target.trim() == "about:blank" {
                continue;
            }
            let Ok(url) = site.join(target) else { continue };
            let origin = url.origin().ascii_serialization();
            if origin != site_origin && !self.origins.contains(&origin) {
                return err(
                    format!("steps[{i}].navigate"),
                    format!("{origin} is neither the site's origin ({site_origin}) nor one of the journey's \"origins\""),
                );
            }
        }
        Ok(())
    }

    /// The origins a run of this journey from `start` may load: the start's and the listed ones.
    pub fn allowed_origins(&self, start: &str) -> Vec<String> {
        let mut out: Vec<String> = url::Url::parse(start).ok().map(|u| u.origin().ascii_serialization()).into_iter().collect();
        out.extend(self.origins.iter().cloned());
        out
    }

    /// The JSON form (what `from_value` reads).
    pub fn to_value(&self) -> Value {
        let mut top = Map::new();
        top.insert("name".into(), json!(self.name));
        match &self.logged_in {
            Some(LoggedInProof::Text(t)) => top.insert("logged_in".into(), json!({"text": t})),
            Some(LoggedInProof::Selector(s)) => top.insert("logged_in".into(), json!({"selector": s})),
            None => None,
        };
        if !self.origins.is_empty() {
            top.insert("origins".into(), json!(self.origins));
        }
        let steps = self
            .steps
            .iter()
            .map(|s| {
                let mut m = Map::new();
                let (key, arg) = match &s.action {
                    Action::Navigate(x) | Action::Click(x) | Action::Check(x) | Action::Uncheck(x) | Action::Press(x) => (s.action.key(), json!(x)),
                    Action::Screenshot(x) | Action::Audit(x) => (s.action.key(), json!(x)),
                    Action::Fill { selector, value } | Action::Select { selector, value } => {
                        m.insert("value".into(), json!(value));
                        (s.action.key(), json!(selector))
                    }
                    Action::WaitFor(WaitFor::Selector { selector, state }) => ("wait_for", json!({"selector": selector, "state": state.as_str()})),
                    Action::WaitFor(WaitFor::Url(u)) => ("wait_for", json!({"url": u})),
                    Action::Assert(Assertion::Text(t)) => ("assert", json!({"text": t})),
                    Action::Assert(Assertion::Url(u)) => ("assert", json!({"url": u})),
                };
                m.insert(key.into(), arg);
                if s.timeout_ms != DEFAULT_STEP_TIMEOUT_MS {
                    m.insert("timeout_ms".into(), json!(s.timeout_ms));
                }
                Value::Object(m)
            })
            .collect();
        top.insert("steps".into(), Value::Array(steps));
        Value::Object(top)
    }

    /// Every secret name the journey refers to.
    pub fn secret_names(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.steps.iter().filter_map(|s| s.action.typed_value()).flat_map(|v| secret_refs(v).unwrap_or_default()).collect();
        out.sort();
        out.dedup();
        out
    }
}

impl Serialize for Journey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Journey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Journey::from_value(&v).map_err(serde::de::Error::custom)
    }
}

fn parse_step(i: usize, v: &Value) -> Result<Step, JourneyError> {
    let path = format!("steps[{i}]");
    let Value::Object(map) = v else { return err(path, format!("expected an object with one action key, got {}", kind(v))) };
    let actions: Vec<&str> = map.keys().map(String::as_str).filter(|k| ACTION_KEYS.contains(k)).collect();
    let key = match actions.as_slice() {
        [one] => *one,
        [] => {
            let unknown = map.keys().find(|k| !["value", "timeout_ms"].contains(&k.as_str()));
            return match unknown {
                Some(k) => err(format!("{path}.{k}"), format!("unknown action key (one of {})", ACTION_KEYS.join(", "))),
                None => err(path, format!("no action key (one of {})", ACTION_KEYS.join(", "))),
            };
        }
        many => return err(path, format!("two action keys ({}); a step does one thing", many.join(", "))),
    };
    let takes_value = matches!(key, "fill" | "select");
    for k in map.keys() {
        match k.as_str() {
            k if k == key => {}
            "timeout_ms" => {}
            "value" if takes_value => {}
            "value" => return err(format!("{path}.value"), format!("\"{key}\" takes no \"value\"")),
            other => return err(format!("{path}.{other}"), format!("unknown option of \"{key}\"")),
        }
    }
    let timeout_ms = match map.get("timeout_ms") {
        None => DEFAULT_STEP_TIMEOUT_MS,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(ms) if (1..=MAX_STEP_TIMEOUT_MS).contains(&ms) => ms,
            _ => return err(format!("{path}.timeout_ms"), format!("{n} is out of range (1 to {MAX_STEP_TIMEOUT_MS} milliseconds)")),
        },
        Some(other) => return err(format!("{path}.timeout_ms"), format!("expected a number of milliseconds, got {}", kind(other))),
    };
    let at = format!("{path}.{key}");
    let arg = &map[key];
    let value = |what: &str| -> Result<String, JourneyError> {
        match map.get("value") {
            None => err(at.clone(), "\"value\" is required"),
            Some(Value::String(s)) => {
                secret_refs(s).map_err(|m| JourneyError { path: format!("{path}.value"), message: m })?;
                let _ = what;
                Ok(s.clone())
            }
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(other) => err(format!("{path}.value"), format!("expected a string, got {}", kind(other))),
        }
    };
    let no_secret = |s: &str| -> Result<(), JourneyError> {
        match secret_refs(s) {
            Ok(r) if r.is_empty() => Ok(()),
            Ok(_) => err(at.clone(), "secrets can only be typed (in the \"value\" of fill or select)"),
            Err(m) => err(at.clone(), m),
        }
    };
    let action = match key {
        "navigate" => {
            let u = string_of(arg, &at, "a URL or path")?;
            no_secret(&u)?;
            if u.chars().any(char::is_control) {
                return err(at, "a URL or path has no control characters");
            }
            if scheme_of(&u).is_some() {
                loadable(&u).map_err(|m| JourneyError { path: at.clone(), message: m })?;
            }
            Action::Navigate(u)
        }
        "click" => Action::Click(string_of(arg, &at, "a selector")?),
        "check" => Action::Check(string_of(arg, &at, "a selector")?),
        "uncheck" => Action::Uncheck(string_of(arg, &at, "a selector")?),
        "press" => {
            let k = string_of(arg, &at, "a key name")?;
            no_secret(&k)?;
            Action::Press(k)
        }
        "fill" => Action::Fill { selector: string_of(arg, &at, "a selector")?, value: value("fill")? },
        "select" => Action::Select { selector: string_of(arg, &at, "a selector")?, value: value("select")? },
        "screenshot" => Action::Screenshot(string_of(arg, &at, "a name")?),
        "audit" => Action::Audit(string_of(arg, &at, "a label")?),
        "wait_for" => {
            let (which, inner, obj) = one_of(arg, &at, &["selector", "url"])?;
            for k in obj.keys() {
                let ok = k == which || (which == "selector" && k == "state");
                if !ok {
                    return err(format!("{at}.{k}"), if k == "state" { "\"state\" goes with \"selector\"" } else { "unknown option" });
                }
            }
            if which == "url" {
                let u = string_of(inner, &format!("{at}.url"), "a path, URL or glob")?;
                no_secret(&u)?;
                Action::WaitFor(WaitFor::Url(u))
            } else {
                let selector = string_of(inner, &format!("{at}.selector"), "a selector")?;
                let state = match obj.get("state") {
                    None => ElementState::Visible,
                    Some(Value::String(s)) => match s.as_str() {
                        "visible" => ElementState::Visible,
                        "hidden" => ElementState::Hidden,
                        "gone" => ElementState::Gone,
                        other => return err(format!("{at}.state"), format!("\"{other}\" is not one of visible, hidden, gone")),
                    },
                    Some(other) => return err(format!("{at}.state"), format!("expected visible, hidden or gone, got {}", kind(other))),
                };
                Action::WaitFor(WaitFor::Selector { selector, state })
            }
        }
        "assert" => {
            let (which, inner, obj) = one_of(arg, &at, &["text", "url"])?;
            if let Some(extra) = obj.keys().find(|k| k.as_str() != which) {
                return err(format!("{at}.{extra}"), "unknown option");
            }
            let s = string_of(inner, &format!("{at}.{which}"), if which == "text" { "a text" } else { "a path, URL or glob" })?;
            no_secret(&s)?;
            Action::Assert(if which == "text" { Assertion::Text(s) } else { Assertion::Url(s) })
        }
        _ => return err(at, "unknown action key"),
    };
    Ok(Step { action, timeout_ms })
}

/// Whether a journey whose origins are `allowed` may load `url`: `about:blank`, or http(s) on one
/// of them. `Err` says why not (what the step's error shows).
pub fn may_load(url: &str, allowed: &[String]) -> Result<(), String> {
    let parsed = loadable(url)?;
    if parsed.scheme() == "about" {
        return Ok(());
    }
    let origin = parsed.origin().ascii_serialization();
    if allowed.contains(&origin) {
        Ok(())
    } else {
        Err(format!("{origin} is neither the site's origin nor one of the journey's \"origins\""))
    }
}

/// An `origins` entry: an http(s) URL that is only an origin (no path, query, fragment or user),
/// in `Url::origin`'s serialisation.
fn parse_origin(text: &str) -> Result<String, String> {
    let url = loadable(text)?;
    if url.scheme() == "about" {
        return Err(format!("{text} is not an http(s) origin"));
    }
    if !url.username().is_empty() || url.password().is_some() || url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text} is more than an origin (write scheme://host[:port] only)"));
    }
    Ok(url.origin().ascii_serialization())
}

/// Whether `url` matches `pattern`: a full URL or glob of one, or a path (glob) compared with the
/// URL's path and query. `*` matches any run of characters, `?` one character.
pub fn url_matches(pattern: &str, url: &str) -> bool {
    let target = if pattern.contains("://") {
        url.to_string()
    } else {
        match url.split_once("://").and_then(|(_, rest)| rest.find('/').map(|i| rest[i..].to_string())) {
            Some(p) => p.split('#').next().unwrap_or_default().to_string(),
            None => return false,
        }
    };
    glob(pattern.as_bytes(), target.as_bytes())
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
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

/// How a step ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    #[default]
    Ok,
    Failed,
    Timeout,
    /// Not run: an earlier step failed.
    Skipped,
}

/// One step's result. Every string is masked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepResult {
    pub index: usize,
    /// The action key (`click`).
    pub action: String,
    /// `Action::summary`, masked.
    pub summary: String,
    pub selector: Option<String>,
    pub status: StepStatus,
    pub error: Option<String>,
    /// The name of a screenshot in `JourneyOutcome.screenshots` (a `screenshot` step's, or the
    /// one taken when the step failed).
    pub screenshot: Option<String>,
    /// Where the page was after the step.
    pub url_after: Option<String>,
    pub elapsed_ms: u64,
    /// For `click` and `press`: from the input event to the next paint.
    pub interaction_to_paint_ms: Option<f64>,
}

/// A navigation or form submission the journey caused, and its answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyResponse {
    pub step: usize,
    pub method: String,
    pub url: String,
    pub status: u16,
    /// `Document`, `XHR`, `Fetch`.
    pub resource_type: String,
}

/// An uncaught exception thrown during a step.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyException {
    pub step: usize,
    pub message: String,
    pub url: Option<String>,
}

/// The check of the `logged_in` proof after the login steps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoggedInResult {
    /// `text "Sign out"` or `selector "#logout"`.
    pub proof: String,
    pub present: bool,
    /// The step after which it was checked.
    pub after_step: usize,
    pub url: String,
}

/// A typed secret seen afterwards where scripts or people can read it. Never the value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SecretExposure {
    /// The step after which it was seen.
    pub step: usize,
    /// The secret's name.
    pub secret: String,
    /// `url`, `page text`, `localStorage["key"]`, `sessionStorage["key"]`, `cookie "name"`.
    pub location: String,
    pub url: String,
}

/// A screenshot taken during a journey (secret inputs hidden while it was taken).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyScreenshot {
    pub name: String,
    pub step: usize,
    pub png_base64: String,
}

/// What running one journey produced (the `journeys.*` checks judge it). Every string is masked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JourneyOutcome {
    pub name: String,
    /// Where the journey started.
    pub start_url: String,
    pub steps: Vec<StepResult>,
    pub responses: Vec<JourneyResponse>,
    pub exceptions: Vec<JourneyException>,
    pub logged_in: Option<LoggedInResult>,
    pub secret_exposures: Vec<SecretExposure>,
    pub screenshots: Vec<JourneyScreenshot>,
    /// The journey could not run at all (no browser, the page could not be opened).
    pub error: Option<String>,
}

impl JourneyOutcome {
    /// The URL a step's findings belong to: where the page was after it (else before it).
    pub fn url_at(&self, step: usize) -> String {
        self.steps
            .iter()
            .take(step + 1)
            .rev()
            .find_map(|s| s.url_after.clone())
            .unwrap_or_else(|| self.start_url.clone())
    }

    pub fn step(&self, index: usize) -> Option<&StepResult> {
        self.steps.iter().find(|s| s.index == index)
    }
}

/// An `audit` step's snapshot of the page as the journey reached it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JourneyAudit {
    pub step: usize,
    /// The audit's label, masked.
    pub label: String,
    pub snapshot: super::PageSnapshot,
}

/// What the browser hands back for one journey: its outcome (for the `journeys.*` checks) and
/// the states its `audit` steps captured (for the page checks).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JourneyRun {
    pub outcome: JourneyOutcome,
    pub audits: Vec<JourneyAudit>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER_EXAMPLE: &str = r##"{"name": "sign in", "logged_in": {"text": "Sign out"}, "steps": [
    {"navigate": "/login"},
    {"fill": "#email", "value": "owner@example.org"},
    {"fill": "#password", "value": "{{secret.PASSWORD}}"},
    {"click": "button[type=submit]"},
    {"wait_for": {"url": "/account*"}},
    {"audit": "account page"}]}"##;

    fn error_of(text: &str) -> String {
        parse_journey(text).expect_err("refused").to_string()
    }

    #[test]
    fn owner_example_parses_and_round_trips() {
        let j = parse_journey(OWNER_EXAMPLE).expect("parses");
        assert_eq!(j.name, "sign in");
        assert_eq!(j.logged_in, Some(LoggedInProof::Text("Sign out".into())));
        assert_eq!(j.steps.len(), 6);
        assert_eq!(j.steps[2].action, Action::Fill { selector: "#password".into(), value: "{{secret.PASSWORD}}".into() });
        assert_eq!(j.steps[4].action, Action::WaitFor(WaitFor::Url("/account*".into())));
        assert!(j.steps.iter().all(|s| s.timeout_ms == DEFAULT_STEP_TIMEOUT_MS));
        assert_eq!(j.secret_names(), vec!["PASSWORD".to_string()]);
        let again: Journey = serde_json::from_value(serde_json::to_value(&j).unwrap()).unwrap();
        assert_eq!(again, j);
        assert!(validate_secrets(&j, &["PASSWORD"]).is_ok());
        assert_eq!(validate_secrets(&j, &["OTHER"]).unwrap_err().to_string(), "steps[2].value: unknown secret \"PASSWORD\" (known: OTHER)");
        assert_eq!(validate_secrets::<&str>(&j, &[]).unwrap_err().path, "steps[2].value");
    }

    #[test]
    fn yaml_is_accepted() {
        let yaml = "name: shop\nlogged_in:\n  selector: '#logout'\nsteps:\n  - navigate: /\n  - click: '#add'\n    timeout_ms: 1500\n  - wait_for:\n      selector: '#cart'\n      state: hidden\n  - select: '#size'\n    value: M\n  - press: Enter\n  - assert:\n      text: Thanks\n  - screenshot: done\n";
        let j = parse_journey(yaml).expect("yaml parses");
        assert_eq!(j.logged_in, Some(LoggedInProof::Selector("#logout".into())));
        assert_eq!(j.steps[1].timeout_ms, 1500);
        assert_eq!(j.steps[2].action, Action::WaitFor(WaitFor::Selector { selector: "#cart".into(), state: ElementState::Hidden }));
        assert_eq!(j.steps[3].action, Action::Select { selector: "#size".into(), value: "M".into() });
        assert_eq!(j.steps[5].action, Action::Assert(Assertion::Text("Thanks".into())));
        let bad = "name: shop\nsteps:\n  - navigate: /\n  - fill: '#q'\n";
        assert_eq!(error_of(bad), "steps[1].fill: \"value\" is required");
        let bad_state = "name: shop\nsteps:\n  - wait_for: {selector: '#x', state: shown}\n";
        assert_eq!(error_of(bad_state), "steps[0].wait_for.state: \"shown\" is not one of visible, hidden, gone");
    }

    #[test]
    fn every_error_names_the_step_and_field() {
        let cases: &[(&str, &str)] = &[
            (r##"{"name": "x", "steps": [{"navigate": "/"}, {"navigate": "/a"}, {"click": "a"}, {"fill": "#q"}]}"##, "steps[3].fill: \"value\" is required"),
            (r##"{"name": "x", "steps": [{"clik": "a"}]}"##, "steps[0].clik: unknown action key"),
            (r##"{"name": "x", "steps": [{"click": "a", "fill": "b", "value": "c"}]}"##, "steps[0]: two action keys"),
            (r##"{"name": "x", "steps": [{"wait_for": {"selector": "a", "state": "shown"}}]}"##, "steps[0].wait_for.state: \"shown\" is not one of"),
            (r##"{"name": "x", "steps": [{"click": "a", "timeout_ms": 0}]}"##, "steps[0].timeout_ms: 0 is out of range"),
            (r##"{"name": "x", "steps": [{"click": "a", "timeout_ms": 999999}]}"##, "steps[0].timeout_ms: 999999 is out of range"),
            (r##"{"name": "x", "steps": [{"click": "a", "timeout_ms": "fast"}]}"##, "steps[0].timeout_ms: expected a number"),
            (r##"{"name": "x", "steps": [{"click": "a", "value": "b"}]}"##, "steps[0].value: \"click\" takes no \"value\""),
            (r##"{"name": "x", "steps": [{"click": "a", "delay": 3}]}"##, "steps[0].delay: unknown option of \"click\""),
            (r##"{"name": "x", "steps": [{"click": 3}]}"##, "steps[0].click: expected a selector (a string), got a number"),
            (r##"{"name": "x", "steps": [{"timeout_ms": 3}]}"##, "steps[0]: no action key"),
            (r##"{"name": "x", "steps": ["click"]}"##, "steps[0]: expected an object"),
            (r##"{"name": "x", "steps": [{"wait_for": {"url": "/a", "selector": "b"}}]}"##, "steps[0].wait_for: give only one of"),
            (r##"{"name": "x", "steps": [{"assert": {"title": "a"}}]}"##, "steps[0].assert: expected {\"text\": ...} or {\"url\": ...}"),
            (r##"{"name": "x", "steps": [{"fill": "#p", "value": "{{secret.}}"}]}"##, "steps[0].value: {{secret.}} is not a secret reference"),
            (r##"{"name": "x", "steps": [{"navigate": "/?t={{secret.T}}"}]}"##, "steps[0].navigate: secrets can only be typed"),
            (r##"{"name": "x", "steps": []}"##, "steps: at least one step is required"),
            (r##"{"steps": [{"click": "a"}]}"##, "name: is required"),
            (r##"{"name": "x", "logged_in": {"cookie": "sid"}, "steps": [{"click": "a"}]}"##, "logged_in: expected {\"text\": ...} or {\"selector\": ...}"),
            (r##"{"name": "x", "steps": [{"click": "a"}], "extra": 1}"##, "extra: unknown field"),
            (r##"{"name": "x", "steps": [{"click": "a"}"##, "journey: not valid JSON"),
        ];
        for (text, expected) in cases {
            let got = error_of(text);
            assert!(got.starts_with(expected), "{text}\n  expected: {expected}\n  got:      {got}");
        }
    }

    #[test]
    fn urls_match_paths_and_globs() {
        assert!(url_matches("/account*", "http://127.0.0.1:5/account?pw=x"));
        assert!(url_matches("/account", "http://127.0.0.1:5/account"));
        assert!(!url_matches("/account", "http://127.0.0.1:5/account/orders"));
        assert!(!url_matches("/account*", "http://127.0.0.1:5/login"));
        assert!(url_matches("http://127.0.0.1:*/c?rt", "http://127.0.0.1:9/cart"));
        assert!(url_matches("/*/done", "http://a.test/checkout/done#top"));
    }

    #[test]
    fn secrets_are_masked_in_every_form_and_never_debug_printed() {
        let mut s = JourneySecrets::new();
        s.insert("PASSWORD", "p@ss word&1");
        assert_eq!(format!("{s:?}"), "{\"PASSWORD\": \"••••••\"}");
        assert_eq!(s.mask("pw=p%40ss+word%261 and p@ss word&1"), "pw=•••••• and ••••••");
        assert_eq!(s.mask("pw=p%40ss%20word%261"), "pw=••••••");
        assert_eq!(s.found_in("x?pw=p%40ss+word%261"), vec!["PASSWORD"]);
        assert!(s.found_in("nothing").is_empty());
        let mut v = json!({"url": "http://a/?pw=p%40ss+word%261", "list": ["p@ss word&1"]});
        s.mask_json(&mut v);
        assert!(!v.to_string().contains("ss"), "{v}");
        let spec = JourneySpec::new(parse_journey(OWNER_EXAMPLE).unwrap(), { let mut x = JourneySecrets::new(); x.insert("PASSWORD", "hunter2"); x }).unwrap();
        assert!(!format!("{spec:?}").contains("hunter2"));
        assert_eq!(substitute("{{secret.PASSWORD}}!", &spec.secrets), "hunter2!");
        assert_eq!(substitute("a{{ secret.PASSWORD }}b{{secret.OTHER}}{{x}}{{", &spec.secrets), "ahunter2b{{secret.OTHER}}{{x}}{{", "read as the references are");
    }

    #[test]
    fn navigate_loads_only_http_and_https() {
        for bad in ["file:///etc/passwd", "FILE:///etc/passwd", "data:text/html,hi", "javascript:alert(1)", "chrome://settings", "view-source:http://a.test/", "about:config", "filesystem:http://a.test/temporary/x", "blob:http://a.test/x", " file:///x"] {
            let text = format!(r#"{{"name": "x", "steps": [{{"navigate": {}}}]}}"#, serde_json::to_string(bad).unwrap());
            let e = parse_journey(&text).expect_err(bad);
            assert_eq!(e.path, "steps[0].navigate", "{bad}: {e}");
            assert!(e.message.contains("only http and https"), "{bad}: {e}");
        }
        for ok in ["/login", "login?x=1", "//a.test/x", "https://a.test/", "http://127.0.0.1:8080/a", "about:blank", "?q=1#top"] {
            let text = format!(r#"{{"name": "x", "steps": [{{"navigate": {}}}]}}"#, serde_json::to_string(ok).unwrap());
            assert!(parse_journey(&text).is_ok(), "{ok}");
        }
    }

    #[test]
    fn journeys_stay_on_the_sites_origin_and_the_listed_ones() {
        let j = parse_journey(r#"{"name": "x", "origins": ["https://id.example.com/", "https://ID.example.com"], "steps": [{"navigate": "/login"}, {"navigate": "https://id.example.com/authorize"}, {"navigate": "https://shop.example.com:443/done"}]}"#).unwrap();
        assert_eq!(j.origins, vec!["https://id.example.com".to_string()]);
        assert!(j.check_origins("https://shop.example.com").is_ok());
        let e = j.check_origins("https://other.example.com").unwrap_err();
        assert_eq!(e.path, "steps[2].navigate");
        assert_eq!(j.allowed_origins("https://shop.example.com/"), vec!["https://shop.example.com".to_string(), "https://id.example.com".to_string()]);
        let off = parse_journey(r#"{"name": "x", "steps": [{"navigate": "//evil.test/phish"}]}"#).unwrap();
        assert!(off.check_origins("https://shop.example.com").unwrap_err().message.contains("https://evil.test"));
        let plain = parse_journey(r#"{"name": "x", "origins": ["http://id.example.com"], "steps": [{"navigate": "/"}]}"#).unwrap();
        assert_eq!(plain.check_origins("https://shop.example.com").unwrap_err().path, "origins[0]");
        assert!(plain.check_origins("http://127.0.0.1:9000").is_ok(), "an http site may list http origins");
        for (bad, why) in [("https://id.example.com/path", "more than an origin"), ("https://u:p@id.example.com", "more than an origin"), ("file:///x", "only http and https"), ("id.example.com", "not a URL")] {
            let text = format!(r#"{{"name": "x", "origins": [{}], "steps": [{{"navigate": "/"}}]}}"#, serde_json::to_string(bad).unwrap());
            let e = parse_journey(&text).unwrap_err();
            assert!(e.path == "origins[0]" && e.message.contains(why), "{bad}: {e}");
        }
        let again: Journey = serde_json::from_value(serde_json::to_value(&j).unwrap()).unwrap();
        assert_eq!(again, j);
    }

    #[test]
    fn a_run_may_load_only_its_origins() {
        let allowed = vec!["http://127.0.0.1:8080".to_string(), "https://id.example.com".to_string()];
        assert!(may_load("http://127.0.0.1:8080/account?x=1", &allowed).is_ok());
        assert!(may_load("https://id.example.com/authorize", &allowed).is_ok());
        assert!(may_load("about:blank", &allowed).is_ok());
        assert!(may_load("http://127.0.0.1:8081/", &allowed).unwrap_err().contains("http://127.0.0.1:8081 is neither"));
        for bad in ["file:///etc/passwd", "data:text/html,x", "chrome://version", "view-source:http://127.0.0.1:8080/", "about:srcdoc", "blob:http://127.0.0.1:8080/1"] {
            assert!(may_load(bad, &allowed).is_err(), "{bad}");
        }
    }

    #[test]
    fn input_is_bounded_and_yaml_has_no_anchors_or_aliases() {
        let big = format!(r#"{{"name": "{}", "steps": [{{"navigate": "/"}}]}}"#, "x".repeat(MAX_JOURNEY_BYTES));
        assert!(error_of(&big).starts_with("journey: "), "{}", error_of(&big));
        assert!(error_of(&big).contains("64 KiB"));
        let laughs = "name: lol\nsteps:\n  - &a {click: a}\n  - *a\n";
        assert!(error_of(laughs).contains("anchors"), "{}", error_of(laughs));
        let alias = "name: lol\nx: &v /\nsteps: [{navigate: *v}]\n";
        assert!(error_of(alias).contains("anchors"));
        let alias_only = "name: lol\nsteps:\n  - navigate: *v\n";
        assert!(error_of(alias_only).contains("aliases"), "{}", error_of(alias_only));
        let tagged = "name: lol\nsteps:\n  - navigate: !!str &v /\n";
        assert!(error_of(tagged).contains("anchors"), "{}", error_of(tagged));
        // Look-alikes inside scalars and comments are text.
        let fine = "name: 'a & b *c'\nsteps:\n  - click: 'a[href*=x]'\n  - fill: \"#q\"\n    value: fish & chips *fresh*  # *not an alias\n  - click: a*b\n";
        let j = parse_journey(fine).expect("look-alikes are plain text");
        assert_eq!(j.steps[1].action, Action::Fill { selector: "#q".into(), value: "fish & chips *fresh*".into() });
    }

    #[test]
    fn masking_covers_html_json_and_base64_forms() {
        let mut s = JourneySecrets::new();
        s.insert("PASSWORD", "p<a>ss\"w/ord&é");
        let v = "p<a>ss\"w/ord&é";
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD.encode(v);
        let b64url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
        let evidence = format!(
            "html p&lt;a&gt;ss&quot;w/ord&amp;é | json {} | ascii-json p<a>ss\\\"w\\/ord&\\u00e9 | b64 {b64} | b64url {b64url} | numeric {}",
            &serde_json::to_string(v).unwrap(),
            v.chars().map(|c| format!("&#{};", u32::from(c))).collect::<String>()
        );
        let masked = s.mask(&evidence);
        assert!(!masked.contains("ss"), "{masked}");
        assert_eq!(masked.matches(SECRET_MASK).count(), 6, "{masked}");
        assert_eq!(s.found_in(&format!("Authorization: Basic {b64}")), vec!["PASSWORD"]);
        let mut short = JourneySecrets::new();
        short.insert("PIN", "123");
        assert_eq!(short.mask("MTIz stays"), "MTIz stays", "no base64 form for a value too short to tell apart");
    }
}
