//! sea-orm entities, one per table.

pub mod api_token;
pub mod finding;
pub mod organisation;
pub mod scan;
pub mod scan_page;
pub mod values;
