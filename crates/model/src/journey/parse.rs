//! Parsing: JSON (or YAML) text to a validated `Journey`; every error names where it is.

use super::{
    ACTION_KEYS, Action, Assertion, DEFAULT_STEP_TIMEOUT_MS, ElementState, Journey, JourneyError, LoggedInProof, MAX_JOURNEY_BYTES,
    MAX_ORIGINS, MAX_STEP_TIMEOUT_MS, MAX_STEPS, Step, WaitFor, err, loadable, parse_origin, scheme_of, secret_refs,
};
use serde_json::{Map, Value};

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
            if let Some(what) = crate::tenant_yaml::anchor_or_alias(text) {
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
