//! Page text gatherer: `browser/page_text.js` run in the page; its JSON deserialises into
//! `PageText`.

use crate::model::PageText;
use chromiumoxide::Page;
use std::time::Duration;

use crate::browser::cdp::{Deadline, eval_string};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::PAGE_TEXT_READ;

pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Deadline) -> Result<PageText, BrowserError> {
    let text = eval_string(instance, page, "page-text", &PAGE_TEXT_READ, budget.cap(Duration::from_secs(10))).await?;
    crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "page-text", message: e.to_string() })
}
