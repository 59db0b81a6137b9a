use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Recorded audio or video is offered with no transcript anywhere on the page.
    ///
    /// Judged from the barrier facts' links (`browser/barriers.js`), the DOM's media elements and
    /// the page's rendered text: a visible link to an audio or video file (by the extension of its
    /// path: `.mp3`, `.wav`, `.m4a`, `.ogg`, `.mp4`, `.mov`, `.webm`, ...) or an `<audio>` element
    /// on a page that offers no transcript: no link whose text, title or URL names one
    /// (`transcript`, `transcription`, and the same word in a few other languages), no heading
    /// that names one, and no text that introduces one (`Transcript:`). A page that only says
    /// the word ("no transcript yet") offers none. Videos embedded with `<video>`
    /// are judged by `media.video-no-captions`; media in frames (YouTube, Vimeo) are not seen.
    /// A page can describe its media in words this check does not know, so the finding asks for
    /// review.
    pub struct TranscriptMissing {
        id: "media.transcript-missing",
        severity: Medium,
        title: "Audio or video offered without a transcript",
        fires_when: "a page links to an audio or video file, or embeds `<audio>`, and no link or text on it names a transcript",
        description: "Deaf and hard-of-hearing visitors cannot hear a recording, and a blind visitor cannot see what a video without narration shows; a text transcript serves both, and everyone who cannot play sound where they are. WCAG 2.2 success criteria 1.2.1 (Audio-only and Video-only, prerecorded) and 1.2.3 (Audio Description or Media Alternative) ask for one.",
        remediation: "Publish a transcript of what is said and shown, on the page or one link away, and link it next to the media: `<a href=\"interview.mp3\">Listen to the interview (MP3, 12 MB)</a> · <a href=\"interview-transcript.html\">Read the transcript</a>`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "kind", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/audio-only-and-video-only-prerecorded.html"),
        requires: [Dom, Barriers, PageText],
        level: A,
        wcag: ["1.2.1", "1.2.3"],
    }
}

/// Extensions of audio files.
const AUDIO: &[&str] = &["mp3", "wav", "m4a", "aac", "oga", "ogg", "opus", "flac", "wma", "aif", "aiff"];
/// Extensions of video files.
const VIDEO: &[&str] = &["mp4", "m4v", "mov", "webm", "ogv", "avi", "wmv", "mkv", "mpg", "mpeg", "3gp"];

/// Words that name a transcript (matched at the start of a word, any case).
const TRANSCRIPT: &[&str] = &["transcript", "transkript", "transcripción", "transcripcion", "trascrizione", "retranscription", "textversion"];

/// `audio` or `video` when `url`'s path ends in a media file's extension.
fn media_kind(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let (_, rest) = path.split_once("://")?;
    let last = rest.split_once('/')?.1.rsplit('/').next()?;
    let ext = last.rsplit_once('.')?.1.to_ascii_lowercase();
    if AUDIO.contains(&ext.as_str()) {
        Some("audio")
    } else if VIDEO.contains(&ext.as_str()) {
        Some("video")
    } else {
        None
    }
}

/// Where in `text` (lowercased) a word naming a transcript starts and ends, at word starts.
fn transcript_words(text: &str) -> Vec<(usize, usize)> {
    TRANSCRIPT
        .iter()
        .flat_map(|w| text.match_indices(w).map(|(at, m)| (at, at + m.len())))
        .filter(|(at, _)| *at == 0 || !text[..*at].chars().next_back().is_some_and(char::is_alphanumeric))
        .collect()
}

/// True when `text` names a transcript.
fn names_transcript(text: &str) -> bool {
    !transcript_words(&text.to_lowercase()).is_empty()
}

/// True when `text` introduces a transcript: the word, its ending (`transcripts`, `-ion`), then
/// a colon.
fn introduces_transcript(text: &str) -> bool {
    let text = text.to_lowercase();
    transcript_words(&text).into_iter().any(|(_, end)| text[end..].trim_start_matches(char::is_alphabetic).trim_start().starts_with(':'))
}

