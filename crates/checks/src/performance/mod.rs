//! performance: Core Web Vitals, page weight, requests, render blocking, compression, caching,
//! DOM size and long tasks.

pub mod grade;
pub mod http_date;
pub mod metric;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    lcp::Lcp,
    cls::Cls,
    tbt::Tbt,
    fcp::Fcp,
    ttfb::Ttfb,
    page_weight::PageWeight,
    request_count::RequestCount,
    render_blocking::RenderBlocking,
    uncompressed_text::UncompressedText,
    cache_policy::CachePolicy,
    dom_size::DomSize,
    long_task::PerformanceLongTask,
}
