//! The forms ids of CHECKS.md are registered, spelled exactly, with their default severities
//! (and CWE ids), in CHECKS.md order, and every forms check is documented.

use crate::checks::{catalogue, find};
use crate::model::Severity;

/// CHECKS.md, forms table: id and default severity (the first of a two-level pair).
const CONTRACT: &[(&str, Severity)] = &[
    ("forms.insecure-action", Severity::High),
    ("forms.password-over-http", Severity::Critical),
    ("forms.password-in-get", Severity::High),
    ("forms.autocomplete-missing", Severity::Low),
    ("forms.input-type-mismatch", Severity::Low),
    ("forms.label-missing", Severity::High),
    ("forms.submit-missing", Severity::Medium),
];

/// CWE ids CHECKS.md gives for this category.
const CWES: &[(&str, &str)] = &[
    ("forms.insecure-action", "CWE-319"),
    ("forms.password-over-http", "CWE-319"),
    ("forms.password-in-get", "CWE-598"),
];

#[test]
fn contract_ids_are_registered_with_their_default_severity() {
    for (id, severity) in CONTRACT {
        let meta = find(id).unwrap_or_else(|| panic!("{id} is not registered"));
        assert_eq!(meta.severity, *severity, "{id}");
    }
    for (id, cwe) in CWES {
        assert_eq!(find(id).and_then(|m| m.cwe_id), Some(*cwe), "{id}");
    }
}

#[test]
fn contract_ids_come_in_checks_md_order() {
    let registered: Vec<&str> = catalogue().map(|m| m.id).filter(|id| CONTRACT.iter().any(|(c, _)| c == id)).collect();
    let expected: Vec<&str> = CONTRACT.iter().map(|(id, _)| *id).collect();
    assert_eq!(registered, expected);
}

#[test]
fn every_forms_check_is_documented() {
    let metas: Vec<_> = catalogue().filter(|m| m.category() == "forms").collect();
    assert!(metas.len() >= CONTRACT.len());
    for meta in &metas {
        assert!(!meta.title.trim().is_empty() && meta.title.len() <= 80, "{}", meta.id);
        assert!(meta.fires_when.len() > 20, "{}", meta.id);
        assert!(meta.description.len() > 60, "{}", meta.id);
        assert!(meta.remediation.len() > 60, "{}", meta.id);
        assert!(meta.evidence_keys.first() == Some(&"url"), "{}: url comes first", meta.id);
        if let Some(cwe) = meta.cwe_id {
            assert!(cwe.strip_prefix("CWE-").is_some_and(|n| n.parse::<u32>().is_ok()), "{}", meta.id);
        }
        if let Some(url) = meta.help_url {
            assert!(url.starts_with("https://"), "{}", meta.id);
        }
        let name = &meta.id["forms.".len()..];
        assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", meta.id);
    }
}

/// An https sign-up form done right: POST to https, labels, fitting autocomplete tokens and
/// input types, a submit button; plus a GET search form and a newsletter opt-in checkbox.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{form, input, page};
    use crate::checks::{Thresholds, run_page_checks};
    use crate::model::{Form, FormField};

    let with = |mut f: FormField, autocomplete: &str, label: &str| {
        f.autocomplete = Some(autocomplete.into());
        f.label_text = Some(label.into());
        f
    };
    let mut submit = input("submit", "signup");
    submit.has_label = false;
    let mut opt_in = input("checkbox", "email_opt_in");
    opt_in.label_text = Some("Send me the newsletter".into());
    let mut q = input("search", "q");
    q.form_index = Some(1);
    q.label_text = Some("Search".into());
    let search = Form { method: "get".into(), ..form("#search", "https://example.com/search") };
    let p = page(
        vec![Form { has_password: true, ..form("#signup", "https://example.com/signup") }, search],
        vec![
            with(input("text", "given_name"), "given-name", "First name"),
            with(input("text", "family_name"), "family-name", "Last name"),
            with(input("email", "email"), "email", "Email"),
            with(input("tel", "phone"), "tel", "Phone"),
            with(input("password", "password"), "new-password", "Password"),
            opt_in,
            submit,
            q,
        ],
    );
    let findings: Vec<_> =
        run_page_checks(&p, &Thresholds::default()).into_iter().filter(|f| f.category() == "forms").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
