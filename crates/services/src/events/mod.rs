//! Events: webhooks (outbox, signing, delivery, chat messages), secrets at rest, and WatchScan's view of a
//! scan's progress.

pub mod breaker;
pub mod chat;
pub mod endpoints;
pub mod payloads;
pub mod retry_after;
pub mod signing;
pub mod watch;
pub mod webhooks;

pub use crate::store::{SECRET_KEY_ENV, SecretBox, SecretError, key_file};
pub use breaker::BreakerRule;
pub use endpoints::{Endpoint, Webhooks};
pub use crate::store::{DeliveryRow, WebhookRow};
pub use chat::WebhookKind;
pub use signing::{BadSecret, SigningKey};
pub use watch::{ScanProgress, WATCH_POLL, watch};
pub use webhooks::{Attempt, Clock, Deliverer, ManualClock, NewEndpoint, SystemClock, WebhookError};
