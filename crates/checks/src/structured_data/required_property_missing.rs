use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::items::{Item, page_items};
use super::vocab::schema_type;
use crate::{declare_check, evidence};

/// One requirement: at least one of `any_of` must be present.
pub struct Requirement {
    pub any_of: &'static [&'static str],
    /// Not required when the item is nested in another (e.g. `itemReviewed` of a Review that is
    /// itself the `review` of the reviewed Product).
    pub unless_nested: bool,
}

const fn req(any_of: &'static [&'static str]) -> Requirement {
    Requirement {
        any_of,
        unless_nested: false,
    }
}

const fn req_top(any_of: &'static [&'static str]) -> Requirement {
    Requirement {
        any_of,
        unless_nested: true,
    }
}

/// The requirements of one rich-result type.
pub struct RichResultType {
    pub type_name: &'static str,
    /// Only when the item is the value of a property of an item of this type.
    pub within: Option<&'static str>,
    pub required: &'static [Requirement],
    /// The Google Search Central page the requirements come from.
    pub doc: &'static str,
}

/// Required properties of the rich-result types, as Google Search Central's structured-data
/// documentation lists them (developers.google.com/search/docs/appearance/structured-data/<doc>,
/// "Required properties" tables, as of 2025). A subtype inherits the row of its nearest listed
/// supertype (NewsArticle -> Article, Restaurant -> LocalBusiness, AggregateOffer has its own).
/// Article and Organization have no required properties in Google's documentation ("add the
/// properties that apply"), so this check never fires for them; their rows are kept so that a
/// NewsArticle or a Corporation is recognised as covered rather than unknown.
pub const RICH_RESULT_TYPES: &[RichResultType] = &[
    // Product snippets: name, and one of review, aggregateRating or offers.
    RichResultType {
        type_name: "Product",
        within: None,
        required: &[
            req(&["name"]),
            req(&["offers", "review", "aggregateRating"]),
        ],
        doc: "product-snippet",
    },
    // A Product's Offer: price (or a priceSpecification carrying it); merchant listings also need
    // priceCurrency. (Offers of Events and others have only recommended properties.)
    RichResultType {
        type_name: "Offer",
        within: Some("Product"),
        required: &[
            req(&["price", "priceSpecification"]),
            req(&["priceCurrency", "priceSpecification"]),
        ],
        doc: "merchant-listing",
    },
    RichResultType {
        type_name: "AggregateOffer",
        within: Some("Product"),
        required: &[req(&["lowPrice"]), req(&["priceCurrency"])],
        doc: "product-snippet",
    },
    RichResultType {
        type_name: "Article",
        within: None,
        required: &[],
        doc: "article",
    },
    RichResultType {
        type_name: "BreadcrumbList",
        within: None,
        required: &[req(&["itemListElement"])],
        doc: "breadcrumb",
    },
    // ListItem of a breadcrumb: position, and name (or an item carrying it); item may be left
    // out only on the last crumb, which this check cannot tell, so it is not required here.
    RichResultType {
        type_name: "ListItem",
        within: Some("BreadcrumbList"),
        required: &[req(&["position"]), req(&["name", "item"])],
        doc: "breadcrumb",
    },
    RichResultType {
        type_name: "Organization",
        within: None,
        required: &[],
        doc: "organization",
    },
    RichResultType {
        type_name: "FAQPage",
        within: None,
        required: &[req(&["mainEntity"])],
        doc: "faqpage",
    },
    RichResultType {
        type_name: "Question",
        within: Some("FAQPage"),
        required: &[req(&["name"]), req(&["acceptedAnswer"])],
        doc: "faqpage",
    },
    RichResultType {
        type_name: "Answer",
        within: Some("Question"),
        required: &[req(&["text"])],
        doc: "faqpage",
    },
    RichResultType {
        type_name: "Event",
        within: None,
        required: &[req(&["name"]), req(&["startDate"]), req(&["location"])],
        doc: "event",
    },
    RichResultType {
        type_name: "Recipe",
        within: None,
        required: &[req(&["name"]), req(&["image"])],
        doc: "recipe",
    },
    // jobLocation, except for fully remote jobs (applicantLocationRequirements + jobLocationType TELECOMMUTE).
    RichResultType {
        type_name: "JobPosting",
        within: None,
        required: &[
            req(&["datePosted"]),
            req(&["description"]),
            req(&["hiringOrganization"]),
            req(&["title"]),
            req(&["jobLocation", "applicantLocationRequirements"]),
        ],
        doc: "job-posting",
    },
    RichResultType {
        type_name: "LocalBusiness",
        within: None,
        required: &[req(&["name"]), req(&["address"])],
        doc: "local-business",
    },
    RichResultType {
        type_name: "Review",
        within: None,
        required: &[
            req(&["author"]),
            req(&["reviewRating"]),
            req_top(&["itemReviewed"]),
        ],
        doc: "review-snippet",
    },
    RichResultType {
        type_name: "AggregateRating",
        within: None,
        required: &[
            req(&["ratingValue"]),
            req(&["ratingCount", "reviewCount"]),
            req_top(&["itemReviewed"]),
        ],
        doc: "review-snippet",
    },
    RichResultType {
        type_name: "Rating",
        within: Some("Review"),
        required: &[req(&["ratingValue"])],
        doc: "review-snippet",
    },
    RichResultType {
        type_name: "VideoObject",
        within: None,
        required: &[req(&["name"]), req(&["thumbnailUrl"]), req(&["uploadDate"])],
        doc: "video",
    },
];

