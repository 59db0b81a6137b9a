//! The tracing subscriber: text or JSON lines on stderr, filtered by `RUST_LOG` (default: the
//! level the command asks for). Colour only on a terminal, never with `NO_COLOR`.

use std::io::IsTerminal;
use tracing_subscriber::filter::{FilterExt, LevelFilter, Targets};
use tracing_subscriber::layer::{Filter, Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Registry};

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
/// carry the secrets a journey types and the page text read back. They stay at debug at most:
/// a cap over the filter, never a level of their own (at the default level they say nothing).
pub const NEVER_TRACED: &[&str] = &[
    "chromiumoxide::conn",
    "tungstenite",
    "tokio_tungstenite",
    "async_tungstenite",
    "hyper",
    "hyper_util",
    "h2",
    "reqwest",
];

/// The cap: every target as the filter says, but `NEVER_TRACED` ones no finer than debug.
fn cap() -> Targets {
    NEVER_TRACED.iter().fold(Targets::new().with_default(LevelFilter::TRACE), |t, target| t.with_target(*target, LevelFilter::DEBUG))
}

/// The filter: `RUST_LOG`, else the command's `level`; both under the cap.
fn filter(level: &str) -> impl Filter<Registry> + use<> {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter(level))).and(cap())
}

/// The subscriber writing to `writer`.
fn subscriber<W>(json: bool, level: &str, writer: W, ansi: bool) -> Box<dyn tracing::Subscriber + Send + Sync>
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let layer = tracing_subscriber::fmt::layer().with_writer(writer).with_ansi(ansi);
    if json {
        Box::new(tracing_subscriber::registry().with(layer.json().flatten_event(true).with_filter(filter(level))))
    } else {
        Box::new(tracing_subscriber::registry().with(layer.with_filter(filter(level))))
    }
}

/// Whether the log is JSON lines (`--log-format json`).
static JSON_LOG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Installs the global subscriber (once; later calls do nothing).
pub fn init(json: bool, level: &str) {
    JSON_LOG.store(json, std::sync::atomic::Ordering::Relaxed);
    let _ = subscriber(json, level, std::io::stderr, stderr_color()).try_init();
}

/// Whether the log is JSON lines: standard error then holds nothing else.
pub fn json_log() -> bool {
    JSON_LOG.load(std::sync::atomic::Ordering::Relaxed)
}

/// A line for the person at the terminal, on standard error, with the text log only: with
/// `--log-format json` every line there is a JSON object, and a log event says the same.
pub fn hint(line: std::fmt::Arguments<'_>) {
    if !json_log() {
        eprintln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What reaches the output at `level` when every chatty target speaks at every level.
    fn said(level: &str) -> String {
        let out = Captured::default();
        let writer = out.clone();
        let subscriber = subscriber(false, level, move || writer.clone(), false);
        tracing::subscriber::with_default(subscriber, || {
            for target in ["tungstenite::handshake::client", "reqwest::connect", "hyper_util::client", "chromiumoxide::conn"] {
                tracing::trace!(target: "x", "{target}");
                macro_rules! at {
                    ($($m:ident),*) => {$(tracing::$m!(target: "tungstenite::handshake::client", "{} {}", stringify!($m), target);)*};
                }
                at!(trace, debug, info, warn);
            }
            tracing::debug!(target: "reqwest::connect", "reqwest debug");
            tracing::trace!(target: "chromiumoxide::conn", "Sending Input.insertText");
            tracing::warn!(target: "sitescan", "sitescan warn");
        });
        String::from_utf8(out.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn the_default_levels_keep_the_transports_quiet() {
        let text = said("warn");
        assert!(!text.contains("DEBUG") && !text.contains("INFO") && !text.contains("TRACE"), "{text}");
        assert!(text.contains("sitescan warn") && text.contains("warn tungstenite"), "{text}");
        let text = said("info");
        assert!(!text.contains("DEBUG") && !text.contains("TRACE"), "{text}");
    }

    #[test]
    fn no_filter_turns_on_the_cdp_message_dumps() {
        let text = said("trace");
        assert!(text.contains("reqwest debug") && text.contains("debug tungstenite"), "debug is allowed: {text}");
        assert!(!text.contains("insertText") && !text.contains("trace tungstenite"), "trace never is: {text}");
    }
}
