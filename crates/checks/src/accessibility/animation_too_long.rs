use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

/// Animations that run longer than this (ms) need a way to pause them (WCAG 2.2.2).
pub const MAX_ANIMATION_MS: u64 = 5_000;
/// Images smaller than this on both sides (CSS px) are left out (a busy indicator, an icon).
pub const MIN_ANIMATED_SIDE_PX: u32 = 48;

declare_check! {
    /// An animated image runs longer than five seconds with no way to pause it.
    ///
    /// Judged from the layout gatherer's image animations (`LayoutFacts::animations`): a
    /// visible `<img>` whose GIF, APNG or WebP bytes (from the page's own network record, or a
    /// `data:` URL) hold more than one frame, and whose frame delays times its plays exceed 5 s
    /// (an endless loop always does). Left out: images under 48 px on both sides (busy
    /// indicators, which 2.2.2 treats as essential), images with a control whose name says pause
    /// or stop within three levels up, and images in a `<picture>` offering a
    /// `prefers-reduced-motion` source. Whether a page-wide control stops it is for a person to
    /// see (`needs_review`).
    pub struct AnimationTooLong {
        id: "accessibility.animation-too-long",
        severity: Medium,
        title: "Animated image plays over 5 seconds without a pause control",
        fires_when: "a visible animated GIF, APNG or WebP of 48 px or more runs longer than 5 s (or loops forever) and no pause or stop control sits next to it (needs review)",
        description: "Moving content that goes on for more than five seconds distracts people with attention or reading difficulties and can make the rest of the page unusable for them; they must be able to pause, stop or hide it: WCAG 2.2 success criterion 2.2.2 (Pause, Stop, Hide).",
        remediation: "Make the animation stop within 5 seconds (a finite loop count), or offer a pause button next to it (swap in a still image), or show a still image under `prefers-reduced-motion: reduce` with `<picture><source media=\"(prefers-reduced-motion: reduce)\" srcset=\"still.png\">`; better still, use a `<video>` with controls.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "value", "limit", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/pause-stop-hide.html"),
        requires: [Layout],
        level: A,
        wcag: ["2.2.2"],
    }
}

impl Check for AnimationTooLong {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for a in &layout.animations {
            let big = a.rendered_width.max(a.rendered_height) >= MIN_ANIMATED_SIDE_PX;
            let long = a.runs_ms().is_none_or(|ms| ms > MAX_ANIMATION_MS);
            if !big || !long || a.pause_control || a.reduced_motion_alternative {
                continue;
            }
            let value = match a.runs_ms() {
                None => format!("{} {} frames of {} ms, looping forever", a.frames, a.format, a.loop_ms),
                Some(ms) => format!("{} {} frames of {} ms, {} plays: {} ms", a.frames, a.format, a.loop_ms, a.plays.unwrap_or(1), ms),
            };
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => a.selector,
                "snippet" => a.snippet,
                "resource" => a.url,
                "value" => value,
                "limit" => format!("{MAX_ANIMATION_MS} ms"),
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{AnimatedImage, DomFacts, LayoutFacts, Severity};

    fn gif(selector: &str, loop_ms: u64, plays: Option<u32>) -> AnimatedImage {
        AnimatedImage { selector: selector.into(), format: "gif".into(), frames: 4, loop_ms, plays, rendered_width: 200, rendered_height: 100, ..Default::default() }
    }

    #[test]
    fn fires_on_long_or_endless_animations_without_a_control() {
        let mut p = page(DomFacts::default());
        let small = AnimatedImage { rendered_width: 32, rendered_height: 32, ..gif("#spinner", 800, None) };
        let paused = AnimatedImage { pause_control: true, ..gif("#paused", 800, None) };
        let reduced = AnimatedImage { reduced_motion_alternative: true, ..gif("#reduced", 800, None) };
        p.layout = Some(LayoutFacts {
            animations: vec![gif("#forever", 800, None), gif("#long", 2000, Some(3)), gif("#short", 1000, Some(3)), small, paused, reduced],
            ..Default::default()
        });
        let f = run(&AnimationTooLong, &p);
        let selectors: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap_or_default()).collect();
        assert_eq!(selectors, ["#forever", "#long"]);
        assert_eq!((f[0].severity, f[0].evidence["needs_review"].as_bool()), (Severity::Medium, Some(true)));
        assert_eq!(f[1].evidence["value"], "4 gif frames of 2000 ms, 3 plays: 6000 ms");
    }
}
