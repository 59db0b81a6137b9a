//! tracing setup
