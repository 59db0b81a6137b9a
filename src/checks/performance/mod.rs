//! performance: Core Web Vitals, page weight, requests, render blocking, compression, caching,
//! DOM size and long tasks.

pub mod cache_policy;
pub mod cls;
pub mod dom_size;
pub mod fcp;
pub mod grade;
pub mod http_date;
pub mod lcp;
pub mod long_task;
pub mod metric;
pub mod page_weight;
pub mod render_blocking;
pub mod request_count;
pub mod tbt;
pub mod ttfb;
pub mod uncompressed_text;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

pub use cache_policy::CachePolicy;
pub use cls::Cls;
pub use dom_size::DomSize;
pub use fcp::Fcp;
pub use lcp::Lcp;
pub use long_task::LongTask;
pub use page_weight::PageWeight;
pub use render_blocking::RenderBlocking;
pub use request_count::RequestCount;
pub use tbt::Tbt;
pub use ttfb::Ttfb;
pub use uncompressed_text::UncompressedText;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &Lcp,
    &Cls,
    &Tbt,
    &Fcp,
    &Ttfb,
    &PageWeight,
    &RequestCount,
    &RenderBlocking,
    &UncompressedText,
    &CachePolicy,
    &DomSize,
    &LongTask,
];
