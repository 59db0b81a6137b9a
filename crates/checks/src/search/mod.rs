//! search: how pages appear in search results and link previews.

pub mod canonical_links;
pub mod duplicate_groups;
pub mod robots_directives;
pub mod url_identity;


// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    title_missing::TitleMissing,
    title_length::TitleLength,
    title_duplicate::TitleDuplicate,
    meta_description_missing::MetaDescriptionMissing,
    meta_description_length::MetaDescriptionLength,
    meta_description_duplicate::MetaDescriptionDuplicate,
    canonical_missing::CanonicalMissing,
    canonical_invalid::CanonicalInvalid,
    canonical_cross_origin::CanonicalCrossOrigin,
    open_graph_missing::OpenGraphMissing,
    open_graph_image_broken::OpenGraphImageBroken,
    viewport_missing::ViewportMissing,
    favicon_missing::FaviconMissing,
    link_text_generic::SearchLinkTextGeneric,
}
