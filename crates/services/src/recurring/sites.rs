//! Finding the site a schedule or monitor is for: by id or by origin URL.

use super::error::RecurringError;
use crate::store::{SiteRow, Store};
use uuid::Uuid;

/// The organisation's site named by `site`: its id, or its origin (`https://shop.example.com`,
/// a trailing slash or path is ignored).
pub async fn resolve_site(store: &Store, org: &str, site: &str) -> Result<SiteRow, RecurringError> {
    let site = site.trim();
    if let Ok(id) = Uuid::parse_str(site) {
        return store.site(org, id).await?.ok_or_else(|| RecurringError::NotFound(format!("no site {id} in organisation {org}")));
    }
    let origin = match url::Url::parse(site) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => u.origin().ascii_serialization(),
        _ => return Err(RecurringError::Invalid(format!("site: {site:?} is neither a site id nor an origin URL (https://host)"))),
    };
    if let Some(row) = store.site_by_origin(org, &origin).await? {
        return Ok(row);
    }
    store
        .site_by_origin(org, site.trim_end_matches('/'))
        .await?
        .ok_or_else(|| RecurringError::NotFound(format!("no site {origin} in organisation {org} (add it with `sitescan site add`)")))
}
