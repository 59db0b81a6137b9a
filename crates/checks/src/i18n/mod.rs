//! i18n: language, charset, hreflang, direction.

pub mod charset_declaration;
pub mod language_tag;
pub mod scripts;


// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    lang_missing::LangMissing,
    lang_invalid::LangInvalid,
    lang_wrong::LangWrong,
    charset_missing::CharsetMissing,
    charset_not_utf8::CharsetNotUtf8,
    hreflang_invalid::HreflangInvalid,
    hreflang_no_return::HreflangNoReturn,
    hreflang_missing_self::HreflangMissingSelf,
    dir_missing::DirMissing,
    text_direction_wrong::TextDirectionWrong,
    lang_part_missing::LangPartMissing,
}
