use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::field_purpose::{autofill_field_name, identifier_words, inputmode, label_words};
use crate::model::FormField;
use crate::{declare_check, evidence};

declare_check! {
    /// An email, telephone, URL or number field is a plain text input.
    ///
    /// For each visible `<input>` whose effective type is `text` and that has no `inputmode`
    /// (the author already chose a keyboard), the expected type from, in order: its
    /// `autocomplete` token (`email`, `tel*`, `url`), its name/id words, its label words, an
    /// example address as placeholder (`you@example.com`). Words: `email` -> email; `phone`,
    /// `tel`, `telephone`, `mobile`, `fax` -> tel; `url`, `website`, `homepage`, `web site`
    /// -> url; `quantity`, `qty` -> number (not postcodes, card numbers or phone numbers, which are
    /// not numbers to count). Not judged: fields whose words also say `username`/`login` or
    /// whose label offers a choice ("Email or phone"), and fields about types, formats, subjects
    /// or opt-ins (`phone_type`, `email_subject`).
    pub struct InputTypeMismatch {
        id: "forms.input-type-mismatch",
        severity: Low,
        title: "Input uses type=text for email, phone, URL or number",
        fires_when: "a visible text input is, by its autocomplete token, name, id, label or placeholder, an email, telephone, URL or quantity field but has type=text and no inputmode",
        description: "The input type picks the on-screen keyboard (@ and . for email, digits for telephone) and enables the browser's own validation and autofill; as type=text, mobile visitors get the wrong keyboard and typos go unnoticed until the server rejects them.",
        remediation: "Use the matching type: `<input type=\"email\" autocomplete=\"email\">`, `type=\"tel\"`, `type=\"url\"`, `type=\"number\"` for quantities. If a field must stay text (for example it accepts several formats), set `inputmode` (`email`, `tel`, `url`, `numeric`) to get the right keyboard.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "expected", "signal"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Element/input#input_types"),
        requires: [Dom],
    }
}

/// Words that make a field about something other than the address/number itself.
const NOT_THE_VALUE: &[&str] = &[
    "type",
    "format",
    "subject",
    "opt",
    "optin",
    "consent",
    "verified",
    "carrier",
    "model",
    "brand",
    "case",
    "ext",
    "extension",
    "name",
    "title",
    "label",
    "text",
    "description",
    "template",
    "frequency",
    "preference",
    "preferences",
    "code",
    "domain",
    "username",
    "user",
    "login",
    "or",
    "id",
];

fn has(words: &[String], any: &[&str]) -> bool {
    words.iter().any(|w| any.contains(&w.as_str()))
}

fn has_all(words: &[String], all: &[&str]) -> bool {
    all.iter().all(|a| words.iter().any(|w| w == a))
}

/// The input type the words call for.
fn type_from_words(w: &[String]) -> Option<&'static str> {
    if w.is_empty() || has(w, NOT_THE_VALUE) {
        return None;
    }
    if has(w, &["email", "emailaddress"]) {
        Some("email")
    } else if has(w, &["phone", "tel", "telephone", "mobile", "cellphone", "phonenumber", "fax"]) {
        Some("tel")
    } else if has(w, &["url", "website", "homepage", "webpage", "weburl"])
        || has_all(w, &["web", "site"])
        || has_all(w, &["home", "page"])
    {
        Some("url")
    } else if has(w, &["quantity", "qty"]) {
        Some("number")
    } else {
        None
    }
}

/// True when the placeholder is an example email address.
fn looks_like_email(placeholder: &str) -> bool {
    let p = placeholder.trim();
    !p.contains(' ')
        && p.split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.') && !domain.ends_with('.'))
}