/// The table row that applies to an item: the most specific listed type it is an instance of,
/// among rows whose `within` condition holds.
pub fn applicable_row(item: &Item, items: &[Item]) -> Option<&'static RichResultType> {
    let types: Vec<_> = item
        .schema_types()
        .into_iter()
        .filter_map(schema_type)
        .collect();
    let parent_is = |t: &str| {
        item.parent
            .as_ref()
            .and_then(|(p, _)| items.get(*p))
            .is_some_and(|p| {
                p.schema_types()
                    .into_iter()
                    .filter_map(schema_type)
                    .any(|pt| pt.is_a(t))
            })
    };
    let matching: Vec<&RichResultType> = RICH_RESULT_TYPES
        .iter()
        .filter(|row| types.iter().any(|t| t.is_a(row.type_name)))
        .filter(|row| row.within.is_none_or(parent_is))
        .collect();
    // Prefer the row no other matching row specialises.
    matching.iter().copied().find(|row| {
        !matching.iter().any(|other| {
            other.type_name != row.type_name
                && schema_type(other.type_name).is_some_and(|o| o.is_a(row.type_name))
        })
    })
}

declare_check! {
    /// A rich-result type lacks a property search engines require for it.
    pub struct RequiredPropertyMissing {
        id: "structured-data.required-property-missing",
        severity: High,
        title: "Structured data lacks a required property",
        fires_when: "an item of a rich-result type (Product, Offer, BreadcrumbList, FAQPage, Event, Recipe, JobPosting, LocalBusiness, Review, VideoObject, and their subtypes and parts) lacks a property Google Search Central lists as required for it. One finding per item, listing every missing property. Article and Organization have no required properties in Google's documentation",
        description: "Google does not show a rich result (price and rating in results, breadcrumbs, event dates, FAQ, video thumbnails...) for items that miss a required property, and Search Console reports them as invalid items.",
        remediation: "Add the properties listed in the evidence to the item (e.g. `offers` with `price` and `priceCurrency` on a Product, `startDate` and `location` on an Event), following the type's page in Google's structured-data gallery, and re-test it with the Rich Results Test.",
        cwe: None,
        evidence: ["url", "selector", "path", "value", "expected", "help"],
        help_url: Some("https://developers.google.com/search/docs/appearance/structured-data/search-gallery"),
        requires: [Dom],
    }
}

