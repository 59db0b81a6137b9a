use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::items::{Item, PropValue, Syntax, page_items};
use super::value_shapes::{
    is_absolute_url, is_iso_date, is_iso_datetime, is_iso_duration, is_iso_time, is_plain_price,
};
use super::vocab::{SchemaProperty, property, schema_type};
use crate::{declare_check, evidence};

/// What a URL-only property expects.
const URL_SHAPE: &str = "an absolute URL (e.g. https://example.com/image.jpg)";

/// Properties whose values are prices (Google: a number, `.` as decimal point, no symbols).
const PRICE_PROPERTIES: &[&str] = &["price", "lowPrice", "highPrice", "minPrice", "maxPrice"];

declare_check! {
    /// A value has the wrong shape for its property.
    pub struct InvalidValue {
        id: "structured-data.invalid-value",
        severity: Medium,
        title: "Structured-data value has the wrong format",
        fires_when: "a value does not have the shape its schema.org range requires: a Date/DateTime/Time property that is not ISO 8601, a Duration that is not an ISO 8601 duration, a URL-only property with a relative URL, a price (price, lowPrice, highPrice, minPrice, maxPrice) that is not a plain decimal number, or a ratingValue outside worstRating..bestRating (default 1..5). One finding per value",
        description: "Search engines drop values they cannot parse: an event with \"May 5th\" as startDate, a product priced \"$19.99\" or a rating of 9 on a 1-5 scale loses its rich result or shows wrong data.",
        remediation: "Write dates as ISO 8601 (`2025-05-31` or `2025-05-31T19:30:00+02:00`), durations as `PT1H30M`, URLs as absolute https:// URLs, prices as `19.99` with the currency in priceCurrency, and set bestRating/worstRating when the scale is not 1-5.",
        cwe: None,
        evidence: ["url", "selector", "path", "property", "value", "expected"],
        help_url: Some("https://developers.google.com/search/docs/appearance/structured-data/sd-policies"),
        requires: [Dom],
    }
}

/// The expected shape of a text value of `p`, judged from its schema.org ranges, and whether
/// `value` has it. `None` when the range does not constrain text (it includes Text, or things).
fn range_violation(p: &SchemaProperty, value: &str) -> Option<&'static str> {
    let ranges: Vec<&str> = p.range_names().collect();
    let has = |r: &str| ranges.contains(&r);
    if has("Text") {
        return None;
    }
    let temporal = ranges
        .iter()
        .all(|r| matches!(*r, "Date" | "DateTime" | "Time"));
    if temporal && !ranges.is_empty() {
        let ok = (has("DateTime") && is_iso_datetime(value)) || (has("Date") && is_iso_date(value)) || (has("Time") && is_iso_time(value))
            // A full datetime where only a Date is declared is still ISO 8601 and accepted.
            || (has("Date") && is_iso_datetime(value));
        return (!ok).then_some(if has("Time") && !has("Date") {
            "an ISO 8601 time (e.g. 19:30 or 19:30:00+02:00)"
        } else {
            "an ISO 8601 date or date-time (e.g. 2025-05-31 or 2025-05-31T19:30:00+02:00)"
        });
    }
    if ranges == ["Duration"] {
        return (!is_iso_duration(value)).then_some("an ISO 8601 duration (e.g. PT1H30M)");
    }
    if has("URL") && !is_absolute_url(value) {
        return Some(URL_SHAPE);
    }
    None
}

fn number_of(v: &PropValue) -> Option<f64> {
    match v {
        PropValue::Number(n) => Some(*n),
        PropValue::Text(t) => t.trim().parse::<f64>().ok(),
        _ => None,
    }
}

/// The rating scale of a Rating item: (worst, best), defaulting to 1..5.
fn scale(item: &Item) -> (f64, f64) {
    let bound = |name: &str, default: f64| {
        item.values_of(name)
            .and_then(|vs| vs.iter().find_map(number_of))
            .unwrap_or(default)
    };
    (bound("worstRating", 1.0), bound("bestRating", 5.0))
}