/// The expected type and the signal that called for it.
fn expected_type(field: &FormField) -> Option<(&'static str, String)> {
    let ident = identifier_words(field);
    let label = label_words(field);
    // A field that accepts one of several kinds of value stays text.
    if has(&ident, &["username", "login", "user"]) || has(&label, &["or", "username", "login"]) {
        return None;
    }
    if let Some(token) = autofill_field_name(field.autocomplete.as_deref()) {
        let by_token = match token.as_str() {
            "email" => Some("email"),
            t if t.starts_with("tel") => Some("tel"),
            "url" | "photo" | "impp" => Some("url"),
            _ => None,
        };
        if let Some(t) = by_token {
            return Some((t, format!("autocomplete={token}")));
        }
    }
    if let Some(t) = type_from_words(&ident) {
        let signal = field
            .name
            .as_deref()
            .map_or_else(|| format!("id={}", field.id.as_deref().unwrap_or("")), |n| format!("name={n}"));
        return Some((t, signal));
    }
    if let Some(t) = type_from_words(&label) {
        return Some((t, format!("label={}", field.label_text.as_deref().unwrap_or(""))));
    }
    let placeholder = field.placeholder.as_deref().unwrap_or("");
    looks_like_email(placeholder).then(|| ("email", format!("placeholder={placeholder}")))
}

impl Check for InputTypeMismatch {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for field in &page.dom().fields {
            if !field.visible
                || !field.tag.eq_ignore_ascii_case("input")
                || field.type_ != "text"
                || inputmode(field).is_some()
            {
                continue;
            }
            let Some((expected, signal)) = expected_type(field) else {
                continue;
            };
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
                "value" => "text",
                "expected" => expected,
                "signal" => signal,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{input, page, run};
    use super::*;

    fn labelled(name: &str, label: &str) -> FormField {
        FormField { label_text: Some(label.into()), ..input("text", name) }
    }

    #[test]
    fn fires_for_text_inputs_that_are_email_tel_url_or_quantity() {
        let mut by_placeholder = input("text", "f9");
        by_placeholder.placeholder = Some("you@example.com".into());
        let mut by_token = input("text", "contact");
        by_token.autocomplete = Some("billing tel".into());
        let p = page(
            vec![],
            vec![
                input("text", "email"),
                labelled("f2", "Mobile phone"),
                input("text", "companyWebsite"),
                input("text", "qty"),
                by_placeholder,
                by_token,
            ],
        );
        let f = run(&InputTypeMismatch, &p);
        let got: Vec<_> = f
            .iter()
            .map(|f| (f.evidence["expected"].as_str().unwrap_or(""), f.evidence["signal"].as_str().unwrap_or("")))
            .collect();
        assert_eq!(
            got,
            vec![
                ("email", "name=email"),
                ("tel", "label=Mobile phone"),
                ("url", "name=companyWebsite"),
                ("number", "name=qty"),
                ("email", "placeholder=you@example.com"),
                ("tel", "autocomplete=tel"),
            ]
        );
    }

    #[test]
    fn quiet_for_right_types_choices_and_lookalikes() {
        let mut numeric = input("text", "phone");
        numeric.snippet = "<input type=\"text\" name=\"phone\" inputmode=\"tel\">".into();
        let p = page(
            vec![],
            vec![
                input("email", "email"),
                input("tel", "phone"),
                // A checkbox about email is not an email field.
                input("checkbox", "email_opt_in"),
                input("text", "email_subject"),
                input("text", "phone_type"),
                input("text", "website_name"),
                // A login field that takes either.
                labelled("login", "Email or username"),
                labelled("contact", "Email or phone"),
                // A choice stays text even when its placeholder shows an address.
                FormField { placeholder: Some("you@example.com".into()), ..labelled("reach", "Email or phone") },
                // Postcodes and card numbers are not quantities.
                input("text", "zip"),
                input("text", "card_number"),
                numeric,
            ],
        );
        let f = run(&InputTypeMismatch, &p);
        assert!(f.is_empty(), "{:?}", f.iter().map(|f| &f.evidence["selector"]).collect::<Vec<_>>());
    }
}
