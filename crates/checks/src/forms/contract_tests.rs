//! A page that follows every forms rule produces no forms finding. (The catalogue contract for
//! every category is `checks::contract_tests`.)

/// An https sign-up form done right: POST to https, labels, fitting autocomplete tokens and
/// input types, a submit button; plus a GET search form and a newsletter opt-in checkbox.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{form, input, page};
    use crate::{Thresholds, run_page_checks};
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
        run_page_checks(&p, &Thresholds::default()).findings.into_iter().filter(|f| f.category() == "forms").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
