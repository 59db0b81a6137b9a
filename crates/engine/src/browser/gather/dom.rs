//! DOM gatherer: `browser/collector.js` run in the page; its JSON deserialises into `DomFacts`.

use crate::model::DomFacts;
use chromiumoxide::Page;
use std::time::Duration;

use crate::browser::cdp::{Deadline, eval_string};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::COLLECT;

pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Deadline) -> Result<DomFacts, BrowserError> {
    let text = eval_string(instance, page, "collector", &COLLECT, budget.cap(Duration::from_secs(20))).await?;
    crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "collector", message: e.to_string() })
}
