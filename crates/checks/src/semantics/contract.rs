//! A page and a site that follow every rule of crawlability, search, semantics, structured-data
//! and i18n produce no finding from them. (The catalogue contract for every category is
//! `checks::contract_tests`.)


/// The categories this clean-site test covers.
const CATEGORIES: [&str; 5] = ["crawlability", "search", "semantics", "structured-data", "i18n"];

/// A page that follows every rule of these categories: no finding at all from them.
#[test]
fn a_clean_page_and_site_produce_no_findings() {
    use crate::{Thresholds, run_page_checks, run_site_checks};
    use crate::model::*;

    let url = "https://example.com/en/shoes/";
    let meta = |name: Option<&str>, property: Option<&str>, content: &str| MetaTag {
        name: name.map(str::to_string),
        property: property.map(str::to_string),
        content: Some(content.into()),
        selector: "meta".into(),
        ..Default::default()
    };
    let link = |rel: &str, href: &str, hreflang: Option<&str>| LinkTag {
        rel: rel.into(),
        href_raw: Some(href.into()),
        href: Some(href.into()),
        hreflang: hreflang.map(str::to_string),
        in_head: true,
        selector: format!("link[rel={rel}]"),
        ..Default::default()
    };
    let served = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Running shoes – Example Store</title></head>
<body><main><h1>Running shoes</h1><p>Light shoes.</p></main></body></html>"#;
    let page = PageSnapshot {
        requested_url: url.into(),
        final_url: url.into(),
        status: Some(200),
        mime_type: Some("text/html".into()),
        response_headers: vec![Header { name: "content-type".into(), value: "text/html; charset=utf-8".into() }],
        served_html: Some(served.into()),
        meta_charset_offset: Some(43),
        dom: DomFacts {
            title: Some("Running shoes – Example Store".into()),
            title_count: 1,
            doctype: Some("html".into()),
            compat_mode: "CSS1Compat".into(),
            html_lang: Some("en".into()),
            character_set: Some("UTF-8".into()),
            metas: vec![
                MetaTag { charset: Some("utf-8".into()), selector: "meta[charset]".into(), ..Default::default() },
                meta(Some("viewport"), None, "width=device-width, initial-scale=1"),
                meta(Some("description"), None, "Lightweight running shoes for road and trail, with free returns."),
                meta(None, Some("og:title"), "Running shoes"),
                meta(None, Some("og:type"), "website"),
                meta(None, Some("og:image"), "https://example.com/og.png"),
                meta(None, Some("og:url"), url),
            ],
            links: vec![
                link("canonical", url, None),
                link("alternate", url, Some("en")),
                link("alternate", "https://example.com/de/schuhe/", Some("de")),
                link("icon", "https://example.com/favicon.svg", None),
            ],
            headings: vec![Heading { level: 1, text: "Running shoes".into(), selector: "h1".into(), visible: true }],
            landmarks: vec![Landmark { role: "main".into(), selector: "main".into() }],
            anchors: vec![Anchor {
                href_raw: Some("/de/schuhe/".into()),
                href: Some("https://example.com/de/schuhe/".into()),
                text: "Deutsch".into(),
                accessible_name: "Deutsch".into(),
                selector: "a".into(),
                snippet: "<a href=\"/de/schuhe/\">Deutsch</a>".into(),
                visible: true,
                ..Default::default()
            }],
            json_ld: vec![JsonLdBlock {
                text: r#"{"@context": "https://schema.org", "@type": "Product", "name": "Runner", "image": "https://example.com/r.jpg",
                    "offers": {"@type": "Offer", "price": "89.00", "priceCurrency": "EUR", "availability": "https://schema.org/InStock"}}"#
                    .into(),
                selector: "script[type=\"application/ld+json\"]".into(),
                length: None,
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let mine = |f: &Finding| CATEGORIES.contains(&f.category());
    let findings: Vec<Finding> = run_page_checks(&page, &Thresholds::default()).findings
        .into_iter()
        .filter(mine)
        .collect();
    assert!(findings.is_empty(), "{findings:#?}");

    let digest = |u: &str, title: &str, back: &str, lang: &str| PageDigest {
        url: u.into(),
        final_url: u.into(),
        status: Some(200),
        depth: if u == url { 0 } else { 1 },
        title: Some(title.into()),
        meta_description: Some(format!("About {title}")),
        canonical: Some(u.into()),
        hreflang: vec![(lang.into(), u.into()), ("x".into(), back.into())],
        og_image: Some("https://example.com/og.png".into()),
        has_icon_link: true,
        internal_links: vec![LinkRef {
            href: back.into(),
            selector: "a".into(),
            snippet: "<a>".into(),
        }],
        ..Default::default()
    };
    let de = "https://example.com/de/schuhe/";
    let ok = |u: &str, ct: &str| UrlStatus {
        url: u.into(),
        status: Some(200),
        content_type: Some(ct.into()),
        final_url: Some(u.into()),
        ..Default::default()
    };
    let site = SiteSnapshot {
        start_url: url.into(),
        robots: Some(RobotsTxt {
            url: "https://example.com/robots.txt".into(),
            status: Some(200),
            body: Some(
                "User-agent: *\nDisallow: /cart/\n\nSitemap: https://example.com/sitemap.xml\n"
                    .into(),
            ),
            sitemaps: vec!["https://example.com/sitemap.xml".into()],
            ..Default::default()
        }),
        sitemaps: vec![Sitemap {
            url: "https://example.com/sitemap.xml".into(),
            source: "robots.txt".into(),
            status: Some(200),
            root: Some("urlset".into()),
            url_count: 2,
            bytes: 300,
            urls: vec![url.into(), de.into()],
            ..Default::default()
        }],
        sitemap_url_statuses: vec![ok(url, "text/html"), ok(de, "text/html")],
        link_statuses: vec![ok(url, "text/html"), ok(de, "text/html")],
        resource_statuses: vec![
            ok("https://example.com/og.png", "image/png"),
            ok("https://example.com/favicon.ico", "image/x-icon"),
        ],
        https_probe: Some(HttpsProbe {
            http_url: "http://example.com/en/shoes/".into(),
            status: Some(301),
            location: Some(url.into()),
            error: None,
        }),
        pages: vec![
            digest(url, "Running shoes", de, "en"),
            digest(de, "Laufschuhe", url, "de"),
        ],
        ..Default::default()
    };
    let findings: Vec<Finding> = run_site_checks(&site, &Thresholds::default()).findings
        .into_iter()
        .filter(mine)
        .collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
