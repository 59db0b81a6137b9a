//! Chat alerts: what a webhook endpoint of a chat kind receives instead of Standard Webhooks
//! JSON. `message.rs` reads the queued event into one platform-neutral [`ChatMessage`]; each
//! platform's file turns that into the platform's documented incoming-webhook payload, every
//! field clipped to the platform's limit (`clip.rs`), so no message is one the platform refuses.

pub mod clip;
pub mod discord;
pub mod google_chat;
pub mod kind;
pub mod markdown;
pub mod message;
pub mod slack;
pub mod teams;

pub use kind::{UnknownKind, WebhookKind};
pub use message::{ChatMessage, Fact, Link, MORE_TEXT_MAX, TOP_FINDINGS, Tone, more_text};

/// The largest card `card(listed)` builds, from every listed finding down to none, whose JSON
/// is at most `max` bytes (with none listed it is returned whatever its size).
pub fn fit_listed(all: usize, max: usize, card: impl Fn(usize) -> serde_json::Value) -> serde_json::Value {
    let mut listed = all;
    loop {
        let out = card(listed);
        if listed == 0 || out.to_string().len() <= max {
            return out;
        }
        listed -= 1;
    }
}
