//! The tracing subscriber: text or JSON lines on stderr, filtered by `RUST_LOG` (default: the
//! level the command asks for). Colour only on a terminal, never with `NO_COLOR`.

use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// The default filter at `level` (`info` for services, `warn` for `sitescan scan`): chatty
/// dependencies stay at warn or off.
pub fn default_filter(level: &str) -> String {
    format!("{level},chromiumoxide=off,sqlx=warn,sea_orm=warn,hyper=warn,h2=warn,tower=warn")
}

/// Whether text on stderr may carry colour escapes.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// What no filter may turn on, `RUST_LOG` included: the message and frame dumps of the CDP
/// connection and of the transports under it and under the egress proxy (`Sending
/// Input.insertText {text: ...}`, a WebSocket frame's payload, a proxied request's head), which
/// carry the secrets a journey types and the page text read back. They stay at debug at most.
pub const NEVER_TRACED: &[&str] = &[
    "chromiumoxide::conn=debug",
    "tungstenite=debug",
    "tokio_tungstenite=debug",
    "async_tungstenite=debug",
    "hyper=debug",
    "hyper_util=debug",
    "h2=debug",
    "reqwest=debug",
];

/// `filter` with `NEVER_TRACED` over whatever it says.
fn capped(filter: EnvFilter) -> EnvFilter {
    NEVER_TRACED.iter().filter_map(|d| d.parse().ok()).fold(filter, |f, d| f.add_directive(d))
}

/// Installs the global subscriber (once; later calls do nothing).
pub fn init(json: bool, level: &str) {
    let filter = capped(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter(level))));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(stderr_color());
    let _ = if json { builder.json().flatten_event(true).try_init() } else { builder.try_init() };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_filter_turns_on_the_cdp_message_dumps() {
        for asked in ["trace", "chromiumoxide=trace", "chromiumoxide::conn=trace", "info,tungstenite=trace,sitescan=trace"] {
            let filter = capped(EnvFilter::new(asked));
            let text = filter.to_string();
            assert!(text.contains("chromiumoxide::conn=debug") && text.contains("tungstenite=debug"), "{asked}: {text}");
            assert!(!text.contains("chromiumoxide::conn=trace") && !text.contains("tungstenite=trace"), "{asked}: {text}");
        }
    }
}
