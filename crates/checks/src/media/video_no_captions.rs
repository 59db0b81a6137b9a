use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::{MediaElement, MediaTrack};
use crate::{declare_check, evidence};

declare_check! {
    /// A video with sound has no captions or subtitles track.
    ///
    /// For each `<video>` that may have sound (`has_audio` is not known to be false) and is not
    /// muted, with no `<track>` of kind `captions` or `subtitles`. A `<track>` without `kind` is
    /// a subtitles track (the HTML default); one with an unknown kind is `metadata` (the invalid
    /// value default) and does not count; nor does one whose `src` is empty. Gap: videos embedded
    /// through an iframe (YouTube, Vimeo) are not visible in the snapshot.
    pub struct VideoNoCaptions {
        id: "media.video-no-captions",
        severity: High,
        title: "Video has no captions",
        fires_when: "a video that may have sound (not muted, audio not known to be absent) has no <track kind=captions|subtitles>",
        description: "Deaf and hard-of-hearing visitors, and everyone watching without sound, miss whatever is said in a video without captions: WCAG 2.2 success criterion 1.2.2 (Captions, prerecorded) requires them for prerecorded audio content in synchronised media.",
        remediation: "Add a WebVTT captions track: `<video controls src=\"intro.mp4\"><track kind=\"captions\" srclang=\"en\" label=\"English\" src=\"intro.en.vtt\" default></video>`. Caption speech and meaningful sounds; if the video really has no audio, strip the audio track from the file (or add `muted`).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "tracks", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/captions-prerecorded.html"),
        requires: [Dom],
        level: A,
        wcag: ["1.2.2"],
    }
}

/// True for a track that provides captions or subtitles.
fn is_caption_track(track: &MediaTrack) -> bool {
    let kind = track.kind.trim().to_ascii_lowercase();
    let captions = matches!(kind.as_str(), "captions" | "subtitles" | "");
    captions && !track.src.as_deref().is_some_and(|s| s.trim().is_empty())
}

/// True when the element may play sound: audio not known to be absent and not muted.
pub fn may_have_sound(media: &MediaElement) -> bool {
    media.has_audio != Some(false) && !media.muted
}

impl Check for VideoNoCaptions {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for media in page.dom().media.iter().filter(|m| m.tag.eq_ignore_ascii_case("video")) {
            if !may_have_sound(media) || media.tracks.iter().any(is_caption_track) {
                continue;
            }
            let tracks: Vec<&str> = media.tracks.iter().map(|t| t.kind.as_str()).collect();
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => media.selector,
                "snippet" => media.snippet,
                "resource" => media.src,
                "tracks" => tracks,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;

    fn video(selector: &str, has_audio: Option<bool>, muted: bool, tracks: Vec<MediaTrack>) -> MediaElement {
        MediaElement {
            tag: "video".into(),
            src: Some("https://example.com/intro.mp4".into()),
            controls: true,
            muted,
            has_audio,
            tracks,
            selector: selector.into(),
            snippet: "<video controls src=\"intro.mp4\">".into(),
            ..Default::default()
        }
    }

    fn track(kind: &str, src: Option<&str>) -> MediaTrack {
        MediaTrack { kind: kind.into(), src: src.map(str::to_string), srclang: Some("en".into()), label: None }
    }

    fn with_media(media: Vec<MediaElement>) -> PageSnapshot {
        let mut p = page(vec![], vec![]);
        p.dom.media = media;
        p
    }

    #[test]
    fn fires_for_video_with_sound_or_unknown_audio_and_no_captions() {
        let p = with_media(vec![
            video("#talk", Some(true), false, vec![]),
            video("#unknown", None, false, vec![track("chapters", Some("c.vtt"))]),
            video("#bogus", Some(true), false, vec![track("caption", Some("c.vtt"))]),
            video("#empty", Some(true), false, vec![track("captions", Some(""))]),
        ]);
        let f = run(&VideoNoCaptions, &p);
        let selectors: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap_or("")).collect();
        assert_eq!(selectors, vec!["#talk", "#unknown", "#bogus", "#empty"]);
        assert_eq!(f[1].evidence["tracks"], serde_json::json!(["chapters"]));
    }

    #[test]
    fn quiet_for_captioned_muted_silent_videos_and_audio_elements() {
        let mut audio = video("#podcast", Some(true), false, vec![]);
        audio.tag = "audio".into();
        let p = with_media(vec![
            video("#captioned", Some(true), false, vec![track("captions", Some("en.vtt"))]),
            video("#subtitled", None, false, vec![track("SUBTITLES", Some("de.vtt"))]),
            // <track src=...> without kind is a subtitles track.
            video("#default-kind", None, false, vec![track("", Some("en.vtt"))]),
            // A muted background loop and a video known to have no audio track.
            video("#bg", None, true, vec![]),
            video("#silent", Some(false), false, vec![]),
            audio,
        ]);
        assert!(run(&VideoNoCaptions, &p).is_empty());
    }
}
