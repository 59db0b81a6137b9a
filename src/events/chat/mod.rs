//! Chat alerts: what a webhook endpoint of a chat kind receives instead of Standard Webhooks
//! JSON. `message.rs` reads the queued event into one platform-neutral [`ChatMessage`]; each
//! platform's file turns that into the platform's documented incoming-webhook payload, every
//! field clipped to the platform's limit (`clip.rs`), so no message is one the platform refuses.

pub mod clip;
pub mod discord;
pub mod google_chat;
pub mod kind;
pub mod message;
pub mod slack;
pub mod teams;

pub use kind::{UnknownKind, WebhookKind};
pub use message::{ChatMessage, Fact, FindingLine, Link, MORE_TEXT_MAX, TOP_FINDINGS, Tone, more_text};
