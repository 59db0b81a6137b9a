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
//!
//! One file per job: `types` (the journey as data, its JSON form and its limits), `parse` (JSON
//! or YAML text to a validated journey), `origins` (what a journey may load, URL patterns),
//! `secrets` (`{{secret.NAME}}` references, substitution and masking) and `outcome` (what
//! running one produced). Everything is re-exported here: callers name `model::journey::X`.

mod origins;
mod outcome;
mod parse;
mod secrets;
mod types;

pub use origins::*;
pub use outcome::*;
pub use parse::*;
pub use secrets::*;
pub use types::*;

#[cfg(test)]
mod tests;
