//! axe gatherer: injects the embedded axe-core and runs it on the document (violations and
//! incomplete results; WCAG 2.0-2.2 A/AA and best-practice tags).

use crate::model::AxeResults;
use chromiumoxide::Page;
use std::time::Duration;

use crate::browser::cdp::{Budget, eval_string};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::{AXE_INJECT, AXE_RUN_SCRIPT};

/// How long axe may run on one page.
pub const AXE_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Budget) -> Result<AxeResults, BrowserError> {
    let loaded = eval_string(instance, page, "axe-inject", &AXE_INJECT, budget.cap(Duration::from_secs(10))).await?;
    if loaded != "object" {
        return Err(BrowserError::Script { name: "axe-inject", message: format!("window.axe is {loaded}") });
    }
    let text = eval_string(instance, page, "axe", &AXE_RUN_SCRIPT, budget.cap(AXE_TIMEOUT)).await?;
    serde_json::from_str(&text).map_err(|e| BrowserError::Script { name: "axe", message: e.to_string() })
}
