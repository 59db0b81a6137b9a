use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// A field has more than one visible label.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible field with two or more
    /// visible `<label>` elements (two `for` the same id, or one `for` it and one wrapping it).
    /// axe-core's `form-field-multiple-labels` leaves exactly this case "incomplete" (to review),
    /// which sitescan never reports.
    pub struct LabelMultiple {
        id: "forms.label-multiple",
        severity: Low,
        title: "Form field has more than one label",
        fires_when: "a visible field has two or more visible label elements",
        description: "Browsers and screen readers combine several labels differently: some read only the first, some all of them, and voice-control users do not know which words to say to reach the field: WCAG 2.2 success criteria 1.3.1 (Info and Relationships) and 2.5.3 (Label in Name).",
        remediation: "Keep one `<label>` per field and tie any additional text (a hint, a unit, an error) with `aria-describedby` instead.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "labels", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/forms/labels/"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1", "2.5.3"],
    }
}

impl Check for LabelMultiple {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for field in facts.fields.iter().filter(|f| f.labels.len() >= 2) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
                "labels" => field.labels,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_field, barrier_page, run};
    use super::*;

    #[test]
    fn fires_on_fields_with_two_labels() {
        let p = barrier_page(vec![barrier_field("#two", &["Phone", "Mobile"]), barrier_field("#one", &["Email"])]);
        let f = run(&LabelMultiple, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#two");
        assert_eq!(f[0].evidence["labels"].as_array().map(Vec::len), Some(2));
    }
}
