//! Gatherers: each fills one part of a `PageSnapshot`, from the page's CDP event log (pure
//! functions, unit-tested on literal events) or by asking the page (in-page scripts).

pub(crate) mod animation;
pub(crate) mod response_memo;
pub(crate) mod axe;
pub(crate) mod barriers;
pub(crate) mod console;
pub(crate) mod contrast;
pub(crate) mod cookies;
pub(crate) mod dialogs;
pub(crate) mod csp;
pub(crate) mod document;
pub(crate) mod dom;
pub(crate) mod exceptions;
pub(crate) mod image_text;
pub(crate) mod issues;
pub(crate) mod keyboard;
pub(crate) mod layout;
pub(crate) mod metrics;
pub(crate) mod network;
pub(crate) mod ocr;
pub(crate) mod page_text;
pub(crate) mod screenshot;
