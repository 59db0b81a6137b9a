//! The API: one listener serving REST (transcoded from the proto's annotations), gRPC and
//! gRPC-Web, with bearer tokens, per-token rate limits, quotas and the spec's error object.

pub mod auth;
pub mod convert;
pub mod error;
pub mod health;
pub mod limiter;
pub mod limits;
pub mod metric_labels;
pub mod openapi;
pub mod owner;

pub mod rest;
pub mod router;
pub mod service;
pub mod startup;
pub mod state;

pub use limiter::Limiter;
pub use limits::{DEFAULT_PER_MINUTE, DEFAULT_PER_SECOND, RateWindow};
pub use startup::{ApiSettings, Application};
