use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::image_alt_meaningless::named_by_alt;
use crate::model::barriers::normalize;
use crate::{declare_check, evidence};

declare_check! {
    /// An image's alt text repeats its caption word for word.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible `<img>` in a `<figure>`
    /// whose non-empty alt text equals the figure's `<figcaption>` text (ignoring case and white
    /// space), the image named by its alt (no aria name, not presentational). axe-core's
    /// `image-redundant-alt` compares with the text of an enclosing link or button only.
    pub struct ImageAltRepeatsCaption {
        id: "accessibility.image-alt-repeats-caption",
        severity: Low,
        title: "Image alt text repeats the caption",
        fires_when: "a visible image's alt text is the same as its figure caption",
        description: "Screen-reader users hear the same words twice, once as the image and once as its caption, and still learn nothing about what the image shows that the caption does not say: WCAG 2.2 success criterion 1.1.1 (Non-text Content), technique H86 and failure-avoiding advice of the W3C images tutorial.",
        remediation: "Let the caption carry the shared text and make the alt describe what the image shows beyond it, or, when the caption already says all of it, give the image an empty alt (`alt=\"\"`).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "alt", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/images/informative/"),
        requires: [Barriers],
        level: A,
        wcag: ["1.1.1"],
    }
}

impl Check for ImageAltRepeatsCaption {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for image in facts.images.iter().filter(|i| named_by_alt(i)) {
            let (Some(alt), Some(caption)) = (&image.alt, &image.caption) else { continue };
            let alt = normalize(alt);
            if alt.is_empty() || alt != normalize(caption) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "alt" => image.alt,
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
    fn fires_when_alt_equals_the_caption() {
        let img = |sel: &str, alt: &str, caption: &str| BarrierImage { selector: sel.into(), alt: Some(alt.into()), caption: Some(caption.into()), ..Default::default() };
        let facts = BarrierFacts {
            images: vec![img("#same", "The old harbour at dawn", " the old  harbour at dawn "), img("#differs", "Fishing boats moored", "The old harbour"), img("#empty", "", "")],
            ..Default::default()
        };
        let f = run(&ImageAltRepeatsCaption, &barrier_page(facts));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#same");
    }
}
