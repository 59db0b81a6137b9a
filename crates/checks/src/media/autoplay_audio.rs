use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::video_no_captions::may_have_sound;
use crate::{declare_check, evidence};

/// WCAG 1.4.2 applies to audio that plays automatically for more than 3 seconds.
const MAX_SILENT_AUTOPLAY_S: f64 = 3.0;

declare_check! {
    /// Media starts playing sound on its own.
    ///
    /// For each `<video>`/`<audio>` that has `autoplay` or was already playing when the page was
    /// captured (started by script; the capture makes no click or key press that activates
    /// anything), is not muted, and may have sound (`has_audio` not known false). Media known to
    /// last 3 seconds or less without `loop` is exempt (WCAG 1.4.2's limit). The headless browser
    /// may itself block unmuted autoplay; the page's intent is judged, not whether it succeeded.
    pub struct AutoplayAudio {
        id: "media.autoplay-audio",
        severity: Medium,
        title: "Media autoplays with sound",
        fires_when: "a video or audio element autoplays (or is playing without user action) unmuted, may have sound, and lasts more than 3 seconds or loops",
        description: "Sound that starts on its own talks over screen readers, so blind visitors cannot hear the page to find the control that stops it (WCAG 2.2 success criterion 1.4.2, Audio Control), and it startles everyone else; browsers increasingly block it, leaving a video that silently fails to start.",
        remediation: "Do not autoplay with sound: start media muted (`<video autoplay muted playsinline loop>`) or only on a user's click, and give audio a visible pause/stop control.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "value", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/audio-control.html"),
        requires: [Dom],
        level: A,
        wcag: ["1.4.2"],
    }
}

impl Check for AutoplayAudio {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for media in &page.dom().media {
            if !(media.autoplay || media.playing) || !may_have_sound(media) {
                continue;
            }
            let short = media.duration_s.is_some_and(|d| d.is_finite() && d <= MAX_SILENT_AUTOPLAY_S);
            if short && !media.loop_ {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => media.selector,
                "snippet" => media.snippet,
                "resource" => media.src,
                "value" => media.duration_s.filter(|d| d.is_finite()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::MediaElement;

    fn media(
        selector: &str,
        autoplay: bool,
        muted: bool,
        has_audio: Option<bool>,
        duration: Option<f64>,
    ) -> MediaElement {
        MediaElement {
            tag: "video".into(),
            src: Some("https://example.com/promo.mp4".into()),
            autoplay,
            muted,
            has_audio,
            duration_s: duration,
            selector: selector.into(),
            snippet: "<video autoplay>".into(),
            ..Default::default()
        }
    }

    fn with_media(list: Vec<MediaElement>) -> PageSnapshot {
        let mut p = page(vec![], vec![]);
        p.dom.media = list;
        p
    }

    #[test]
    fn fires_on_unmuted_autoplay_and_script_started_playback() {
        let mut started = media("#radio", false, false, Some(true), Some(f64::INFINITY));
        started.tag = "audio".into();
        started.playing = true;
        let p = with_media(vec![media("#promo", true, false, None, Some(30.0)), started]);
        let f = run(&AutoplayAudio, &p);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["value"], 30.0);
        assert!(f[1].evidence["value"].is_null(), "a live stream has no finite duration");
    }

    #[test]
    fn quiet_for_muted_silent_short_or_click_to_play_media() {
        let mut short_loop = media("#chime-loop", true, false, Some(true), Some(2.0));
        short_loop.loop_ = true;
        let p = with_media(vec![
            media("#hero", true, true, None, Some(30.0)),
            media("#silent", true, false, Some(false), Some(30.0)),
            media("#chime", true, false, Some(true), Some(2.0)),
            media("#click", false, false, Some(true), Some(30.0)),
        ]);
        assert!(run(&AutoplayAudio, &p).is_empty());
        // A short sound that loops plays on indefinitely.
        assert_eq!(run(&AutoplayAudio, &with_media(vec![short_loop])).len(), 1);
    }
}
