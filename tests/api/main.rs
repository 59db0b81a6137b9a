//! The api tests: one binary, a module per former suite, the shared support once.

#[path = "../support/app.rs"]
mod app;
mod auth;
mod cli;
mod deploy_cli;
mod findings;
mod grpc;
mod jobs_lease;
mod limits;
mod openapi;
mod scans;
