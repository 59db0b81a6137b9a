//! The page's visible text (`browser/page_text.js`): what a check compares a title or a name
//! with. Capped: a check judges the beginning of a long page.

use serde::{Deserialize, Serialize};

/// At most this many characters of the page's text are kept.
pub const MAX_PAGE_TEXT_CHARS: usize = 20_000;

/// The rendered text of the page's body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageText {
    /// `document.body.innerText` (what is rendered, in reading order), whitespace collapsed, at
    /// most `MAX_PAGE_TEXT_CHARS` characters.
    pub text: String,
    /// True when the text was cut at `MAX_PAGE_TEXT_CHARS`.
    pub truncated: bool,
}
