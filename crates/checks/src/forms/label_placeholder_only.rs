use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierField;
use crate::{declare_check, evidence};

declare_check! {
    /// A field's placeholder is its only label.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible text-like input or
    /// textarea with a non-empty `placeholder`, no `<label>`, no aria-label or aria-labelledby
    /// and no title. The accessible name computation takes the placeholder as the name, so
    /// `forms.label-missing`, axe-core's `label` and the ACT rule pass the field; the barrier is
    /// the label that disappears.
    pub struct LabelPlaceholderOnly {
        id: "forms.label-placeholder-only",
        severity: Medium,
        title: "Placeholder is the field's only label",
        fires_when: "a visible text field or textarea has a placeholder and no label element, aria-label, aria-labelledby or title",
        description: "The placeholder vanishes as soon as typing starts, so visitors with limited short-term memory, and anyone checking a filled-in form, no longer know what a field was for; placeholder text is also often too faint to read: WCAG 2.2 success criterion 3.3.2 (Labels or Instructions).",
        remediation: "Add a visible `<label for=\"field-id\">` that stays when the field is filled, and keep the placeholder for an example value at most.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "placeholder", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/forms/instructions/#placeholder-text"),
        requires: [Barriers],
        level: A,
        wcag: ["3.3.2"],
    }
}

fn text_like(field: &BarrierField) -> bool {
    matches!(field.type_.as_str(), "text" | "email" | "tel" | "url" | "search" | "password" | "number" | "textarea")
}

impl Check for LabelPlaceholderOnly {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for field in facts.fields.iter().filter(|f| text_like(f)) {
            let Some(placeholder) = field.placeholder.as_deref().filter(|p| !p.trim().is_empty()) else { continue };
            if !field.labels.is_empty() || field.aria_name || field.title.as_deref().is_some_and(|t| !t.trim().is_empty()) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
                "placeholder" => placeholder,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_field, barrier_page, run};
    use super::*;

    #[test]
    fn fires_on_placeholder_only_text_fields() {
        let ph = |sel: &str, labels: &[&str]| BarrierField { placeholder: Some("Email address".into()), ..barrier_field(sel, labels) };
        let mut aria = ph("#aria", &[]);
        aria.aria_name = true;
        let mut check = ph("#check", &[]);
        check.type_ = "checkbox".into();
        let p = barrier_page(vec![ph("#only", &[]), ph("#labelled", &["Email"]), aria, check, barrier_field("#bare", &[])]);
        let f = run(&LabelPlaceholderOnly, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].evidence["placeholder"].as_str()), (Some("#only"), Some("Email address")));
    }
}
