//! The deploy tests: the deployment examples sitescan ships, against what the platform takes
//! and what the binary accepts. No server, no database, no browser.

mod kubernetes;
