//! repository: what an active scan finds served that should never be (version control, secrets,
//! backups, source maps, status pages, listings, leftovers), judged from the probes' answers.

pub mod backup_file_exposed;
pub mod directory_listing;
pub mod editor_leftover;
pub mod env_file_exposed;
pub mod private_key_exposed;
pub mod server_status_exposed;
pub mod source_map_exposed;
pub mod vcs_exposed;
pub mod signature;

#[cfg(test)]
mod test_support;

pub use backup_file_exposed::BackupFileExposed;
pub use directory_listing::DirectoryListing;
pub use editor_leftover::EditorLeftover;
pub use env_file_exposed::EnvFileExposed;
pub use private_key_exposed::PrivateKeyExposed;
pub use server_status_exposed::ServerStatusExposed;
pub use source_map_exposed::SourceMapExposed;
pub use vcs_exposed::VcsExposed;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &VcsExposed,
    &EnvFileExposed,
    &PrivateKeyExposed,
    &BackupFileExposed,
    &SourceMapExposed,
    &ServerStatusExposed,
    &DirectoryListing,
    &EditorLeftover,
];
