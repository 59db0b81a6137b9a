use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// The title is too short or too long for search results.
    pub struct TitleLength {
        id: "search.title-length",
        severity: Low,
        title: "Title too short or too long",
        fires_when: "the title has fewer than 10 or more than 60 characters (whitespace collapsed; thresholds title_min_chars and title_max_chars)",
        description: "Search results show roughly the first 50-60 characters of a title and cut the rest; a very short title says too little to win the click and is often rewritten by the search engine.",
        remediation: "Write titles of about 10-60 characters that put the page-specific words first and the site name last, e.g. `Returns and refunds – Example Store`.",
        cwe: None,
        evidence: ["url", "snippet", "value", "limit"],
        help_url: Some("https://developers.google.com/search/docs/appearance/title-link#page-titles"),
        requires: [Dom],
    }
}

impl Check for TitleLength {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let Some(title) = page.dom().title.as_deref() else {
            return;
        };
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let chars = title.chars().count();
        if chars == 0 {
            return; // search.title-missing
        }
        let limit = if chars < thresholds.title_min_chars {
            thresholds.title_min_chars
        } else if chars > thresholds.title_max_chars {
            thresholds.title_max_chars
        } else {
            return;
        };
        out.report(evidence! {
            "url" => page.final_url,
            "snippet" => title,
            "value" => chars,
            "limit" => limit,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::DomFacts;

    fn titled(t: &str) -> crate::model::PageSnapshot {
        page(DomFacts {
            title: Some(t.into()),
            title_count: 1,
            ..Default::default()
        })
    }

    #[test]
    fn fires_on_short_and_long_titles() {
        let f = findings(&titled("Home"), "search.title-length");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], 4);
        assert_eq!(f[0].evidence["limit"], 10);
        let long = "A very long title that goes on and on about everything this page has to offer";
        assert_eq!(
            findings(&titled(long), "search.title-length")[0].evidence["limit"],
            60
        );
    }

    #[test]
    fn counts_characters_not_bytes() {
        // 20 characters of Japanese are 60 bytes of UTF-8: well within the limit.
        assert!(
            findings(
                &titled("東京の天気予報と週間天気の詳細情報ページです"),
                "search.title-length"
            )
            .is_empty()
        );
        // Exactly 60 characters after collapsing whitespace is fine.
        let sixty = format!("{}  \n", "x".repeat(60));
        assert!(findings(&titled(&sixty), "search.title-length").is_empty());
    }
}
