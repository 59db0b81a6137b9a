//! Test helpers: a rendered page with forms and fields, and one check's findings.

use crate::model::{DomFacts, Form, FormField, PageSnapshot};
pub use crate::test_kit::{run};
use crate::test_kit::html_page;

pub const URL: &str = "https://example.com/signup";

/// A rendered 200 HTML page at `url` with these forms and fields.
pub fn page_at(url: &str, forms: Vec<Form>, fields: Vec<FormField>) -> PageSnapshot {
    PageSnapshot {
        dom: DomFacts { forms, fields, ..Default::default() },
        ..html_page(url)
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


/// A rendered page at `URL` whose barrier facts hold these fields.
pub fn barrier_page(fields: Vec<crate::model::BarrierField>) -> PageSnapshot {
    PageSnapshot { barriers: Some(crate::model::BarrierFacts { fields, ..Default::default() }), ..page(Vec::new(), Vec::new()) }
}

/// A visible text field in form `#f` with these labels.
pub fn barrier_field(selector: &str, labels: &[&str]) -> crate::model::BarrierField {
    crate::model::BarrierField {
        selector: selector.into(),
        snippet: format!("<input id=\"{}\">", selector.trim_start_matches('#')),
        tag: "input".into(),
        type_: "text".into(),
        form: "#f".into(),
        labels: labels.iter().map(|l| l.to_string()).collect(),
        ..Default::default()
    }
}
