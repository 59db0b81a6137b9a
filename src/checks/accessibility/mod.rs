//! accessibility: axe-core rules (`accessibility.<axe-rule-id>`) plus our own keyboard and zoom
//! checks.

pub mod axe_catalogue;
pub mod axe_overlap;
pub mod axe_violations;
pub mod focus_not_visible;
pub mod keyboard_trap;
pub mod zoom_disabled;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

pub use axe_catalogue::{
    AXE_DEFAULT_EXCLUDED_TAGS, AXE_RUN_TAGS, AxeRuleMeta, axe_catalogue, axe_rule, catalogued_axe_checks,
    severity_from_impact,
};
pub use axe_overlap::{AXE_OVERLAPS, AxeOverlap};
pub use axe_violations::{AXE_MAPPER_ID, AxeViolations};
pub use focus_not_visible::FocusNotVisible;
pub use keyboard_trap::KeyboardTrap;
pub use zoom_disabled::ZoomDisabled;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &AxeViolations,
    &FocusNotVisible,
    &KeyboardTrap,
    &ZoomDisabled,
];
