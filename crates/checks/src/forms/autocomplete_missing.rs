use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::field_purpose::{autofill_field_name, personal_purpose};
use crate::model::FormField;
use crate::{declare_check, evidence};

declare_check! {
    /// A personal-data field lacks a fitting autocomplete token.
    ///
    /// Fields judged: visible `<input>` of type text, email, tel, number, month or search,
    /// `<select>` and `<textarea>`. Their purpose (email, telephone, name parts, address parts,
    /// payment card data) comes from `field_purpose::personal_purpose`: name and id first, then
    /// the label, plus `type=email`/`type=tel`. Fires when `autocomplete` is missing, empty, `on`
    /// or `off`, or names an autofill field that does not fit the purpose (the HTML standard's
    /// autofill field names; an email field may also use `username`, as login forms do). Fields
    /// about someone else's data (a friend's email) or not personal at all (an email subject, a
    /// company name) are not judged.
    pub struct AutocompleteMissing {
        id: "forms.autocomplete-missing",
        severity: Low,
        title: "Personal-data field lacks an autocomplete token",
        fires_when: "a visible field that collects the visitor's email, name, telephone, address or payment card data has no autocomplete attribute, autocomplete=off, or a token that does not fit that data",
        description: "With the right autocomplete token browsers and password managers fill the field correctly in one tap; without it people with motor or cognitive impairments, and everyone on a phone, must type it all. WCAG 2.2 success criterion 1.3.5 (Identify Input Purpose) requires the token for fields about the user.",
        remediation: "Add the autofill token the evidence's `expected` lists, e.g. `<input type=\"email\" name=\"email\" autocomplete=\"email\">`, `autocomplete=\"given-name\"`, `\"tel\"`, `\"postal-code\"`, `\"cc-number\"`; prefix `shipping`/`billing` where a form has both addresses. Do not use autocomplete=\"off\" on such fields.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "expected", "purpose", "wcag"],
        help_url: Some("https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#autofill"),
        requires: [Dom],
        level: AA,
        wcag: ["1.3.5"],
    }
}

/// True for the controls that hold typed or chosen personal data.
fn is_data_entry(field: &FormField) -> bool {
    match field.tag.to_ascii_lowercase().as_str() {
        "input" => matches!(field.type_.as_str(), "text" | "email" | "tel" | "number" | "month" | "search"),
        "select" | "textarea" => true,
        _ => false,
    }
}

impl Check for AutocompleteMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for field in page.dom().fields.iter().filter(|f| f.visible && is_data_entry(f)) {
            let Some(purpose) = personal_purpose(field) else {
                continue;
            };
            let token = autofill_field_name(field.autocomplete.as_deref());
            if token.as_deref().is_some_and(|t| purpose.tokens().contains(&t)) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
                "value" => field.autocomplete,
                "expected" => purpose.tokens(),
                "purpose" => purpose.as_str(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{input, page, run};
    use super::*;

    fn with_autocomplete(mut field: FormField, value: Option<&str>) -> FormField {
        field.autocomplete = value.map(str::to_string);
        field
    }

    #[test]
    fn fires_for_missing_off_or_wrong_tokens() {
        let p = page(
            vec![],
            vec![
                input("email", "email"),
                with_autocomplete(input("text", "first_name"), Some("off")),
                with_autocomplete(input("tel", "phone"), Some("name")),
                with_autocomplete(input("text", "zip"), Some("on")),
            ],
        );
        let f = run(&AutocompleteMissing, &p);
        let purposes: Vec<_> = f.iter().map(|f| f.evidence["purpose"].as_str().unwrap_or("")).collect();
        assert_eq!(purposes, vec!["email", "given-name", "tel", "postal-code"]);
        assert_eq!(f[0].evidence["expected"][0], "email");
        assert!(f[0].evidence["value"].is_null());
        assert_eq!(f[1].evidence["value"], "off");
    }

    #[test]
    fn quiet_for_fitting_tokens_and_non_personal_fields() {
        let mut opt_in = input("checkbox", "email_opt_in");
        opt_in.label_text = Some("Email me offers".into());
        let mut hidden = input("email", "email2");
        hidden.visible = false;
        let p = page(
            vec![],
            vec![
                with_autocomplete(input("email", "email"), Some("email")),
                // A login field that takes an email address is autocomplete=username.
                with_autocomplete(input("email", "login_email"), Some("username")),
                with_autocomplete(input("tel", "phone"), Some("shipping tel-national")),
                with_autocomplete(input("text", "address_line_1"), Some("section-ship shipping address-line1")),
                with_autocomplete(input("text", "card_number"), Some("cc-number")),
                input("text", "company_name"),
                input("text", "username"),
                input("search", "q"),
                input("email", "friend_email"),
                input("text", "email_subject"),
                opt_in,
                hidden,
            ],
        );
        let f = run(&AutocompleteMissing, &p);
        assert!(f.is_empty(), "{:?}", f.iter().map(|f| &f.evidence["selector"]).collect::<Vec<_>>());
    }
}