impl Check for RequiredPropertyMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let items = page_items(page.dom());
        for item in &items {
            let Some(row) = applicable_row(item, &items) else {
                continue;
            };
            let missing: Vec<String> = row
                .required
                .iter()
                .filter(|r| !(r.unless_nested && item.nested))
                .filter(|r| !r.any_of.iter().any(|p| item.has(p)))
                .map(|r| r.any_of.join(" or "))
                .collect();
            if missing.is_empty() {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => item.selector,
                "path" => item.path,
                "value" => row.type_name,
                "expected" => missing,
                "help" => format!("https://developers.google.com/search/docs/appearance/structured-data/{}", row.doc),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, json_ld_page, microdata, page};
    use crate::model::DomFacts;

    const ID: &str = "structured-data.required-property-missing";

    #[test]
    fn fires_on_incomplete_products_offers_and_events() {
        let p = json_ld_page(&[
            r#"{"@context": "https://schema.org", "@type": "Product", "name": "Shoe", "offers": {"@type": "Offer", "price": "10"}}"#,
            r#"{"@context": "https://schema.org", "@type": "MusicEvent", "name": "Gig"}"#,
        ]);
        let f = findings(&p, ID);
        assert_eq!(f.len(), 2, "{f:?}");
        let offer = f.iter().find(|x| x.evidence["value"] == "Offer").unwrap();
        assert_eq!(
            offer.evidence["expected"],
            serde_json::json!(["priceCurrency or priceSpecification"])
        );
        assert_eq!(offer.evidence["path"], "$.offers");
        let event = f.iter().find(|x| x.evidence["value"] == "Event").unwrap();
        assert_eq!(
            event.evidence["expected"],
            serde_json::json!(["startDate", "location"])
        );
    }

    #[test]
    fn fires_on_breadcrumb_items_and_a_standalone_review() {
        let p = json_ld_page(&[
            r#"{"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": [{"@type": "ListItem", "name": "Home", "item": "https://e.com/"}]}"#,
            r#"{"@context": "https://schema.org", "@type": "Review", "author": {"@type": "Person", "name": "A"}, "reviewRating": {"@type": "Rating", "ratingValue": 4}}"#,
        ]);
        let f = findings(&p, ID);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f.iter().any(|x| x.evidence["value"] == "ListItem"
            && x.evidence["expected"] == serde_json::json!(["position"])));
        assert!(f.iter().any(|x| x.evidence["value"] == "Review"
            && x.evidence["expected"] == serde_json::json!(["itemReviewed"])));
    }

    #[test]
    fn quiet_for_complete_items_nested_reviews_articles_and_plain_list_items() {
        let p = json_ld_page(&[
            r#"{"@context": "https://schema.org", "@type": "Product", "name": "Shoe",
                "offers": {"@type": "AggregateOffer", "lowPrice": 5, "priceCurrency": "EUR"},
                "review": {"@type": "Review", "author": {"@type": "Person", "name": "A"}, "reviewRating": {"@type": "Rating", "ratingValue": "5"}},
                "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4.5, "reviewCount": 10}}"#,
            r#"{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "H"}"#,
            r#"{"@context": "https://schema.org", "@type": "ItemList", "itemListElement": [{"@type": "ListItem", "url": "https://e.com/a"}]}"#,
            r#"{"@context": "https://schema.org", "@type": "Restaurant", "name": "R", "address": "1 Main St"}"#,
            r#"{"@context": "https://schema.org", "@type": "Corporation", "name": "C"}"#,
        ]);
        assert!(findings(&p, ID).is_empty(), "{:?}", findings(&p, ID));
    }

    #[test]
    fn judges_microdata_too() {
        let p = page(DomFacts {
            microdata: vec![
                microdata(
                    "https://schema.org/VideoObject",
                    &[("name", "Clip"), ("uploadDate", "2024-01-01")],
                    false,
                ),
                microdata(
                    "https://schema.org/AggregateRating",
                    &[("ratingValue", "4"), ("reviewCount", "3")],
                    true,
                ),
                // offers whose value is a nested Offer item: present even with empty text.
                microdata(
                    "https://schema.org/Product",
                    &[("name headline", "Shoe"), ("offers", "")],
                    false,
                ),
            ],
            ..Default::default()
        });
        let f = findings(&p, ID);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].evidence["expected"],
            serde_json::json!(["thumbnailUrl"])
        );
    }
}
