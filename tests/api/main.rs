//! The api tests: one binary, a module per former suite, the shared support once.

#[path = "../support/app.rs"]
mod app;
#[path = "../support/fixture_site.rs"]
mod fixture_site;
mod auth;
mod cli;
mod deploy_cli;
mod findings;
mod grpc;
mod jobs_lease;
mod limits;
mod openapi;
mod owner;
mod scans;
