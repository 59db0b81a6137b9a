//! A site's budget as its owner sets it: the document is kept as written when
//! [`Budget::parse`] accepts it against the check registry, and an empty document removes it.

use crate::model::Budget;

/// Whether `id` is a check id sitescan knows.
pub fn known_check(id: &str) -> bool {
    crate::checks::registry::find(id).is_some()
}

/// What to store for `text`: `Ok(None)` for an empty document (no budget), `Ok(Some(text))`
/// for a valid one, or every error the budget has.
pub fn validate_budget(text: &str) -> Result<Option<String>, Vec<String>> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    Budget::parse(text, &known_check)?;
    Ok(Some(text.to_string()))
}

/// The stored budget of a site, parsed again (`None`: none, or one that no longer parses, say
/// after a check was removed; that is logged, never fatal).
pub fn stored_budget(site: &crate::store::SiteRow) -> Option<Budget> {
    let text = site.budget.as_deref()?;
    match Budget::parse(text, &known_check) {
        Ok(b) => Some(b),
        Err(errors) => {
            tracing::warn!(site_id = %site.id, errors = errors.len(), first = %errors.join("; "), "the site's stored budget no longer parses; not judged");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_removes_valid_is_kept_as_written_and_every_error_is_named() {
        assert_eq!(validate_budget("  \n"), Ok(None));
        let yaml = "search.title-missing: [error, {maxCount: 0}]\n";
        assert_eq!(validate_budget(yaml), Ok(Some(yaml.to_string())));
        let errors = validate_budget(r#"{"search.title-misssing": "error", "metrics.lcp-p75": "error"}"#).unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
    }
}
