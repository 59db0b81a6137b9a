//! Parsing sitemaps (urlset and sitemapindex) with a real XML parser, safely: no entity
//! expansion beyond the five predefined ones and character references, bounded output.

use quick_xml::Reader;
use quick_xml::events::Event;

/// URLs kept per sitemap (the count goes on past it).
pub const MAX_URLS_KEPT: usize = 50_000;

/// What one sitemap document holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedSitemap {
    /// The root element's local name (`urlset`, `sitemapindex`, or something unexpected).
    pub root: Option<String>,
    /// `<loc>` values of `<url>` (urlset) or `<sitemap>` (sitemapindex) entries.
    pub locs: Vec<String>,
    /// Total `<loc>` entries (may exceed `locs.len()`).
    pub count: usize,
    /// The XML error, when the document is not well-formed.
    pub error: Option<String>,
}

fn local_name(qname: &[u8]) -> String {
    let name = String::from_utf8_lossy(qname);
    name.rsplit(':').next().unwrap_or_default().to_string()
}

fn predefined_entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix('x').or_else(|| num.strip_prefix('X')) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

/// Parses a sitemap document.
pub fn parse_sitemap(bytes: &[u8]) -> ParsedSitemap {
    let mut out = ParsedSitemap::default();
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut loc: Option<String> = None;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = local_name(e.name().as_ref());
                if stack.is_empty() && out.root.is_none() {
                    out.root = Some(name.clone());
                }
                if name == "loc" {
                    loc = Some(String::new());
                }
                stack.push(name);
            }
            Ok(Event::Empty(e)) => {
                if stack.is_empty() && out.root.is_none() {
                    out.root = Some(local_name(e.name().as_ref()));
                }
            }
            Ok(Event::Text(t)) => {
                if let Some(l) = loc.as_mut() {
                    l.push_str(&String::from_utf8_lossy(t.as_ref()));
                }
            }
            Ok(Event::CData(t)) => {
                if let Some(l) = loc.as_mut() {
                    l.push_str(&String::from_utf8_lossy(t.as_ref()));
                }
            }
            Ok(Event::GeneralRef(r)) => {
                if let Some(l) = loc.as_mut() {
                    let name = String::from_utf8_lossy(r.as_ref()).to_string();
                    match predefined_entity(&name) {
                        Some(c) => l.push(c),
                        None => {
                            out.error = Some(format!("undefined entity &{name};"));
                            break;
                        }
                    }
                }
            }
            Ok(Event::End(_)) => {
                let name = stack.pop().unwrap_or_default();
                if name == "loc"
                    && let Some(l) = loc.take()
                {
                    let parent = stack.last().map(String::as_str);
                    if matches!(parent, Some("url") | Some("sitemap")) {
                        out.count += 1;
                        if out.locs.len() < MAX_URLS_KEPT {
                            out.locs.push(l.trim().to_string());
                        }
                    }
                }
            }
            Ok(Event::Eof) => {
                if !stack.is_empty() && out.error.is_none() {
                    out.error = Some(format!("unexpected end of document inside <{}>", stack.join("><")));
                }
                break;
            }
            Ok(_) => {}
            Err(e) => {
                out.error = Some(format!("at byte {}: {e}", reader.error_position()));
                break;
            }
        }
        buf.clear();
    }
    if out.root.is_none() && out.error.is_none() {
        out.error = Some("the document has no root element".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urlset_and_index() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://a.test/?x=1&amp;y=2</loc><lastmod>2024-01-01</lastmod></url>
  <url><loc> https://a.test/b </loc></url>
</urlset>"#;
        let s = parse_sitemap(xml);
        assert_eq!(s.root.as_deref(), Some("urlset"));
        assert_eq!(s.locs, vec!["https://a.test/?x=1&y=2", "https://a.test/b"]);
        assert_eq!(s.error, None);
        let idx = parse_sitemap(b"<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>");
        assert_eq!(idx.root.as_deref(), Some("sitemapindex"));
        assert_eq!(idx.count, 1);
    }

    #[test]
    fn reports_malformed_and_refuses_entity_bombs() {
        assert!(parse_sitemap(b"<urlset><url><loc>x</url></urlset>").error.is_some());
        assert!(parse_sitemap(b"not xml at all").error.is_some());
        let bomb = br#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>
<urlset><url><loc>&lol2;</loc></url></urlset>"#;
        let s = parse_sitemap(bomb);
        assert!(s.error.is_some(), "{s:?}");
        assert!(s.locs.is_empty());
        assert_eq!(parse_sitemap(b"<html><body/></html>").root.as_deref(), Some("html"));
    }
}
