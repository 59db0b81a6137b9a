use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::barriers::normalize;
use crate::{declare_check, evidence};

declare_check! {
    /// Two fields of one form carry the same label text.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): two visible fields (radio buttons
    /// and check boxes aside, whose option labels repeat by design) in the same form and in the
    /// same named group (or none), each with exactly one visible `<label>`, the two texts equal
    /// ignoring case and white space, and no aria-label or aria-labelledby on either. A
    /// fieldset legend tells fields apart (billing and delivery "Street"), so fields in groups
    /// with different names are not compared. One finding on the second field.
    pub struct LabelDuplicateText {
        id: "forms.label-duplicate-text",
        severity: Medium,
        title: "Different fields in one form have the same label",
        fires_when: "two visible fields of the same form (and the same fieldset legend, if any) have the same label text",
        description: "Screen-reader and voice-control users reach fields by their labels: two fields both called \"Name\" or \"Phone\" cannot be told apart out of the visual layout, and a voice command matches both: WCAG 2.2 success criteria 2.4.6 (Headings and Labels) and 1.3.1 (Info and Relationships).",
        remediation: "Make each label say what its field is for (\"First name\", \"Last name\"; \"Daytime phone\", \"Mobile phone\"), or group related fields in fieldsets whose legends tell them apart.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "label", "other_selector", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/headings-and-labels.html"),
        requires: [Barriers],
        level: A,
        wcag: ["2.4.6", "1.3.1"],
    }
}

impl Check for LabelDuplicateText {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        let mut seen: Vec<(String, &str, String, &str)> = Vec::new();
        for field in &facts.fields {
            if matches!(field.type_.as_str(), "radio" | "checkbox") || field.aria_name || field.labels.len() != 1 {
                continue;
            }
            let label = normalize(&field.labels[0]);
            if label.is_empty() {
                continue;
            }
            let group = normalize(field.group.as_deref().unwrap_or_default());
            if let Some((_, _, _, first)) = seen.iter().find(|(l, f, g, _)| *l == label && *f == field.form && *g == group) {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => field.selector,
                    "snippet" => field.snippet,
                    "label" => field.labels[0],
                    "other_selector" => first,
                });
            } else {
                seen.push((label, field.form.as_str(), group, field.selector.as_str()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_field, barrier_page, run};
    use super::*;
    use crate::model::BarrierField;

    #[test]
    fn fires_on_the_second_field_with_the_same_label_in_one_group() {
        let in_group = |sel: &str, label: &str, group: &str| BarrierField { group: Some(group.into()), ..barrier_field(sel, &[label]) };
        let mut other_form = barrier_field("#other", &["Phone"]);
        other_form.form = "#g".into();
        let p = barrier_page(vec![
            barrier_field("#phone1", &["Phone"]),
            barrier_field("#phone2", &["phone "]),
            other_form,
            in_group("#bill", "Street", "Billing address"),
            in_group("#ship", "Street", "Delivery address"),
        ]);
        let f = run(&LabelDuplicateText, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].evidence["other_selector"].as_str()), (Some("#phone2"), Some("#phone1")));
    }
}
