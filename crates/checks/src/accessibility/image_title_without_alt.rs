use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// An image has a title but no alt attribute.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible `<img>` with a non-empty
    /// `title` and no `alt` attribute, named neither by aria-label nor aria-labelledby. The
    /// accessible name computation takes the title as the name, so axe-core's `image-alt` and
    /// the ACT rule pass such an image; the tooltip shows only on mouse hover, so the text is
    /// missing for keyboard, touch and many magnifier users, and when images fail to load. Also a
    /// visible image with an empty `alt` and a non-empty `title`: the empty alt hides it from
    /// assistive technologies as decoration while the tooltip says it means something, so one of
    /// the two is wrong (`reason: empty-alt`).
    pub struct ImageTitleWithoutAlt {
        id: "accessibility.image-title-without-alt",
        severity: Low,
        title: "Image has a title but no alt text",
        fires_when: "a visible image has a title attribute and no alt attribute or an empty one (nor aria-label or aria-labelledby)",
        description: "The title shows only as a mouse-hover tooltip: keyboard, touch-screen and many screen-magnifier users never see it, some assistive technologies ignore it, and nothing replaces the image when it fails to load: WCAG 2.2 success criterion 1.1.1 (Non-text Content), technique H37.",
        remediation: "Put the text alternative in `alt` (`<img src=\"map.png\" alt=\"Map of the campus\">`); keep `title` only for extra advisory information, never as the only text.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "title", "reason", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/html/H37"),
        requires: [Barriers],
        level: A,
        wcag: ["1.1.1"],
    }
}

impl Check for ImageTitleWithoutAlt {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for image in &facts.images {
            let Some(title) = image.title.as_deref().filter(|t| !t.trim().is_empty()) else { continue };
            let reason = match image.alt.as_deref() {
                None => "no-alt",
                Some(alt) if alt.trim().is_empty() => "empty-alt",
                Some(_) => continue,
            };
            if image.aria_name {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "title" => title,
                "reason" => reason,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, BarrierImage};

    #[test]
    fn fires_on_title_only_images() {
        let img = |sel: &str, alt: Option<&str>, title: Option<&str>| BarrierImage {
            selector: sel.into(),
            alt: alt.map(str::to_string),
            title: title.map(str::to_string),
            ..Default::default()
        };
        let facts = BarrierFacts {
            images: vec![
                img("#title-only", None, Some("Campus map")),
                img("#both", Some("Campus map"), Some("Campus map")),
                img("#none", None, None),
                img("#empty-alt", Some(" "), Some("BBC")),
                img("#decorative", Some(""), None),
            ],
            ..Default::default()
        };
        let f = run(&ImageTitleWithoutAlt, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["reason"].as_str().unwrap_or_default())).collect();
        assert_eq!(got, [("#title-only", "no-alt"), ("#empty-alt", "empty-alt")]);
        assert_eq!(f[0].evidence["title"], "Campus map");
    }
}