impl Check for TranscriptMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        let text = page.page_text().map(|t| t.text.as_str()).unwrap_or_default();
        let linked = facts.links.iter().any(|l| names_transcript(&l.name) || names_transcript(&l.href) || l.title.as_deref().is_some_and(names_transcript));
        let headed = page.dom().headings.iter().any(|h| names_transcript(&h.text));
        if linked || headed || introduces_transcript(text) {
            return;
        }
        let mut seen = std::collections::HashSet::new();
        for link in &facts.links {
            let Some(kind) = media_kind(&link.href) else { continue };
            if !seen.insert(link.href.split('#').next().unwrap_or_default().to_string()) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => link.selector,
                "snippet" => link.snippet,
                "resource" => link.href,
                "kind" => kind,
                "needs_review" => true,
            });
        }
        for media in page.dom().media.iter().filter(|m| m.tag.eq_ignore_ascii_case("audio")) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => media.selector,
                "snippet" => media.snippet,
                "resource" => media.src,
                "kind" => "audio",
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{BarrierFacts, BarrierLink, MediaElement, PageText};

    fn link(selector: &str, name: &str, href: &str) -> BarrierLink {
        BarrierLink { selector: selector.into(), name: name.into(), href: format!("https://example.com{href}"), ..Default::default() }
    }

    fn with(links: Vec<BarrierLink>, media: Vec<MediaElement>, text: &str) -> crate::model::PageSnapshot {
        let mut snap = page(Vec::new(), Vec::new());
        snap.dom.media = media;
        snap.barriers = Some(BarrierFacts { links, ..Default::default() });
        snap.page_text = Some(PageText { text: text.into(), truncated: false });
        snap
    }

    #[test]
    fn fires_on_recordings_offered_without_a_transcript() {
        let audio = MediaElement { tag: "audio".into(), src: Some("https://example.com/a.ogg".into()), selector: "audio".into(), ..Default::default() };
        let snap = with(
            vec![
                link("#mov", "Watch the interview", "/interview.mov"),
                link("#mp3", "Listen", "/files/talk.MP3?x=1"),
                link("#again", "Listen again", "/files/talk.MP3?x=1"),
                link("#page", "About", "/about.html"),
                link("#host", "Host", ""),
            ],
            vec![audio],
            "Watch the interview Listen About",
        );
        let f = run(&TranscriptMissing, &snap);
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["kind"].as_str().unwrap_or_default())).collect();
        assert_eq!(got, [("#mov", "video"), ("#mp3", "audio"), ("audio", "audio")]);
        assert!(f.iter().all(|f| f.evidence["needs_review"] == true));
    }

    #[test]
    fn a_transcript_named_in_a_link_or_the_text_passes() {
        let media = vec![link("#mp3", "Listen to the interview", "/interview.mp3")];
        let mut linked = media.clone();
        linked.push(link("#t", "Read it", "/interview-transcript.html"));
        assert!(run(&TranscriptMissing, &with(linked, Vec::new(), "Listen to the interview Read it")).is_empty());
        assert!(run(&TranscriptMissing, &with(media.clone(), Vec::new(), "Listen. Transcript: Hello, I am ...")).is_empty());
        let mut headed = with(media.clone(), Vec::new(), "Listen to the interview");
        headed.dom.headings.push(crate::model::Heading { level: 2, text: "Interview transcript".into(), ..Default::default() });
        assert!(run(&TranscriptMissing, &headed).is_empty(), "a heading names it");
        assert_eq!(run(&TranscriptMissing, &with(media.clone(), Vec::new(), "Link to a multimedia file, no transcript")).len(), 1, "saying the word offers none");
        assert_eq!(run(&TranscriptMissing, &with(media, Vec::new(), "Nontranscripts: are not it")).len(), 1, "a word that only contains it is not it");
    }
}
