use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::{FormField, PageSnapshot};
use crate::{declare_check, evidence};

declare_check! {
    /// A visible form field has no programmatic label.
    ///
    /// For each visible `<input>` (not hidden, submit, reset, button or image: those are named by
    /// their value or alt), `<select>` and `<textarea>` without an accessible name from a
    /// `<label>`, `aria-label`, `aria-labelledby` or `title` (`FormField::has_label`), or whose
    /// only name is its placeholder (`placeholder_only`), which disappears on typing and is not a
    /// label. axe-core's `label` and `select-name` rules report fields with no name at all under
    /// `accessibility.*` (both ids are public contract); this check is the form-quality view and
    /// also catches placeholder-only fields, which axe accepts.
    pub struct LabelMissing {
        id: "forms.label-missing",
        severity: High,
        title: "Form field has no label",
        fires_when: "a visible input, select or textarea has no programmatic label (label element, aria-label, aria-labelledby or title), or only a placeholder",
        description: "Screen readers announce a field by its label; without one, blind visitors hear only \"edit text\" and must guess what to enter. A placeholder is not a label: it vanishes once typing starts, so everyone loses the hint, and it is often too faint to read (WCAG 2.2 success criteria 1.3.1, 3.3.2 and 4.1.2).",
        remediation: "Give each field a visible `<label for=\"field-id\">` (or wrap the field in its label); where the design has no room for visible text, use `aria-label` or `aria-labelledby` pointing at nearby text. Keep placeholders for examples only.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "placeholder_only"],
        help_url: Some("https://www.w3.org/WAI/tutorials/forms/labels/"),
        requires: [Dom],
    }
}

/// True for fields that need a label (buttons are named by their value or alt text).
pub fn needs_label(field: &FormField) -> bool {
    match field.tag.to_ascii_lowercase().as_str() {
        "input" => !matches!(field.type_.as_str(), "hidden" | "submit" | "reset" | "button" | "image"),
        "select" | "textarea" => true,
        _ => false,
    }
}

impl Check for LabelMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageSnapshot, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for field in page.dom.fields.iter().filter(|f| f.visible && needs_label(f)) {
            if field.has_label && !field.placeholder_only {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
                "placeholder_only" => field.placeholder_only,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{input, page, run};
    use super::*;

    fn unlabelled(tag: &str, type_: &str, name: &str) -> FormField {
        FormField { tag: tag.into(), has_label: false, ..input(type_, name) }
    }

    #[test]
    fn fires_for_unlabelled_and_placeholder_only_fields() {
        let mut placeholder = unlabelled("input", "email", "email");
        placeholder.placeholder = Some("Email".into());
        placeholder.placeholder_only = true;
        let p = page(
            vec![],
            vec![unlabelled("select", "text", "country"), unlabelled("textarea", "text", "msg"), placeholder],
        );
        let f = run(&LabelMissing, &p);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].evidence["selector"], "#country");
        assert_eq!(f[2].evidence["placeholder_only"], true);
    }

    #[test]
    fn quiet_for_labelled_hidden_and_button_fields() {
        let mut invisible = unlabelled("input", "text", "honeypot");
        invisible.visible = false;
        let p = page(
            vec![],
            vec![
                input("text", "name"),
                unlabelled("input", "hidden", "csrf"),
                unlabelled("input", "submit", "go"),
                unlabelled("input", "image", "send"),
                unlabelled("button", "submit", "ok"),
                invisible,
            ],
        );
        assert!(run(&LabelMissing, &p).is_empty());
    }
}
