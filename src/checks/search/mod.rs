//! search: how pages appear in search results and link previews.

pub mod canonical_cross_origin;
pub mod canonical_invalid;
pub mod canonical_links;
pub mod canonical_missing;
pub mod duplicate_groups;
pub mod favicon_missing;
pub mod link_text_generic;
pub mod meta_description_duplicate;
pub mod meta_description_length;
pub mod meta_description_missing;
pub mod open_graph_image_broken;
pub mod open_graph_missing;
pub mod robots_directives;
pub mod title_duplicate;
pub mod title_length;
pub mod title_missing;
pub mod url_identity;
pub mod viewport_missing;

#[cfg(test)]
mod fixtures;

pub use canonical_cross_origin::CanonicalCrossOrigin;
pub use canonical_invalid::CanonicalInvalid;
pub use canonical_missing::CanonicalMissing;
pub use favicon_missing::FaviconMissing;
pub use link_text_generic::LinkTextGeneric;
pub use meta_description_duplicate::MetaDescriptionDuplicate;
pub use meta_description_length::MetaDescriptionLength;
pub use meta_description_missing::MetaDescriptionMissing;
pub use open_graph_image_broken::OpenGraphImageBroken;
pub use open_graph_missing::OpenGraphMissing;
pub use title_duplicate::TitleDuplicate;
pub use title_length::TitleLength;
pub use title_missing::TitleMissing;
pub use viewport_missing::ViewportMissing;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &TitleMissing,
    &TitleLength,
    &TitleDuplicate,
    &MetaDescriptionMissing,
    &MetaDescriptionLength,
    &MetaDescriptionDuplicate,
    &CanonicalMissing,
    &CanonicalInvalid,
    &CanonicalCrossOrigin,
    &OpenGraphMissing,
    &OpenGraphImageBroken,
    &ViewportMissing,
    &FaviconMissing,
    &LinkTextGeneric,
];
