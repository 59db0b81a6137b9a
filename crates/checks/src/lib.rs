//! The check catalogue: pure functions from snapshots to findings. Depends only on the model
//! (`sitescan-model`), so Cargo keeps I/O, the browser and the database out of every check.

use sitescan_model as model;

pub mod accessibility;
pub mod forms;
pub mod media;
pub mod performance;
pub mod runtime;

pub mod catalogue_markdown;
pub mod check;
pub mod crawlability;
pub mod i18n;
pub mod journeys;
pub mod page_view;
pub mod registry;
pub mod repository;
pub mod run;
pub mod same_barrier;
pub mod site_view;

#[cfg(test)]
mod contract_tests;
pub mod search;
pub mod semantics;
pub mod structured_data;
#[cfg(test)]
pub(crate) mod test_kit;

pub use check::{Check, CheckMeta, Findings, MAX_FINDINGS_PER_CHECK_PER_PAGE, Thresholds, level_of};
pub use page_view::PageView;
pub use site_view::SiteView;
pub use registry::{CHECKS, catalogue, find};
pub use run::{run_page_checks, run_site_checks};
