//! Parsing sitemaps (urlset and sitemapindex) with a real XML parser, within a budget: no entity
//! expansion beyond the five predefined ones and character references, a bounded nesting depth
//! and element count, bounded `<loc>` values and error text, and gzip bodies inflated only up to
//! the byte budget. The parser keeps no per-element state beyond a fixed-size frame per open
//! element, so a document of millions of unclosed tags costs its depth limit, not its size.

use quick_xml::Reader;
use quick_xml::events::Event;
use std::io::Read;

/// URLs kept per sitemap by default (the count goes on past it).
pub const MAX_URLS_KEPT: usize = 50_000;
/// Open elements at once. A sitemap nests three deep (`urlset > url > loc`), four or five with
/// the image, video and news extensions.
pub const MAX_DEPTH: usize = 16;
/// Elements read in one document (a 50 MB sitemap of 50,000 entries with extensions holds a few
/// hundred thousand).
pub const MAX_ELEMENTS: usize = 2_000_000;
/// Bytes of one `<loc>` (the protocol: URLs under 2,048 characters); a longer one is counted, not
/// kept.
pub const MAX_LOC_BYTES: usize = 2048;
/// Characters of an error message kept.
pub const MAX_ERROR_CHARS: usize = 300;

/// Which budget a document exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SitemapLimit {
    Depth,
    Elements,
    Bytes(usize),
}

impl SitemapLimit {
    /// What the finding says.
    pub fn describe(self) -> String {
        match self {
            SitemapLimit::Depth => format!("elements nest deeper than sitescan's limit of {MAX_DEPTH}"),
            SitemapLimit::Elements => format!("more elements than sitescan's limit of {MAX_ELEMENTS}"),
            SitemapLimit::Bytes(max) if max % (1 << 20) == 0 => format!("larger than sitescan's limit of {} MB (uncompressed)", max >> 20),
            SitemapLimit::Bytes(max) => format!("larger than sitescan's limit of {max} bytes (uncompressed)"),
        }
    }
}

/// What one sitemap document holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedSitemap {
    /// The root element's local name (`urlset`, `sitemapindex`, or something unexpected).
    pub root: Option<String>,
    /// `<loc>` values of `<url>` (urlset) or `<sitemap>` (sitemapindex) entries.
    pub locs: Vec<String>,
    /// Total `<loc>` entries (may exceed `locs.len()`).
    pub count: usize,
    /// The XML error, when the document is not well-formed (at most [`MAX_ERROR_CHARS`]).
    pub error: Option<String>,
    /// The budget the document exceeded (reading stopped there).
    pub limit: Option<SitemapLimit>,
}

/// What an open element is, as far as a sitemap cares: no name is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Entry,
    Loc,
    Other,
}

fn frame_of(qname: &[u8]) -> Frame {
    let local = qname.rsplit(|b| *b == b':').next().unwrap_or_default();
    match local {
        b"url" | b"sitemap" => Frame::Entry,
        b"loc" => Frame::Loc,
        _ => Frame::Other,
    }
}

fn local_name(qname: &[u8]) -> String {
    let local = qname.rsplit(|b| *b == b':').next().unwrap_or_default();
    bounded(&String::from_utf8_lossy(local), 64)
}

/// `text` cut to at most `max` characters, marked with an ellipsis when cut.
fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
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

/// A sitemap body as XML: a gzip file (`sitemap.xml.gz` served without `Content-Encoding`) is
/// inflated up to `max_bytes`, never further, and the limit is returned with the first
/// `max_bytes` when the inflated document would be larger.
pub fn inflate(body: &[u8], max_bytes: usize) -> (std::borrow::Cow<'_, [u8]>, Option<SitemapLimit>) {
    if !body.starts_with(&[0x1f, 0x8b]) {
        return (std::borrow::Cow::Borrowed(body), None);
    }
    let mut out = Vec::new();
    // One byte past the budget tells a document of exactly `max_bytes` from a larger one.
    let mut reader = flate2::read::MultiGzDecoder::new(body).take(max_bytes as u64 + 1);
    if reader.read_to_end(&mut out).is_err() {
        // Not gzip after all (or a broken stream): the XML parser says what is wrong with it.
        return (std::borrow::Cow::Borrowed(body), None);
    }
    if out.len() > max_bytes {
        out.truncate(max_bytes);
        return (std::borrow::Cow::Owned(out), Some(SitemapLimit::Bytes(max_bytes)));
    }
    (std::borrow::Cow::Owned(out), None)
}

/// Parses a sitemap document, keeping at most [`MAX_URLS_KEPT`] locations.
pub fn parse_sitemap(bytes: &[u8]) -> ParsedSitemap {
    parse_sitemap_keeping(bytes, MAX_URLS_KEPT)
}

