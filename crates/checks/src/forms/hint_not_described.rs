use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// A visible hint next to a field is not tied to it.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): the element right after a visible
    /// field (or after the label wrapping it), neither a control nor a label nor holding one,
    /// whose short text (at most 150 characters) reads as an instruction: a format (`format`,
    /// `dd/mm`, `yyyy`, `e.g.`, `for example`), a rule (`must`), a length (`at least 8`,
    /// `10 digits`), while it is not (inside) one of the field's `aria-describedby` elements.
    /// Conservative, and a reading a person confirms: `needs_review`.
    pub struct HintNotDescribed {
        id: "forms.hint-not-described",
        severity: Low,
        title: "Field hint is not tied to its field",
        fires_when: "instruction text right after a field (format, \"must\", \"at least N characters\", \"e.g.\") is not referenced by the field's aria-describedby (needs review)",
        description: "Sighted visitors read the hint beside the field; screen-reader users tabbing from field to field hear only the label and meet the rule (\"at least 12 characters\") only when their input is rejected: WCAG 2.2 success criteria 1.3.1 (Info and Relationships) and 3.3.2 (Labels or Instructions).",
        remediation: "Give the hint an id and reference it from the field: `<input id=\"pw\" aria-describedby=\"pw-hint\"> <p id=\"pw-hint\">At least 12 characters.</p>`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "hint", "hint_selector", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/forms/instructions/"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1", "3.3.2"],
    }
}

impl Check for HintNotDescribed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for field in &facts.fields {
            let Some(hint) = field.hint.as_deref().filter(|h| !h.trim().is_empty()) else { continue };
            if field.hint_tied {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => field.selector,
                "snippet" => field.snippet,
                "hint" => hint,
                "hint_selector" => field.hint_selector,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_field, barrier_page, run};
    use super::*;
    use crate::model::BarrierField;

    #[test]
    fn fires_on_untied_hints_only() {
        let hinted = |sel: &str, tied: bool| BarrierField {
            hint: Some("At least 12 characters".into()),
            hint_selector: Some(format!("{sel}-hint")),
            hint_tied: tied,
            ..barrier_field(sel, &["Password"])
        };
        let p = barrier_page(vec![hinted("#loose", false), hinted("#tied", true), barrier_field("#plain", &["Name"])]);
        let f = run(&HintNotDescribed, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].evidence["hint_selector"].as_str()), (Some("#loose"), Some("#loose-hint")));
        assert_eq!(f[0].evidence["needs_review"], true);
    }
}
