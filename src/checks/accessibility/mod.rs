//! accessibility: axe-core rules (`accessibility.<axe-rule-id>`) plus our own keyboard and zoom
//! checks.

pub mod axe_catalogue;
pub mod axe_overlap;
pub mod name_quality;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

pub use axe_catalogue::{
    AXE_DEFAULT_EXCLUDED_TAGS, AXE_RUN_TAGS, AxeRuleMeta, axe_catalogue, axe_rule, catalogued_axe_checks,
    severity_from_impact,
};
pub use axe_overlap::{AXE_OVERLAPS, AxeOverlap};
pub use axe_violations::AXE_MAPPER_ID;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    axe_violations::AxeViolations,
    focus_not_visible::FocusNotVisible,
    keyboard_trap::KeyboardTrap,
    zoom_disabled::ZoomDisabled,
    title_not_descriptive::TitleNotDescriptive,
    image_of_text::ImageOfText,
    image_name_not_descriptive::ImageNameNotDescriptive,
}
