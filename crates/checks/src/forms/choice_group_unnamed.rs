use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierField;
use crate::{declare_check, evidence};

declare_check! {
    /// Radio buttons or check boxes that belong together have no named group.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): two or more visible radio buttons
    /// with the same `name` in the same form (or outside any form), or two or more check boxes
    /// sharing a `name` (`topics[]`), of which at least one is in no named group: no
    /// `<fieldset>` with a `<legend>` (or an aria-label(ledby)), no `role="radiogroup"` or
    /// `role="group"` with an accessible name. One finding per group, on its first control.
    /// Check boxes with different names cannot be told to belong together and are not judged.
    pub struct ChoiceGroupUnnamed {
        id: "forms.choice-group-unnamed",
        severity: Medium,
        title: "Radio buttons or check boxes have no named group",
        fires_when: "2+ radio buttons (or check boxes) sharing a name are not inside a fieldset with a legend or a role=radiogroup/group with an accessible name",
        description: "Each option's label (\"Yes\", \"No\", \"Email\") makes sense only with the question it answers. Sighted visitors see the question above the options; screen-reader users tabbing into the group hear only \"Yes, radio button, 1 of 2\" unless the group carries the question as its name: WCAG 2.2 success criterion 1.3.1 (Info and Relationships), technique H71.",
        remediation: "Wrap the options in `<fieldset>` with the question as `<legend>` (`<fieldset><legend>Send me the newsletter</legend>...</fieldset>`), or give a container `role=\"radiogroup\"` (`role=\"group\"` for check boxes) and `aria-labelledby` pointing at the question.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "name", "type", "count", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/html/H71"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for ChoiceGroupUnnamed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        // (type, form, name) -> controls, in document order.
        let mut groups: Vec<((&str, &str, &str), Vec<&BarrierField>)> = Vec::new();
        for field in &facts.fields {
            let (Some(name), "radio" | "checkbox") = (field.name.as_deref().filter(|n| !n.is_empty()), field.type_.as_str()) else { continue };
            let key = (field.type_.as_str(), field.form.as_str(), name);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(field),
                None => groups.push((key, vec![field])),
            }
        }
        for ((type_, _, name), members) in groups {
            if members.len() < 2 || members.iter().all(|m| m.group.as_deref().is_some_and(|g| !g.trim().is_empty())) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => members[0].selector,
                "snippet" => members[0].snippet,
                "name" => name,
                "type" => type_,
                "count" => members.len(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_field, barrier_page, run};
    use super::*;

    fn choice(selector: &str, type_: &str, name: &str, group: Option<&str>) -> BarrierField {
        BarrierField { type_: type_.into(), name: Some(name.into()), group: group.map(str::to_string), ..barrier_field(selector, &["Yes"]) }
    }

    #[test]
    fn fires_once_per_ungrouped_set_of_same_named_choices() {
        let p = barrier_page(vec![
            choice("#yes", "radio", "news", None),
            choice("#no", "radio", "news", None),
            choice("#a", "radio", "size", Some("Size")),
            choice("#b", "radio", "size", Some("Size")),
            choice("#t1", "checkbox", "topics[]", None),
            choice("#t2", "checkbox", "topics[]", Some("")),
            choice("#alone", "checkbox", "terms", None),
        ]);
        let f = run(&ChoiceGroupUnnamed, &p);
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["count"].as_u64().unwrap_or_default())).collect();
        assert_eq!(got, [("#yes", 2), ("#t1", 2)]);
    }
}
