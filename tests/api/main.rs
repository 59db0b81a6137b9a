//! The api tests: one binary, a module per former suite, the shared support once.
use sitescan_test_support::{app, fixture_site};

mod auth;
mod cli;
mod deploy_cli;
mod findings;
mod generated_client;
mod grpc;
mod history;
mod jobs_lease;
mod limits;
mod openapi;
mod owner;
mod scans;
