//! Test helpers: pages carrying structured data, and the findings one check produces for them.

pub use crate::checks::test_kit::{findings};
use crate::checks::test_kit::html_page;
use crate::model::{
    DomFacts, JsonLdBlock, MicrodataItem, MicrodataProperty, PageSnapshot,
};

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page with these JSON-LD blocks.
pub fn json_ld_page(blocks: &[&str]) -> PageSnapshot {
    let json_ld = blocks
        .iter()
        .enumerate()
        .map(|(i, t)| JsonLdBlock {
            text: (*t).into(),
            selector: format!("script:nth-of-type({})", i + 1),
        })
        .collect();
    page(DomFacts {
        json_ld,
        ..Default::default()
    })
}

pub fn page(dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        dom,
        ..html_page(URL)
    }
}

/// A microdata item of `itemtype` with (name, value) properties.
pub fn microdata(itemtype: &str, properties: &[(&str, &str)], nested: bool) -> MicrodataItem {
    MicrodataItem {
        types: vec![itemtype.into()],
        properties: properties
            .iter()
            .map(|(n, v)| MicrodataProperty {
                name: (*n).into(),
                value: (*v).into(),
            })
            .collect(),
        nested,
        selector: format!("[itemtype=\"{itemtype}\"]"),
    }
}

