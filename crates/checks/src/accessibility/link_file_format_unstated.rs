use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierLink;
use crate::{declare_check, evidence};

declare_check! {
    /// A link to a document or media file does not say its format.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible link whose URL path ends
    /// in a document, archive or media extension (`.pdf`, `.docx`, `.xlsx`, `.pptx`, `.odt`,
    /// `.zip`, `.mp3`, `.mp4`, ...), or whose `type` attribute names such a MIME type, while its
    /// accessible name, title and `aria-describedby` text name neither the extension nor the
    /// format (`PDF`, `Word`, `Excel`, `PowerPoint`, `MP3`, ...).
    pub struct LinkFileFormatUnstated {
        id: "accessibility.link-file-format-unstated",
        severity: Low,
        title: "Link to a file does not state the file format",
        fires_when: "a link to a PDF, office document, archive or media file (by extension or type attribute) does not name the format in its text, title or description",
        description: "A link that silently opens a PDF or starts a download surprises everyone, and costs most for screen-reader users, for whom an unexpected viewer or a file without accessible structure is hard to leave or use; users on slow or metered connections cannot judge the cost: WCAG technique G197 (for 2.4.4 Link Purpose).",
        remediation: "Name the format, and ideally the size, in the link: `<a href=\"report.pdf\">Annual report (PDF, 2 MB)</a>`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "format", "href", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/general/G197"),
        requires: [Barriers],
        level: A,
        wcag: ["2.4.4"],
    }
}

/// (extension, words that name the format).
const FORMATS: &[(&str, &[&str])] = &[
    ("pdf", &["pdf"]),
    ("doc", &["doc", "word"]),
    ("docx", &["doc", "word"]),
    ("odt", &["odt", "opendocument", "writer"]),
    ("rtf", &["rtf", "rich text"]),
    ("xls", &["xls", "excel", "spreadsheet"]),
    ("xlsx", &["xls", "excel", "spreadsheet"]),
    ("ods", &["ods", "opendocument", "spreadsheet", "calc"]),
    ("ppt", &["ppt", "powerpoint", "slides"]),
    ("pptx", &["ppt", "powerpoint", "slides"]),
    ("odp", &["odp", "opendocument", "slides", "impress"]),
    ("epub", &["epub", "e-book", "ebook"]),
    ("zip", &["zip", "archive"]),
    ("mp3", &["mp3", "audio"]),
    ("wav", &["wav", "audio"]),
    ("mp4", &["mp4", "video"]),
    ("mov", &["mov", "video", "quicktime"]),
    ("avi", &["avi", "video"]),
];

/// MIME types of the `type` attribute and their extension.
const MIME: &[(&str, &str)] = &[
    ("application/pdf", "pdf"),
    ("application/msword", "doc"),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
    ("application/vnd.ms-excel", "xls"),
    ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    ("application/vnd.ms-powerpoint", "ppt"),
    ("application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"),
    ("application/zip", "zip"),
    ("audio/mpeg", "mp3"),
    ("video/mp4", "mp4"),
];

/// The file format a link leads to, by its path's extension or its `type` attribute.
fn format_of(link: &BarrierLink) -> Option<&'static (&'static str, &'static [&'static str])> {
    let path = link.href.split(['?', '#']).next().unwrap_or_default();
    let is_path = path.split_once("://").is_some_and(|(_, rest)| rest.contains('/'));
    let ext = path.rsplit('/').next().filter(|_| is_path).and_then(|last| last.rsplit_once('.')).map(|(_, e)| e.to_ascii_lowercase());
    let by_type = link.type_attr.as_deref().map(|t| t.trim().to_ascii_lowercase()).and_then(|t| MIME.iter().find(|(m, _)| *m == t).map(|(_, e)| *e));
    let ext = ext.filter(|e| FORMATS.iter().any(|(x, _)| *x == e.as_str())).or(by_type.map(str::to_string))?;
    FORMATS.iter().find(|(x, _)| *x == ext)
}

fn names_format(link: &BarrierLink, words: &[&str]) -> bool {
    let said = [Some(link.name.as_str()), link.title.as_deref(), link.described.as_deref()];
    said.iter().flatten().any(|t| {
        let t = t.to_lowercase();
        words.iter().any(|w| t.split(|c: char| !c.is_alphanumeric() && c != '-').any(|tok| tok == *w || tok.trim_start_matches('.') == *w) || (w.contains(' ') && t.contains(w)))
    })
}

impl Check for LinkFileFormatUnstated {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for link in &facts.links {
            let Some((ext, words)) = format_of(link) else { continue };
            if link.name.trim().is_empty() || names_format(link, words) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => link.selector,
                "snippet" => link.snippet,
                "text" => link.name,
                "format" => ext,
                "href" => link.href,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::BarrierFacts;

    fn link(selector: &str, name: &str, href: &str) -> BarrierLink {
        BarrierLink { selector: selector.into(), name: name.into(), href: format!("https://example.com{href}"), ..Default::default() }
    }

    #[test]
    fn fires_on_file_links_whose_text_does_not_name_the_format() {
        let mut typed = link("#typed", "Download the brochure", "/get?id=4");
        typed.type_attr = Some("application/pdf".into());
        let facts = BarrierFacts {
            links: vec![
                link("#silent", "Annual report", "/files/report-2026.PDF"),
                link("#said", "Annual report (PDF, 2 MB)", "/files/report.pdf"),
                link("#word", "Form (Word document)", "/files/form.docx"),
                link("#page", "About us", "/about.html"),
                BarrierLink { href: "https://example.pdf".into(), ..link("#host", "Example", "") },
                typed,
            ],
            ..Default::default()
        };
        let f = run(&LinkFileFormatUnstated, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["format"].as_str().unwrap_or_default())).collect();
        assert_eq!(got, [("#silent", "pdf"), ("#typed", "pdf")]);
    }
}
