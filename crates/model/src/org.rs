//! The organisation a request acts for.

/// An organisation's id as authentication established it: an API token's, a signed-in user's,
/// the CLI's `--org`. The services take it, not a bare string, so an id of another kind (a site's,
/// a scan's) cannot be passed where the scope of every read and write is meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OrgId<'a>(&'a str);

impl<'a> OrgId<'a> {
    /// The organisation `id` (as stored: `organisations.id`).
    pub const fn new(id: &'a str) -> Self {
        OrgId(id)
    }

    /// The id, for the store.
    pub const fn as_str(self) -> &'a str {
        self.0
    }
}

impl std::fmt::Display for OrgId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}
