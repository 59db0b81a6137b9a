use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::step_evidence;
use crate::declare_check;
use crate::model::journey::SLOW_INTERACTION_MS;
use serde_json::json;

declare_check! {
    /// A click or key press during a journey was slow to paint.
    ///
    /// # Fires when
    /// a click or key press took longer than 200 ms to next paint (INP-style, from the trace): from the input event to the second animation frame after it
    ///
    /// # Why it matters
    /// Past 200 ms between a click and the screen answering, the page feels sluggish (it is the "needs improvement" line of Interaction to Next Paint, a Core Web Vital); people click again, or think the action failed.
    ///
    /// # How to fix
    /// Profile the interaction: break long event handlers up (yield to the browser with `scheduler.yield()` or `setTimeout`), do the visible update first and the rest after, move heavy work off the main thread.
    ///
    /// # Evidence
    /// `url`, `journey`, `step_index`, `step`, `selector`, `value` (milliseconds), `limit`.
    pub struct SlowInteraction {
        id: "journeys.slow-interaction",
        severity: Low,
        title: "A journey interaction was slow to paint",
        fires_when: "a click or key press took longer than 200 ms to next paint (INP-style, from the trace): from the input event to the second animation frame after it",
        description: "Past 200 ms between a click and the screen answering, the page feels sluggish (it is the \"needs improvement\" line of Interaction to Next Paint, a Core Web Vital); people click again, or think the action failed.",
        remediation: "Profile the interaction: break long event handlers up (yield to the browser with `scheduler.yield()` or `setTimeout`), do the visible update first and the rest after, move heavy work off the main thread.",
        cwe: None,
        evidence: ["url", "journey", "step_index", "step", "selector", "value", "limit"],
        help_url: Some("https://web.dev/articles/inp"),
        site_requires: [Journeys],
    }
}

impl Check for SlowInteraction {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for journey in site.journeys() {
            for step in &journey.steps {
                let Some(ms) = step.interaction_to_paint_ms.filter(|ms| *ms > SLOW_INTERACTION_MS) else { continue };
                let mut ev = step_evidence::of_step(journey, step.index);
                ev.insert("value".into(), json!(ms.round()));
                ev.insert("limit".into(), json!(SLOW_INTERACTION_MS));
                out.report(ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, journey, ok_step, site_with};

    fn with(ms: f64) -> crate::model::SiteSnapshot {
        let mut click = ok_step(0, "click \"#slow\"", "https://shop.test/");
        click.selector = Some("#slow".into());
        click.interaction_to_paint_ms = Some(ms);
        site_with(vec![journey(vec![click])])
    }

    #[test]
    fn fires_past_200_ms() {
        let found = findings(&with(412.4), "journeys.slow-interaction");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["value"], 412.0);
        assert_eq!(found[0].evidence["selector"], "#slow");
    }

    #[test]
    fn quiet_at_or_under_200_ms() {
        assert!(findings(&with(200.0), "journeys.slow-interaction").is_empty());
        assert!(findings(&with(35.0), "journeys.slow-interaction").is_empty());
    }
}
