//! `BrowserError`: why the browser layer could not do its job. Trouble on a target page is never
//! an error here: it goes into the page's snapshot.

use std::time::Duration;

use crate::net::NetError;

#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// No Chromium binary was found.
    #[error("no Chromium found (tried {tried}); install chromium or set --chromium / SITESCAN_CHROMIUM")]
    NotFound { tried: String },
    /// Chromium could not be started or did not announce its DevTools endpoint.
    #[error("cannot launch Chromium {path}: {message}")]
    Launch { path: String, message: String },
    /// A DevTools endpoint could not be reached.
    #[error("cannot connect to the DevTools endpoint {endpoint}: {message}")]
    Connect { endpoint: String, message: String },
    /// A CDP command answered with an error.
    #[error("CDP {what} failed: {message}")]
    Cdp { what: &'static str, message: String },
    /// A CDP command or wait did not finish in time.
    #[error("{what} timed out after {after:?}")]
    Timeout { what: &'static str, after: Duration },
    /// The browser process died or stopped answering.
    #[error("the browser is gone")]
    BrowserGone,
    /// The page's renderer crashed.
    #[error("the page crashed")]
    PageCrashed,
    /// An in-page script threw or returned something unexpected.
    #[error("script {name} failed: {message}")]
    Script { name: &'static str, message: String },
    /// The page's renderer stopped answering: after the named step timed out, a trivial script
    /// got no answer either, so the page's later in-page steps are not run (each would wait out
    /// its own timeout for nothing).
    #[error("not run: the page's renderer stopped answering ({0} timed out, then a trivial script got no answer within 2 s)")]
    RendererStalled(&'static str),
    /// What the page sent is over a budget: it was not read.
    #[error("{0}")]
    OverBudget(String),
    /// Text recognition (Tesseract) is missing or failed.
    #[error("text recognition: {0}")]
    Ocr(String),
    /// The egress proxy could not start.
    #[error("egress proxy: {0}")]
    Proxy(#[from] NetError),
    /// The options are unusable.
    #[error("invalid browser options: {0}")]
    Options(String),
    /// The pool was shut down.
    #[error("the browser pool is shut down")]
    ShutDown,
}

impl BrowserError {
    /// The `PageError::kind` this error becomes when it ends a page capture.
    pub fn page_error_kind(&self) -> &'static str {
        match self {
            BrowserError::Timeout { .. } => "timeout",
            // chromiumoxide's own deadline on a command (a page too busy to commit a navigation).
            BrowserError::Cdp { message, .. } if message.contains("timed out") => "timeout",
            BrowserError::BrowserGone | BrowserError::PageCrashed => "crashed",
            _ => "internal",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_the_browser_gave_up_on_is_a_timeout() {
        let e = BrowserError::Cdp { what: "Page.navigate", message: "Request timed out.".into() };
        assert_eq!(e.page_error_kind(), "timeout");
        assert_eq!(BrowserError::Cdp { what: "Page.navigate", message: "net::ERR_ABORTED".into() }.page_error_kind(), "internal");
        assert_eq!(BrowserError::PageCrashed.page_error_kind(), "crashed");
    }
}
