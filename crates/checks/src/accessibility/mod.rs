//! accessibility: axe-core rules (`accessibility.<axe-rule-id>`) plus our own keyboard, zoom,
//! reading and layout checks.

pub mod axe_catalogue;
pub mod axe_overlap;
pub mod name_quality;
pub mod table_kind;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

pub use axe_catalogue::{
    AXE_DEFAULT_EXCLUDED_TAGS, AXE_RUN_TAGS, AxeRuleMeta, axe_catalogue, axe_rule, catalogued_axe_checks,
    severity_from_impact,
};
pub use axe_overlap::{AXE_OVERLAPS, AxeOverlap};
pub use axe_violations::AXE_MAPPER_ID;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    axe_violations::AxeViolations,
    focus_not_visible::FocusNotVisible,
    keyboard_trap::KeyboardTrap,
    zoom_disabled::ZoomDisabled,
    heading_not_marked_up::HeadingNotMarkedUp,
    list_not_marked_up::ListNotMarkedUp,
    link_does_nothing::LinkDoesNothing,
    link_text_ambiguous::LinkTextAmbiguous,
    link_text_generic::AccessibilityLinkTextGeneric,
    link_adjacent_duplicate::LinkAdjacentDuplicate,
    link_new_window_unannounced::LinkNewWindowUnannounced,
    link_file_format_unstated::LinkFileFormatUnstated,
    control_not_focusable::ControlNotFocusable,
    control_keys_ignored::ControlKeysIgnored,
    hover_only_content::HoverOnlyContent,
    css_generated_content::CssGeneratedContent,
    accesskey_used::AccesskeyUsed,
    focus_stop_idle::FocusStopIdle,
    reading_order_mismatch::ReadingOrderMismatch,
    dialog_focus_not_moved::DialogFocusNotMoved,
    dialog_focus_not_contained::DialogFocusNotContained,
    dialog_escape_not_closing::DialogEscapeNotClosing,
    image_alt_meaningless::ImageAltMeaningless,
    image_alt_repeats_caption::ImageAltRepeatsCaption,
    image_title_without_alt::ImageTitleWithoutAlt,
    table_header_missing::TableHeaderMissing,
    layout_table_structure::LayoutTableStructure,
    table_nested::TableNested,
    table_headers_only::TableHeadersOnly,
    reflow_overflow::ReflowOverflow,
    text_resize_clipped::TextResizeClipped,
    text_spacing_clipped::TextSpacingClipped,
    text_too_small::TextTooSmall,
    line_too_long::LineTooLong,
    text_justified::TextJustified,
    all_caps_text::AllCapsText,
    italic_text::ItalicText,
    animation_too_long::AnimationTooLong,
    title_not_descriptive::TitleNotDescriptive,
    image_of_text::ImageOfText,
    image_name_not_descriptive::ImageNameNotDescriptive,
}