/// Parses a sitemap document, keeping at most `keep` locations (all are counted).
pub fn parse_sitemap_keeping(bytes: &[u8], keep: usize) -> ParsedSitemap {
    let mut out = ParsedSitemap::default();
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut stack: Vec<Frame> = Vec::with_capacity(MAX_DEPTH);
    let mut elements = 0usize;
    // The `<loc>` being read; `None` once it outgrew MAX_LOC_BYTES.
    let mut loc: Option<Option<String>> = None;
    let append = |loc: &mut Option<Option<String>>, text: &str| {
        if let Some(slot) = loc.as_mut() {
            let too_long = slot.as_ref().is_some_and(|l| l.len() + text.len() > MAX_LOC_BYTES);
            if too_long {
                *slot = None;
            } else if let Some(l) = slot.as_mut() {
                l.push_str(text);
            }
        }
    };
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                elements += 1;
                if elements > MAX_ELEMENTS {
                    out.limit = Some(SitemapLimit::Elements);
                    break;
                }
                if stack.len() >= MAX_DEPTH {
                    out.limit = Some(SitemapLimit::Depth);
                    break;
                }
                let frame = frame_of(e.name().as_ref());
                if stack.is_empty() && out.root.is_none() {
                    out.root = Some(local_name(e.name().as_ref()));
                }
                if frame == Frame::Loc {
                    loc = Some(Some(String::new()));
                }
                stack.push(frame);
            }
            Ok(Event::Empty(e)) => {
                elements += 1;
                if elements > MAX_ELEMENTS {
                    out.limit = Some(SitemapLimit::Elements);
                    break;
                }
                if stack.is_empty() && out.root.is_none() {
                    out.root = Some(local_name(e.name().as_ref()));
                }
            }
            Ok(Event::Text(t)) => append(&mut loc, &String::from_utf8_lossy(t.as_ref())),
            Ok(Event::CData(t)) => append(&mut loc, &String::from_utf8_lossy(t.as_ref())),
            Ok(Event::GeneralRef(r)) => {
                if loc.is_some() {
                    let name = String::from_utf8_lossy(r.as_ref()).to_string();
                    match predefined_entity(&name) {
                        Some(c) => append(&mut loc, c.encode_utf8(&mut [0u8; 4])),
                        None => {
                            out.error = Some(format!("undefined entity &{};", bounded(&name, 64)));
                            break;
                        }
                    }
                }
            }
            Ok(Event::End(_)) => {
                let frame = stack.pop().unwrap_or(Frame::Other);
                if frame == Frame::Loc
                    && let Some(value) = loc.take()
                    && stack.last() == Some(&Frame::Entry)
                {
                    out.count += 1;
                    if let Some(l) = value
                        && out.locs.len() < keep
                    {
                        out.locs.push(l.trim().to_string());
                    }
                }
            }
            Ok(Event::Eof) => {
                if !stack.is_empty() && out.error.is_none() {
                    out.error = Some(format!("unexpected end of document inside {} open elements", stack.len()));
                }
                break;
            }
            Ok(_) => {}
            Err(e) => {
                out.error = Some(bounded(&format!("at byte {}: {e}", reader.error_position()), MAX_ERROR_CHARS));
                break;
            }
        }
        buf.clear();
    }
    if out.root.is_none() && out.error.is_none() && out.limit.is_none() {
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
        assert_eq!(s.limit, None);
        let idx = parse_sitemap(b"<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>");
        assert_eq!(idx.root.as_deref(), Some("sitemapindex"));
        assert_eq!(idx.count, 1);
        let images = br#"<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"><url><loc>https://a.test/</loc><image:image><image:loc>https://a.test/i.png</image:loc></image:image></url></urlset>"#;
        let s = parse_sitemap(images);
        assert_eq!(s.locs, vec!["https://a.test/"], "an image's loc is not a page");
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

    #[test]
    fn unclosed_nesting_stops_at_the_depth_limit_with_a_short_message() {
        let mut doc = b"<urlset>".to_vec();
        for _ in 0..200_000 {
            doc.extend_from_slice(b"<aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa>");
        }
        let s = parse_sitemap(&doc);
        assert_eq!(s.limit, Some(SitemapLimit::Depth));
        assert!(s.limit.map(SitemapLimit::describe).is_some_and(|d| d.contains("16")));
        // Unclosed but within the depth limit: the error names a count, not every open tag.
        let s = parse_sitemap(b"<urlset><url><a><b><c>");
        let error = s.error.unwrap_or_default();
        assert!(error.len() < 100, "{error}");
    }

    #[test]
    fn element_count_and_loc_length_are_bounded() {
        let mut doc = b"<urlset>".to_vec();
        for _ in 0..(MAX_ELEMENTS + 10) {
            doc.extend_from_slice(b"<x/>");
        }
        doc.extend_from_slice(b"</urlset>");
        assert_eq!(parse_sitemap(&doc).limit, Some(SitemapLimit::Elements));

        let long = format!("<urlset><url><loc>https://a.test/{}</loc></url><url><loc>https://a.test/ok</loc></url></urlset>", "a".repeat(5000));
        let s = parse_sitemap(long.as_bytes());
        assert_eq!(s.count, 2, "the long loc is counted");
        assert_eq!(s.locs, vec!["https://a.test/ok"], "and not kept");
    }

    #[test]
    fn keeps_only_what_it_is_asked_to() {
        let doc: String = std::iter::once("<urlset>".to_string())
            .chain((0..50).map(|i| format!("<url><loc>https://a.test/{i}</loc></url>")))
            .chain(std::iter::once("</urlset>".to_string()))
            .collect();
        let s = parse_sitemap_keeping(doc.as_bytes(), 10);
        assert_eq!((s.count, s.locs.len()), (50, 10));
    }

    #[test]
    fn gzip_is_inflated_within_the_budget_only() {
        use std::io::Write;
        let xml = b"<urlset><url><loc>https://a.test/</loc></url></urlset>".to_vec();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&xml).unwrap();
        let packed = gz.finish().unwrap();
        let (plain, limit) = inflate(&packed, 1024);
        assert_eq!((plain.as_ref(), limit), (xml.as_slice(), None));

        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'<'; 10 * 1024 * 1024]).unwrap();
        let bomb = gz.finish().unwrap();
        assert!(bomb.len() < 64 * 1024);
        let (plain, limit) = inflate(&bomb, 1024 * 1024);
        assert_eq!(plain.len(), 1024 * 1024);
        assert_eq!(limit, Some(SitemapLimit::Bytes(1024 * 1024)));

        let (plain, limit) = inflate(b"<urlset/>", 4);
        assert_eq!((plain.as_ref(), limit), (b"<urlset/>".as_slice(), None), "plain XML is the fetcher's to bound");
    }
}
