//! Barrier gatherer: `browser/barriers.js` run in the page (it only reads: no focus moves, nothing
//! changes); its JSON deserialises into `BarrierFacts`, held to the model's limits.

use crate::model::BarrierFacts;
use chromiumoxide::Page;
use std::time::Duration;

use crate::browser::cdp::{Deadline, eval_string};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::BARRIERS_COLLECT;

/// Longest the script may take on one page.
pub const BARRIERS_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Deadline) -> Result<BarrierFacts, BrowserError> {
    let text = eval_string(instance, page, "barriers", &BARRIERS_COLLECT, budget.cap(BARRIERS_TIMEOUT)).await?;
    let mut facts: BarrierFacts = crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "barriers", message: e.to_string() })?;
    facts.bound();
    tracing::debug!(ms = facts.ms, links = facts.links.len(), "barrier facts gathered");
    Ok(facts)
}
