use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::Severity;
use crate::{declare_check, evidence};

declare_check! {
    /// A fieldset has no legend, or an empty one.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible `<fieldset>` whose first
    /// `<legend>` child is missing or empty and that no aria-labelledby or aria-label names.
    /// Fieldsets that hold radio buttons or check boxes are left to `forms.choice-group-unnamed`,
    /// which judges the group as its users meet it: one barrier, one finding. Medium when the
    /// fieldset groups two or more form controls, low when it holds one or none (a fieldset used
    /// for its border around a search box).
    pub struct FieldsetLegendMissing {
        id: "forms.fieldset-legend-missing",
        severity: Low,
        title: "Fieldset has no legend",
        fires_when: "a visible fieldset without radio buttons or check boxes has no legend, or an empty one, and no aria-label(ledby)",
        description: "A fieldset tells assistive technologies that its fields belong together, and its legend is what they announce on entering it (\"Delivery address\"); without one the group is announced with no name, or the border groups fields for sighted users only: WCAG 2.2 success criterion 1.3.1 (Info and Relationships), technique H71.",
        remediation: "Give the fieldset a first child `<legend>` that names the group (`<fieldset><legend>Delivery address</legend>...`), or, if the fields are not a group, use a `<div>` and draw the border with CSS.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "reason", "controls", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/html/H71"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for FieldsetLegendMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for fieldset in facts.fieldsets.iter().filter(|f| f.name.trim().is_empty()) {
            let finding = evidence! {
                "url" => page.final_url,
                "selector" => fieldset.selector,
                "snippet" => fieldset.snippet,
                "reason" => if fieldset.has_legend { "empty-legend" } else { "no-legend" },
                "controls" => fieldset.controls,
            };
            if fieldset.controls >= 2 {
                out.report_with(Severity::Medium, finding);
            } else {
                out.report(finding);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::test_kit::{URL, html_page, run};
    use super::*;
    use crate::model::{BarrierFacts, BarrierFieldset};

    #[test]
    fn fires_on_fieldsets_nothing_names() {
        let set = |selector: &str, has_legend: bool, name: &str, controls: usize| BarrierFieldset { selector: selector.into(), has_legend, name: name.into(), controls, ..Default::default() };
        let mut page = html_page(URL);
        page.barriers = Some(BarrierFacts {
            fieldsets: vec![set("#bare", false, "", 0), set("#empty", true, " ", 2), set("#named", true, "Delivery address", 3), set("#aria", false, "Billing", 2), set("#search", false, "", 1)],
            ..Default::default()
        });
        let f = run(&FieldsetLegendMissing, &page);
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["reason"].as_str().unwrap_or_default(), f.severity)).collect();
        assert_eq!(got, [("#bare", "no-legend", Severity::Low), ("#empty", "empty-legend", Severity::Medium), ("#search", "no-legend", Severity::Low)]);
    }
}
