use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::label_missing::needs_label;
use crate::{declare_check, evidence};

declare_check! {
    /// A form has no submit control.
    ///
    /// For each visible form (method other than `dialog`) without a submit button
    /// (`Form::has_submit`: `<button>` without type or type=submit, `<input type=submit|image>`)
    /// that has at least one data-entry field (per `DomFacts::fields` with its index; forms made
    /// only of buttons, such as a "log out" form, are skipped; when no field carries the form's
    /// index, `Form::field_count` is used).
    pub struct SubmitMissing {
        id: "forms.submit-missing",
        severity: Medium,
        title: "Form has no submit button",
        fires_when: "a visible form with input fields has no submit control (button type=submit or without type, input type=submit or image)",
        description: "Without a submit button, people who cannot or do not press Enter (touch-screen, voice-control and switch users, and anyone unsure what Enter does) have no way to send the form, and Enter itself only submits forms with a single field; forms that rely on a script-handled click break for keyboard users too.",
        remediation: "Add a real submit button inside the form, e.g. `<button type=\"submit\">Subscribe</button>`, and handle the form's `submit` event in scripts instead of a click on a div or a `type=\"button\"`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value"],
        help_url: Some("https://www.w3.org/WAI/tutorials/forms/instructions/"),
        requires: [Dom],
    }
}

impl Check for SubmitMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for (index, form) in page.dom().forms.iter().enumerate() {
            if form.has_submit || !form.visible || form.method.eq_ignore_ascii_case("dialog") {
                continue;
            }
            let own: Vec<_> = page.dom().fields.iter().filter(|f| f.form_index == Some(index)).collect();
            let entries = if own.is_empty() { form.field_count } else { own.iter().filter(|f| needs_label(f)).count() };
            if entries == 0 {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => form.selector,
                "snippet" => form.snippet,
                "value" => entries,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{form, input, page, run};
    use super::*;
    use crate::model::{Form, FormField};

    #[test]
    fn fires_for_form_with_fields_but_no_submit() {
        let no_submit = Form { has_submit: false, ..form("#subscribe", "https://example.com/s") };
        let f = run(&SubmitMissing, &page(vec![no_submit], vec![input("email", "email"), input("button", "go")]));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#subscribe");
        assert_eq!(f[0].evidence["value"], 1);
    }

    #[test]
    fn quiet_for_forms_with_submit_or_only_buttons_or_hidden() {
        let with_submit = form("#ok", "https://example.com/ok");
        let buttons_only = Form { has_submit: false, field_count: 1, ..form("#logout", "https://example.com/logout") };
        let hidden = Form { has_submit: false, visible: false, ..form("#hidden", "https://example.com/h") };
        let logout_button = FormField { form_index: Some(1), ..input("button", "logout") };
        let hidden_field = FormField { form_index: Some(2), ..input("text", "x") };
        let p = page(vec![with_submit, buttons_only, hidden], vec![input("text", "name"), logout_button, hidden_field]);
        assert!(run(&SubmitMissing, &p).is_empty());
    }
}
