//! Test helpers: a rendered page with forms and fields, and one check's findings.

use crate::checks::{Check, Findings, Thresholds};
use crate::model::{DomFacts, Finding, Form, FormField, PageSnapshot};

pub const URL: &str = "https://example.com/signup";

/// A rendered 200 HTML page at `url` with these forms and fields.
pub fn page_at(url: &str, forms: Vec<Form>, fields: Vec<FormField>) -> PageSnapshot {
    PageSnapshot {
        requested_url: url.into(),
        final_url: url.into(),
        status: Some(200),
        mime_type: Some("text/html".into()),
        dom: DomFacts { forms, fields, ..Default::default() },
        ..Default::default()
    }
}

/// The same at `URL` (https).
pub fn page(forms: Vec<Form>, fields: Vec<FormField>) -> PageSnapshot {
    page_at(URL, forms, fields)
}

/// A visible POST form submitting to `action`, with a submit button.
pub fn form(selector: &str, action: &str) -> Form {
    Form {
        action_raw: Some(action.into()),
        action: Some(action.into()),
        method: "post".into(),
        has_submit: true,
        field_count: 1,
        visible: true,
        selector: selector.into(),
        snippet: format!("<form action=\"{action}\" method=\"post\">"),
        ..Default::default()
    }
}

/// A visible, labelled `<input>` of this type and name in form 0.
pub fn input(type_: &str, name: &str) -> FormField {
    FormField {
        tag: "input".into(),
        type_attr: Some(type_.into()),
        type_: type_.into(),
        name: Some(name.into()),
        id: Some(name.into()),
        has_label: true,
        label_text: None,
        visible: true,
        form_index: Some(0),
        selector: format!("#{name}"),
        snippet: format!("<input type=\"{type_}\" name=\"{name}\" id=\"{name}\">"),
        ..Default::default()
    }
}

/// The findings `check` reports for `page` with default thresholds.
pub fn run(check: &dyn Check, page: &PageSnapshot) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut sink = Findings::new(check.meta(), &mut out);
    check.page(page, &Thresholds::default(), &mut sink);
    drop(sink);
    out
}
