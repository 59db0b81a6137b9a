use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::FormField;
use crate::{declare_check, evidence};

declare_check! {
    /// A visible form field has no accessible name.
    ///
    /// For each visible `<input>` (not hidden, submit, reset, button or image: those are named by
    /// their value or alt), `<select>` and `<textarea>` without an accessible name from a
    /// `<label>`, `aria-label`, `aria-labelledby`, `title` or `placeholder` (`FormField::has_label`,
    /// `placeholder_only`). A placeholder is part of the accessible name computation (HTML-AAM),
    /// so screen readers do announce it: a placeholder-only field has a name (ACT e086e5) and is
    /// not reported. A field made presentational (`role="none"`/`"presentation"` on a disabled
    /// field with no global ARIA attribute: ARIA's conflict resolution then honours the role) is
    /// no form field for assistive technologies and needs no name. axe-core's `label` and
    /// `select-name` rules report under `accessibility.*` (both ids are public contract).
    pub struct LabelMissing {
        id: "forms.label-missing",
        severity: High,
        title: "Form field has no label",
        fires_when: "a visible input, select or textarea has no programmatic label (label element, aria-label, aria-labelledby, title or, as the accessible name computation takes it, placeholder)",
        description: "Screen readers announce a field by its label; without one, blind visitors hear only \"edit text\" and must guess what to enter. A placeholder is not a label: it vanishes once typing starts, so everyone loses the hint, and it is often too faint to read (WCAG 2.2 success criteria 1.3.1, 3.3.2 and 4.1.2).",
        remediation: "Give each field a visible `<label for=\"field-id\">` (or wrap the field in its label); where the design has no room for visible text, use `aria-label` or `aria-labelledby` pointing at nearby text. Keep placeholders for examples only.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/forms/labels/"),
        requires: [Dom],
        act_ids: ["e086e5"],
        level: A,
        wcag: ["1.3.1", "3.3.2", "4.1.2"],
    }
}

/// True for fields that need a label (buttons are named by their value or alt text; a
/// presentational field is no field for assistive technologies).
pub fn needs_label(field: &FormField) -> bool {
    if field.presentational {
        return false;
    }
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

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for field in page.dom().fields.iter().filter(|f| f.visible && needs_label(f)) {
            if field.has_label || field.placeholder_only {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
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
    fn fires_for_unlabelled_fields() {
        let p = page(vec![], vec![unlabelled("select", "text", "country"), unlabelled("textarea", "text", "msg")]);
        let f = run(&LabelMissing, &p);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["selector"], "#country");
    }

    #[test]
    fn a_placeholder_names_the_field() {
        // <input name="q" placeholder="Find a recipe"> in a site's header: its accessible name is
        // "Find a recipe".
        let mut search = unlabelled("input", "search", "q");
        search.placeholder = Some("Find a recipe".into());
        search.placeholder_only = true;
        // An empty placeholder names nothing.
        let mut blank = unlabelled("input", "text", "note");
        blank.placeholder = Some("  ".into());
        let f = run(&LabelMissing, &page(vec![], vec![search, blank]));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#note");
    }

    #[test]
    fn presentational_fields_need_no_name() {
        // <textarea role="presentation" disabled> kept as a read-only layout box.
        let mut layout = unlabelled("textarea", "text", "terms");
        layout.presentational = true;
        assert!(run(&LabelMissing, &page(vec![], vec![layout])).is_empty());
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
