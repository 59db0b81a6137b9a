//! axe rules that one of our own checks reports instead, so one defect gives one finding.
//!
//! The mapper skips an axe rule listed here when the check that covers it is registered (so a
//! rule is never lost because its covering check is missing from a build), and, for a rule whose
//! overlap is partial, only on pages where the covering check fires.

use crate::PageView;
use super::super::registry::CHECKS;
use super::zoom_disabled::zoom_blocked;

/// When the covering check reports the same defect the axe rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxeCoverage {
    /// Same condition on the same element: the axe rule is never reported.
    Always,
    /// axe's rule is wider (`meta-viewport-large`: maximum-scale < 5); skipped only on pages where
    /// `accessibility.zoom-disabled` fires (user-scalable=no or maximum-scale < 2).
    WhenZoomDisabled,
}

/// One overlap: axe `rule` is reported by our `covered_by` check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxeOverlap {
    pub rule: &'static str,
    pub covered_by: &'static str,
    pub coverage: AxeCoverage,
}

/// Every overlap, with why the two are the same defect.
///
/// Only our own accessibility checks are listed (issue 5: "where our own check overlaps an axe
/// rule, report one finding, not two"). Checks of other categories that look at similar facts
/// (`forms.label-missing` vs axe `label`, `i18n.lang-missing` vs `html-has-lang`,
/// `search.title-missing` vs `document-title`, `media.video-no-captions` vs `video-caption`, ...)
/// are deliberately not listed: CHECKS.md names several of those axe ids as public contract
/// (`accessibility.label`, `accessibility.html-has-lang`, `accessibility.document-title`), so
/// they must keep firing, and the other check judges a different aspect (a visible label, a
/// search result, the presence of audio) under its own category.
pub const AXE_OVERLAPS: &[AxeOverlap] = &[
    // Both read the viewport meta: user-scalable=no or maximum-scale < 2 (WCAG 1.4.4).
    AxeOverlap { rule: "meta-viewport", covered_by: "accessibility.zoom-disabled", coverage: AxeCoverage::Always },
    // axe's best practice flags maximum-scale < 5 too; on pages where ours fires it is the same
    // defect, elsewhere (2 <= maximum-scale < 5) it is axe's alone.
    AxeOverlap {
        rule: "meta-viewport-large",
        covered_by: "accessibility.zoom-disabled",
        coverage: AxeCoverage::WhenZoomDisabled,
    },
];

fn is_registered(check_id: &str) -> bool {
    CHECKS.iter().any(|c| c.meta().id == check_id)
}

/// The check that always reports axe `rule` instead, when that check is registered.
pub fn always_covered_by(rule: &str) -> Option<&'static str> {
    AXE_OVERLAPS
        .iter()
        .find(|o| o.rule == rule && o.coverage == AxeCoverage::Always && is_registered(o.covered_by))
        .map(|o| o.covered_by)
}

/// The check that reports axe `rule` instead on this page, when that check is registered.
pub fn covered_on_page(rule: &str, page: &PageView<'_>) -> Option<&'static str> {
    AXE_OVERLAPS
        .iter()
        .filter(|o| o.rule == rule && is_registered(o.covered_by))
        .find(|o| match o.coverage {
            AxeCoverage::Always => true,
            AxeCoverage::WhenZoomDisabled => zoom_blocked(page).is_some(),
        })
        .map(|o| o.covered_by)
}

#[cfg(test)]
mod tests {
    use crate::test_kit::view;
    use super::super::axe_catalogue::axe_rule;
    use super::*;

    #[test]
    fn every_overlap_names_a_real_axe_rule() {
        for o in AXE_OVERLAPS {
            assert!(axe_rule(o.rule).is_some(), "{} is not an axe-core rule", o.rule);
        }
    }

    #[test]
    fn covering_checks_are_registered() {
        for o in AXE_OVERLAPS {
            assert!(is_registered(o.covered_by), "{} covers {} but is not registered", o.covered_by, o.rule);
        }
    }

    #[test]
    fn partial_overlap_depends_on_the_page() {
        use crate::model::{DomFacts, MetaTag, PageSnapshot};
        let with_viewport = |content: &str| PageSnapshot {
            final_url: "https://example.com/".into(),
            status: Some(200),
            dom: DomFacts {
                metas: vec![MetaTag {
                    name: Some("viewport".into()),
                    content: Some(content.into()),
                    selector: "meta".into(),
                    ..Default::default()
                }],
                ..Default::default()
            },
            ..Default::default()
        };
        let blocked = with_viewport("width=device-width, maximum-scale=1");
        let limited = with_viewport("width=device-width, maximum-scale=3");
        assert_eq!(covered_on_page("meta-viewport-large", &view(&blocked)), Some("accessibility.zoom-disabled"));
        assert_eq!(covered_on_page("meta-viewport-large", &view(&limited)), None);
        assert_eq!(covered_on_page("meta-viewport", &view(&limited)), Some("accessibility.zoom-disabled"));
        assert_eq!(covered_on_page("color-contrast", &view(&blocked)), None);
    }
}
