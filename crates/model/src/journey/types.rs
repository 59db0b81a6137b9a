//! The journey as data: its steps and actions, its JSON form, and the limits the parser and the
//! runner keep.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

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
pub(super) fn err<T>(path: impl Into<String>, message: impl Into<String>) -> Result<T, JourneyError> {
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
impl Journey {
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