impl Check for InvalidValue {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for item in page_items(page.dom()) {
            let types: Vec<_> = item
                .schema_types()
                .into_iter()
                .filter_map(schema_type)
                .collect();
            if types.is_empty() {
                continue;
            }
            let is_rating = types.iter().any(|t| t.is_a("Rating"));
            for prop in &item.properties {
                let Some(name) =
                    super::items::schema_name(&prop.name, &super::items::Context::SchemaOrg)
                else {
                    continue;
                };
                let Some(def) = property(name) else { continue };
                for value in &prop.values {
                    // A microdata property whose value is a nested item (an ImageObject for
                    // `image`) carries that item's text, or nothing: empty values are not judged,
                    // and prose is not judged as a URL.
                    let microdata = item.syntax == Syntax::Microdata;
                    let prose = matches!(value, PropValue::Text(t) if t.trim().contains(char::is_whitespace));
                    if microdata && matches!(value, PropValue::Text(t) if t.trim().is_empty()) {
                        continue;
                    }
                    let shown = match value {
                        PropValue::Text(t) => t.clone(),
                        PropValue::Number(n) => n.to_string(),
                        _ => continue,
                    };
                    let expected: Option<String> = if PRICE_PROPERTIES.contains(&name) {
                        match value {
                            PropValue::Number(n) if *n >= 0.0 => None,
                            PropValue::Text(t) if is_plain_price(t) => None,
                            _ => Some(
                                "a plain decimal number such as 19.99 (currency in priceCurrency)"
                                    .to_string(),
                            ),
                        }
                    } else if is_rating && name == "ratingValue" {
                        let (worst, best) = scale(&item);
                        match number_of(value) {
                            None => Some("a number".to_string()),
                            Some(r) if r < worst || r > best => Some(format!(
                                "a rating between worstRating {worst} and bestRating {best}"
                            )),
                            Some(_) => None,
                        }
                    } else if let PropValue::Text(t) = value {
                        range_violation(def, t)
                            .filter(|e| !(microdata && prose && *e == URL_SHAPE))
                            .map(str::to_string)
                    } else {
                        None
                    };
                    if let Some(expected) = expected {
                        out.report(evidence! {
                            "url" => page.final_url,
                            "selector" => item.selector,
                            "path" => item.path,
                            "property" => name,
                            "value" => shown,
                            "expected" => expected,
                        });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, json_ld_page, microdata, page};
    use crate::model::DomFacts;

    const ID: &str = "structured-data.invalid-value";

    #[test]
    fn fires_on_bad_dates_urls_prices_durations_and_ratings() {
        let p = json_ld_page(&[
            r#"{"@context": "https://schema.org", "@type": "Recipe", "name": "Soup",
            "datePublished": "May 5th 2024", "image": "/soup.jpg", "cookTime": "90 minutes",
            "offers": {"@type": "Offer", "price": "$4.99", "priceCurrency": "USD"},
            "aggregateRating": {"@type": "AggregateRating", "ratingValue": 9, "ratingCount": 3}}"#,
        ]);
        let f = findings(&p, ID);
        let props: Vec<&str> = f
            .iter()
            .map(|x| x.evidence["property"].as_str().unwrap())
            .collect();
        assert_eq!(f.len(), 5, "{f:?}");
        for p in ["datePublished", "image", "cookTime", "price", "ratingValue"] {
            assert!(props.contains(&p), "{p} in {props:?}");
        }
    }

    #[test]
    fn quiet_on_well_formed_values_and_custom_scales() {
        let p = json_ld_page(&[
            r#"{"@context": "https://schema.org", "@type": "Event", "name": "Gig",
            "startDate": "2025-05-31T19:30:00+02:00", "endDate": "2025-05-31", "image": ["https://e.com/a.jpg", {"@type": "ImageObject", "url": "https://e.com/b.jpg"}],
            "description": "May 5th", "offers": {"@type": "Offer", "price": 0, "lowPrice": "12.50", "url": "https://e.com/t", "validFrom": "2025-01-01T00:00"},
            "aggregateRating": {"@type": "AggregateRating", "ratingValue": "8.5", "bestRating": "10", "ratingCount": 3},
            "duration": "PT2H", "sameAs": "https://en.wikipedia.org/wiki/Gig"}"#,
        ]);
        assert!(findings(&p, ID).is_empty(), "{:?}", findings(&p, ID));
        let p = page(DomFacts {
            microdata: vec![microdata(
                "https://schema.org/Product",
                &[
                    ("name", "Shoe"),
                    ("url", "https://e.com/shoe"),
                    ("image", ""),
                    ("logo", "Acme logo by Jane"),
                ],
                false,
            )],
            ..Default::default()
        });
        assert!(findings(&p, ID).is_empty());
    }

    #[test]
    fn fires_on_microdata_values_too() {
        let p = page(DomFacts {
            microdata: vec![microdata(
                "https://schema.org/Event",
                &[
                    ("name", "Gig"),
                    ("startDate", "31.05.2025"),
                    ("image", "img/a.jpg"),
                ],
                false,
            )],
            ..Default::default()
        });
        assert_eq!(findings(&p, ID).len(), 2);
    }
}
